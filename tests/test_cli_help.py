"""`--help` that teaches: every command and subcommand explains itself with an
example, and every command the top-level help points at exists."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from lifededup import cli
from lifededup.cli import COMMANDS, main


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


def test_the_lazy_table_names_every_command_with_its_own_summary() -> None:
    # every @main.command / @main.group in lifededup/cli/ is in COMMANDS, under its module
    declared = {
        name: path.stem
        for path in sorted(Path(cli.__file__).parent.glob("*.py"))
        for name in re.findall(r'^@main\.(?:command|group)\("([\w-]+)"', path.read_text(), flags=re.MULTILINE)
    }
    table = {name: module for name, (module, _) in COMMANDS.items()}
    assert table == declared, f"COMMANDS in lifededup/cli/__init__.py ({table}) != the commands declared ({declared})"
    for name, (_, summary) in COMMANDS.items():
        command = main.commands[name]
        for limit in (45, 80, 1000):
            want = command.get_short_help_str(limit)
            got = click.Command(name, help=summary).get_short_help_str(limit)
            assert got == want, f"COMMANDS[{name!r}] summary says {got!r}, the command's help {want!r}"



@pytest.mark.parametrize("args", [["--db", "x.db", "dups"], ["--db=x.db", "dups"]], ids=["apart", "joined"])
def test_db_before_the_command_says_where_it_goes(args: list[str], tmp_path: Path) -> None:
    """The top-level help names --db, so a person types it there: say it goes after the command
    (click alone said "No such option '--db'"), and make no store."""
    result = CliRunner().invoke(main, args, env={"XDG_DATA_HOME": str(tmp_path)})
    assert result.exit_code == 2
    assert "--db goes after the command: lifededup COMMAND --db PATH|URL" in result.output
    assert "or set LIFEDEDUP_DB" in result.output
    assert not list(tmp_path.iterdir()) and not Path("x.db").exists()


def test_top_level_help_shows_db_after_a_command() -> None:
    output = " ".join(CliRunner().invoke(main, ["--help"]).output.split())
    assert "a command's --db PATH (lifededup search --db ~/archive.db river) or LIFEDEDUP_DB" in output


def test_failures_json_keys_are_the_ones_its_help_names(tmp_path: Path) -> None:
    """`failures --json` gives each failure's item id (for `show ID`), which its --help left out."""
    import json

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "empty.txt").write_bytes(b"")
    db = str(tmp_path / "store.db")
    assert CliRunner().invoke(main, ["index", "-j", "1", "--db", db, str(tmp_path / "docs")]).exit_code == 0
    [failure] = json.loads(CliRunner().invoke(main, ["failures", "--json", "--db", db]).stdout)
    said = " ".join(CliRunner().invoke(main, ["failures", "--help"]).output.split())
    named = re.search(r"A JSON list of objects: ([^(]*)", said)
    assert named is not None and set(failure) == set(named.group(1).replace(",", " ").split()), (failure, said)


def test_index_json_keys_are_the_ones_its_help_names(tmp_path: Path) -> None:
    """`index --json` gives `deferred` too, which its --help left out."""
    import json

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "note.txt").write_text("The hedge by the lane wants cutting before the frost.\n")
    ran = CliRunner().invoke(main, ["index", "--json", "-j", "1", "--db", str(tmp_path / "s.db"),
                                    str(tmp_path / "docs")])
    summary = json.loads(ran.stdout)
    said = " ".join(CliRunner().invoke(main, ["index", "--help"]).output.split())
    listed = re.search(r"The summary as one JSON object \((.*)\)\. --db", said)
    assert listed is not None, said
    named = set(re.findall(r"(?:^|, )(\w+)", re.sub(r"\([^()]*\)", "", listed.group(1))))
    assert set(summary) == named, (set(summary) ^ named)
