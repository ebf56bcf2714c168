"""Revision 0038 on a populated store, both backends: a page whose text was
all in elements marked as furniture (a saved page of comments alone) was
"empty"; 0038 marks the files holding a page found empty -- alone or inside an
archive -- to be read again, and the next ``index`` reads the comments, under
the same item ids, found by their words.  A blank page is read again and stays
empty; a text file of 0 bytes and a letter are not read again."""

from __future__ import annotations

import zipfile
from pathlib import Path

import sqlalchemy as sa
from test_migrations import downgrade_to, read_again_at, search_ids

from lifededup.index import IndexConfig, run
from lifededup.store import open_store
from lifededup.store.opening import make_engine, resolve

COMMENTS = ('<ul><li class="comment"><span class="comment-copy">The towpath by the second lock is flooded again'
            '</span> &ndash; <a class="comment-user">heron</a></li><li class="comment"><span class="comment-copy">'
            'Still flooded on Sunday, take the lane</span> &ndash; <a class="comment-user">kingfisher</a></li></ul>')


def test_0038_reads_again_pages_found_empty(store_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "saved"
    folder.mkdir()
    (folder / "comments.html").write_text(COMMENTS, encoding="utf-8")
    (folder / "blank.html").write_text("<html><body> <div class='comment'> </div></body></html>", encoding="utf-8")
    with zipfile.ZipFile(folder / "pages.zip", "w") as archive:
        archive.writestr("pages/comments.html", COMMENTS)
        archive.writestr("pages/note.txt", "Pages saved from the canal society's forum.\n")
    (folder / "nothing.txt").write_bytes(b"")
    (folder / "letter.txt").write_text("Dear Ann, the towpath walk is on for Saturday.\n")
    with open_store(store_url) as store:
        run(store, [folder], IndexConfig(workers=1))
        _, rows = store.execute("SELECT path, part, id FROM items WHERE text LIKE '%towpath by the second lock%'")
        ids = {(Path(str(path)).name, str(part)): int(str(i)) for path, part, i in rows}
        assert sorted(ids) == [("comments.html", ""), ("pages.zip", "pages/comments.html")], ids
    engine = make_engine(resolve(store_url), readonly=False)
    with engine.begin() as conn:  # as 0037's code stored the comments: a page of no text (a failure: no type)
        conn.execute(sa.text("UPDATE items SET status = 'empty', text = NULL, title = NULL, mime_type = NULL, "
                             "error = 'comments.html is empty: a web page with no text in it' WHERE id IN "
                             f"({', '.join(map(str, ids.values()))})"))
    engine.dispose()
    downgrade_to(store_url, "0037")

    marked = {"comments.html": True, "blank.html": True, "pages.zip": True, "nothing.txt": False,
              "letter.txt": False}
    with read_again_at(store_url, "0038", folder, marked, failing=1) as store:
        assert search_ids(store, "kingfisher") == sorted(ids.values()), "the comments, read under their ids"
        _, rows = store.execute("SELECT path, part, status FROM items")
        statuses = {(Path(str(path)).name, str(part)): str(status) for path, part, status in rows}
        assert statuses[("comments.html", "")] == statuses[("pages.zip", "pages/comments.html")] == "ok", statuses
        assert statuses[("blank.html", "")] == statuses[("nothing.txt", "")] == "empty", statuses
