"""What a refused query teaches.  A query that only leaves words out
(``-river``) was told to quote itself, ``"-river"``, which searches for the
word it meant to leave out; the error now shows a word to find beside the
person's own left-out words.  Real files, real stores on both backends, the
real command."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from in_process import lifededup_here

from lifededup.search import PG_SYNTAX, SYNTAX
from lifededup.search.syntax import LEFT_OUT_ALONE, as_fts5, quoted, quoted_words

DOCS = {"survey.txt": "the river survey report, upstream of the dam",
        "bank.txt": "a report on the bank and its loans",
        "roof.txt": "the report of the meeting on the new roof",
        "letter.txt": "a letter to the council about the roof"}


def lifededup(store_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return lifededup_here(*args, env={"LIFEDEDUP_DB": store_url})


@pytest.fixture(scope="module")
def docs_store(module_stores: Callable[[], str], tmp_path_factory: pytest.TempPathFactory) -> str:
    """The documents indexed once for the module on each backend: its tests only search them."""
    folder = tmp_path_factory.mktemp("docs")
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    store_url = module_stores()
    indexed = lifededup(store_url, "index", "-j", "1", str(folder))
    assert indexed.returncode == 0, indexed.stderr
    return store_url


@pytest.mark.parametrize(("typed", "example", "found"), [
    ("-river", "report -river", {"bank.txt", "roof.txt"}),
    ("-river -bank", "report -river -bank", {"roof.txt"}),
    ('-"river survey" -loans', 'report -"river survey" -loans', {"roof.txt"}),
    ("-report", "letter -report", {"letter.txt"}),
    # a word after NOT is left out too, as PostgreSQL reads it: SQLite gave FTS5's syntax error, quoted
    ("-river NOT bank", "report -river -bank", {"roof.txt"}),
    # FTS5's NOT with nothing on its left: FTS5 cannot parse it, websearch read it as the word "not"
    ("NOT bank", "report -bank", {"survey.txt", "roof.txt"}),
    # named as typed on both (SQLite named the phrase it read, -"東 京")
    ("-東京", "report -東京", {"survey.txt", "bank.txt", "roof.txt"}),
])
def test_a_query_that_only_leaves_words_out_is_shown_a_word_to_find_beside_them(
        docs_store: str, typed: str, example: str, found: set[str]) -> None:
    """The whole message, as printed: why, then the person's own left-out
    words after a word to find (not the query quoted, which finds them),
    then the backend's syntax; and the example is searched as it says."""
    refused = lifededup(docs_store, "search", "--db", docs_store, "--", typed)
    syntax = PG_SYNTAX if docs_store.startswith("postgresql") else SYNTAX
    assert refused.returncode == 1 and refused.stdout == "", refused
    assert refused.stderr == (
        f"Error: cannot understand the query {typed!r} ({LEFT_OUT_ALONE}).\n"
        f"To find the items without a word, give a word they hold too, e.g.: {example}\n\n{syntax}\n"
    ), refused.stderr

    searched = lifededup(docs_store, "search", "--db", docs_store, "--json", "--all", "--", example)
    assert searched.returncode == 0, searched.stderr
    assert {Path(hit["path"]).name for hit in json.loads(searched.stdout)["hits"]} == found, searched.stdout


def test_other_refusals_still_suggest_the_query_quoted(tmp_path: Path) -> None:
    """A query FTS5 cannot parse (a phrase left open) still gets the query
    quoted, which always parses."""
    store = str(tmp_path / "store.db")
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "survey.txt").write_text(DOCS["survey.txt"], encoding="utf-8")
    assert lifededup(store, "index", str(folder)).returncode == 0
    refused = lifededup(store, "search", "--db", store, "--", '"river survey')
    assert refused.returncode == 1, refused
    assert refused.stderr.startswith(
        "Error: cannot understand the query '\"river survey' (unterminated string).\n"
        'To search for the words as typed, quote them: "river" "survey"\n\n'), refused.stderr


def test_a_near_whose_distance_is_no_number_is_refused_not_a_traceback(docs_store: str) -> None:
    """``NEAR(river survey, x)``: FTS5 says "expected integer, got "x"", which
    the search did not know for a query's error -- the CLI printed a
    traceback and the web view an error page (helper Q, on the real
    archive). SQLite refuses it as it refuses any query it cannot read;
    PostgreSQL reads its words."""
    found = lifededup(docs_store, "search", "--db", docs_store, "--", "NEAR(river survey, x)")
    assert "Traceback" not in found.stderr, found.stderr
    if docs_store.startswith("postgresql"):
        assert found.returncode == 0, found.stderr
        return
    assert found.returncode == 1, found
    assert found.stderr.startswith(
        "Error: cannot understand the query 'NEAR(river survey, x)' (expected integer, got \"x\").\n"
        'To search for the words as typed, quote them: "NEAR(river" "survey," "x)"\n\n'), found.stderr


@pytest.mark.parametrize("query", ["", " ", "\t\n", " * "])
def test_as_fts5_of_no_words_is_nothing_as_the_other_readings_give_it(query: str) -> None:
    """``as_fts5(" ")`` raised IndexError (search() never passes it one, but
    it is public): nothing to search, as ``quoted`` and ``quoted_words`` read spaces."""
    assert as_fts5(query) == "", query
    assert quoted(query.strip(" *")) == quoted_words(query.strip(" *")) == "", query


def test_a_hyphen_after_a_left_out_phrase_joins_it_alike_on_both_backends(docs_store: str) -> None:
    """A hyphen right after a closing quote is punctuation (``"%"-formatting``),
    one rule for both backends (``syntax.strings_joined``): ``-"river"-survey``
    leaves out the phrase river survey, as PostgreSQL read it, where SQLite
    kept the run and found the very items it should leave out."""
    def found(query: str) -> set[str]:
        done = lifededup(docs_store, "search", "--db", docs_store, "--json", "--all", "--", query)
        assert done.returncode == 0, done.stderr
        return {Path(hit["path"]).name for hit in json.loads(done.stdout)["hits"]}

    assert found('report -"river"-survey') == found('report -"river survey"') == {"bank.txt", "roof.txt"}
    assert found('"river"-survey') == found('"river survey"') == {"survey.txt"}


@pytest.mark.parametrize("typed", ["roof or -river", "-river OR roof", 'letter or -"river survey"', "roof OR NOT river"])
def test_an_or_branch_that_only_leaves_words_out_is_refused_on_both_backends(docs_store: str, typed: str) -> None:
    """``roof or -river`` is "roof, or every item without river": SQLite
    refused it (FTS5 cannot say the branch), PostgreSQL scanned every item
    (1,902 of a real archive's 1,909 for ``werkzeug or -routing``).  Refused
    alike, as the query of left-out words alone is; a branch that holds a
    word to find beside them is answered alike."""
    refused = lifededup(docs_store, "search", "--db", docs_store, "--", typed)
    assert refused.returncode == 1 and refused.stdout == "", refused
    assert f"({LEFT_OUT_ALONE})" in refused.stderr, refused.stderr
    answered = lifededup(docs_store, "search", "--db", docs_store, "--json", "--all", "--", "letter or report -river")
    assert answered.returncode == 0, answered.stderr
    assert {Path(hit["path"]).name for hit in json.loads(answered.stdout)["hits"]} == \
        {"letter.txt", "bank.txt", "roof.txt"}, answered.stdout
