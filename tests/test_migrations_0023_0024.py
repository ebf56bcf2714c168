"""Revision 0023 on a populated store, both backends: the PDFs a print driver
titled and the mails that are one attached file, stored as the code before
stored them, are marked to be read again, and the next ``index`` gives them
what the readers now give (the document's own title; the attached file as
the mail's part) under the same ids; nothing else is read again."""

from __future__ import annotations

import base64
from pathlib import Path

from manual_formats import write_pdf
from test_migrations import head, marked_to_read, search_ids, upgrade_to, write_files_as_before

from lifededup.index import IndexConfig, run
from lifededup.store import open_store
from lifededup.store.opening import make_engine, resolve

CORPUS = Path(__file__).resolve().parent.parent / "sample_corpus"


def test_0023_reads_again_a_printed_pdf_and_a_mail_that_is_one_attached_file(store_url: str,
                                                                            tmp_path: Path) -> None:
    folder = tmp_path / "life"
    folder.mkdir()
    write_pdf(folder / "budget.pdf", "Budget", [("Summary", "The budget for the year, line by line. " * 20)],
              info_title="Microsoft Word - Budget 2024.docx")
    write_pdf(folder / "plan.pdf", "Plan", [("Summary", "The plan for the garden, bed by bed. " * 20)],
              info_title="Garden plan - final")
    minutes = (CORPUS / "Documents/residents-minutes/PDF/residents-minutes-v1.pdf").read_bytes()
    (folder / "scan.eml").write_bytes(
        b"From: scanner@example.org\nTo: sam@example.org\nSubject: Scanned document\nMIME-Version: 1.0\n"
        b"Content-Type: application/pdf; name=scan0042.pdf\nContent-Transfer-Encoding: base64\n\n"
        + base64.encodebytes(minutes))
    (folder / "hello.eml").write_text("From: a@example.org\nSubject: Hello\n\nSee you at the harbour at nine.\n")
    upgrade_to(store_url, "0022")
    write_files_as_before(store_url, folder, [(1, "budget.pdf", "", "document", None, "The budget for the year"),
                                              (2, "plan.pdf", "", "document", None, "The plan for the garden"),
                                              (3, "scan.eml", "", "email", None, None),
                                              (4, "hello.eml", "", "email", None, "See you at the harbour")])
    engine = make_engine(resolve(store_url), readonly=False)
    with engine.begin() as conn:  # the titles as the readers before gave them
        conn.exec_driver_sql("UPDATE items SET mime_type = 'application/pdf', title = "
                             "CASE id WHEN 1 THEN 'Microsoft Word - Budget 2024.docx' ELSE 'Garden plan - final' END "
                             "WHERE id IN (1, 2)")
        conn.exec_driver_sql("UPDATE items SET mime_type = 'message/rfc822', title = 'Scanned document' WHERE id = 3")
    engine.dispose()
    upgrade_to(store_url, "0023")
    engine = make_engine(resolve(store_url), readonly=True)
    with engine.connect() as conn:  # as 0023 left them, before the store is opened (and brought to head)
        at_0023 = {Path(str(path)).name: mtime is None
                   for path, mtime in conn.exec_driver_sql("SELECT path, mtime FROM items WHERE part = ''")}
    engine.dispose()
    assert at_0023 == {"budget.pdf": True, "plan.pdf": False, "scan.eml": True, "hello.eml": False}, at_0023
    with open_store(store_url) as store:  # at head: 0033 marks every PDF as well
        assert marked_to_read(store) == {**at_0023, "plan.pdf": True}, marked_to_read(store)
        summary = run(store, [folder], IndexConfig(workers=1))
        assert (summary.updated, summary.new, summary.unchanged) == (3, 0, 1), summary
        _, rows = store.execute("SELECT id, part, title FROM items ORDER BY id")
        titles = {int(str(r[0])): (str(r[1]), r[2]) for r in rows}
        assert titles[1] == ("", "Budget 2024"), titles
        assert titles[3] == ("", "Scanned document"), titles
        parts = [part for item, (part, _) in titles.items() if item > 4]
        assert parts == ["attachment 1: scan0042.pdf"], f"the scanned PDF is the mail's part now: {titles}"
        assert search_ids(store, "maintenance") == [item for item in titles if item > 4], "the scan's words are found"
        _, [(revision,)] = store.execute("SELECT version_num FROM alembic_version")
        assert revision == head()


def test_0024_shows_datasette_the_search_of_items_on_a_populated_store(store_url: str, tmp_path: Path) -> None:
    """A store at 0023 holding items (one of them CJK): after 0024 Datasette's
    and sqlite-utils' test finds ``items_fts`` (on SQLite; PostgreSQL is not
    touched), and the index answers as before, sound."""
    from test_store import DETECT_FTS

    upgrade_to(store_url, "0023")
    engine = make_engine(resolve(store_url), readonly=False)
    with engine.begin() as conn:
        for item, title, text, apart in ((1, "Quarterly budget", "The budget for the year", None),
                                         (2, "東京", "私は東京に住んでいます", "私\x01は\x01東\x01京\x01に\x01住\x01んでいます")):
            conn.exec_driver_sql(
                "INSERT INTO items (id, machine, path, part, kind, status, indexed_at, title, text, text_apart) "
                "VALUES (:id, 'm', :path, '', 'text', 'ok', '2026-01-01 00:00:00', :title, :text, :apart)",
                {"id": item, "path": f"/{item}.txt", "title": title, "text": text, "apart": apart})
    engine.dispose()
    postgres = "://" in store_url

    def detected() -> list[object]:
        if postgres:
            return []
        reader = make_engine(resolve(store_url), readonly=True)
        with reader.connect() as conn:
            found = [tuple(r) for r in conn.exec_driver_sql(DETECT_FTS)]
        reader.dispose()
        return found

    assert detected() == [], "at 0023 neither tool finds it"
    upgrade_to(store_url, "0024")
    with open_store(store_url) as store:
        if not postgres:
            assert store.execute(DETECT_FTS)[1] == [("items_fts",)]
            store.execute("INSERT INTO items_fts (items_fts, rank) VALUES ('integrity-check', 1)")
        assert search_ids(store, "quarterly") == [1]
        assert search_ids(store, '"東 京"' if not postgres else "東 <-> 京") == [2]
    upgrade_to(store_url, "0023", down=True)
    assert detected() == [], "0024 undone"
