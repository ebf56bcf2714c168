"""A web page saved whole ("Webpage, Complete") is NAME.html and the folder NAME_files beside it: the page's
pictures, stylesheets, scripts, fonts and frames.  They were read as documents of their own -- jQuery and a
stylesheet as text, each picture offered to OCR and counted failed -- forty copies of each for a page saved
forty times.  The folder is the page's furniture: not indexed, by a scan or by the watcher's events."""

from __future__ import annotations

from pathlib import Path

from test_watch import eventually, watching

from lifededup.index import IndexConfig, run
from lifededup.store import Store, open_store

PAGE = ("<html><head><title>Lemon cake</title><link rel='stylesheet' href='Lemon cake_files/style.css'></head>"
        "<body><h1>Lemon cake</h1><p>Beat the butter and sugar, add the eggs one at a time, then fold in the "
        "flour and the zest of two lemons.</p></body></html>")
# a real PNG of one pixel: a picture, offered to OCR (and failed without it)
PIXEL = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                      "1f15c4890000000d49444154789c63f8cfc0f01f0005000201e2d1c4a40000000049454e44ae426082")


def save_complete(folder: Path, name: str, parts: str = "_files") -> Path:
    """``name`` saved as a browser saves a page whole: its parts first, then the page."""
    furniture = folder / f"{name}{parts}"
    furniture.mkdir(parents=True)
    (furniture / "style.css").write_text("body { font-family: Georgia, serif; max-width: 40em }\n")
    (furniture / "jquery.min.js").write_text('/*! jQuery v3.7.1 | (c) OpenJS Foundation */\n!function(e,t){"use '
                                             'strict";"object"==typeof module}(window,function(ie,e){});\n')
    (furniture / "logo.png").write_bytes(PIXEL)
    (furniture / "ad-frame.html").write_text("<html><body><p>Buy two lemons, get one free</p></body></html>")
    page = folder / f"{name}.html"
    page.write_text(PAGE)
    return page


def stored(store: Store) -> dict[str, str]:
    _, rows = store.execute("SELECT path, status FROM items WHERE part = ''")
    return {str(path): str(status) for path, status in rows}


def test_a_saved_pages_folder_of_parts_is_not_read_and_what_was_stored_of_it_goes(tmp_path: Path) -> None:
    folder = tmp_path / "Saved"
    page = save_complete(folder, "Lemon cake")
    german = save_complete(folder / "Rezepte", "Zitronenkuchen", parts="-Dateien")  # Internet Explorer in German
    alone = folder / "Tax_files"  # a folder so named, beside no page: the person's own
    alone.mkdir()
    (alone / "receipts.txt").write_text("Receipts for the year, kept for the tax office.\n")
    with open_store(tmp_path / "store.db") as store:
        summary = run(store, [folder], IndexConfig(workers=1))
        assert stored(store) == {str(page): "ok", str(german): "ok", str(alone / "receipts.txt"): "ok"}, summary
        assert summary.failed == 0, "no picture of a page offered to OCR"
        # the folder given itself is read: a wall is read whatever its name
        run(store, [folder / "Lemon cake_files"], IndexConfig(workers=1))
        assert str(folder / "Lemon cake_files" / "style.css") in stored(store)
        # and what a run stored of it goes at the next run of its folder, as for any file the rules leave out
        later = run(store, [folder], IndexConfig(workers=1))
        assert later.removed == 4 and len(stored(store)) == 3, (later, stored(store))


def test_the_watcher_leaves_a_page_saved_whole_while_it_runs_as_its_page_alone(tmp_path: Path) -> None:
    root = tmp_path / "Downloads"
    root.mkdir()
    with watching(tmp_path, root) as store:
        page = save_complete(root, "Lemon cake")
        after = root / "after.txt"
        after.write_text("Written after the page was saved.\n")
        eventually(lambda: {str(page), str(after)} <= set(stored(store)), "the page and the note are indexed")
        assert set(stored(store)) == {str(page), str(after)}, stored(store)
        (root / "Lemon cake_files" / "font.woff2").write_bytes(b"wOF2" + bytes(200))  # the page saved again
        (root / "later.txt").write_text("Written after the page's folder changed.\n")
        eventually(lambda: str(root / "later.txt") in stored(store), "the second note is indexed")
        assert set(stored(store)) == {str(page), str(after), str(root / "later.txt")}, stored(store)
        # a slow save: its parts settle (and are read, beside no page yet) before the page is written
        slow = save_complete(root / "slow", "Tart")
        slow.unlink()
        eventually(lambda: str(root / "slow" / "Tart_files" / "style.css") in stored(store), "the parts are read")
        slow.write_text(PAGE)
        eventually(lambda: str(slow) in stored(store) and not any("Tart_files" in path for path in stored(store)),
                   "the page is read and its parts go")
