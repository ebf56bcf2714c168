"""Revision 0046 on a populated store, both backends: a spreadsheet's dates
were days since 1900 (.xls) or had a midnight time (.xlsx); Flat XML ODF,
Word 2003 XML and Excel 2003 XML were read as their markup (or, named .doc
or .xls, as a web page).  0046 marks the files holding one -- alone or
inside a zip -- to be read again, and the next ``index`` reads each as the
document it is, under its item id.  A plain text, a CSV and an OpenDocument
spreadsheet are not read again."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

from test_migrations import downgrade_to, read_again_at, search_ids

from lifededup.index import IndexConfig, run
from lifededup.store import open_store

OFFICE = Path(__file__).parent / "fixtures" / "office"
# (name in the folder, fixture): as 0045's code read each, its words held "frobozz"
READ_BEFORE = {"statement.xls": "statement-2023-12.xls", "statement.xlsx": "statement-2023-12.xlsx",
               "export.xls": "statement-2023-12.xml", "rota.fodt": "rota.fodt", "rota.xml": "rota.xml",
               "rota.doc": "rota.xml"}
LEFT = {"statement.ods": "statement-2023-12.ods", "rota.docx": "rota.docx"}


def test_0046_reads_again_spreadsheets_and_office_xml(store_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "Saved"
    folder.mkdir()
    for name, fixture in {**READ_BEFORE, **LEFT}.items():
        shutil.copyfile(OFFICE / fixture, folder / name)
    with zipfile.ZipFile(folder / "sent.zip", "w") as archive:
        archive.write(OFFICE / "rota.fodt", "Sent/rota.FODT")
    (folder / "notes.txt").write_text("The tide tables of the port.\n")
    shutil.copyfile(Path(__file__).resolve().parent.parent / "sample_corpus/Finance/statement-2023-12.csv",
                    folder / "statement.csv")
    with open_store(store_url) as store:  # written at head, then as 0045's code read them
        run(store, [folder], IndexConfig(workers=1))
        _, rows = store.execute("SELECT path, part, id FROM items")
        ids = {(Path(str(path)).name, str(part)): int(str(i)) for path, part, i in rows}
        before = [ids[name, ""] for name in READ_BEFORE] + [ids["sent.zip", "Sent/rota.FODT"]]
        store.execute(f"UPDATE items SET text = 'frobozz <markup/>' WHERE id IN ({', '.join(map(str, before))})")
        store.execute("UPDATE items SET mime_type = 'text/html' WHERE id = :id", {"id": ids["rota.doc", ""]})
    downgrade_to(store_url, "0045")
    with open_store(store_url) as store:
        assert search_ids(store, "frobozz") == sorted(before)

    marked = {**dict.fromkeys(READ_BEFORE, True), "sent.zip": True, **dict.fromkeys(LEFT, False),
              "notes.txt": False, "statement.csv": False}
    with read_again_at(store_url, "0046", folder, marked) as store:
        assert search_ids(store, "frobozz") == [], "each read as the document it is"
        _, rows = store.execute("SELECT id FROM items WHERE text LIKE '%2023-12-16 Bookshop 190.39%'")
        assert sorted(int(str(r[0])) for r in rows) == sorted(
            ids[name, ""] for name in ("statement.xls", "statement.xlsx", "export.xls", "statement.ods")), rows
