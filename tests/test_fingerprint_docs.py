"""Every command in README's "## Fingerprints" section runs, as printed there."""

from __future__ import annotations

import glob
import os
import re
import shlex
from pathlib import Path

from click.testing import CliRunner

from lifededup.cli import main

ROOT = Path(__file__).resolve().parent.parent


def section_commands() -> list[list[str]]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Fingerprints", 1)[1].split("\n## ", 1)[0]
    lines = [line.split("  #")[0].strip() for block in re.findall(r"```sh\n(.*?)```", section, re.S)
             for line in block.splitlines()]
    return [shlex.split(line) for line in lines if line.startswith("lifededup ")]


def test_fingerprints_section_commands_run() -> None:
    commands = section_commands()
    assert len(commands) >= 2, "the section shows fingerprint and compare"
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        for argv in commands:
            args = [match for arg in argv[1:] for match in (sorted(glob.glob(arg)) if "*" in arg else [arg])]
            result = CliRunner().invoke(main, args)
            assert result.exit_code == 0, f"{' '.join(argv)} -> {result.exit_code}: {result.output}"
            assert result.output.strip(), f"{' '.join(argv)} printed nothing"
    finally:
        os.chdir(cwd)
