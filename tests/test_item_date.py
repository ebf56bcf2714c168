"""An item's page in the web view dates it as its search row does: a file
whose format records no date of its own is dated by its mtime -- perhaps the
day it was copied -- and both say "file date"; the page said the raw
``2026-11-27T03:03:54+00:00`` with no such mark.  A mail's own date is said
in UTC, as the search row reads it.  Both backends."""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web view needs its extra: pip install '.[web]'")

from click.testing import CliRunner  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from lifededup.cli import main  # noqa: E402
from lifededup.web import create_app  # noqa: E402

COPIED = datetime(2026, 11, 27, 3, 3, 54, tzinfo=timezone.utc)  # the day the file was copied, say
MAIL = """From: Alice <alice@example.org>
To: Bob <bob@example.org>
Subject: The heron at the weir
Date: Fri, 01 Mar 2024 10:00:00 +0100

The grey heron stood by the weir again this morning, waiting for the fish.
"""


def run(*args: str, db: str) -> str:
    done = CliRunner().invoke(main, [*args, "--db", db])
    assert done.exit_code == 0, f"{args}: exit {done.exit_code}\n{done.output}"
    return done.stdout


def page_date(db: str, item_id: int) -> str:
    with TestClient(create_app(db), base_url="http://127.0.0.1:8765") as client:
        page = client.get(f"/items/{item_id}")
    assert page.status_code == 200, page.text[:500]
    said = re.search(r"<dt>date</dt><dd>(.*?)</dd>", page.text)
    assert said, page.text
    return re.sub(r"<[^>]*>", "", said[1])


def test_an_items_page_says_file_date_where_its_search_row_does(store_url: str, tmp_path: Path) -> None:
    db, root = store_url, tmp_path / "archive"
    root.mkdir()
    note = root / "heron-note.txt"
    note.write_text("notes on the grey heron: it stood by the weir for an hour\n")
    os.utime(note, (COPIED.timestamp(), COPIED.timestamp()))
    (root / "letter.eml").write_text(MAIL)
    run("index", str(root), db=db)
    rows = run("search", "--all", "heron", db=db)
    hits = {Path(h["path"]).name: h["id"] for h in json.loads(run("search", "--all", "--json", "heron", db=db))["hits"]}

    assert "heron-note.txt  (text, file date 2026-11-27)" in rows, rows
    assert page_date(db, hits["heron-note.txt"]) == "file date 2026-11-27 03:03:54"
    # the mail's own date (its Date header), in UTC as the search row takes it: no "file date"
    assert "letter.eml  (email, 2024-03-01)" in rows, rows
    assert page_date(db, hits["letter.eml"]) == "2024-03-01 09:00:00"


def test_a_date_that_does_not_read_is_the_files_on_the_row_and_the_page(store_url: str, tmp_path: Path) -> None:
    """A doc_date changed by hand (``sql --write``) to what is no date falls
    back to the mtime, and both the search row and the item's page say so;
    the row said the mtime without "file date" (it tested ``doc_date IS
    NULL``).  A day alone is said as a day on both."""
    db, root = store_url, tmp_path / "archive"
    root.mkdir()
    letter = root / "letter.eml"
    letter.write_text(MAIL)
    os.utime(letter, (COPIED.timestamp(), COPIED.timestamp()))
    run("index", str(root), db=db)
    item_id = json.loads(run("search", "--json", "heron", db=db))["hits"][0]["id"]

    run("sql", "--write", "UPDATE items SET doc_date = 'last spring'", db=db)
    assert "letter.eml  (email, file date 2026-11-27)" in run("search", "heron", db=db)
    hit = json.loads(run("search", "--json", "heron", db=db))["hits"][0]
    assert (hit["date"], hit["file_date"]) == ("2026-11-27 03:03:54", True)
    assert page_date(db, item_id) == "file date 2026-11-27 03:03:54"

    run("sql", "--write", "UPDATE items SET doc_date = '2024-03-01'", db=db)
    assert "letter.eml  (email, 2024-03-01)" in run("search", "heron", db=db)
    assert page_date(db, item_id) == "2024-03-01"


def test_a_mailboxs_page_lists_the_mails_inside_it(store_url: str, tmp_path: Path) -> None:
    """A mailbox's page lists the mails inside it (``item_parts``), read with
    the same dated SQL as the page's own item (spelled with colons on
    PostgreSQL, which SQLAlchemy's ``text()`` would read as parameters)."""
    db, root = store_url, tmp_path / "archive"
    root.mkdir()
    (root / "inbox.mbox").write_text(f"From alice@example.org Fri Mar  1 10:00:00 2024\n{MAIL}\n")
    run("index", str(root), db=db)
    box = json.loads(run("sql", "--json", "SELECT id FROM items WHERE part = ''", db=db))[0]["id"]
    with TestClient(create_app(db), base_url="http://127.0.0.1:8765") as client:
        page = client.get(f"/items/{box}")
    assert page.status_code == 200, page.text[:500]
    assert "Inside it (1)" in page.text and "The heron at the weir" in page.text, page.text
