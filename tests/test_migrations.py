"""Schema revisions: from nothing, from the previous revision with rows in it,
models agreeing with the revisions, and a store newer than the program -- on
an SQLite file and on a real PostgreSQL server (the ``store_url`` fixture)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from store_samples import fp, prose
from test_store import sound

from lifededup.fingerprint import text_sha1
from lifededup.search import search
from lifededup.store import ItemRecord, MachineTaken, StoreTooNew, list_machines, open_store
from lifededup.store.check import _SERVER_INDEXES, check_store
from lifededup.store.similarity import sketch_values
from lifededup.store.models import Base
from lifededup.store import Store
from lifededup.store.opening import alembic_config, make_engine, resolve
from lifededup.store.searchable import TS_CONFIG, apart


def upgrade_to(path: Path | str, revision: str, *, down: bool = False) -> None:
    """Take the store at ``path`` up (or ``down``) to ``revision`` through Alembic."""
    engine = make_engine(resolve(path), readonly=False)
    config = alembic_config()
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        (command.downgrade if down else command.upgrade)(config, revision)
    engine.dispose()


def downgrade_to(path: Path | str, revision: str) -> None:
    upgrade_to(path, revision, down=True)


def write_clustered(path: Path | str, items: list[tuple[int, str, str, str]], clusters: list[tuple[int, int]],
                    titles: dict[int, str] | None = None) -> None:
    """Rows written as an older revision holds them: ``items`` (id,
    machine, path, text) and ``clusters`` (item, cluster); an item's title
    is ``titles``'s, or "title"."""
    engine = make_engine(resolve(path), readonly=False)
    with engine.begin() as conn:
        for item_id, machine, stored, words in items:
            conn.exec_driver_sql(
                "INSERT INTO items (id, machine, path, part, kind, status, indexed_at, text, title) VALUES"
                " (:id, :machine, :path, '', 'document', 'ok', '2026-01-01 00:00:00', :text, :title)",
                {"id": item_id, "machine": machine, "path": stored, "text": words,
                 "title": (titles or {}).get(item_id, "title")})
        for item_id, cluster in clusters:
            conn.exec_driver_sql("INSERT INTO clusters (item_id, sha1, cluster_id) VALUES (:i, :s, :c)",
                                 {"i": item_id, "s": f"{cluster:040d}", "c": cluster})
        ids_written(conn)
    engine.dispose()


def ids_written(conn: object) -> None:
    """After rows written with their own ids: PostgreSQL's id sequence
    continues after them, as it would had the store written them itself."""
    from sqlalchemy import Connection

    assert isinstance(conn, Connection)
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql("SELECT setval(pg_get_serial_sequence('items', 'id'), (SELECT max(id) FROM items))")


def write_files_as_before(store_url: str, folder: Path, rows: list[tuple[int, str, str, str, int | None, str | None]]
                          ) -> None:
    """Items of the files in ``folder`` as the code before a revision stored them: ``rows`` of (id, file, part,
    kind, parent id, text), each file's size, mtime and raw SHA-1 as on disk (a part has none)."""
    import hashlib
    import os

    from lifededup.model import stored_path
    from lifededup.store.records import machine_name

    engine = make_engine(resolve(store_url), readonly=False)
    with engine.begin() as conn:
        for item_id, name, part, kind, parent, text in rows:
            path = folder / name
            stat = os.stat(path)
            whole = part == ""
            conn.exec_driver_sql(
                "INSERT INTO items (id, machine, path, part, parent_id, kind, status, indexed_at, size, mtime, raw_sha1,"
                " text) VALUES (:id, :machine, :path, :part, :parent, :kind, 'ok', '2026-01-01 00:00:00', :size,"
                " :mtime, :sha1, :text)",
                {"id": item_id, "machine": machine_name(), "path": stored_path(str(path)), "part": part,
                 "parent": parent, "kind": kind, "size": stat.st_size if whole else None,
                 "mtime": stat.st_mtime if whole else None, "text": text,
                 "sha1": hashlib.sha1(path.read_bytes()).hexdigest() if whole else None})
        ids_written(conn)
    engine.dispose()


def marked_to_read(store: Store) -> dict[str, bool]:
    """Each file's name -> whether a revision marked it to be read again (``mtime`` NULL)."""
    return {Path(str(r[0])).name: r[1] is None
            for r in store.execute("SELECT path, mtime FROM items WHERE part = ''")[1]}


@contextmanager
def read_again_at(store_url: str, revision: str, folder: Path, marked: dict[str, bool],
                  failing: int = 0) -> Iterator[Store]:
    """Upgrade to ``revision``, which must mark the files ``marked`` says (by
    name) to be read again; open the store, which takes it to head (a later
    revision may mark more files: a test that opened the store before this
    call has its marks at head already); index ``folder``, which reads the
    files marked then and no other (``failing`` of them now failing as a
    whole); the store is clean, then at head once the caller is done with it."""
    from lifededup.index import IndexConfig, run

    upgrade_to(store_url, revision)
    engine = make_engine(resolve(store_url), readonly=True)
    with engine.connect() as conn:  # as ``revision`` left them, before a later revision marks its own
        at_revision = {Path(str(path)).name: mtime is None
                       for path, mtime in conn.exec_driver_sql("SELECT path, mtime FROM items WHERE part = ''")}
    engine.dispose()
    assert at_revision == marked, at_revision
    with open_store(store_url) as store:
        at_head = marked_to_read(store)
        assert at_head.keys() == marked.keys() and all(at_head[name] for name in marked if marked[name]), at_head
        summary = run(store, [folder], IndexConfig(workers=1))
        read = sum(at_head.values())
        assert (summary.updated, summary.failed_files, summary.unchanged) == (
            read - failing, failing, len(marked) - read), summary
        assert check_store(store) == [], check_store(store)
        yield store
        _, [(at,)] = store.execute("SELECT version_num FROM alembic_version")
        assert at == head()


def search_ids(store: Store, word: str, config: str = "simple") -> list[int]:
    """The items whose title or text holds ``word``, by the store's own full-text index (on PostgreSQL,
    ``word`` read with the text search configuration ``config``)."""
    if store.location.url is not None:
        sql = f"SELECT rowid FROM items_fts WHERE document @@ to_tsquery('{config}', :w) ORDER BY rowid"
    else:
        sql = "SELECT rowid FROM items_fts WHERE items_fts MATCH :w ORDER BY rowid"
    return [int(str(r[0])) for r in store.execute(sql, {"w": word})[1]]


def catalog(store: Store, what: str, table: str = "") -> list[str]:
    """Names in the store's catalog: ``views``, ``triggers`` (on items),
    ``indexes`` (of ``table``), ``tables``."""
    server = store.location.url is not None
    sql = {
        "views": ("SELECT viewname FROM pg_views WHERE schemaname = 'public'" if server
                  else "SELECT name FROM sqlite_master WHERE type = 'view'"),
        "triggers": ("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal" if server
                     else "SELECT name FROM sqlite_master WHERE type = 'trigger'"),
        "indexes": (f"SELECT indexname FROM pg_indexes WHERE tablename = '{table}'" if server
                    else f"SELECT name FROM pragma_index_list('{table}')"),
        "tables": ("SELECT tablename FROM pg_tables WHERE schemaname = 'public'" if server
                   else "SELECT name FROM sqlite_master WHERE type = 'table'"),
    }[what]
    return sorted(str(r[0]) for r in store.execute(sql)[1])


def head() -> str:
    found = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert found is not None
    return found


def test_empty_store_upgrades_to_head_and_matches_the_models(store_url: str) -> None:
    with open_store(store_url) as store:
        _, [(revision,)] = store.execute("SELECT version_num FROM alembic_version")
        assert revision == head()
        with store.engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
        tables = {d[1].name for d in diff if d[0] == "remove_table"}
        diff = [d for d in diff if not (d[0] == "remove_table" and d[1].name.startswith("items_fts"))
                and not (d[0] == "remove_index" and d[1].table.name == "items_fts")
                # PostgreSQL's paths in byte order (revision 0026): not in the models, `check` names it
                and not (d[0] == "remove_index" and d[1].name in _SERVER_INDEXES and store.location.url)]
        diff = [d for d in diff if not sqlite_keeps_unique_path(d)]
        assert diff == [], f"models and revisions disagree: {diff} (fts tables {tables})"
        # SQLite's items_fts reads its text from items_searched (revision 0022)
        searched = [] if store.location.url else ["items_searched"]
        assert catalog(store, "views") == sorted(["cluster_sizes", "collapsed_items", "representatives"] + searched)
        # SQLite's FTS5 needs a trigger for deletes; PostgreSQL's items_fts rows go by ON DELETE CASCADE
        want = ["items_ai", "items_au"] if store.location.url else ["items_ad", "items_ai", "items_au"]
        assert catalog(store, "triggers") == want


def sqlite_keeps_unique_path(difference: tuple[object, ...]) -> bool:
    """Revision 0009's one difference on SQLite (README, items): ``items``
    keeps UNIQUE (path, part) in place of the models' (machine, path, part)."""
    action, constraint = difference[0], difference[1]
    columns = [c.name for c in getattr(constraint, "columns", [])]
    return (getattr(getattr(constraint, "table", None), "name", None) == "items"
            and (action, columns) in (("remove_constraint", ["path", "part"]),
                                      ("add_constraint", ["machine", "path", "part"])))


def test_previous_revision_with_rows_upgrades_and_keeps_them(store_url: str) -> None:
    path = store_url
    upgrade_to(path, "0001")
    engine = make_engine(resolve(path), readonly=False)
    with engine.begin() as conn:
        # edge cases: unicode path, empty part, a failed item, a child part,
        # text that only FTS can find, NULL features
        conn.exec_driver_sql(
            "INSERT INTO items (id, path, part, kind, status, indexed_at, text, title) VALUES"
            " (1, '/home/zoë/naïve résumé.txt', '', 'document', 'ok', '2026-01-01 00:00:00',"
            "  'quarterly zebra budget', 'Résumé'),"
            " (2, '/m.mbox', '', 'mailbox', 'ok', '2026-01-01 00:00:00', NULL, NULL),"
            " (3, '/m.mbox', '0', 'email', 'ok', '2026-01-01 00:00:00', 'quarterly zebra budget', 'Re: budget'),"
            " (4, '/bad.pdf', '', 'document', 'failed', '2026-01-01 00:00:00', NULL, NULL)"
        )
        conn.exec_driver_sql("UPDATE items SET parent_id = 2 WHERE id = 3")
        conn.exec_driver_sql("UPDATE items SET error = 'encrypted' WHERE id = 4")
        ids_written(conn)
        # the texts' own SHA-1: `check` compares it with theirs
        sha1 = text_sha1("quarterly zebra budget")
        conn.exec_driver_sql(
            "INSERT INTO fingerprints (item_id, sha1, words, shingles, is_representative) VALUES"
            f" (1, '{sha1}', 3, 0, TRUE), (3, '{sha1}', 3, 0, FALSE)"
        )
        conn.exec_driver_sql(f"INSERT INTO clusters (item_id, sha1, cluster_id) VALUES (1, '{sha1}', 1), "
                             f"(3, '{sha1}', 1)")
    engine.dispose()

    with open_store(path) as store:
        _, [(revision,)] = store.execute("SELECT version_num FROM alembic_version")
        assert revision == head()
        rows = search_ids(store, "zebra")
        assert rows == [1, 3], f"texts stored before the FTS revision must be searchable: {rows}"
        rows = search_ids(store, "résumé", TS_CONFIG)
        assert rows == [1], rows
        _, rows = store.execute("SELECT id, path, part, parent_id, status, error FROM items ORDER BY id")
        assert rows == [
            (1, "/home/zoë/naïve résumé.txt", "", None, "ok", None),
            (2, "/m.mbox", "", None, "ok", None),
            (3, "/m.mbox", "0", 2, "ok", None),
            (4, "/bad.pdf", "", None, "failed", "encrypted"),
        ], rows
        _, rows = store.execute("SELECT cluster_id, members, hidden FROM cluster_sizes")
        assert rows == [(1, 2, 1)], rows
        sound(store)
        # and the upgraded store keeps working
        new = store.upsert_item(ItemRecord("/n.txt", text=prose(9)), fp(prose(9)))
        assert store.item_id("/n.txt") == new
        sound(store)


def test_read_only_open_also_upgrades_an_older_store(store_url: str) -> None:
    path = store_url
    upgrade_to(path, "0001")
    with open_store(path, readonly=True) as store:
        _, [(revision,)] = store.execute("SELECT version_num FROM alembic_version")
        assert revision == head()


def test_store_from_a_newer_program_is_refused(store_url: str) -> None:
    path = store_url
    with open_store(path) as store:
        store.execute("UPDATE alembic_version SET version_num = '9999_from_the_future'")
    for readonly in (False, True):
        with pytest.raises(StoreTooNew, match="9999_from_the_future, made by a newer lifededup"):
            open_store(path, readonly=readonly)


def test_two_processes_opening_a_new_store_migrate_once(store_url: str) -> None:
    import multiprocessing

    path = store_url
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(4) as pool:
        results = pool.map(_open_and_count, [str(path)] * 4)
    assert results == [0, 0, 0, 0], results
    with open_store(path) as store:
        _, rows = store.execute("SELECT version_num FROM alembic_version")
        assert rows == [(head(),)], rows


def _open_and_count(path: str) -> int:
    with open_store(path) as store:
        _, [(count,)] = store.execute("SELECT count(*) FROM items")
        return int(count)  # type: ignore[call-overload]


def test_0005_drops_the_redundant_sha1_index_and_keeps_the_clusters(store_url: str) -> None:
    path = store_url
    upgrade_to(path, "0004")
    engine = make_engine(resolve(path), readonly=False)
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO items (id, path, part, kind, status, indexed_at, text) VALUES"
            " (1, '/a', '', 'document', 'ok', '2026-01-01 00:00:00', 'same words'),"
            " (2, '/b', '', 'document', 'ok', '2026-01-01 00:00:00', 'SAME  words')"
        )
        sha1 = text_sha1("same words")  # the texts' own (`check` compares it with theirs), one for both
        conn.exec_driver_sql(
            "INSERT INTO fingerprints (item_id, sha1, words, shingles, is_representative) VALUES"
            f" (1, '{sha1}', 2, 0, TRUE), (2, '{sha1}', 2, 0, FALSE)"
        )
        conn.exec_driver_sql(f"INSERT INTO clusters (item_id, sha1, cluster_id) VALUES (1, '{sha1}', 1), "
                             f"(2, '{sha1}', 1)")
    engine.dispose()
    with open_store(path) as store:
        indexes = catalog(store, "indexes", "fingerprints")
        assert "ix_fingerprints_sha1" not in indexes and "ix_fingerprints_f1" in indexes, indexes
        assert store.execute("SELECT item_id, cluster_id FROM clusters ORDER BY item_id")[1] == [(1, 1), (2, 1)]
        sound(store)
        # exact copies are still found (through clusters.sha1), by both methods
        store.recluster("transitive")
        assert store.execute("SELECT item_id, cluster_id FROM clusters ORDER BY item_id")[1] == [(1, 1), (2, 1)]
        store.recluster("conservative")
        assert store.execute("SELECT item_id, cluster_id FROM clusters ORDER BY item_id")[1] == [(1, 1), (2, 1)]


def test_0006_fills_sketches_keys_and_drops_the_detector_tables(store_url: str) -> None:
    """A store at 0005 with a representative, a near copy, an exact copy and
    a short text: 0006 gives the sampled items their sketch (the very bytes
    the fingerprint stage makes), files the representative's sketch values,
    keeps the clusters, and drops revision 0003's empty tables."""
    path = store_url
    upgrade_to(path, "0005")
    a = prose(1)
    b = a.replace(a.split()[5], "changedword", 1)
    texts = {1: a, 2: b, 3: a.upper(), 4: "a short note"}
    prints = {i: fp(t) for i, t in texts.items()}
    clusters_before = [(1, 1), (2, 1), (3, 1), (4, 4)]
    engine = make_engine(resolve(path), readonly=False)
    with engine.begin() as conn:
        conn.exec_driver_sql("INSERT INTO params (name, value) VALUES ('fingerprint', ?)",
                             (json.dumps({"key": prints[1].params.key(), "params": prints[1].params.to_dict()}),))
        for item_id, text in texts.items():
            made = prints[item_id]
            conn.exec_driver_sql(
                "INSERT INTO items (id, path, part, kind, status, indexed_at, text)"
                " VALUES (?, ?, '', 'document', 'ok', '2026-01-01 00:00:00', ?)", (item_id, f"/{item_id}", text))
            features = made.features or (None,) * 6
            conn.exec_driver_sql(
                "INSERT INTO fingerprints (item_id, sha1, f1, f2, f3, f4, f5, f6, words, shingles, is_representative)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (item_id, made.sha1, *features, made.words, made.shingles, item_id in (1, 4)))
        for item_id, cluster_id in clusters_before:
            conn.exec_driver_sql("INSERT INTO clusters (item_id, sha1, cluster_id) VALUES (?, ?, ?)",
                                 (item_id, prints[item_id].sha1, cluster_id))
    engine.dispose()
    with open_store(path) as store:
        _, rows = store.execute("SELECT item_id, sketch FROM fingerprints ORDER BY item_id")
        got = {int(str(r[0])): None if r[1] is None else bytes(r[1]) for r in rows}  # type: ignore[call-overload]
        assert got == {i: prints[i].sketch for i in texts}, "sketches differ from the fingerprint stage's"
        _, keys = store.execute("SELECT DISTINCT item_id FROM sketch_keys")
        assert keys == [(1,)], f"only the sampled representative is filed: {keys}"
        _, count = store.execute("SELECT count(*) FROM sketch_keys")
        assert count == [(len(set(sketch_values(prints[1].sketch or b"").tolist())),)], count
        _, rows = store.execute("SELECT item_id, cluster_id, resemblance, word_distance FROM clusters ORDER BY item_id")
        assert [(r[0], r[1]) for r in rows] == clusters_before, rows
        # representatives and exact copies are at distance 0; the near copy
        # waits for recluster
        assert [(r[2], r[3]) for r in rows] == [(1.0, 0.0), (None, None), (1.0, 0.0), (1.0, 0.0)], rows
        tables = [t for t in catalog(store, "tables") if t.startswith("detect")]
        assert tables == [], f"revision 0003's tables are still there: {tables}"
        sound(store)
        store.recluster()
        _, rows = store.execute("SELECT item_id, cluster_id, word_distance FROM clusters ORDER BY item_id")
        assert rows[1][1] == 1 and 0 < float(str(rows[1][2])) < 0.05, rows
        sound(store)


def test_0007_escapes_stored_backslashes_and_adds_text_cut(store_url: str) -> None:
    from lifededup.model import fs_path

    path = store_url
    upgrade_to(path, "0006")
    engine = make_engine(resolve(path), readonly=False)
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO items (id, path, part, kind, status, indexed_at, text) VALUES"
            " (1, '/docs/back\\slash.txt', '', 'document', 'ok', '2026-01-01 00:00:00', 'some words'),"
            " (2, '/docs/plain.txt', '', 'document', 'ok', '2026-01-01 00:00:00', 'other words')"
        )
        conn.exec_driver_sql("INSERT INTO watched_folders (path, added_at) VALUES"
                             " ('/home/a\\b', '2026-01-01 00:00:00'), ('/home/c', '2026-01-01 00:00:00')")
    engine.dispose()
    with open_store(path) as store:
        _, rows = store.execute("SELECT id, path, text_cut FROM items ORDER BY id")
        assert rows == [(1, "/docs/back\\\\slash.txt", None), (2, "/docs/plain.txt", None)], rows
        assert fs_path(str(rows[0][1])) == "/docs/back\\slash.txt", "the escaped form must map back to the name"
        _, rows = store.execute("SELECT path FROM watched_folders ORDER BY path")
        assert rows == [("/home/a\\\\b",), ("/home/c",)], rows
        rows = search_ids(store, "words")
        assert rows == [1, 2], f"the search index must survive the path rewrite: {rows}"


def test_0009_gives_items_and_folders_the_migrating_machine_and_paths_per_machine(
        store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A store at 0008 with a file, a mailbox and its message in one cluster,
    a failed item and a watched folder: 0009 names the machine that migrates
    it on every row, keeps clusters and search, and from then on a path is
    unique per machine -- on PostgreSQL another machine may hold the same
    path; SQLite keeps (path, part) unique (README, items)."""
    from lifededup.store.opening import resolve

    location = resolve(store_url)
    engine = make_engine(location, readonly=False)
    config = alembic_config()
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "0008")
    text = prose(3)
    made = fp(text)
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO items (id, path, part, parent_id, kind, status, error, indexed_at, text) VALUES"
            " (1, '/home/zoë/report.txt', '', NULL, 'document', 'ok', NULL, '2026-01-01 00:00:00', :t),"
            " (2, '/home/zoë/m.mbox', '', NULL, 'mailbox', 'ok', NULL, '2026-01-01 00:00:00', NULL),"
            " (3, '/home/zoë/m.mbox', '0', 2, 'email', 'ok', NULL, '2026-01-01 00:00:00', :t),"
            " (4, '/home/zoë/bad.pdf', '', NULL, 'document', 'corrupt', 'truncated', '2026-01-01 00:00:00', NULL)",
            {"t": text})
        for item_id in (1, 3):
            conn.exec_driver_sql(
                "INSERT INTO fingerprints (item_id, sha1, words, shingles, is_representative)"
                " VALUES (:i, :s, 300, 0, :r)", {"i": item_id, "s": made.sha1, "r": item_id == 1})
            conn.exec_driver_sql("INSERT INTO clusters (item_id, sha1, cluster_id, resemblance, word_distance)"
                                 " VALUES (:i, :s, 1, 1.0, 0.0)", {"i": item_id, "s": made.sha1})
        conn.exec_driver_sql("INSERT INTO watched_folders (path, added_at, include, exclude) VALUES"
                             " ('/home/zoë', '2026-01-01 00:00:00', '[\"*.txt\"]', '[]')")
        if location.backend == "postgresql":  # ids given by hand leave the sequence behind
            conn.exec_driver_sql("SELECT setval(pg_get_serial_sequence('items', 'id'), 4)")
    engine.dispose()

    monkeypatch.setenv("LIFEDEDUP_MACHINE", "laptop")
    with open_store(store_url) as store:
        assert store.machine == "laptop"
        _, rows = store.execute("SELECT id, machine, path, part, parent_id, status FROM items ORDER BY id")
        assert rows == [(1, "laptop", "/home/zoë/report.txt", "", None, "ok"),
                        (2, "laptop", "/home/zoë/m.mbox", "", None, "ok"),
                        (3, "laptop", "/home/zoë/m.mbox", "0", 2, "ok"),
                        (4, "laptop", "/home/zoë/bad.pdf", "", None, "corrupt")], rows
        _, rows = store.execute("SELECT machine, path, include FROM watched_folders")
        assert rows == [("laptop", "/home/zoë", '["*.txt"]')], rows
        _, rows = store.execute("SELECT item_id, cluster_id FROM clusters ORDER BY item_id")
        assert rows == [(1, 1), (3, 1)], rows
        sound(store)
        assert store.item_id("/home/zoë/m.mbox", "0") == 3
        from lifededup.store import list_folders

        assert [f.path for f in list_folders(store)] == ["/home/zoë"]
        _, [(searchable,)] = store.execute("SELECT count(*) FROM items_fts")
        assert searchable >= 2, "the search index must survive the revision"  # type: ignore[operator]

    with open_store(store_url, machine="nas") as nas:
        assert nas.item_id("/home/zoë/report.txt") is None, "another machine's item is not the nas's"
        from lifededup.store import list_folders

        assert list_folders(nas) == [], "each machine watches its own folders"
        if location.backend == "postgresql":
            copy = nas.upsert_item(ItemRecord("/home/zoë/report.txt", text=text), made)
            assert copy not in (1, 3) and nas.item_id("/home/zoë/report.txt") == copy
            _, rows = nas.execute("SELECT machine, cluster_id FROM items JOIN clusters ON item_id = id "
                                  "WHERE path = '/home/zoë/report.txt' ORDER BY machine")
            assert rows == [("laptop", 1), ("nas", 1)], f"the nas's copy joins the laptop's cluster: {rows}"
            assert nas.remove_items(["/home/zoë/report.txt"]) == 1
            with open_store(store_url) as laptop:
                assert laptop.item_id("/home/zoë/report.txt") == 1, "the nas removed only its own item"
                sound(laptop)
        else:
            # an SQLite store is one machine's file: the same path cannot be stored twice
            with pytest.raises(Exception, match="UNIQUE"):
                nas.upsert_item(ItemRecord("/home/zoë/report.txt", text=text), made)


def test_0010_indexes_the_words_beside_markup_like_text(store_url: str) -> None:
    """A store at 0009 with a note about HTML and a formula: after 0010 every
    one of their words is found (PostgreSQL's parser had read them as tags
    and dropped them; SQLite's FTS5 always read them), and new items too."""
    upgrade_to(store_url, "0009")
    engine = make_engine(resolve(store_url), readonly=False)
    texts = {1: "the page ran <script>alertword()</script> before <b>boldword</b>",
             2: "when a<b && c>d the formula holds for marginword"}
    with engine.begin() as conn:
        for item_id, text in texts.items():
            conn.exec_driver_sql(
                "INSERT INTO items (id, machine, path, part, kind, status, indexed_at, text, title) VALUES"
                " (:id, 'm', :path, '', 'document', 'ok', '2026-01-01 00:00:00', :text, :title)",
                {"id": item_id, "path": f"/{item_id}.txt", "text": text, "title": "<notes> & titleword"})
        ids_written(conn)
    engine.dispose()
    with open_store(store_url) as store:
        for word, want in (("alertword", [1]), ("boldword", [1]), ("script", [1]), ("marginword", [2]),
                           ("titleword", [1, 2]), ("notes", [1, 2]), ("formula", [2])):
            assert search_ids(store, word) == want, f"{word!r} is in the text of {want}"
        new = store.upsert_item(ItemRecord("/3.txt", text="x<y> then <i>italicword</i>"),
                                fp("x<y> then <i>italicword</i>"))
        assert search_ids(store, "italicword") == [new], "a new item's words beside markup are found"


def test_0011_the_views_name_each_items_machine(store_url: str) -> None:
    """A store at 0010 holding one path on two machines, copies in one
    cluster: after 0011 the views say which machine each row's file is on,
    their other columns as before; and back down."""
    upgrade_to(store_url, "0010")
    write_clustered(store_url, [(1, "laptop", "/notes/a.txt", "text"), (2, "nas", "/share/a.txt", "text"),
                                (3, "laptop", "/notes/b.txt", "text")], [(1, 1), (2, 1), (3, 3)])
    upgrade_to(store_url, "0011")
    with open_store(store_url) as store:
        columns, got = store.execute("SELECT * FROM representatives ORDER BY id")
        assert columns == ["id", "path", "part", "kind", "title", "members", "hidden", "machine"], columns
        assert [(r[0], r[5], r[7]) for r in got] == [(1, 2, "laptop"), (3, 1, "laptop")], got
        columns, got = store.execute("SELECT * FROM collapsed_items ORDER BY id")
        assert columns == ["id", "path", "part", "kind", "title", "cluster_id", "hidden", "machine"], columns
        assert [(r[0], r[1], r[6], r[7]) for r in got] == [(1, "/notes/a.txt", 1, "laptop"),
                                                          (3, "/notes/b.txt", 0, "laptop")], got
        shared = store.execute("SELECT i.path, i.machine FROM items i JOIN clusters c ON c.item_id = i.id "
                               "JOIN collapsed_items v ON v.cluster_id = c.cluster_id WHERE v.id = 1 ORDER BY i.id")[1]
        assert [tuple(r) for r in shared] == [("/notes/a.txt", "laptop"), ("/share/a.txt", "nas")], shared
    downgrade_to(store_url, "0010")
    engine = make_engine(resolve(store_url), readonly=False)
    with engine.begin() as conn:
        names = list(conn.exec_driver_sql("SELECT * FROM collapsed_items").keys())
    engine.dispose()
    assert names == ["id", "path", "part", "kind", "title", "cluster_id", "hidden"], names


def test_0012_indexes_the_members_that_are_not_representatives(store_url: str) -> None:
    """A store at 0011 with a cluster of three and a lone item: after 0012
    the partial index holds the two members alone, and a search counts the
    matches' clusters through it; and back down."""
    upgrade_to(store_url, "0011")
    write_clustered(store_url, [(i, "laptop", f"/notes/{i}.txt", "lighthouse keeper") for i in (1, 2, 3, 4)],
                    [(1, 1), (2, 1), (3, 1), (4, 4)])
    upgrade_to(store_url, "0012")
    with open_store(store_url) as store:
        assert "ix_clusters_members" in catalog(store, "indexes", "clusters")
        server = store.location.url is not None
        held = ("SELECT item_id FROM clusters WHERE cluster_id <> item_id ORDER BY item_id" if server else
                "SELECT item_id FROM clusters INDEXED BY ix_clusters_members WHERE cluster_id <> item_id ORDER BY 1")
        assert [int(r[0]) for r in store.execute(held)[1]] == [2, 3]
        found = search(store, "lighthouse")
        assert (found.matches, found.rows, [h.hidden for h in found.hits]) == (4, 2, [2, 0]), found.to_dict()
    downgrade_to(store_url, "0011")
    with open_store(store_url, readonly=True, migrate=False) as store:
        assert "ix_clusters_members" not in catalog(store, "indexes", "clusters")


def test_0013_keeps_the_machines_and_the_first_writer_claims_each(store_url: str) -> None:
    """A store at 0012 with two machines' items: after 0013 both are listed,
    unclaimed; the first computer to write as one claims it, and on a server
    another computer is then refused that name; and back down."""
    upgrade_to(store_url, "0012")
    write_clustered(store_url, [(1, "laptop", "/home/me/a.txt", "lighthouse keeper"),
                                (2, "nas", "/srv/a.txt", "lighthouse keeper")], [(1, 1), (2, 1)])
    upgrade_to(store_url, "0013")
    with open_store(store_url, machine="laptop", identity="the laptop") as store:
        assert [(m.name, m.claimed_at, m.items) for m in list_machines(store)] == [("laptop", None, 1), ("nas", None, 1)]
        store.upsert_item(ItemRecord(path="/home/me/b.txt"), None)
        assert [(m.name, m.claimed_at is not None, m.here) for m in list_machines(store)] == [
            ("laptop", True, True), ("nas", False, False)]
    with open_store(store_url, machine="laptop", identity="another computer") as other:
        if other.location.backend != "sqlite":
            with pytest.raises(MachineTaken):
                other.upsert_item(ItemRecord(path="/home/me/c.txt"), None)
    downgrade_to(store_url, "0012")
    with open_store(store_url, readonly=True, migrate=False) as store:
        assert "machines" not in catalog(store, "tables")
        assert len(store.execute("SELECT id FROM items")[1]) == 3


def test_0014_reads_again_the_files_whose_nested_parts_were_misnamed(store_url: str, tmp_path: Path) -> None:
    """A store at 0013 holding a mail as the code before stored it -- the
    files of its two attached zips under their bare name, one ``report.txt``
    (the spring one's text lost) -- and a git log it took for a mail, beside
    a note and a zip of one file, stored right: 0014 marks the mail and the
    log half written, and the next index reads them again (the spring report
    found, the bare-named part gone, the log text) and the other two not."""
    from test_extract_mail import GIT_LOG
    from test_extract_nested import AUTUMN, SPRING, mail, zipped

    from lifededup.index import IndexConfig, run

    folder = tmp_path / "docs"
    folder.mkdir()
    files = {"two-reports.eml": bytes(mail("Two reports", {"spring.zip": zipped({"report.txt": SPRING.encode()}),
                                                            "autumn.zip": zipped({"report.txt": AUTUMN.encode()})})),
             "note.txt": b"A note about the lighthouse keeper and the tide tables.\n",
             "one.zip": zipped({"inside.txt": b"The inside of a zip of one file, about the harbour wall.\n"}),
             "changelog": GIT_LOG.encode()}
    for name, data in files.items():
        (folder / name).write_bytes(data)
    # (id, file, part, kind, parent id), as the code before this revision stored them
    rows = [(1, "two-reports.eml", "", "email", None), (2, "two-reports.eml", "attachment 1: spring.zip", "archive", 1),
            (3, "two-reports.eml", "report.txt", "text", 1), (4, "two-reports.eml", "attachment 2: autumn.zip", "archive", 1),
            (5, "note.txt", "", "text", None), (6, "one.zip", "", "archive", None), (7, "one.zip", "inside.txt", "text", 6),
            (8, "changelog", "", "email", None)]  # a git log, taken for a mail
    upgrade_to(store_url, "0013")
    write_files_as_before(store_url, folder, [(*row, None) for row in rows])
    upgrade_to(store_url, "0014")
    with open_store(store_url) as store:
        mtimes = {str(r[0]): r[1] for r in store.execute("SELECT path, mtime FROM items WHERE part = ''")[1]}
        assert {Path(p).name: m is None for p, m in mtimes.items()} == {
            "two-reports.eml": True, "note.txt": False, "one.zip": False, "changelog": True}, mtimes
        summary = run(store, [folder], IndexConfig(workers=1))
        assert (summary.unchanged, summary.updated) == (2, 2), summary
        assert [str(r[0]) for r in store.execute("SELECT kind FROM items WHERE path LIKE '%changelog'")[1]] == ["text"]
        parts = sorted(str(r[0]) for r in store.execute(
            "SELECT part FROM items WHERE path LIKE '%two-reports.eml' ORDER BY part")[1])
        assert parts == ["", "attachment 1: spring.zip", "attachment 1: spring.zip / report.txt",
                         "attachment 2: autumn.zip", "attachment 2: autumn.zip / report.txt"], parts
        found = [(Path(h.path).name, h.part) for h in search(store, "lambs", collapse=False).hits]
        assert found == [("two-reports.eml", "attachment 1: spring.zip / report.txt")], found
        sound(store)  # the store consistent after the mail was read again


def test_0015_reads_mail_again(store_url: str, tmp_path: Path) -> None:
    """A store at 0014 holding an HTML-only reply stored with the message it
    quotes, an inline forward cut at its "Forwarded message" line, a mailbox
    and a note, as the code before wrote them: 0015 marks the three files
    holding mail half written, and the next index reads them again under
    their ids (the reply its own words, the forward with what it forwards)
    and leaves the note alone."""
    from test_extract_mail import _HTML_REPLIES, BODY, html_only, message, write_mbox

    from lifededup.index import IndexConfig, run

    folder = tmp_path / "mail"
    folder.mkdir()
    forward = f"Hi Dana, FYI.\n\n---------- Forwarded message ---------\nFrom: Alex Moreau\n\n{BODY}"
    (folder / "reply.eml").write_bytes(bytes(html_only("Re: Boat trip", _HTML_REPLIES["gmail"])))
    (folder / "forward.eml").write_bytes(bytes(message("Boat trip", forward)))
    write_mbox(folder / "box.mbox", [message("Tides", "The tide tables for June are pinned by the door.\n")])
    (folder / "note.txt").write_bytes(b"A note about the lighthouse keeper and the tide tables.\n")
    # (id, file, part, kind, parent id, text), as the code before this revision stored them
    rows = [(1, "reply.eml", "", "email", None, "Great, I will bring the flask. " + BODY),
            (2, "forward.eml", "", "email", None, "Hi Dana, FYI."),
            (3, "box.mbox", "", "mailbox", None, None),
            (4, "box.mbox", "message 1", "email", 3, "The tide tables for June are pinned by the door."),
            (5, "note.txt", "", "text", None, None)]  # (its text and fingerprint are not this test's)
    upgrade_to(store_url, "0014")
    write_files_as_before(store_url, folder, rows)
    upgrade_to(store_url, "0015")
    with open_store(store_url) as store:
        mtimes = marked_to_read(store)
        assert mtimes == {"reply.eml": True, "forward.eml": True, "box.mbox": True, "note.txt": False}, mtimes
        summary = run(store, [folder], IndexConfig(workers=1))
        assert (summary.unchanged, summary.updated) == (1, 3), summary
        texts = {(Path(str(r[1])).name, str(r[2])): (int(r[0]), r[3]) for r in store.execute(
            "SELECT id, path, part, text FROM items")[1]}
        assert texts[("reply.eml", "")] == (1, "Great, I will bring the flask."), texts
        assert texts[("forward.eml", "")][0] == 2 and "harbour at nine" in str(texts[("forward.eml", "")][1])
        assert texts[("box.mbox", "message 1")][0] == 4, texts
        sound(store)


def test_0016_keeps_a_mails_people_searchable_and_folds_more_accents(store_url: str, tmp_path: Path) -> None:
    """A store at 0015 with a mailbox and a note, as the code before wrote
    them (no sender kept): 0016 marks the mailbox to be read again, the next
    index keeps each message's sender and recipients under its id, and a
    search finds the mail by its sender's name and address; on SQLite a word
    with two accents is found without them. The store stays sound."""
    from test_extract_mail import message, write_mbox

    from lifededup.index import IndexConfig, run

    folder = tmp_path / "mail"
    folder.mkdir()
    write_mbox(folder / "box.mbox", [message("Tides", "The tide tables for June are pinned by the door.\n")])
    (folder / "note.txt").write_bytes(b"Notes from Tieng Viet class and the lighthouse keeper.\n")
    rows = [(1, "box.mbox", "", "mailbox", None, None),
            (2, "box.mbox", "message 1", "email", 1, "The tide tables for June are pinned by the door."),
            (3, "note.txt", "", "text", None, None)]  # (its text and fingerprint are not this test's)
    upgrade_to(store_url, "0015")
    write_files_as_before(store_url, folder, rows)
    upgrade_to(store_url, "0016")
    with open_store(store_url) as store:
        mtimes = marked_to_read(store)
        assert mtimes == {"box.mbox": True, "note.txt": False}, mtimes
        assert search_ids(store, "sam") == [], "no sender is kept before the mail is read again"
        summary = run(store, [folder], IndexConfig(workers=1))
        assert (summary.unchanged, summary.updated) == (1, 1), summary
        people = store.execute("SELECT id, people FROM items WHERE people IS NOT NULL")[1]
        assert [tuple(r) for r in people] == [
            (2, "from Alex Moreau <alex@example.org>; to Sam Okafor <sam@example.org>")], people
        for query in ("sam", "okafor", "alex@example.org"):
            assert [h.id for h in search(store, query, collapse=False).hits] == [2], query
        if store.location.url is not None:  # SQL written against the two-argument form still runs
            same = store.execute("SELECT items_fts_document('Tides', 'pinned by the door') = "
                                 "items_fts_document('Tides', 'pinned by the door', NULL)")[1]
            assert same == [(True,)], same
        if store.location.url is None:
            viet = "Notes from Tiếng Việt class."
            item = store.upsert_item(ItemRecord("/notes/viet.txt", text=viet), fp(viet))
            assert [h.id for h in search(store, "tieng viet", collapse=False).hits] == [item]
            assert [h.id for h in search(store, "people:alex", collapse=False).hits] == [2]
        sound(store)
    downgrade_to(store_url, "0015")
    with open_store(store_url, migrate=False) as store:
        assert search_ids(store, "tide") == [2] and search_ids(store, "sam") == []


def test_0017_reads_failed_files_again_and_gives_them_their_kind(store_url: str, tmp_path: Path) -> None:
    """A store at 0016 holding an empty mail and a damaged spreadsheet as the
    code before recorded them (kind 'document'), and a note read well: 0017
    marks the two failures to be read again, and the next index records
    their kinds under the same ids; the note is not read."""
    from lifededup.index import IndexConfig, run

    folder = tmp_path / "life"
    folder.mkdir()
    (folder / "letter.eml").write_bytes(b"")
    (folder / "budget.xlsx").write_bytes(b"PK\x03\x04 not a zip at all")
    (folder / "note.txt").write_bytes(b"A note about the lighthouse keeper and the tide tables.\n")
    rows = [(1, "letter.eml", "", "document", None, None), (2, "budget.xlsx", "", "document", None, None),
            (3, "note.txt", "", "text", None, None)]  # (its text and fingerprint are not this test's)
    upgrade_to(store_url, "0016")
    write_files_as_before(store_url, folder, rows)
    engine = make_engine(resolve(store_url), readonly=False)
    with engine.begin() as conn:  # failed, as recorded before: kind 'document'
        conn.exec_driver_sql("UPDATE items SET status = 'corrupt', error = 'as before' WHERE id IN (1, 2)")
    engine.dispose()
    upgrade_to(store_url, "0017")
    with open_store(store_url) as store:
        mtimes = marked_to_read(store)
        assert mtimes == {"letter.eml": True, "budget.xlsx": True, "note.txt": False}, mtimes
        summary = run(store, [folder], IndexConfig(workers=1))
        assert (summary.unchanged, summary.failed) == (1, 2), summary
        kinds = {int(str(r[0])): (str(r[1]), str(r[2])) for r in store.execute("SELECT id, kind, status FROM items")[1]}
        assert kinds == {1: ("email", "empty"), 2: ("spreadsheet", "corrupt"), 3: ("text", "ok")}, kinds
        sound(store)


def test_0018_finds_a_mail_by_a_part_of_an_address_on_both_backends(store_url: str) -> None:
    """PostgreSQL kept alex@example.org as one word: a search for alex or
    example.org missed the mail that SQLite found. A mail written at 0017
    is indexed again by 0018, and both backends find it every way."""
    upgrade_to(store_url, "0017")
    engine = make_engine(resolve(store_url), readonly=False)
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO items (id, machine, path, part, kind, status, indexed_at, text, title, people) VALUES"
            " (1, 'm', '/mail/trip.eml', '', 'email', 'ok', '2026-01-01 00:00:00', 'The harbour at nine.',"
            " 'Boat trip', 'from Alex Moreau <alex@example.org>; to Sam Okafor <sam.okafor@mail.example.co.uk>')")
        ids_written(conn)
    engine.dispose()
    upgrade_to(store_url, "0018")
    with open_store(store_url, machine="m") as store:
        for query in ("alex", "example.org", "alex@example.org", "sam.okafor", "okafor", "mail.example.co.uk",
                      "harbour"):
            assert [h.id for h in search(store, query, collapse=False).hits] == [1], query


def write_texts(conn: object, texts: dict[int, str]) -> None:
    """Documents titled 'notes', as an older revision's indexer wrote them, each ``/ID.txt``."""
    from sqlalchemy import Connection

    assert isinstance(conn, Connection)
    for item_id, text in texts.items():
        conn.exec_driver_sql(
            "INSERT INTO items (id, machine, path, part, kind, status, indexed_at, text, title) VALUES"
            " (:id, 'm', :path, '', 'document', 'ok', '2026-01-01 00:00:00', :text, 'notes')",
            {"id": item_id, "path": f"/{item_id}.txt", "text": text})
    ids_written(conn)


def test_0019_finds_the_words_inside_an_address_a_link_or_a_path_on_both_backends(store_url: str) -> None:
    """PostgreSQL kept doko@debian.org, a link, a path and report.pdf as one
    word each: a search for debian, share or report missed the text that
    SQLite found. A text written at 0018 is indexed again by 0019; a new one
    is indexed so; both backends find them every way; and the words of a
    text without such a word are what they were."""
    upgrade_to(store_url, "0018")
    texts = {1: "Ask doko@debian.org or read https://www.debian.org/doc/manuals/ first.",
             2: "The scripts live in /usr/share/doc/lifededup and the notes in report.pdf, version 1.2.3.",
             3: "Plain words only here, with a full stop. And a comma, too"}
    engine = make_engine(resolve(store_url), readonly=False)
    with engine.begin() as conn:
        write_texts(conn, texts)
        plain_before = conn.exec_driver_sql("SELECT CAST(document AS text) FROM items_fts WHERE rowid = 3").scalar() \
            if conn.dialect.name == "postgresql" else None
    engine.dispose()
    upgrade_to(store_url, "0019")
    wanted = {"debian": [1], "debian.org": [1], "doko": [1], "doko@debian.org": [1], "manuals": [1], "www": [1],
              "share": [2], "usr": [2], "lifededup": [2], "report": [2], "pdf": [2], "report.pdf": [2],
              "stop": [3], "comma": [3]}
    with open_store(store_url, machine="m") as store:
        for query, ids in wanted.items():
            assert [h.id for h in search(store, query, collapse=False).hits] == ids, query
        new = store.upsert_item(ItemRecord("/4.txt", text="Write to kim@lists.example.net about it"),
                                fp("Write to kim@lists.example.net about it"))
        for query in ("lists", "kim", "lists.example.net", "example"):
            assert [h.id for h in search(store, query, collapse=False).hits] == [new], f"a new item: {query}"
        if plain_before is not None:
            _, rows = store.execute("SELECT CAST(document AS text) FROM items_fts WHERE rowid = 3")
            assert rows[0][0] == plain_before, "a text without joined words is indexed as it was"
    downgrade_to(store_url, "0018")
    engine = make_engine(resolve(store_url), readonly=False)
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            found = conn.exec_driver_sql("SELECT count(*) FROM items_fts WHERE document @@ 'share'::tsquery").scalar()
            assert found == 0, "downgraded, the words inside a path are no longer read apart"
    engine.dispose()
    with open_store(store_url, machine="m") as store:  # up again, every document as its function makes it
        assert [p for p in check_store(store) if p.check == "fts-index"] == []


def test_0020_reads_again_a_sheet_of_numbers_that_was_unsampled_and_the_pages(store_url: str, tmp_path: Path) -> None:
    """A store at 0019 holding a spreadsheet as the code before fingerprinted
    it (numbers filtered: too few shingles, no features), a page whose table
    cells were glued, and a note with features: 0020 marks the sheet and the
    page to be read again, and the next index gives the sheet features under
    the same id, so its corrected copy joins it, and finds the page's words."""
    import shutil

    import openpyxl

    from corpus_store import CORPUS
    from lifededup.index import IndexConfig, run

    folder = tmp_path / "life"
    folder.mkdir()
    shutil.copy(CORPUS / "Documents" / "river-survey" / "river-readings.xlsx", folder / "readings.xlsx")
    note = prose(3)
    (folder / "note.txt").write_text(note)
    (folder / "tools.html").write_text("<table><tr><td>fdisk</td><td>Partition</td></tr></table>")
    (folder / "news.eml").write_text("From: a@example.org\nSubject: News\n\n> quoted words of the issue\n")
    (folder / "deck.odp").write_bytes(b"PK\x05\x06" + b"\x00" * 18)
    upgrade_to(store_url, "0019")
    write_files_as_before(store_url, folder, [(1, "readings.xlsx", "", "spreadsheet", None, "site a 1.5 site b 2.5"),
                                              (2, "note.txt", "", "text", None, note),
                                              (3, "tools.html", "", "web page", None, "fdiskPartition"),
                                              (4, "news.eml", "", "email", None, None),
                                              (5, "deck.odp", "", "archive", None, None)])
    engine = make_engine(resolve(store_url), readonly=False)
    with engine.begin() as conn:  # as fingerprinted before: the sheet's 1,287 words gave no features
        conn.exec_driver_sql("UPDATE items SET mime_type = 'text/html' WHERE id = 3")
        conn.exec_driver_sql("INSERT INTO fingerprints (item_id, sha1, words, shingles, is_representative) VALUES "
                             f"(1, '{'1' * 40}', 1287, 116, {'true' if conn.dialect.name == 'postgresql' else 1})")
        conn.exec_driver_sql("INSERT INTO clusters (item_id, sha1, cluster_id) VALUES (1, :s, 1)", {"s": "1" * 40})
        found = fp(note)
        conn.exec_driver_sql(
            "INSERT INTO fingerprints (item_id, sha1, f1, f2, f3, f4, f5, f6, words, shingles, is_representative) "
            f"VALUES (2, :sha1, :f1, :f2, :f3, :f4, :f5, :f6, :words, :shingles, "
            f"{'true' if conn.dialect.name == 'postgresql' else 1})",
            {"sha1": found.sha1, **{f"f{i + 1}": v for i, v in enumerate(found.features or ())},
             "words": found.words, "shingles": found.shingles})
        conn.exec_driver_sql("INSERT INTO clusters (item_id, sha1, cluster_id) VALUES (2, :s, 2)", {"s": found.sha1})
    engine.dispose()
    upgrade_to(store_url, "0020")
    with open_store(store_url) as store:
        mtimes = marked_to_read(store)
        assert mtimes == {"readings.xlsx": True, "note.txt": False, "tools.html": True, "news.eml": True,
                          "deck.odp": True}, mtimes
        book = openpyxl.load_workbook(folder / "readings.xlsx")
        cell = next(c for row in book.active.iter_rows(min_row=2) for c in row if isinstance(c.value, float))
        cell.value = round(cell.value + 1.0, 1)
        book.save(tmp_path / "readings (corrected).xlsx")
        shutil.move(tmp_path / "readings (corrected).xlsx", folder / "readings (corrected).xlsx")
        summary = run(store, [folder], IndexConfig(workers=1))
        assert (summary.updated, summary.new, summary.unchanged) == (4, 1, 1), summary
        _, rows = store.execute("SELECT i.id, i.path, f.f1, c.cluster_id FROM items i JOIN fingerprints f ON "
                                "f.item_id = i.id JOIN clusters c ON c.item_id = i.id WHERE i.path LIKE '%.xlsx' "
                                "ORDER BY i.id")
        assert rows[0][0] == 1 and rows[0][2] is not None, f"the sheet keeps its id and has features: {rows}"
        assert rows[1][3] == rows[0][3], f"the corrected copy joins the sheet: {rows}"
        assert search_ids(store, "fdisk") == [3], "the page is read again, its cells words apart"
        sound(store)


def _words(stem: str, count: int) -> str:
    """``count`` distinct words: a tsvector of about 14 bytes a word."""
    return " ".join(f"{stem}{n:04d}" for n in range(count))


def test_0021_keeps_a_documents_words_in_its_row_up_to_a_page(store_url: str) -> None:
    """PostgreSQL stored a document over 2 KB apart, in items_fts' TOAST
    table, where every search that read it looked it up: 0021 writes it
    back into its row, the same words; a new one stays in its row, a
    document longer than a page still goes apart, and down again they are
    all apart. SQLite: the same search."""
    upgrade_to(store_url, "0020")
    texts = {1: "The harbour at nine. " + _words("tide", 300),  # about 4 KB of search words
             2: "The harbour at ten.",
             3: "A harbour log. " + _words("knot", 1000)}  # about 14 KB: longer than a page
    engine = make_engine(resolve(store_url), readonly=False)
    with engine.begin() as conn:
        write_texts(conn, texts)
    engine.dispose()
    postgres = "://" in store_url

    def documents() -> tuple[list[str], int]:
        """The documents, and how many are stored apart (values in the TOAST table)."""
        engine = make_engine(resolve(store_url), readonly=True)
        with engine.begin() as conn:
            rows = conn.exec_driver_sql("SELECT CAST(document AS text) FROM items_fts ORDER BY rowid").fetchall()
            toast = conn.exec_driver_sql(
                "SELECT CAST(reltoastrelid AS regclass) FROM pg_class WHERE relname = 'items_fts'").scalar()
            apart = conn.exec_driver_sql(f"SELECT count(DISTINCT chunk_id) FROM {toast}").scalar()
        engine.dispose()
        return [str(r[0]) for r in rows], int(str(apart))

    if postgres:
        before, apart = documents()
        assert apart == 2, f"at 0020 the two long documents are stored apart: {apart}"
    upgrade_to(store_url, "0021")
    if postgres:
        after, apart = documents()
        assert after == before, "the same words and positions"
        assert apart == 1, f"only the document longer than a page is stored apart: {apart}"
    with open_store(store_url, machine="m") as store:
        assert sorted(h.id for h in search(store, "harbour", collapse=False).hits) == [1, 2, 3]
        assert [h.id for h in search(store, '"tide0299"', collapse=False).hits] == [1]
        assert [h.id for h in search(store, "knot0999", collapse=False).hits] == [3]
        text = "The harbour at noon. " + _words("wave", 300)
        new = store.upsert_item(ItemRecord("/4.txt", text=text), fp(text))
        assert [h.id for h in search(store, "wave0123", collapse=False).hits] == [new]
    if postgres:
        assert documents()[1] == 1, "a new document of a few KB stays in its row"
    downgrade_to(store_url, "0020")
    if postgres:
        assert documents()[1] == 3, "down again, every document over 2 KB is stored apart"
    with open_store(store_url, machine="m") as store:  # up again, every document as its function makes it
        assert [p for p in check_store(store) if p.check == "fts-index"] == []


def test_an_older_store_says_it_is_upgraded_and_a_new_one_does_not(store_url: str,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    """A tester's first command on an upgraded PostgreSQL store sat 17.7 s
    without a word while revisions 0019 and 0020 ran: it looked hung."""
    import logging

    caplog.set_level(logging.WARNING, logger="lifededup.store")
    upgrade_to(store_url, "0019")
    open_store(store_url).close()
    said = [r.getMessage() for r in caplog.records if "upgrading" in r.getMessage()]
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert len(said) == 1 and f"from schema revision 0019 to {head}" in said[0], said
    caplog.clear()
    open_store(store_url).close()  # at head: nothing to say
    assert not [r for r in caplog.records if "upgrading" in r.getMessage()]


def test_an_upgrade_says_each_revision_as_it_starts_and_how_long_it_took(store_url: str, tmp_path: Path) -> None:
    """0028 and 0029 rewrite every document: 4 and 6 minutes at a million
    items, after one line saying the store is upgraded, and a person took
    it for hung. The command names each revision as it starts, what it does,
    and how long it took, in order, on stderr: ``--json`` on stdout stays
    JSON; at head, nothing is said."""
    import os
    import subprocess
    import sys

    folder = tmp_path / "letters"
    folder.mkdir()
    (folder / "harbour.txt").write_text(prose(3))
    env = {**os.environ, "LIFEDEDUP_DB": store_url}

    def lifededup(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "lifededup", *args], env=env, capture_output=True, text=True,
                              timeout=120)

    assert lifededup("index", "-j", "1", str(folder)).returncode == 0
    downgrade_to(store_url, "0025")
    word = prose(3).split()[0]
    searched = lifededup("search", "--json", word)
    assert searched.returncode == 0, searched.stderr
    assert [h["path"] for h in json.loads(searched.stdout)["hits"]] == [str(folder / "harbour.txt")]
    lines = searched.stderr.splitlines()
    said = [line for line in lines if re.match(r"  \d{4} ", line)]
    script = ScriptDirectory.from_config(alembic_config())
    applied = [r.revision for r in script.iterate_revisions("heads", "0025")][::-1]
    assert applied[:4] == ["0026", "0027", "0028", "0029"]
    assert [line[2:6] for line in said] == [n for n in applied for _ in (1, 2)], searched.stderr
    assert said[6] == "  0029 PostgreSQL finds a word whatever its accents, as SQLite does ...", said
    assert all(re.fullmatch(r"  \d{4} done in \d+ s", line) for line in said[1::2]), said
    assert lines.index(said[0]) == 1 and f"from schema revision 0025 to {applied[-1]}" in lines[0], searched.stderr
    again = lifededup("search", "--json", word)
    assert again.returncode == 0 and again.stderr == "", "at head, nothing to say"


def test_0022_finds_a_word_inside_cjk_text_and_rewrites_only_the_items_holding_one(store_url: str) -> None:
    """A sentence of Chinese, Japanese or Korean was one word of the index:
    0022 indexes the items holding a CJK character again, each character
    apart (their ``*_apart`` columns), and leaves every other item's row as
    it was; down again, the whole run is one word once more."""
    upgrade_to(store_url, "0021")
    texts = {1: "私は東京に住んでいます。", 2: "列出目录内容", 3: "Plain words only, nothing apart.",
             4: "저는 서울에 살아요", 5: "Latin words alone, and their title too."}
    engine = make_engine(resolve(store_url), readonly=False)
    with engine.begin() as conn:
        write_texts(conn, texts)
        conn.exec_driver_sql("UPDATE items SET title = '日記' WHERE id = 3")  # a CJK title alone
        plain = conn.exec_driver_sql("SELECT CAST(document AS text) FROM items_fts WHERE rowid = 5").scalar() \
            if conn.dialect.name == "postgresql" else None
    engine.dispose()
    with open_store(store_url, machine="m", migrate=False, readonly=True) as store:
        assert phrase_ids(store, "東 京") == [], "at 0021 the run is one word"
    upgrade_to(store_url, "0022")
    wanted = {"東京": [1], "目录": [2], "서울": [4], "日記": [3], "plain": [3], '"東京に住"': [1]}
    with open_store(store_url, machine="m") as store:
        for query, ids in wanted.items():
            assert [h.id for h in search(store, query, collapse=False).hits] == ids, query
        _, rows = store.execute("SELECT id FROM items WHERE text_apart IS NOT NULL OR title_apart IS NOT NULL "
                                "ORDER BY id")
        assert [int(str(r[0])) for r in rows] == [1, 2, 3, 4], "only the items holding a CJK character"
        _, rows = store.execute("SELECT text_apart FROM items WHERE id = 3")
        assert rows[0][0] is None, "a Latin text is not kept twice"
        if plain is not None:
            _, rows = store.execute("SELECT CAST(document AS text) FROM items_fts WHERE rowid = 5")
            assert rows[0][0] == plain, "a text without CJK characters is indexed as it was"
        assert [p for p in check_store(store) if p.check == "fts-index"] == []
    downgrade_to(store_url, "0021")
    engine = make_engine(resolve(store_url), readonly=False)
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            found = conn.exec_driver_sql("SELECT count(*) FROM items_fts WHERE document @@ '東'::tsquery").scalar()
        else:
            found = conn.exec_driver_sql("SELECT count(*) FROM items_fts WHERE items_fts MATCH '東'").scalar()
            conn.exec_driver_sql("INSERT INTO items_fts(items_fts, rank) VALUES('integrity-check', 1)")
        assert found == 0, "downgraded, a CJK run is one word again"
    engine.dispose()
    with open_store(store_url, machine="m") as store:  # up again
        assert [h.id for h in search(store, "東京", collapse=False).hits] == [1]
        assert [p for p in check_store(store) if p.check == "fts-index"] == []


# A hundred short words, each of a long filler text's 16,400 164 times: such
# a text's document loses places past its 16,383rd word, and no word's 256
# places are all taken (nor is it 100,000 characters long).
_SHORT_WORDS = [c + v for c in "bcdfghjklmnprstvwxz" for v in "aeiouy"][:100]


def _filler(count: int) -> list[str]:
    return [_SHORT_WORDS[n % len(_SHORT_WORDS)] for n in range(count)]


def _long_texts() -> dict[int, str]:
    """(a) a phrase past a text's 16,383rd word, and one across its first
    two pieces (words 998-1000); (b) ``the package`` past the 256th ``the``,
    one ``the`` in six words; (c) short texts with the same phrases; (d) a
    phrase past the 16,383rd character of a Chinese text (each character a word)."""
    placed = _filler(16_400)
    placed[998:1001] = ["bright", "harbour", "lights"]
    plain = [chr(c) for c in range(0x4E00, 0x4F40) if chr(c) not in "東京"]
    return {1: " ".join(placed) + " per Filesystem Hierarchy Standard.",
            2: _the_package(),
            3: "A short note: install the package first.",
            4: "The Filesystem Hierarchy Standard in brief.",
            5: "".join(plain[n % len(plain)] for n in range(16_500)) + "東京に住んでいます。"}


def _the_package() -> str:
    return " ".join(f"the {' '.join(_filler(5))}" for _ in range(300)) + " then install the package now."


def phrase_ids(store: Store, phrase: str, *, pieces_alone: bool = False, config: str = "simple") -> list[int]:
    """The items whose words hold ``phrase``, by the store's own index:
    FTS5's phrase on SQLite; on PostgreSQL a document's, or (revision
    0027) one of its pieces' (``pieces_alone``: only those), the phrase
    read with the text search configuration ``config``."""
    if store.location.url is None:
        sql, query = "SELECT rowid FROM items_fts WHERE items_fts MATCH :q", f'"{phrase}"'
    else:
        found = f"document @@ phraseto_tsquery('{config}', :q)"
        parts = [] if pieces_alone else [f"SELECT rowid FROM items_fts WHERE {found}"]
        if "items_fts_pieces" in catalog(store, "tables"):
            parts.append(f"SELECT rowid FROM items_fts_pieces WHERE {found}")
        sql, query = " UNION ".join(parts), phrase
    return sorted({int(str(r[0])) for r in store.execute(sql, {"q": query})[1]})


def pieces_and_made(store: Store) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """Every item's pieces as stored, and as the pieces' function makes them of its document and text now."""
    stored = store.execute("SELECT rowid, piece, CAST(document AS text) FROM items_fts_pieces ORDER BY 1, 2")[1]
    made = store.execute("SELECT f.rowid, p.piece, CAST(p.words AS text) FROM items_fts f"
                         " JOIN items i ON i.id = f.rowid"
                         " CROSS JOIN LATERAL items_fts_pieces_of(f.document, coalesce(i.text_apart, i.text)) AS p"
                         " ORDER BY 1, 2")[1]
    return stored, made


def assert_pieces_cover(store: Store, item_id: int) -> None:
    """Piece 0 is the item's title; pieces 1.. are its text a thousand words
    at a time, every word of it in one, each piece's places all kept."""
    _, [(body,)] = store.execute("SELECT coalesce(text_apart, text) FROM items WHERE id = :i", {"i": item_id})
    words = len(re.split(r"[\s\x01]+", str(body).strip()))
    _, rows = store.execute("SELECT piece, CAST(document AS text) FROM items_fts_pieces WHERE rowid = :i ORDER BY 1",
                            {"i": item_id})
    assert [int(str(r[0])) for r in rows] == list(range(-(-words // 1000) + 1)), f"item {item_id}: {words} words"
    assert rows[0][1] == "'notes':1A", "piece 0: the title, weighted A"
    _, [(missing, clamped)] = store.execute(
        "SELECT (SELECT count(*) FROM (SELECT unnest(tsvector_to_array(items_fts_document(NULL, b.body, NULL)))"
        "  EXCEPT SELECT unnest(tsvector_to_array(k.document)) FROM items_fts_pieces k"
        "  WHERE k.rowid = :i AND k.piece > 0) AS w),"
        " (SELECT count(*) FROM items_fts_pieces k WHERE k.rowid = :i AND items_fts_clamped(k.document, ''))"
        " FROM (SELECT coalesce(text_apart, text) AS body FROM items WHERE id = :i) AS b", {"i": item_id})
    assert (missing, clamped) == (0, 0), f"item {item_id}: {missing} words in no piece, {clamped} pieces lost places"


def test_0027_finds_a_phrase_past_a_long_texts_16383rd_word_or_a_words_256th_place(store_url: str) -> None:
    """A tsvector keeps no place past the 16,383rd and at most 256 places of
    a word, so PostgreSQL missed a phrase there: 0027 keeps such a text also
    in pieces of 1,000 words, in which the phrase is found; the trigger keeps
    them as items are written, changed and removed; down again they are
    gone, up again made anew. SQLite: no change, and the same items found."""
    upgrade_to(store_url, "0026")
    texts = _long_texts()
    engine = make_engine(resolve(store_url), readonly=False)
    with engine.begin() as conn:
        write_texts(conn, texts)
        conn.exec_driver_sql("UPDATE items SET text_apart = :a WHERE id = 5", {"a": apart(texts[5])})
    engine.dispose()
    postgres = "://" in store_url
    wanted = {"filesystem hierarchy standard": [1, 4], "the package": [2, 3], "東 京": [5],
              "bright harbour lights": [1]}
    with open_store(store_url, machine="m", migrate=False, readonly=True) as store:
        before = {what: catalog(store, what) for what in ("tables", "triggers")}
        found = {phrase: phrase_ids(store, phrase) for phrase in wanted}
    if postgres:
        assert found == {**wanted, "filesystem hierarchy standard": [4], "the package": [3], "東 京": []}, \
            "at 0026 the places lost"
    else:
        assert found == wanted
    upgrade_to(store_url, "0027")
    with open_store(store_url, machine="m") as store:
        assert {phrase: phrase_ids(store, phrase) for phrase in wanted} == wanted
        after = {what: catalog(store, what) for what in ("tables", "triggers")}
        assert after == ({**before, "tables": sorted(before["tables"] + ["items_fts_pieces"])} if postgres
                         else before), "SQLite: no change"
        if postgres:
            assert phrase_ids(store, "bright harbour lights", pieces_alone=True) == [1], "across two pieces"
            stored, made = pieces_and_made(store)
            assert sorted({int(str(r[0])) for r in stored}) == [1, 2, 5], "the long texts alone"
            assert stored == made
            for item_id in (1, 2, 5):
                assert_pieces_cover(store, item_id)
        long_text = texts[1].replace("bright", "dim")
        new = store.upsert_item(ItemRecord("/6.txt", title="notes", text=long_text), fp(long_text))
        store.upsert_item(ItemRecord("/3.txt", title="notes", text=texts[2] + " Again."), fp(texts[2] + " Again."))
        store.upsert_item(ItemRecord("/1.txt", title="notes", text=texts[4]), fp(texts[4]))
        store.remove_ids([2])
        assert {phrase: phrase_ids(store, phrase) for phrase in wanted} == {
            "filesystem hierarchy standard": [1, 4, new], "the package": [3], "東 京": [5],
            "bright harbour lights": []}
        if postgres:
            stored, made = pieces_and_made(store)
            assert sorted({int(str(r[0])) for r in stored}) == [3, 5, new], \
                "written, changed to a long text, changed to a short one, removed"
            assert stored == made
            assert_pieces_cover(store, new)
        assert [p for p in check_store(store) if p.check == "fts-index"] == []
    if not postgres:
        return
    downgrade_to(store_url, "0026")
    with open_store(store_url, machine="m", migrate=False, readonly=True) as store:
        assert catalog(store, "tables") == before["tables"], "down again, the pieces are gone"
        _, [(functions,)] = store.execute("SELECT count(*) FROM pg_proc WHERE proname IN "
                                          "('items_fts_pieces_of', 'items_fts_clamped')")
        assert functions == 0, "and their functions"
    engine = make_engine(resolve(store_url), readonly=False)
    with engine.begin() as conn:
        write_texts(conn, {new + 1: _the_package()})  # through the trigger as it was at 0026
    engine.dispose()
    with open_store(store_url, machine="m") as store:  # up again
        stored, made = pieces_and_made(store)
        assert sorted({int(str(r[0])) for r in stored}) == [3, 5, new, new + 1] and stored == made
        assert phrase_ids(store, "the package") == [3, new + 1]
        assert [p for p in check_store(store) if p.check == "fts-index"] == []


def _documents(store: Store) -> list[tuple[object, ...]]:
    """Every search row's words and every piece's, as stored (PostgreSQL)."""
    return (store.execute("SELECT rowid, CAST(document AS text) FROM items_fts ORDER BY 1")[1]
            + store.execute("SELECT rowid, piece, CAST(document AS text) FROM items_fts_pieces ORDER BY 1, 2")[1])


def _made(store: Store) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """What makes a PostgreSQL store's search rows, ``items_fts_document``'s
    definition, and every search row and piece it made (``_documents``)."""
    function = store.execute("SELECT pg_get_functiondef(CAST('items_fts_document(text,text,text)' AS regprocedure))")
    return function[1], _documents(store)


@contextmanager
def _downgraded(store_url: str, revision: str) -> Iterator[Store]:
    """The store taken down to ``revision``, opened as it is, to read."""
    downgrade_to(store_url, revision)
    with open_store(store_url, machine="m", migrate=False, readonly=True) as store:
        yield store


def test_0028_reads_punctuation_as_spaces_so_a_phrase_runs_through_a_joined_word(store_url: str) -> None:
    """PostgreSQL's parser kept setup.py, setup/teardown, bug-fix and 4.5 as
    words of their own (0019 read their parts again after the text), so a
    phrase running into one was not found, where SQLite, which reads every
    punctuation mark as a space, found it. 0028 makes every document and
    every piece again with punctuation as spaces: both backends find the
    same items, a text written after too, ``check`` is clean; down again,
    the documents are what they were. SQLite: no change."""
    upgrade_to(store_url, "0027")
    placed = _filler(16_400)
    texts = {1: "Run the setup.py file; see https://debian.org/doc for a bug-fix release 4.5 by doko@debian.org.",
             2: "A bug fix here: the setup/teardown mechanism runs <b>twice</b> & more.",
             3: "Plain words only, with a full stop.",
             4: " ".join(placed) + " then run the setup.py file."}  # pieced (0027): past the 16,383rd word
    engine = make_engine(resolve(store_url), readonly=False)
    with engine.begin() as conn:
        write_texts(conn, texts)
    engine.dispose()
    postgres = "://" in store_url
    wanted = {"setup py file": [1, 4], "the setup teardown mechanism": [2], "for a bug": [1],
              "release 4 5 by": [1], "doko debian org": [1], "bug fix": [1, 2], "runs b twice b": [2]}
    with open_store(store_url, machine="m", migrate=False, readonly=True) as store:
        found = {phrase: phrase_ids(store, phrase) for phrase in wanted}
        before = _made(store) if postgres else None
    if postgres:
        assert found == {**wanted, "setup py file": [], "the setup teardown mechanism": [], "for a bug": [],
                         "release 4 5 by": [], "runs b twice b": []}, "at 0027 a phrase ran into a joined word in vain"
    else:
        assert found == wanted
    upgrade_to(store_url, "0028")
    with open_store(store_url, machine="m") as store:
        assert {phrase: phrase_ids(store, phrase) for phrase in wanted} == wanted
        new = store.upsert_item(ItemRecord("/5.txt", title="setup.py notes", text="Then the setup.py file, again."),
                                fp("Then the setup.py file, again."))
        assert phrase_ids(store, "setup py file") == [1, 4, new], "a text written after, through the trigger"
        assert phrase_ids(store, "setup py notes") == [new], "its title too"
        if postgres:
            assert phrase_ids(store, "setup py file", pieces_alone=True) == [4], "the pieces made again"
            stored, made = pieces_and_made(store)
            assert stored == made
        assert [p for p in check_store(store) if p.check == "fts-index"] == []
        assert sorted(h.path for h in search(store, "setup.py file", collapse=False).hits) == [
            "/1.txt", "/4.txt", "/5.txt"], "as the user types it"
        store.remove_ids([new])
    if not postgres:
        return
    with _downgraded(store_url, "0027") as store:
        assert _made(store) == before, "0019's function again, and the documents and pieces it made"


def _accented_texts() -> dict[int, str]:
    """Accented words as people write them, one text past the 16,383rd word (pieced, 0027), one decomposed (NFD)."""
    return {1: "Der Lötkolben liegt im Keller; Nguyễn Văn Quân kam aus Hà Nội.",
            2: "Mon résumé: une crème brûlée.",
            3: "A resume, in plain ASCII.",
            4: " ".join(_filler(16_400)) + " und der Lötkolben liegt im Keller.",
            5: "Le re\u0301sume\u0301 de\u0301compose\u0301."}


def _configuration_map(store: Store, config: str) -> list[tuple[object, ...]]:
    """Each token type a text search configuration reads, and its dictionaries in order."""
    return store.execute(
        "SELECT t.alias, array_agg(CAST(m.mapdict AS regdictionary)::text ORDER BY m.mapseqno) "
        "FROM pg_ts_config_map m JOIN ts_token_type('default') t ON t.tokid = m.maptokentype "
        "WHERE m.mapcfg = CAST(:c AS regconfig) GROUP BY t.alias ORDER BY t.alias", {"c": config})[1]


def test_0029_finds_a_word_whatever_its_accents_on_both_backends(store_url: str) -> None:
    """PostgreSQL's documents kept a word's accents (the ``simple``
    configuration) where SQLite's index drops them (0016), so ``Lotkolben``
    missed ``Lötkolben`` there alone. 0029 reads words through unaccent
    (the store's configuration ``lifededup``) and makes every document and
    piece again: both backends find the same items, a text written after
    too, ``check`` is clean; down again, the documents are 0028's. SQLite:
    no change."""
    upgrade_to(store_url, "0028")
    engine = make_engine(resolve(store_url), readonly=False)
    with engine.begin() as conn:
        write_texts(conn, _accented_texts())
    engine.dispose()
    postgres = "://" in store_url
    wanted = {"lotkolben": [1, 4], "der lotkolben liegt": [1, 4], "nguyen van quan": [1], "ha noi": [1],
              "resume": [2, 3, 5], "creme brulee": [2], "decompose": [5], "lötkolben": [1, 4]}
    with open_store(store_url, machine="m", migrate=False, readonly=True) as store:
        found = {phrase: phrase_ids(store, phrase) for phrase in wanted}
        before = _made(store) if postgres else None
    if postgres:
        assert found == {**{phrase: [] for phrase in wanted}, "resume": [3], "lötkolben": [1, 4]}, \
            "at 0028 a word without its accents found none written with them"
    else:
        assert found == wanted
    upgrade_to(store_url, "0029")
    with open_store(store_url, machine="m") as store:
        assert {phrase: phrase_ids(store, phrase, config=TS_CONFIG) for phrase in wanted} == wanted
        new = store.upsert_item(ItemRecord("/6.txt", title="Über Crème brûlée", text="Ein Lötkolben, déjà vu."),
                                fp("Ein Lötkolben, déjà vu."))
        assert phrase_ids(store, "lotkolben", config=TS_CONFIG) == [1, 4, new], "a text written after, by the trigger"
        assert phrase_ids(store, "uber creme", config=TS_CONFIG) == [new], "its title too"
        assert sorted(h.path for h in search(store, "Lotkolben", collapse=False).hits) == [
            "/1.txt", "/4.txt", "/6.txt"], "as the user types it"
        assert sorted(h.path for h in search(store, "Lötk*", collapse=False).hits) == ["/1.txt", "/4.txt", "/6.txt"]
        if postgres:
            assert phrase_ids(store, "der lotkolben liegt", pieces_alone=True, config=TS_CONFIG) == [4], \
                "the pieces made again"
            stored, made = pieces_and_made(store)
            assert stored == made
            simple = _configuration_map(store, "simple")
            assert _configuration_map(store, TS_CONFIG) == [(token, ["unaccent", "simple"]) for token, _ in simple], \
                "every token type simple reads, read without its accents first"
        assert [p for p in check_store(store) if p.check == "fts-index"] == []
        store.remove_ids([new])
    if not postgres:
        return
    with _downgraded(store_url, "0028") as store:
        assert _made(store) == before, "0028's function again, and the documents and pieces it made"
        assert store.execute("SELECT count(*) FROM pg_ts_config WHERE cfgname = :c", {"c": TS_CONFIG})[1] == [(0,)]
        assert store.execute("SELECT count(*) FROM pg_extension WHERE extname = 'unaccent'")[1] == [(1,)], \
            "the extension stays: another program in the database may use it"
    with open_store(store_url, machine="m") as store:  # up again, the extension there already
        assert phrase_ids(store, "lotkolben", config=TS_CONFIG) == [1, 4]


def test_0029_a_role_that_may_not_create_unaccent_is_told_what_to_run(postgres: object, pg_url: str) -> None:
    """A store whose role does not own its database (nor may create in it)
    cannot create the extension: the upgrade stops with what to run, and as
    whom, and changes nothing; once the owner has made it (here in a schema
    of its own, as shared databases keep extensions) and let the role use
    it, the store upgrades."""
    import os

    import psycopg
    from click.testing import CliRunner

    from lifededup.cli import main
    from lifededup.store.errors import MissingExtension

    role = f"clerk_{os.getpid()}"
    database = pg_url.split("?")[0].rsplit("/", 1)[1]
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute(f"DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{role}')"
                      f" THEN CREATE ROLE {role} LOGIN; END IF; END$$")
        admin.execute(f"GRANT ALL ON SCHEMA public TO {role}")
    url = pg_url.replace("postgresql://postgres@", f"postgresql://{role}@")
    upgrade_to(url, "0028")
    engine = make_engine(resolve(url), readonly=False)
    with engine.begin() as conn:
        write_texts(conn, {1: "Der Lötkolben liegt im Keller."})
    engine.dispose()
    with pytest.raises(MissingExtension) as refused:
        open_store(url, machine="m").close()
    said = str(refused.value)
    assert (f"the role {role} may not create it in the database {database}. Have its owner or a superuser "
            f"run psql -d {database} -c 'CREATE EXTENSION unaccent'") in said, said
    done = CliRunner().invoke(main, ["check", "--db", url])
    assert done.exit_code == 1 and "CREATE EXTENSION unaccent" in done.output and "Traceback" not in done.output, \
        done.output
    with open_store(url, machine="m", migrate=False, readonly=True) as store:
        assert store.execute("SELECT version_num FROM alembic_version")[1] == [("0028",)], "nothing changed"
    with psycopg.connect(pg_url, autocommit=True) as admin:  # in a schema of its own, not on the role's path
        admin.execute("CREATE SCHEMA extensions")
        admin.execute("CREATE EXTENSION unaccent SCHEMA extensions")
    with pytest.raises(MissingExtension) as refused:
        open_store(url, machine="m").close()
    assert f"may not use that schema. Have the database's owner or a superuser run GRANT USAGE ON SCHEMA " \
           f"extensions TO {role}, then" in str(refused.value), refused.value
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute(f"GRANT USAGE ON SCHEMA extensions TO {role}")
    with open_store(url, machine="m") as store:
        assert [h.path for h in search(store, "Lotkolben", collapse=False).hits] == ["/1.txt"]
