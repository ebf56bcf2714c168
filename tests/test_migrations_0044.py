"""Revision 0044 on a populated store, both backends: Markdown was read as
plain text -- a link's target a word, the title its first line (a note's
front matter ``---``); 0044 marks the files holding a Markdown file -- alone
or inside a zip -- to be read again, and the next ``index`` reads each as its
page shows it, under its item id.  A plain text file is not read again."""

from __future__ import annotations

import zipfile
from pathlib import Path

from test_migrations import downgrade_to, read_again_at, search_ids

from lifededup.index import IndexConfig, run
from lifededup.store import open_store

NOTE = "---\ntitle: Harbour tides\n---\n\nThe [tide tables](https://example.org/frobozz) of the port.\n"


def test_0044_reads_markdown_again_as_its_page_shows_it(store_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "Notes"
    folder.mkdir()
    (folder / "tides.md").write_text(NOTE)
    (folder / "plain.txt").write_text("A plain [note](https://example.org/frobozz) of the port.\n")
    with zipfile.ZipFile(folder / "notes.zip", "w") as archive:
        archive.writestr("Notes/tides.MD", NOTE)
    (folder / "_sources").mkdir()
    (folder / "_sources" / "tides.md.txt").write_text(NOTE)
    with open_store(store_url) as store:  # written at head, then the Markdown as 0043's code read it
        run(store, [folder], IndexConfig(workers=1))
        _, rows = store.execute("SELECT path, part, id FROM items WHERE title = 'Harbour tides'")
        ids = {(Path(str(path)).name, str(part)): int(str(i)) for path, part, i in rows}
        assert sorted(ids) == [("notes.zip", "Notes/tides.MD"), ("tides.md", ""), ("tides.md.txt", "")], ids
        store.execute(f"UPDATE items SET title = '---', text = :raw WHERE id IN ({', '.join(map(str, ids.values()))})",
                      {"raw": NOTE})
    downgrade_to(store_url, "0043")
    with open_store(store_url) as store:
        plain = int(str(store.execute("SELECT id FROM items WHERE path LIKE '%plain.txt'")[1][0][0]))
        assert search_ids(store, "frobozz") == sorted([*ids.values(), plain])

    marked = {"tides.md": True, "notes.zip": True, "tides.md.txt": True, "plain.txt": False}
    with read_again_at(store_url, "0044", folder, marked) as store:
        assert search_ids(store, "frobozz") == [plain], "a link's target is no word of the page"
        _, rows = store.execute("SELECT id, title FROM items WHERE title = 'Harbour tides'")
        assert sorted(int(str(i)) for i, _ in rows) == sorted(ids.values()), "the same items, titled by the note"
