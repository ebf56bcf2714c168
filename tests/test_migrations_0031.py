"""Revision 0031 on a populated store, both backends: an SVG drawing and a
zip holding one were read as plain text (their markup); 0031 marks both
files to be read again, the next ``index`` reads the drawing's words under
the same item ids, and a search no longer finds its markup. A text file is
not read again."""

from __future__ import annotations

import zipfile
from pathlib import Path

from test_extract_svg import poster
from test_migrations import downgrade_to, read_again_at, search_ids

from lifededup.fingerprint import fingerprint
from lifededup.index import IndexConfig, run
from lifededup.store import open_store
from lifededup.store.records import ItemRecord


def test_0031_reads_again_the_files_holding_a_drawing(store_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "Pictures"
    folder.mkdir()
    (folder / "poster.svg").write_text(poster(), encoding="utf-8")
    with zipfile.ZipFile(folder / "festival.zip", "w") as archive:
        archive.writestr("print/poster.svg", poster())
    (folder / "letter.txt").write_text("The festival committee meets on Thursday at the harbour office.\n")
    with open_store(store_url) as store:  # the rows written at head, then as 0030's code read the drawings
        run(store, [folder], IndexConfig(workers=1))
        _, rows = store.execute("SELECT id, path, part, size, mtime, raw_sha1, parent_id FROM items"
                                " WHERE path LIKE '%.svg' OR part LIKE '%.svg' ORDER BY id")
        assert len(rows) == 2, rows
        for _, path, part, size, mtime, raw, parent in rows:
            store.upsert_item(ItemRecord(str(path), part=str(part), parent_id=parent, kind="text",
                                         mime_type="text/plain", size=size, mtime=mtime, raw_sha1=raw, text=poster()),
                              fingerprint(poster()))
        ids = sorted(int(str(r[0])) for r in rows)
        assert sorted(search_ids(store, "inkscape")) == ids, "0030's state: the markup is searched"
    downgrade_to(store_url, "0030")

    marked = {"poster.svg": True, "festival.zip": True, "letter.txt": False}
    with read_again_at(store_url, "0031", folder, marked) as store:
        assert search_ids(store, "inkscape") == [], "the markup is no drawing's words"
        assert sorted(search_ids(store, "breakwater")) == ids, "the same items, read for their words"
