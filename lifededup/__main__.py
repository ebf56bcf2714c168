from lifededup.cli import main

main()
