"""Revision 0032 on a populated store, both backends: a documentation page
was read with its navigation menu (``docs-narrow-top-navigation``); 0032
marks the files holding a page or an EPUB to be read again, and the next
``index`` reads the page without its menu, under the same item id. A text
file is not read again."""

from __future__ import annotations

import shutil
from pathlib import Path

from test_extract_fuzz import CORPUS
from test_migrations import downgrade_to, read_again_at, search_ids

from lifededup.fingerprint import fingerprint
from lifededup.index import IndexConfig, run
from lifededup.store import open_store
from lifededup.store.records import ItemRecord

ARTICLE = ("A pool keeps connections open between uses, so that a program does not pay for a new connection at "
           "every query; it checks a connection out, uses it, and returns it to the pool when done.")
MENU = "Previous: Working with Engines and Connections Next: Core Events Up: Home On this page: Dealing with Disconnects"


def test_0032_reads_pages_again_without_their_navigation(store_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "pooling.html").write_text(
        f"<html><head><title>Connection Pooling</title></head><body><div id=\"docs-narrow-top-navigation\">{MENU}"
        f"</div><div id=\"docs-body\" role=\"main\"><p>{ARTICLE}</p></div></body></html>", encoding="utf-8")
    shutil.copyfile(CORPUS / "Books/portugal-trip.epub", folder / "portugal-trip.epub")
    (folder / "letter.txt").write_text("The committee meets on Thursday at the harbour office about the pool.\n")
    with open_store(store_url) as store:  # written at head, then the page as 0031's code read it
        run(store, [folder], IndexConfig(workers=1))
        _, [(page, path, size, mtime, raw)] = store.execute(
            "SELECT id, path, size, mtime, raw_sha1 FROM items WHERE path LIKE '%pooling.html'")
        old = f"{MENU}\n\n{ARTICLE}"
        store.upsert_item(ItemRecord(str(path), kind="web page", mime_type="text/html", size=size, mtime=mtime,
                                     raw_sha1=raw, title="Connection Pooling", text=old), fingerprint(old))
        assert search_ids(store, "disconnects") == [int(str(page))], "0031's state: the menu is searched"
    downgrade_to(store_url, "0031")

    marked = {"pooling.html": True, "portugal-trip.epub": True, "letter.txt": False}
    with read_again_at(store_url, "0032", folder, marked) as store:
        assert search_ids(store, "disconnects") == [], "the menu is no word of the page"
        assert search_ids(store, "checks") == [int(str(page))], "the same item, read again"
