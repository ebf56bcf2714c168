"""Revision 0040 on a populated store, both backends: an XPS document was
read as the zip it is (its fonts ``unsupported`` parts, no word of it
found); 0040 marks the files holding one -- alone or inside an archive -- to
be read again, and the next ``index`` reads its pages' text under its item
id, its old parts gone.  A letter is not read again."""

from __future__ import annotations

import zipfile
from pathlib import Path

from test_extract_xps import page, write_xps
from test_migrations import downgrade_to, read_again_at, search_ids

from lifededup.index import IndexConfig, run
from lifededup.store import open_store


def test_0040_reads_again_xps_documents_read_as_zips(store_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "Printed"
    folder.mkdir()
    write_xps(folder / "Minutes.xps", {"1.fpage": page((10, 10, "The committee agreed to mend the harbour wall."))},
              order=["1.fpage"])
    with zipfile.ZipFile(folder / "sent.zip", "w") as archive:
        archive.write(folder / "Minutes.xps", "sent/Minutes.xps")
    (folder / "letter.txt").write_text("Dear Ann, the minutes are printed.\n")
    with open_store(store_url) as store:  # written at head, then the XPS files as 0039's code read them: archives
        run(store, [folder], IndexConfig(workers=1))
        _, rows = store.execute("SELECT path, part, id FROM items WHERE text LIKE '%harbour wall%'")
        ids = {(Path(str(path)).name, str(part)): int(str(i)) for path, part, i in rows}
        assert sorted(ids) == [("Minutes.xps", ""), ("sent.zip", "sent/Minutes.xps")], ids
        for item in ids.values():
            store.execute("UPDATE items SET kind = 'archive', mime_type = 'application/zip', text = NULL "
                          "WHERE id = :id", {"id": item})
            # and its font, a part that failed (a member of the zip, named under the XPS inside another zip)
            store.execute("INSERT INTO items (path, part, parent_id, kind, status, error, indexed_at, machine) "
                          "SELECT path, CASE WHEN part = '' THEN '' ELSE part || ' / ' END || 'Resources/F1.odttf', "
                          "id, 'document', 'unsupported', 'F1.odttf holds binary data of no format lifededup reads', "
                          "indexed_at, machine FROM items WHERE id = :id", {"id": item})
        _, [(fonts,)] = store.execute("SELECT count(*) FROM items WHERE part LIKE '%odttf'")
        assert int(str(fonts)) == 2, fonts
    downgrade_to(store_url, "0039")
    with open_store(store_url) as store:
        assert search_ids(store, "harbour") == [], "0039's state: the words are not found"

    marked = {"Minutes.xps": True, "sent.zip": True, "letter.txt": False}
    with read_again_at(store_url, "0040", folder, marked) as store:
        assert search_ids(store, "harbour") == sorted(ids.values()), "the pages' words, under the same ids"
        _, kinds = store.execute("SELECT path, part, kind FROM items WHERE id IN (:a, :b)",
                                 {"a": ids[("Minutes.xps", "")], "b": ids[("sent.zip", "sent/Minutes.xps")]})
        assert {str(kind) for _, _, kind in kinds} == {"document"}, kinds
        _, fonts = store.execute("SELECT path, part FROM items WHERE part LIKE '%odttf'")
        assert fonts == [], f"the parts the zip's reading made are gone: {fonts}"
