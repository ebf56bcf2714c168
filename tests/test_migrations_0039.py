"""Revision 0039 on a populated store, both backends: a PowerPoint show
(.ppsx), an Excel add-in (.xlam) and a workbook with a DDE link were
"corrupt"; 0039 marks the files holding a spreadsheet or presentation that
failed so, or an item named as one, to be read again, and the next ``index``
reads each under its item id, found by its words.  A workbook read well and
a letter are not read again."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from openpyxl import Workbook
from test_extract_office import CORPUS, dde_linked_workbook, retyped
from test_migrations import downgrade_to, read_again_at, search_ids

from lifededup.index import IndexConfig, run
from lifededup.store import open_store
from lifededup.store.opening import make_engine, resolve

DECK = CORPUS / "Documents/kitchen-quotes/kitchen-plan-slides.pptx"
# each file's failure as 0038's code recorded it: (kind, reason); a failure has no type nor title
AS_READ_BEFORE = {
    "plan.ppsx": ("presentation", "damaged plan.ppsx: ValueError: file '<_io.BytesIO object at 0x7f>' is not a "
                                  "PowerPoint file"),
    "rates.xlam": ("document", "cannot read rates.xlam: File contains no valid workbook part"),
    "dde.xlsx": ("spreadsheet", "damaged dde.xlsx: KeyError: \"There is no item named "
                                "'xl/externalLinks/_rels/externalLink1.xml.rels' in the archive\""),
}


def test_0039_reads_again_the_workbooks_and_shows_that_were_corrupt(store_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "Office"
    folder.mkdir()
    retyped(DECK, folder / "plan.ppsx",
            "application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml")
    book = Workbook()
    book.active["A1"] = "Harbour dues by tonnage"
    book.save(folder / "dues.xlsx")
    book.active["A1"] = "Mooring rates by the quay"
    book.save(tmp_path / "rates.xlsx")
    _as_add_in(tmp_path / "rates.xlsx", folder / "rates.xlam")
    dde_linked_workbook(folder / "dde.xlsx", ("Pilotage fees for the estuary",))
    (folder / "letter.txt").write_text("Dear harbour master, the dues are enclosed.\n")
    with open_store(store_url) as store:
        run(store, [folder], IndexConfig(workers=1))
        _, rows = store.execute("SELECT path, id, status FROM items WHERE part = ''")
        ids = {Path(str(path)).name: int(str(item)) for path, item, _ in rows}
        assert {Path(str(path)).name: str(status) for path, _, status in rows} == dict.fromkeys(ids, "ok"), rows
    engine = make_engine(resolve(store_url), readonly=False)
    with engine.begin() as conn:  # as 0038's code stored them
        for name, (kind, reason) in AS_READ_BEFORE.items():
            conn.execute(sa.text("UPDATE items SET status = 'corrupt', kind = :kind, error = :reason, text = NULL, "
                                 "title = NULL, mime_type = NULL WHERE path LIKE :path"),
                         {"kind": kind, "reason": reason, "path": f"%/{name}"})
    engine.dispose()
    downgrade_to(store_url, "0038")

    marked = {"plan.ppsx": True, "rates.xlam": True, "dde.xlsx": True, "dues.xlsx": False, "letter.txt": False}
    with read_again_at(store_url, "0039", folder, marked) as store:
        assert search_ids(store, "mooring") == [ids["rates.xlam"]], "the add-in's sheet"
        assert search_ids(store, "pilotage") == [ids["dde.xlsx"]], "the linked workbook's sheet"
        assert ids["plan.ppsx"] in search_ids(store, "kitchen"), "the show's slides"
        _, statuses = store.execute("SELECT path, status FROM items WHERE part = ''")
        assert {Path(str(p)).name: s for p, s in statuses} == dict.fromkeys(marked, "ok"), statuses


def _as_add_in(workbook: Path, path: Path) -> None:
    """``workbook`` saved as an Excel add-in: its main part's content type says so."""
    import zipfile

    sheet = b"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"
    with zipfile.ZipFile(workbook) as package, zipfile.ZipFile(path, "w") as add_in:
        for name in package.namelist():
            data = package.read(name)
            if name == "[Content_Types].xml":
                assert sheet in data
                data = data.replace(sheet, b"application/vnd.ms-excel.addin.macroEnabled.main+xml")
            add_in.writestr(name, data)
