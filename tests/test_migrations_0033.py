"""Revision 0033 on a populated store, both backends: the files whose text
session 27's extractor fixes change are read again -- a to-do standing alone
that was "empty", a PDF opening without a password that was "encrypted", a
deck of charts that was "empty", a mail indexed as its part's base64, a DOCX
(read anew whatever it holds) -- under the same item ids, and found by their
words; a calendar read well and a text file are not read again."""

from __future__ import annotations

import shutil
from pathlib import Path

import docx
import sqlalchemy as sa
from test_migrations import downgrade_to, read_again_at, search_ids

from lifededup.index import IndexConfig, run
from lifededup.store import open_store
from lifededup.store.opening import make_engine, resolve

FIXTURES = Path(__file__).parent / "fixtures"
# each file's row as 0032's code wrote it: (status, kind, text)
AS_READ_BEFORE = {
    "todo.ics": ("empty", "calendar", None),
    "locked.pdf": ("encrypted", "document", None),
    "charts.pptx": ("empty", "presentation", None),
    "spam.eml": ("ok", "email", "Content-Type: text/html; Content-Transfer-Encoding: base64 PGh0bWw+PGhlYWQ+"),
}


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "Archive"
    folder.mkdir()
    for name, fixture in (("todo.ics", "calendar/todo_example.ics"), ("mozilla.ics", "calendar/mozilla.ics"),
                          ("locked.pdf", "encrypted/r6-user-password.pdf"), ("charts.pptx", "pptx/cht-charts.pptx"),
                          ("spam.eml", "mail/mail_malformed_3")):
        shutil.copyfile(FIXTURES / fixture, folder / name)
    report = docx.Document()
    report.add_paragraph("The harbour committee's report on the breakwater.")
    report.save(str(folder / "report.docx"))
    (folder / "letter.txt").write_text("The festival committee meets on Thursday at the harbour office.\n")
    return folder


def _as_read_before(store_url: str) -> None:
    engine = make_engine(resolve(store_url), readonly=False)
    with engine.begin() as conn:
        for name, (status, kind, text) in AS_READ_BEFORE.items():
            # a failure has the kind its name says, no type nor title
            unread = ", mime_type = NULL, title = NULL" if status != "ok" else ""
            conn.execute(sa.text(f"UPDATE items SET status = :status, kind = :kind, text = :text{unread}"
                                 " WHERE path LIKE :path"),
                         {"status": status, "kind": kind, "text": text, "path": f"%/{name}"})
    engine.dispose()


def test_0033_reads_again_the_files_session_27_reads_otherwise(store_url: str, tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    with open_store(store_url) as store:
        run(store, [folder], IndexConfig(workers=1))
        _, rows = store.execute("SELECT path, id FROM items WHERE part = ''")
        ids = {Path(str(path)).name: int(str(item)) for path, item in rows}
    _as_read_before(store_url)
    downgrade_to(store_url, "0032")
    with open_store(store_url) as store:
        assert search_ids(store, "PGh0bWw") == [ids["spam.eml"]], "0032's state: the base64 is searched"
        assert search_ids(store, "quebec") == [], "0032's state: the to-do is not read"

    marked = {"todo.ics": True, "locked.pdf": True, "charts.pptx": True, "spam.eml": True, "report.docx": True,
              "mozilla.ics": False, "letter.txt": False}
    with read_again_at(store_url, "0033", folder, marked) as store:
        assert search_ids(store, "quebec") == [ids["todo.ics"]], "the to-do, read under its id"
        assert search_ids(store, "asdfzxcv") == [ids["locked.pdf"]], "the PDF opened without a password"
        assert search_ids(store, "category") == [ids["charts.pptx"]], "the deck's charts' words"
        assert search_ids(store, "PGh0bWw") == [] and search_ids(store, "visualizar") == [ids["spam.eml"]]
        _, statuses = store.execute("SELECT path, status FROM items WHERE part = ''")
        assert {Path(str(p)).name: s for p, s in statuses} == dict.fromkeys(marked, "ok"), statuses
