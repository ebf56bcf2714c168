"""The README's "Indexing and watching folders" section: its commands exist
and its Python example runs."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from lifededup.cli import main

REPO = Path(__file__).resolve().parents[1]


def section() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text.index("## Indexing and watching folders")
    end = text.find("\n## ", start + 1)
    return text[start:end]


def test_every_command_of_the_section_exists() -> None:
    lines = [line.split("#")[0] for block in re.findall(r"```sh\n(.*?)```", section(), flags=re.S)
             for line in block.splitlines()]
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
