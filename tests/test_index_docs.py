"""The README's "Indexing and watching folders" section: its commands exist
and its Python example runs."""

from __future__ import annotations

import re
import shlex

import pytest
from click.testing import CliRunner
from readme_blocks import REPO, readme_section, sh_blocks

from lifededup.cli import main


def section() -> str:
    return readme_section("## Indexing and watching folders")


def test_every_command_of_the_section_exists() -> None:
    lines = [line.split("#")[0] for block in sh_blocks(section()) for line in block.splitlines()]
    commands = [shlex.split(line) for line in lines if line.strip().startswith("lifededup ")]
    assert len(commands) >= 9, commands
    for args in commands:
        words = [a for a in args[1:3] if not a.startswith(("-", "~", "/", "'")) and "." not in a]
        result = CliRunner().invoke(main, [*words, "--help"])
        assert result.exit_code == 0 and "Example" in result.output, f"{' '.join(args)}: {result.output}"


def test_the_python_example_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    [code] = re.findall(r"```python\n(.*?)```", section(), flags=re.S)
    monkeypatch.chdir(REPO)
    exec(compile(code, "README.md", "exec"), {"__name__": "__main__"})  # noqa: S102 -- our own README
