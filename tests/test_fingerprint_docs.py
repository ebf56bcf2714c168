"""Every command in README's "## Fingerprints" section runs, as printed there."""

from __future__ import annotations

import glob
import os
import shlex

from click.testing import CliRunner
from readme_blocks import REPO, readme_section, sh_blocks

from lifededup.cli import main


def section_commands() -> list[list[str]]:
    lines = [line.split("  #")[0].strip() for block in sh_blocks(readme_section("## Fingerprints"))
             for line in block.splitlines()]
    return [shlex.split(line) for line in lines if line.startswith("lifededup ")]


def test_fingerprints_section_commands_run() -> None:
    commands = section_commands()
    assert len(commands) >= 2, "the section shows fingerprint and compare"
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        for argv in commands:
            args = [match for arg in argv[1:] for match in (sorted(glob.glob(arg)) if "*" in arg else [arg])]
            result = CliRunner().invoke(main, args)
            assert result.exit_code == 0, f"{' '.join(argv)} -> {result.exit_code}: {result.output}"
            assert result.output.strip(), f"{' '.join(argv)} printed nothing"
    finally:
        os.chdir(cwd)
