"""`lifededup failures` on an archive whose failures are of several kinds:
a real mail archive's were 13 empty attachments and 5 images waiting for
OCR, one list.  The list can be of one status (`--status`, the web view's
`?status=`), and says how many failed of each; its lines on stdout stay the
failures alone, a tab between their fields.  Real files, indexed, on both
backends, the CLI as its own process."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from store_samples import prose
from test_daemon import lifededup

from lifededup.index import IndexConfig, run
from lifededup.store import open_store


@pytest.fixture
def env(tmp_path: Path, store_url: str) -> dict[str, str]:
    """Three empty notes, two broken PDFs and a good report, indexed."""
    folder = tmp_path / "archive"
    folder.mkdir()
    (folder / "report.txt").write_text(prose(3))
    for n in range(3):
        (folder / f"note{n}.txt").write_bytes(b"")
    for n in range(2):
        (folder / f"broken{n}.pdf").write_bytes(b"%PDF-1.4 cut short")
    with open_store(store_url) as store:
        run(store, [folder], IndexConfig(workers=1))
    return {**os.environ, "LIFEDEDUP_DB": store_url}


def test_the_list_says_how_many_failed_of_each_status(env: dict[str, str]) -> None:
    listed = lifededup(env, "failures")
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert sorted(line.split("\t")[0] for line in lines) == ["corrupt"] * 2 + ["empty"] * 3, listed.stdout
    assert all(line.count("\t") == 2 for line in lines), "a line that is not a failure on stdout"
    assert listed.stderr == "5 failed items: 3 empty, 2 corrupt\n", listed.stderr


def test_one_status_alone(env: dict[str, str]) -> None:
    broken = lifededup(env, "failures", "--status", "corrupt")
    assert broken.returncode == 0, broken.stderr
    assert [line.split("\t")[0] for line in broken.stdout.splitlines()] == ["corrupt", "corrupt"], broken.stdout
    assert [Path(line.split("\t")[1]).name for line in broken.stdout.splitlines()] == ["broken0.pdf", "broken1.pdf"]
    assert broken.stderr == "2 of 5 failed items are corrupt; all: 3 empty, 2 corrupt\n", broken.stderr
    short = lifededup(env, "failures", "--status", "empty", "--status", "corrupt", "--limit", "4")
    assert len(short.stdout.splitlines()) == 4, short.stdout
    assert short.stderr == "5 of 5 failed items are empty or corrupt, 4 shown; all: 3 empty, 2 corrupt\n", \
        short.stderr
    as_json = lifededup(env, "failures", "--status", "empty", "--json")
    assert as_json.returncode == 0 and as_json.stderr == "", as_json.stderr
    assert as_json.stdout.count('"status": "empty"') == 3 and "corrupt" not in as_json.stdout, as_json.stdout


def test_a_status_none_failed_of_says_what_did(env: dict[str, str]) -> None:
    none = lifededup(env, "failures", "--status", "encrypted")
    assert (none.returncode, none.stderr) == (0, ""), none.stderr
    assert none.stdout == "no failures of the status encrypted; the store's 5: 3 empty, 2 corrupt\n", none.stdout


def test_the_web_view_lists_one_status_and_links_the_others(env: dict[str, str]) -> None:
    pytest.importorskip("starlette", reason="the web view needs its extra: pip install '.[web]'")
    from starlette.testclient import TestClient

    from lifededup.web import create_app

    with TestClient(create_app(env["LIFEDEDUP_DB"]), base_url="http://127.0.0.1:8765") as client:
        page = client.get("/failures?status=corrupt").text
        assert '<a href="/failures?status=empty">3 empty</a>' in page and "<strong>2 corrupt</strong>" in page, page
        assert "broken0.pdf" in page and "note0.txt" not in page, page
        listed = client.get("/failures.json?status=corrupt").json()
        assert [Path(f["path"]).name for f in listed] == ["broken0.pdf", "broken1.pdf"], listed
        every = client.get("/failures").text
        assert all(f"note{n}.txt" in every for n in range(3)) and "broken1.pdf" in every, every
