"""Revision 0044 on a populated store, both backends: Markdown was read as
plain text -- a link's target a word, the title its first line (a note's
front matter ``---``) -- and reStructuredText and Org files were untitled;
0044 marks the files holding one -- alone or inside a zip -- to be read
again, and the next ``index`` reads each as its page shows it, titled, under
its item id.  A plain text file is not read again."""

from __future__ import annotations

import zipfile
from pathlib import Path

from test_migrations import downgrade_to, read_again_at, search_ids

from lifededup.index import IndexConfig, run
from lifededup.store import open_store

NOTE = "---\ntitle: Harbour tides\n---\n\nThe [tide tables](https://example.org/frobozz) of the port.\n"


def test_0044_reads_markup_again_as_its_page_shows_it_titled(store_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "Notes"
    folder.mkdir()
    (folder / "tides.md").write_text(NOTE)
    (folder / "plain.txt").write_text("A plain [note](https://example.org/frobozz) of the port.\n")
    with zipfile.ZipFile(folder / "notes.zip", "w") as archive:
        archive.writestr("Notes/tides.MD", NOTE)
    (folder / "_sources").mkdir()
    (folder / "_sources" / "tides.md.txt").write_text(NOTE)
    (folder / "tides.rst").write_text("Harbour tides\n=============\n\nThe tide tables of the port.\n")
    (folder / "tides.org").write_text("#+TITLE: Harbour tides\n* Tables\nThe tide tables of the port.\n")
    with open_store(store_url) as store:  # written at head, then as 0043's code read them
        run(store, [folder], IndexConfig(workers=1))
        _, rows = store.execute("SELECT path, part, id FROM items WHERE title = 'Harbour tides'")
        ids = {(Path(str(path)).name, str(part)): int(str(i)) for path, part, i in rows}
        assert sorted(ids) == [("notes.zip", "Notes/tides.MD"), ("tides.md", ""), ("tides.md.txt", ""),
                               ("tides.org", ""), ("tides.rst", "")], ids
        markdown = [ids[name] for name in ids if "md" in name[0].lower() or name[1]]
        store.execute(f"UPDATE items SET title = '---', text = :raw WHERE id IN ({', '.join(map(str, markdown))})",
                      {"raw": NOTE})
        store.execute("UPDATE items SET title = NULL WHERE id IN (:rst, :org)",
                      {"rst": ids[("tides.rst", "")], "org": ids[("tides.org", "")]})
    downgrade_to(store_url, "0043")
    with open_store(store_url) as store:
        plain = int(str(store.execute("SELECT id FROM items WHERE path LIKE '%plain.txt'")[1][0][0]))
        assert search_ids(store, "frobozz") == sorted([*markdown, plain])

    marked = {"tides.md": True, "notes.zip": True, "tides.md.txt": True, "tides.rst": True, "tides.org": True,
              "plain.txt": False}
    with read_again_at(store_url, "0044", folder, marked) as store:
        assert search_ids(store, "frobozz") == [plain], "a link's target is no word of the page"
        _, rows = store.execute("SELECT id, title FROM items WHERE title = 'Harbour tides'")
        assert sorted(int(str(i)) for i, _ in rows) == sorted(ids.values()), "the same items, each titled as its page"
