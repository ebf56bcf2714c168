"""Revision 0036 on a populated store, both backends: a blank DOCX, ODT or
RTF was stored "ok" with no text, where a blank text file is "empty"; 0036
marks the files holding an item stored so -- alone or inside an archive -- to
be read again, and the next ``index`` records each as "empty", under the same
item ids. A page of a title alone, a mail of headers alone and a letter are
not read again."""

from __future__ import annotations

import zipfile
from pathlib import Path

import docx
from odf.opendocument import OpenDocumentText
from test_migrations import downgrade_to, read_again_at

from lifededup.index import IndexConfig, run
from lifededup.store import open_store

BLANK_RTF = r"{\rtf1\ansi\deff0 {\fonttbl {\f0 Times;}} }"


def test_0036_records_blank_documents_as_empty(store_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "saved"
    folder.mkdir()
    docx.Document().save(str(folder / "blank.docx"))
    OpenDocumentText().save(str(folder / "blank.odt"))
    (folder / "blank.rtf").write_text(BLANK_RTF)
    with zipfile.ZipFile(folder / "drafts.zip", "w") as archive:
        archive.write(folder / "blank.docx", "drafts/blank.docx")
        archive.writestr("drafts/plan.txt", "The plan for the garden: beans by the wall, roses by the gate.\n")
    (folder / "title.html").write_text("<html><head><title>Holiday pictures</title></head><body> </body></html>")
    (folder / "headers.eml").write_text("From: Ann <ann@example.org>\nTo: bob@example.org\n"
                                        "Date: Mon, 1 Jan 2024 10:00:00 +0000\n\n\n")
    (folder / "letter.txt").write_text("Dear Bob, the garden plan is in the drafts folder.\n")
    blank = {"blank.docx": "", "blank.odt": "", "blank.rtf": "", "drafts.zip": "drafts/blank.docx"}
    with open_store(store_url) as store:  # written at head, then the blank ones as 0035's code stored them
        run(store, [folder], IndexConfig(workers=1))
        _, rows = store.execute("SELECT path, part, id FROM items WHERE status = 'empty'")
        ids = {(Path(str(path)).name, str(part)): int(str(i)) for path, part, i in rows}
        assert sorted(ids) == sorted(blank.items()), ids
        store.execute("UPDATE items SET status = 'ok', error = NULL WHERE status = 'empty'")
    downgrade_to(store_url, "0035")

    marked = {"blank.docx": True, "blank.odt": True, "blank.rtf": True, "drafts.zip": True,
              "title.html": False, "headers.eml": False, "letter.txt": False}
    with read_again_at(store_url, "0036", folder, marked, failing=3) as store:
        _, rows = store.execute("SELECT path, part, id, status, error FROM items ORDER BY path, part")
        kept = {(Path(str(path)).name, str(part)): (int(str(i)), str(status), str(error))
                for path, part, i, status, error in rows}
        for name, part in blank.items():
            assert kept[(name, part)][:2] == (ids[(name, part)], "empty"), kept
            assert "no text in it" in kept[(name, part)][2], kept
        assert kept[("drafts.zip", "drafts/plan.txt")][1] == "ok", kept
        assert {kept[(name, "")][1] for name in ("title.html", "headers.eml", "letter.txt", "drafts.zip")} == {"ok"}
