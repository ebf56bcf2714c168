"""Revision 0037 on a populated store, both backends:

- a PDF of blank pages, or of none, was "no-text-layer" ("probably a
  scan"), counted among the scans the summary offers ``--ocr`` for;
- a zip of stored members whose first is a PDF was read as that PDF, its
  other members never read.

0037 marks the files holding an item that failed as "no-text-layer", or a PDF
not named ``.pdf``, to be read again -- alone or inside an archive -- and
the next ``index`` records the blank ones as "empty" and reads the zip's
members, under the same item ids; a real scan is "no-text-layer" again.  A
PDF named ``.pdf`` and a letter are not read again."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

from test_extract_pdf import CORPUS, MINUTES, written_by_pdfium
from test_migrations import downgrade_to, read_again_at

from lifededup.index import IndexConfig, run
from lifededup.store import open_store

# what 0036's code recorded for a PDF with nothing on its pages
SCAN_SAID = ("no text layer in 1 page(s): probably a scan: OCR is off: `lifededup index --ocr` reads scans "
             "with Tesseract")
NOTE = "The minutes and this note travel together in one archive, as sent to the committee.\n"


def test_0037_records_blank_pdfs_as_empty_and_reads_an_archive_read_as_its_pdf(store_url: str,
                                                                                tmp_path: Path) -> None:
    folder = tmp_path / "saved"
    folder.mkdir()
    written_by_pdfium(folder / "blank.pdf", 2)
    written_by_pdfium(folder / "nothing.pdf", 0)
    with zipfile.ZipFile(folder / "forms.zip", "w") as archive:
        archive.write(folder / "blank.pdf", "forms/blank.pdf")
        archive.writestr("forms/note.txt", "The form for the allotment is in the shed, on the shelf by the door.\n")
    with zipfile.ZipFile(folder / "papers.zip", "w") as archive:  # stored: the PDF's bytes open the zip
        archive.write(MINUTES, "papers/minutes.pdf")
        archive.writestr("papers/note.txt", NOTE)
    shutil.copy(CORPUS / "Bad files/scanned letter.pdf", folder / "scan.pdf")
    shutil.copy(MINUTES, folder / "minutes.pdf")
    (folder / "letter.txt").write_text("Dear Bob, the allotment form is in the shed.\n")
    blank = {("blank.pdf", ""): "2 pages with nothing on them", ("nothing.pdf", ""): "a PDF of no pages",
             ("forms.zip", "forms/blank.pdf"): "2 pages with nothing on them"}
    with open_store(store_url) as store:  # written at head, then as 0036's code stored them
        run(store, [folder], IndexConfig(workers=1))
        _, rows = store.execute("SELECT path, part, id FROM items WHERE status = 'empty'")
        ids = {(Path(str(path)).name, str(part)): int(str(i)) for path, part, i in rows}
        assert sorted(ids) == sorted(blank), ids
        store.execute("UPDATE items SET status = 'no-text-layer', error = :said WHERE status = 'empty'",
                      {"said": SCAN_SAID})
        _, [(papers,)] = store.execute("SELECT id FROM items WHERE path LIKE '%papers.zip' AND part = ''")
        _, members = store.execute("SELECT id FROM items WHERE parent_id = :p", {"p": papers})
        assert store.remove_ids(int(str(m[0])) for m in members) == 2
        store.execute("UPDATE items SET kind = 'document', mime_type = 'application/pdf' WHERE id = :p",
                      {"p": papers})
    downgrade_to(store_url, "0036")

    marked = {"blank.pdf": True, "nothing.pdf": True, "forms.zip": True, "scan.pdf": True, "papers.zip": True,
              "minutes.pdf": False, "letter.txt": False}
    with read_again_at(store_url, "0037", folder, marked, failing=3) as store:
        _, rows = store.execute("SELECT path, part, id, status, error, kind FROM items ORDER BY path, part")
        kept = {(Path(str(path)).name, str(part)): (int(str(i)), str(status), str(error), str(kind))
                for path, part, i, status, error, kind in rows}
        for (name, part), said in blank.items():
            assert kept[(name, part)][:3] == (ids[(name, part)], "empty", f"{Path(part or name).name} "
                                              f"is empty: {said}"), kept
        assert kept[("scan.pdf", "")][1] == "no-text-layer", kept
        assert {kept[(name, "")][1] for name in ("forms.zip", "papers.zip", "minutes.pdf", "letter.txt")} == {"ok"}
        assert kept[("forms.zip", "forms/note.txt")][1] == "ok", kept
        assert kept[("papers.zip", "")][::3] == (papers, "archive"), kept
        assert {part: kept[("papers.zip", part)][1] for part in ("papers/minutes.pdf", "papers/note.txt")} == {
            "papers/minutes.pdf": "ok", "papers/note.txt": "ok"}, kept
