"""`--help` that teaches: every command and subcommand explains itself with an
example, and every command the top-level help points at exists."""

from __future__ import annotations

import re

import click
import pytest
from click.testing import CliRunner

from lifededup.cli import main


def all_commands(group: click.Group = main, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = []
    for name, command in sorted(group.commands.items()):
        path = (*prefix, name)
        if isinstance(command, click.Group):
            found.extend(all_commands(command, path))
        else:
            found.append(path)
    return found


@pytest.mark.parametrize("path", all_commands(), ids=" ".join)
def test_every_command_has_help_with_an_example(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(main, [*path, "--help"])
    assert result.exit_code == 0, result.output
    body = result.output.split("Options:")[0]
    assert len(body.split()) >= 12, f"lifededup {' '.join(path)} --help says too little:\n{result.output}"
    assert "Example" in result.output or "lifededup " + " ".join(path) in body, (
        f"lifededup {' '.join(path)} --help shows no example:\n{result.output}"
    )


def test_top_level_help_names_only_real_commands() -> None:
    output = CliRunner().invoke(main, ["--help"]).output
    named = set(re.findall(r"^\s+lifededup (\w+)", output, flags=re.MULTILINE))
    named |= set(re.findall(r"^\s+lifededup \w+ / (\w+)", output, flags=re.MULTILINE))
    assert {"index", "search", "dups", "show", "stats", "verify", "sql", "folders"} <= named, output
    missing = named - set(main.commands)
    assert not missing, f"top-level help mentions commands that do not exist: {missing}"
