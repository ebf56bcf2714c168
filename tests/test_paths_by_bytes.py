"""Revision 0026 on a populated store, both backends; and a PostgreSQL store
on a server whose databases compare text by language
(an initdb under en_US.UTF-8, the usual default, or ICU's en-US): a scan of
one folder never takes another folder's files for its own.  Under en-US,
"/A/x", "/a+b/x" and "/á/x" sort between "/a/" and "/a0", the range of
paths under "/a": a scan of /a took the files of /A, /a+b and /á for files
of /a that had gone, and deleted their items.  Real files, a real server."""

from __future__ import annotations

from pathlib import Path

from index_samples import write_text

from lifededup.index import IndexConfig, run
from lifededup.store import open_store
from lifededup.store.listing import kinds_held
from lifededup.store.opening import make_engine, resolve
from test_migrations import catalog, downgrade_to, upgrade_to, write_clustered


def test_a_scan_of_one_folder_leaves_the_items_of_folders_that_sort_beside_it(language_db: str,
                                                                               tmp_path: Path) -> None:
    folders = [tmp_path / name for name in ("a", "A", "a+b", "á")]
    for n, folder in enumerate(folders):
        write_text(folder / "x.txt", seed=n + 1)
    with open_store(language_db) as store:
        run(store, folders, IndexConfig(workers=1))
        before = sorted(str(p) for _, rows in [store.execute("SELECT path FROM items WHERE part = ''")] for p, in rows)
        summary = run(store, [folders[0]], IndexConfig(workers=1))
        after = sorted(str(p) for _, rows in [store.execute("SELECT path FROM items WHERE part = ''")] for p, in rows)
    assert len(before) == 4, before
    assert (summary.removed, summary.unchanged) == (0, 1), f"a scan of /a: {summary}"
    assert after == before, f"the other folders' items were taken for /a's: {sorted(set(before) - set(after))} gone"


def test_0026_indexes_kinds_and_paths_by_bytes_on_a_populated_store(store_url: str) -> None:
    """A store at 0025 holding items: after 0026 both backends have the kinds'
    index, which kinds_held reads (the kinds DISTINCT finds), and PostgreSQL
    the paths' index in byte order, which a scan's range of paths is read
    through; undone, they are gone."""
    upgrade_to(store_url, "0025")
    write_clustered(store_url, [(n, "m", f"/docs/{n}.txt", f"text {n}") for n in range(1, 40)], [])
    engine = make_engine(resolve(store_url), readonly=False)
    with engine.begin() as conn:
        conn.exec_driver_sql("UPDATE items SET kind = CASE WHEN id % 3 = 0 THEN 'email' WHEN id % 3 = 1 "
                             "THEN 'document' ELSE 'web page' END")
    engine.dispose()
    postgres = "://" in store_url
    upgrade_to(store_url, "0026")
    with open_store(store_url) as store:
        indexes = set(catalog(store, "indexes", "items"))
        assert "ix_items_kind" in indexes and ("ix_items_path_bytes" in indexes) == postgres, indexes
        assert kinds_held(store) == ["document", "email", "web page"]
        _, rows = store.execute("SELECT DISTINCT kind FROM items")
        assert sorted(str(k) for k, in rows) == kinds_held(store)
        if postgres:  # the range of a scan's folder, a seek in byte order (a table this small is read whole otherwise)
            store.execute("SET enable_seqscan = off")
            _, plan = store.execute('EXPLAIN SELECT path FROM items WHERE machine = :m AND path COLLATE "C" >= :low '
                                    'AND path COLLATE "C" < :high', {"m": "m", "low": "/docs/", "high": "/docs0"})
            assert "ix_items_path_bytes" in " ".join(str(r[0]) for r in plan), plan
    downgrade_to(store_url, "0025")
    engine = make_engine(resolve(store_url), readonly=True)
    with engine.connect() as conn:  # read as it is: opening a store upgrades it
        sql = ("SELECT indexname FROM pg_indexes WHERE tablename = 'items'" if postgres
               else "SELECT name FROM pragma_index_list('items')")
        left = {str(r[0]) for r in conn.exec_driver_sql(sql)}
    engine.dispose()
    assert not {"ix_items_kind", "ix_items_path_bytes"} & left, left
