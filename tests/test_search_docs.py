"""The README's "Searching and reports" section: every command in it runs on a
store of sample_corpus/ and prints what the section says it does; the query
syntax it shows is the one the program gives."""

from __future__ import annotations

import json
import re
import shlex

import pytest
from click.testing import CliRunner
from corpus_store import CorpusStore, corpus_store
from readme_blocks import readme_section, sh_blocks

from lifededup.cli import main
from lifededup.search import PG_SYNTAX, SYNTAX


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> CorpusStore:
    return corpus_store(tmp_path_factory)


def section() -> str:
    return readme_section("## Searching and reports")


def commands() -> list[list[str]]:
    return [shlex.split(line) for block in sh_blocks(section()) for line in block.splitlines()
            if line.startswith("lifededup ")]


def test_the_section_has_its_examples() -> None:
    names = {args[1] for args in commands()}
    assert names == {"search", "stats", "verify"} and len(commands()) >= 8, commands()


@pytest.mark.parametrize("args", commands(), ids=lambda args: " ".join(args[1:]))
def test_every_example_runs_on_the_sample_corpus(corpus: CorpusStore, args: list[str]) -> None:
    result = CliRunner().invoke(main, [*args[1:], "--db", str(corpus.db)])
    assert result.exit_code == 0, f"{shlex.join(args)}:\n{result.output}"
    out = result.output
    if "--json" in args:
        assert json.loads(out)["hits"], out
    elif args[1] == "search":
        assert "no matches" not in out and re.search(r"^\s+1\. ", out, flags=re.M), f"{shlex.join(args)}:\n{out}"
    elif args[1] == "stats":
        assert "Table 2" in out and "Table 1" in out, out
    else:
        assert "clusters over 30%" in out, out


def test_the_readme_gives_the_programs_query_syntax() -> None:
    assert SYNTAX in section(), "the README's query syntax differs from lifededup.search.SYNTAX"
    assert PG_SYNTAX in section(), "the README's PostgreSQL query syntax differs from lifededup.search.PG_SYNTAX"
    help_text = CliRunner().invoke(main, ["search", "--help"]).output
    assert "NEAR(river survey, 5)" in help_text and "Example" in help_text
    assert "river -bank" in help_text, "search --help does not give the syntax on a PostgreSQL store"


def test_the_sample_output_is_what_search_prints(corpus: CorpusStore) -> None:
    result = CliRunner().invoke(main, ["search", "river survey", "--db", str(corpus.db)])
    sample = "1 of 1 result (7 matching items, copies collapsed; --all shows every item)"
    assert sample in section() and sample in result.output, result.output
    assert "+6 copies" in result.output and "+6 copies" in section()
