"""A PostgreSQL store's text search configuration ``lifededup`` (revision
0029: ``simple``'s, each word read through the ``unaccent`` extension
first), dropped by hand -- or with the extension (``DROP EXTENSION unaccent
CASCADE`` drops it too): every search and every item's indexing failed with
the server's error, and ``lifededup check`` crashed making the documents
again.  ``check`` names it with the statements that make it again, a search
or an index says to run ``check``, and the statements said make the store
whole.  The real server, the real command."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from in_process import lifededup_here

TOKENS = ("asciihword, asciiword, email, file, float, host, hword, hword_asciipart, hword_numpart, hword_part, int, "
          "numhword, numword, sfloat, uint, url, url_path, version, word")


def lifededup(db: str, *args: str) -> subprocess.CompletedProcess[str]:
    return lifededup_here(args[0], "--db", db, *args[1:], env={"LIFEDEDUP_DB": ""})


def found(db: str, query: str) -> set[str]:
    done = lifededup(db, "search", "--json", "--all", "--", query)
    assert done.returncode == 0, done.stderr
    return {Path(hit["path"]).name for hit in json.loads(done.stdout)["hits"]}


@pytest.mark.parametrize(("drop", "extension", "dictionary"), [
    ("DROP TEXT SEARCH CONFIGURATION lifededup", [], "public.unaccent"),
    ("DROP EXTENSION unaccent CASCADE", ["CREATE EXTENSION IF NOT EXISTS unaccent"], "unaccent"),
])
def test_check_names_a_lost_search_configuration_and_the_statements_that_make_it_again(
        tmp_path: Path, pg_url: str, drop: str, extension: list[str], dictionary: str) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "cafe.txt").write_text("Mon résumé du café, une crème brûlée.", encoding="utf-8")
    (folder / "river.txt").write_text("the river survey report", encoding="utf-8")
    assert lifededup(pg_url, "index", str(folder)).returncode == 0
    assert lifededup(pg_url, "check").returncode == 0
    assert lifededup(pg_url, "sql", "--write", drop).returncode == 0

    checked = lifededup(pg_url, "check")
    statements = [*extension, "CREATE TEXT SEARCH CONFIGURATION lifededup (COPY = pg_catalog.simple)",
                  f"ALTER TEXT SEARCH CONFIGURATION lifededup ALTER MAPPING FOR {TOKENS} "
                  f"WITH {dictionary}, pg_catalog.simple"]
    gone = ", nor the unaccent extension it reads words through (made by the database's owner)" if extension else ""
    assert checked.returncode == 1 and checked.stdout == "", checked
    assert checked.stderr == (
        f"problem: search-configuration: the store has no text search configuration lifededup (revision 0029)"
        f"{gone}: its documents were made with it and every search reads words with it, so searching and "
        "indexing fail; make it again with: "
        + " and ".join(f"lifededup sql --write {shlex.quote(statement)}" for statement in statements)
        + f"\nError: 1 problem(s) in {pg_url}\n"), checked.stderr
    as_json = lifededup(pg_url, "check", "--json")
    assert [p["check"] for p in json.loads(as_json.stdout)["problems"]] == ["search-configuration"], as_json

    # a search, and an index, say what to run instead of the server's error
    lost = (f"Error: {pg_url} has lost its text search configuration lifededup, with which searching "
            "and indexing read words: `lifededup check` names what is missing and the statements that make it "
            "again\n")
    searched = lifededup(pg_url, "search", "river")
    assert searched.returncode == 1 and searched.stderr == lost, searched.stderr
    (folder / "new.txt").write_text("a new note about the river", encoding="utf-8")
    indexed = lifededup(pg_url, "index", str(folder))
    assert indexed.returncode == 1 and indexed.stderr.endswith(lost) and "Traceback" not in indexed.stderr, indexed

    # what check said, run as said: clean again, and a word found whatever its accents
    run_as_said(pg_url, checked.stderr, "make it again with: ")
    assert lifededup(pg_url, "check").stdout.startswith("ok: 2 items")
    assert found(pg_url, "cafe creme") == {"cafe.txt"}
    assert lifededup(pg_url, "index", str(folder)).returncode == 0
    assert found(pg_url, "river") == {"river.txt", "new.txt"}


def run_as_said(pg_url: str, stderr: str, lead: str) -> None:
    """Run each `lifededup sql --write` statement ``check``'s first line of
    ``stderr`` gives after ``lead``, as a person pastes them; each succeeds."""
    said = re.search(re.escape(lead) + r"(.*)$", stderr.splitlines()[0])
    assert said is not None, stderr
    for command in said.group(1).split(" and lifededup "):
        args = shlex.split(command.removeprefix("lifededup "))
        assert args[:2] == ["sql", "--write"], command
        done = lifededup(pg_url, *args)
        assert done.returncode == 0, done.stderr

def test_a_search_from_code_or_the_web_view_says_to_run_check(tmp_path: Path, pg_url: str) -> None:
    """``search()`` (and so the web view) met the dropped configuration as
    the server's raw error, where the CLI said to run ``check``: a
    ``MissingIndex`` with the same words, and a page saying them."""
    from lifededup.search import search
    from lifededup.store import open_reader
    from lifededup.store.check import LOST_CONFIGURATION
    from lifededup.store.errors import MissingIndex

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "river.txt").write_text("the river survey report", encoding="utf-8")
    assert lifededup(pg_url, "index", str(folder)).returncode == 0
    assert lifededup(pg_url, "sql", "--write", "DROP TEXT SEARCH CONFIGURATION lifededup").returncode == 0
    reader = open_reader(pg_url)
    try:
        with pytest.raises(MissingIndex, match=re.escape(LOST_CONFIGURATION)):
            search(reader, "river")
    finally:
        reader.close()
    pytest.importorskip("starlette", reason="the web view needs its extra: pip install '.[web]'")
    from starlette.testclient import TestClient

    from lifededup.web import create_app

    with TestClient(create_app(pg_url), base_url="http://127.0.0.1:8765") as client:
        page = client.get("/search.json?q=river")
        assert page.status_code == 500 and page.json() == {"error": f"{pg_url} {LOST_CONFIGURATION}"}, page.text


@pytest.mark.parametrize(("altered", "said", "unmap"), [
    ("ALTER MAPPING FOR word, hword, hword_part WITH simple", "hword, hword_part, word read through pg_catalog.simple",
     []),
    ("DROP MAPPING FOR word", "word not read (no mapping)", []),
    ("ADD MAPPING FOR blank WITH simple", "blank read too, which revision 0029 leaves out",
     ["ALTER TEXT SEARCH CONFIGURATION lifededup DROP MAPPING IF EXISTS FOR blank"]),
])
def test_check_names_a_search_configuration_altered_by_hand_and_the_statements_that_make_it_again(
        tmp_path: Path, pg_url: str, altered: str, said: str, unmap: list[str]) -> None:
    """The configuration still there, its mappings altered: nothing failed,
    but a search missed what the documents hold (café read without unaccent
    finds no 'cafe'), and check blamed the documents (fts-index) instead."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "cafe.txt").write_text("Mon résumé du café, une crème brûlée.", encoding="utf-8")
    (folder / "river.txt").write_text("the river survey report", encoding="utf-8")
    assert lifededup(pg_url, "index", str(folder)).returncode == 0
    assert found(pg_url, "café") == {"cafe.txt"}
    assert lifededup(pg_url, "sql", "--write", f"ALTER TEXT SEARCH CONFIGURATION lifededup {altered}").returncode == 0
    if "blank" not in altered:
        assert found(pg_url, "café") == set(), "the harm the check is for: an accented word is missed"

    checked = lifededup(pg_url, "check")
    statements = [*unmap, f"ALTER TEXT SEARCH CONFIGURATION lifededup ALTER MAPPING FOR {TOKENS} "
                  "WITH public.unaccent, pg_catalog.simple"]
    assert checked.returncode == 1 and checked.stdout == "", checked
    assert checked.stderr == (
        "problem: search-configuration: the store's text search configuration lifededup is not revision 0029's, "
        f"which reads each of its words through public.unaccent, pg_catalog.simple: {said}; so a search misses "
        "words the documents hold (an accented word, say), and an item indexed now is given other words; make "
        "its mappings again with: "
        + " and ".join(f"lifededup sql --write {shlex.quote(statement)}" for statement in statements)
        + f"\nError: 1 problem(s) in {pg_url}\n"), checked.stderr

    # what check said, run as said: clean again, and the accented word found
    run_as_said(pg_url, checked.stderr, "make its mappings again with: ")
    assert lifededup(pg_url, "check").stdout.startswith("ok: 2 items")
    assert found(pg_url, "café") == {"cafe.txt"}
