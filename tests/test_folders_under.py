"""The items under a watched folder (``items_under``, and ``folders remove
--forget`` through ``_ids_under``): a nested watched folder keeps its own,
a folder whose name merely starts the same is not under it, and the count
is the ids' count, on both backends and under a PostgreSQL database's
language collation as under byte order."""

from __future__ import annotations

from lifededup.store import Store, add_folder, items_under, list_folders, open_store, remove_folder
from lifededup.store.folders import _ids_under


def _add_items(store: Store, paths: list[tuple[str, str]]) -> None:
    for path, part in paths:
        store.execute("INSERT INTO items (machine, path, part, kind, status, indexed_at) "
                      "VALUES (:machine, :path, :part, 'document', 'ok', '2026-01-01 00:00:00')",
                      {"machine": store.machine, "path": path, "part": part})


def _paths(store: Store, ids: list[int]) -> list[str]:
    _, rows = store.execute("SELECT id, path, part FROM items")
    chosen = set(ids)
    return sorted(f"{p} [{part}]" if part else str(p) for i, p, part in rows if int(str(i)) in chosen)


ARCHIVE = [
    ("/w", ""),                      # the folder itself is no item under it
    ("/w/a.txt", ""),
    ("/w/deep/b.txt", ""),
    ("/w/box.mbox", "1"),            # a mailbox's messages: one item each
    ("/w/box.mbox", "2"),
    ("/w/box.mbox", ""),
    ("/w/mail/c.eml", ""),           # under the nested watched folder /w/mail
    ("/w/mail/deep/d.eml", ""),
    ("/w/mailbox/e.txt", ""),        # not under /w/mail: a name that starts the same
    ("/w-old/f.txt", ""),            # not under /w
    ("/w0/g.txt", ""),
    ("/x/h.txt", ""),
]


def test_items_under_counts_what_ids_under_finds_and_leaves_a_nested_folders_own(store_url: str) -> None:
    with open_store(store_url) as store:
        add_folder(store, "/w")
        add_folder(store, "/w/mail/")
        _add_items(store, ARCHIVE)
        want = {
            "/w": ["/w/a.txt", "/w/box.mbox", "/w/box.mbox [1]", "/w/box.mbox [2]", "/w/deep/b.txt",
                   "/w/mailbox/e.txt"],
            "/w/mail/": [],  # inside /w, still watched: /w keeps them
            "/x": ["/x/h.txt"],  # not watched: what `forget_under` forgets
        }
        for folder, paths in want.items():
            got = _paths(store, _ids_under(store, folder))
            assert got == paths, f"ids under {folder}: {got}, want {paths}"
            assert items_under(store, folder) == len(paths), f"count under {folder}: {items_under(store, folder)}"
        assert remove_folder(store, "/w") == 0
        got = _paths(store, _ids_under(store, "/w/mail/"))
        assert got == ["/w/mail/c.eml", "/w/mail/deep/d.eml"], f"/w no longer watched, /w/mail's own: {got}"
        assert items_under(store, "/w/mail/") == 2


def test_items_under_a_folder_are_told_by_bytes_under_a_language_collation(language_db: str) -> None:
    """A PostgreSQL store made by an initdb under en_US.UTF-8 (its usual
    default) compares text by language: "/A/x", "/a+b/x" and "/á/x" sorted
    between "/a/" and "/a0", so `folders remove --forget /a` forgot the items
    of the folders /A, /a+b and /á, and counted them as /a's."""
    with open_store(language_db) as store:
        add_folder(store, "/a")
        _add_items(store, [("/a/x", ""), ("/A/x", ""), ("/a+b/x", ""), ("/á/x", ""), ("/a/y", "1")])
        assert items_under(store, "/a") == 2, f"{items_under(store, '/a')} items under /a, want /a/x, /a/y [1]"
        assert remove_folder(store, "/a", forget=True) == 2
        _, rows = store.execute("SELECT path FROM items ORDER BY path COLLATE \"C\"")
        left = [str(p) for p, in rows]
        assert left == ["/A/x", "/a+b/x", "/á/x"], f"forgetting /a took others' items: {left} left"


def test_folders_are_listed_in_byte_order_on_both_backends(store_url: str) -> None:
    """Explorer K: `folders list` on a PostgreSQL store sorted by the database's
    language (a, A, á, a b, a_, ...); SQLite lists bytes.  Both list bytes now
    (the suite's server compares by ICU en-US, pg_server.py)."""
    names = ["/data/a", "/data/A", "/data/á", "/data/a b", "/data/a_", "/data/ab", "/data/a%"]
    with open_store(store_url) as store:
        for name in names:
            add_folder(store, name)
        listed = [f.path for f in list_folders(store)]
    assert listed == sorted(names, key=lambda n: n.encode()), listed
