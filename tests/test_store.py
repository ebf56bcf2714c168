"""The store's write API on real SQLite files and a real PostgreSQL server: items in, clusters right."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from store_samples import PARAMS, fp, prose, revised, synthetic

from lifededup.config import FingerprintParams
from lifededup.store import (
    ItemRecord,
    ParamsMismatch,
    Store,
    StoreNotFound,
    UnsupportedStore,
    open_store,
)
from lifededup.store.check import check_store
from lifededup.store.opening import alembic_config


def clusters(store: Store) -> dict[int, int]:
    _, rows = store.execute("SELECT item_id, cluster_id FROM clusters")
    return {int(r[0]): int(r[1]) for r in rows}  # type: ignore[call-overload]


def add(store: Store, path: str, text: str | None, **fields: object) -> int:
    record = ItemRecord(path=path, text=text, **fields)  # type: ignore[arg-type]
    return store.upsert_item(record, fp(text) if text is not None else None)


def sound(store: Store, *, made_up: bool = False) -> None:
    """``made_up``: the store holds synthetic fingerprints, chosen apart from
    their items' texts, which `check` rightly finds stale."""
    problems = [p for p in check_store(store) if not (made_up and p.check == "fingerprint-stale")]
    assert problems == [], "store invariants broken:\n" + "\n".join(map(str, problems))


@pytest.fixture
def store(store_url: str) -> Store:
    """An empty store, on SQLite and on PostgreSQL."""
    opened = open_store(store_url)
    yield opened  # type: ignore[misc]
    opened.close()


@pytest.fixture
def features_store(store: Store) -> Store:
    """A store clustering by the design card's rule alone (at least 2 shared
    features, no verification): synthetic fingerprints are tested on it."""
    store.recluster(rule="features")
    return store


def test_new_store_is_private_wal_and_at_head(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "s.db"
    with open_store(path) as store:
        add(store, "/a.txt", prose(1))
        mode = stat.S_IMODE(os.stat(path).st_mode)
        assert mode == 0o600, f"store file mode {oct(mode)}, want 0o600: it holds private text"
        _, [(journal,)] = store.execute("PRAGMA journal_mode")
        assert journal == "wal", f"journal_mode {journal}"
        _, [(revision,)] = store.execute("SELECT version_num FROM alembic_version")
        # the newest revision, whichever stage added it (0003: detector tables)
        assert revision == ScriptDirectory.from_config(alembic_config()).get_current_head()
        for side in ("-wal", "-shm"):
            side_path = Path(str(path) + side)
            if side_path.exists():
                side_mode = stat.S_IMODE(os.stat(side_path).st_mode)
                assert side_mode == 0o600, f"{side_path.name} mode {oct(side_mode)}"


def test_env_var_and_url_pick_the_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LIFEDEDUP_DB", str(tmp_path / "env.db"))
    with open_store() as store:
        assert store.path == tmp_path / "env.db"
    with open_store(f"sqlite:///{tmp_path / 'url.db'}") as store:
        assert store.path == tmp_path / "url.db"
    assert (tmp_path / "env.db").exists() and (tmp_path / "url.db").exists()


def test_default_store_is_in_the_xdg_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LIFEDEDUP_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    with open_store() as store:
        assert store.path == tmp_path / "xdg" / "lifededup" / "lifededup.db", store.path


def test_unusable_locations_are_refused_clearly(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedStore, match="SQLite file or a PostgreSQL database"):
        open_store("mysql://localhost/x")
    for port in ("abc", ""):
        with pytest.raises(UnsupportedStore, match="is not a database URL"):
            open_store(f"postgresql://me@localhost:{port}/x")
    with pytest.raises(UnsupportedStore, match="through psycopg"):
        open_store("postgresql+psycopg2://localhost/x")
    # postgres:// is PostgreSQL too (SQLAlchemy knows no dialect of that name)
    with pytest.raises(UnsupportedStore, match="cannot use the store postgresql://localhost:1/x: .*refused"):
        open_store("postgres://localhost:1/x")
    with pytest.raises(UnsupportedStore, match="cannot use the store postgresql://localhost:1/x: .*refused"):
        open_store("postgresql://localhost:1/x")
    with pytest.raises(StoreNotFound, match="no store at"):
        open_store(tmp_path / "missing.db", readonly=True)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(UnsupportedStore, match="junk.db"):
        open_store(junk)


def test_exact_copy_joins_the_cluster_of_its_original(store: Store) -> None:
    text = prose(1)
    first = add(store, "/a.txt", text)
    other = add(store, "/b.txt", prose(2))
    copy = add(store, "/c.txt", "  " + text.upper() + "\n")
    got = clusters(store)
    assert got == {first: first, other: other, copy: first}, got
    sound(store)


def test_near_copy_joins_representative_and_members_never_represent(features_store: Store) -> None:
    store = features_store
    a = prose(1)
    ids = [add(store, "/a", a), add(store, "/b", revised(a, 2, changes=1))]
    got = clusters(store)
    assert got[ids[1]] == ids[0], f"near copy not clustered with its original: {got}"
    # c is a near copy of the member m (2 shared features) but not of the
    # representative r (0 shared): it must not join through m (seeds/000 3.2)
    r = store.upsert_item(ItemRecord("/r", text="r"), synthetic("r", (1, 2, 3, 4, 5, 6)))
    m = store.upsert_item(ItemRecord("/m", text="m"), synthetic("m", (1, 2, 30, 40, 50, 60)))
    c = store.upsert_item(ItemRecord("/c", text="c"), synthetic("c", (10, 20, 30, 40, 500, 600)))
    got = clusters(store)
    assert got[m] == r and got[c] == c, f"a member acted as a representative: {got}"
    _, rows = store.execute("SELECT item_id FROM fingerprints WHERE is_representative ORDER BY item_id")
    assert [row[0] for row in rows] == [ids[0], r, c], rows
    sound(store, made_up=True)


def test_ties_go_to_the_most_shared_then_the_longest_representative(features_store: Store) -> None:
    store = features_store
    # representatives share at most one feature pairwise, so none joins another
    r1 = store.upsert_item(ItemRecord("/r1", text="r1"), synthetic("r1", (1, 2, 3, 4, 5, 6)))
    r2 = store.upsert_item(ItemRecord("/r2", text="r2"), synthetic("r2", (1, 20, 30, 40, 50, 60), words=150))
    r3 = store.upsert_item(ItemRecord("/r3", text="r3"), synthetic("r3", (10, 2, 300, 400, 500, 600)))
    assert clusters(store) == {r1: r1, r2: r2, r3: r3}, clusters(store)
    # shares 2 with r1 and 4 with r3: the most shared wins
    most = store.upsert_item(ItemRecord("/m", text="m"), synthetic("m", (1, 2, 300, 400, 500, 0)))
    # shares 2 with r1 and 2 with r2: the longer text wins (not the earlier:
    # arrival order must not decide)
    tie = store.upsert_item(ItemRecord("/t", text="t"), synthetic("t", (1, 2, 30, 0, 0, 0)))
    got = clusters(store)
    assert got[most] == r3, f"most shared features should win: {got}"
    assert got[tie] == r2, f"tie should go to the longer representative: {got}"
    sound(store, made_up=True)


def test_short_text_without_features_matches_by_sha1_only(store: Store) -> None:
    a = add(store, "/a", "hello there")
    b = add(store, "/b", "Hello   THERE")
    c = add(store, "/c", "hello where")
    assert clusters(store) == {a: a, b: a, c: c}
    sound(store)


def test_deleting_a_representative_elects_the_longest_member_and_reclusters_the_rest(
    features_store: Store,
) -> None:
    store = features_store
    rep = store.upsert_item(ItemRecord("/rep", text="x"), synthetic("rep", (1, 2, 3, 4, 5, 6)))
    m1 = store.upsert_item(ItemRecord("/m1", text="x"), synthetic("m1", (1, 2, 0, 0, 0, 0), words=120))
    m2 = store.upsert_item(ItemRecord("/m2", text="x"), synthetic("m2", (0, 0, 3, 4, 9, 9)))
    m3 = store.upsert_item(ItemRecord("/m3", text="x"), synthetic("m3", (1, 2, 7, 7, 7, 7)))
    assert set(clusters(store).values()) == {rep}
    assert store.remove_items(["/rep"]) == 1
    got = clusters(store)
    # m1 is elected; m3 shares (1, 2) with it and stays; m2 shares nothing, so it
    # represents a cluster of its own
    assert got == {m1: m1, m2: m2, m3: m1}, got
    sound(store, made_up=True)


def test_changed_text_is_reclustered_and_its_old_cluster_repaired(store: Store) -> None:
    a, c = prose(1), prose(3)
    ia = add(store, "/a", a)
    ib = add(store, "/b", revised(a, 5))
    ic = add(store, "/c", c)
    assert clusters(store) == {ia: ia, ib: ia, ic: ic}
    add(store, "/a", revised(c, 7))  # the representative now says something else
    got = clusters(store)
    assert got[ib] == ib, f"old member should represent the repaired cluster: {got}"
    assert got[ia] == ic, f"changed item should join its new near copy: {got}"
    sound(store)


def test_unchanged_fingerprint_keeps_the_item_and_its_cluster(store: Store) -> None:
    ia = add(store, "/a", prose(1), title="first")
    before = clusters(store)
    again = add(store, "/a", prose(1), title="second")
    assert again == ia and clusters(store) == before
    got = store.execute(f"SELECT title FROM items WHERE id = {ia}")[1]
    assert got == [("second",)], got


def test_failure_is_recorded_and_leaves_its_cluster(store: Store) -> None:
    a = prose(1)
    ia = add(store, "/a", a)
    ib = add(store, "/b", revised(a, 3))
    store.record_failure(ItemRecord("/a", kind="document", size=10), "PDF is encrypted")
    _, rows = store.execute(f"SELECT status, error, text FROM items WHERE id = {ia}")
    assert rows == [("failed", "PDF is encrypted", None)], rows
    assert clusters(store) == {ib: ib}
    fid = store.record_failure("/broken.pdf", "not a PDF")
    assert store.item_id("/broken.pdf") == fid
    sound(store)


def test_an_item_believed_new_that_is_stored_is_written_over_not_doubled(store: Store) -> None:
    """The indexer inserts a new file's items without looking first
    (``new=True``); one another run stored meanwhile is found by its name all
    the same, and refreshed as any changed item is."""
    a, c = prose(1), prose(3)
    ia = add(store, "/a", a)
    ib = add(store, "/b", revised(a, 5))
    ic = add(store, "/c", c)
    again = store.upsert_item(ItemRecord("/a", text=revised(c, 7), title="now"), fp(revised(c, 7)), new=True)
    assert again == ia
    assert store.execute("SELECT count(*) FROM items WHERE path = '/a'")[1] == [(1,)]
    got = clusters(store)
    assert got[ib] == ib and got[ia] == ic, got
    assert store.record_failure(ItemRecord("/b", size=3), "PDF is encrypted", new=True) == ib
    assert store.execute(f"SELECT status, text FROM items WHERE id = {ib}")[1] == [("failed", None)]
    assert ib not in clusters(store)
    fresh = store.upsert_item(ItemRecord("/d", text=c), fp(c), new=True)
    assert fresh not in (ia, ib, ic) and clusters(store)[fresh] == ic
    sound(store)


def test_items_without_text_have_no_fingerprint(store: Store) -> None:
    iid = add(store, "/photo.jpg", None, kind="image", mime_type="image/jpeg")
    assert clusters(store) == {}
    assert store.item_id("/photo.jpg") == iid
    with pytest.raises(ValueError, match="fingerprint"):
        store.upsert_item(ItemRecord("/x", text="words"), None)
    sound(store)


def test_parts_children_and_removal_of_a_whole_file(store: Store) -> None:
    box = store.upsert_item(ItemRecord("/mail.mbox", kind="mailbox"), None)
    msgs = [
        store.upsert_item(ItemRecord("/mail.mbox", part=str(i), parent_id=box, kind="email", text=prose(i)),
                          fp(prose(i)))
        for i in range(3)
    ]
    att = store.upsert_item(ItemRecord("/mail.mbox", part="1/report.txt", parent_id=msgs[1], text=prose(1)),
                            fp(prose(1)))
    assert clusters(store)[att] == msgs[1], "an attachment equal to its mail's text is an exact copy"
    assert store.item_id("/mail.mbox", "1/report.txt") == att
    assert store.remove_items(["/mail.mbox"]) == 5
    _, rows = store.execute("SELECT count(*) FROM items")
    assert rows == [(0,)], rows
    sound(store)


def test_move_keeps_ids_and_clusters_and_replaces_the_target(store: Store) -> None:
    ia = add(store, "/old/a", prose(1))
    ib = add(store, "/new/a", prose(2))
    before = clusters(store)
    assert store.move_item("/old/a", "/new/a") == 1
    assert store.item_id("/new/a") == ia and store.item_id("/old/a") is None
    assert clusters(store) == {ia: before[ia]}, f"replaced item {ib} should be gone"
    sound(store)


def test_transaction_batches_and_rolls_back_as_one(store: Store) -> None:
    with pytest.raises(RuntimeError):
        with store.transaction():
            add(store, "/a", prose(1))
            add(store, "/b", prose(2))
            raise RuntimeError("crash mid-batch")
    assert store.execute("SELECT count(*) FROM items")[1] == [(0,)]
    with store.transaction():
        add(store, "/a", prose(1))
        add(store, "/b", prose(2))
    assert store.execute("SELECT count(*) FROM items")[1] == [(2,)]


def test_store_keeps_its_params_and_refuses_others(store: Store) -> None:
    add(store, "/a", prose(1))
    assert store.params == PARAMS
    other = FingerprintParams(shingle_words=5)
    from lifededup.fingerprint import fingerprint

    with pytest.raises(ParamsMismatch, match="built with fingerprint params"):
        store.upsert_item(ItemRecord("/b", text=prose(2)), fingerprint(prose(2), other))
    assert store.item_id("/b") is None, "a refused item must leave no trace"
    with pytest.raises(ParamsMismatch):
        store.set_params(other)


def test_changing_the_threshold_rebuilds_clusters(features_store: Store) -> None:
    store = features_store
    r = store.upsert_item(ItemRecord("/r", text="x"), synthetic("r", (1, 2, 3, 4, 5, 6)))
    m = store.upsert_item(ItemRecord("/m", text="x"), synthetic("m", (1, 2, 0, 0, 0, 0)))
    assert clusters(store) == {r: r, m: r}
    store.set_params(FingerprintParams(threshold=3))
    assert clusters(store) == {r: r, m: m}
    sound(store, made_up=True)


def test_feature_lookup_uses_the_indexes(store: Store) -> None:
    from lifededup.store.clustering import _REPRESENTATIVES_SHARING

    values: dict[str, object] = {f: 1 for f in ("f1", "f2", "f3", "f4", "f5", "f6")}
    if store.location.url is not None:
        # PostgreSQL scans a table this small; say whether it could seek
        with store.transaction():
            store.execute("SET LOCAL enable_seqscan = off")
            _, rows = store.execute("EXPLAIN " + str(_REPRESENTATIVES_SHARING), {**values, "threshold": 2})
        plan = "\n".join(str(r[0]) for r in rows)
        assert "Seq Scan" not in plan, f"candidate lookup scans:\n{plan}"
    else:
        _, rows = store.execute("EXPLAIN QUERY PLAN " + str(_REPRESENTATIVES_SHARING), {**values, "threshold": 2})
        plan = "\n".join(str(r[-1]) for r in rows)
        assert "SCAN fingerprints" not in plan, f"candidate lookup scans:\n{plan}"
    for f in ("f1", "f2", "f3", "f4", "f5", "f6"):
        assert f"ix_fingerprints_{f}" in plan, f"no index seek on {f}:\n{plan}"


# the query Datasette (utils.detect_fts) and sqlite-utils (Table.detect_fts)
# use to decide that `items` has full-text search
DETECT_FTS = """
    SELECT name FROM sqlite_master
    WHERE rootpage = 0 AND (
        sql LIKE '%VIRTUAL TABLE%USING FTS%content="items"%'
        OR sql LIKE '%VIRTUAL TABLE%USING FTS%content=[items]%'
        OR (tbl_name = 'items' AND sql LIKE '%VIRTUAL TABLE%USING FTS%')
    )"""


def test_datasette_and_sqlite_utils_find_the_search_table(tmp_path: Path) -> None:
    # Datasette and sqlite-utils read SQLite files: the SQLite store alone.  Revision 0022's view
    # (items_searched) hid it from both, 0024 shows it again; a store upgraded through them too
    from test_migrations import upgrade_to

    upgrade_to(tmp_path / "upgraded.db", "0023")
    upgraded = open_store(tmp_path / "upgraded.db")
    assert upgraded.execute(DETECT_FTS)[1] == [("items_fts",)]
    add(upgraded, "/b", prose(2), title="Quarterly budget")
    assert upgraded.execute("SELECT rowid FROM items_fts WHERE items_fts MATCH 'quarterly'")[1] == \
        [(upgraded.item_id("/b"),)]
    upgraded.close()
    store = open_store(tmp_path / "store.db")
    add(store, "/a", prose(1), title="Quarterly budget")
    assert store.execute(DETECT_FTS)[1] == [("items_fts",)]
    store.execute("INSERT INTO items_fts (items_fts, rank) VALUES ('integrity-check', 1)")  # raises if unsound
    _, triggers = store.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'items'")
    assert {t[0] for t in triggers} >= {"items_ai", "items_ad", "items_au"}, triggers
    _, rows = store.execute("SELECT rowid FROM items_fts WHERE items_fts MATCH 'quarterly'")
    assert rows == [(store.item_id("/a"),)], rows


def test_statements_with_a_percent_sign_run_on_every_path(store: Store) -> None:
    """The store's SQL is written with SQLite's :name parameters; on
    PostgreSQL they become psycopg's, and a literal % (LIKE '%...') must stay
    a percent sign with or without parameters, on each way a statement runs."""
    from lifededup.store.dialect import driver

    add(store, "/notes/100% sure.txt", prose(1))
    add(store, "/notes/other.txt", prose(2))
    like = "SELECT path FROM items WHERE path LIKE '%\\%%' ESCAPE '\\'"
    want = [("/notes/100% sure.txt",)]
    assert store.execute(like)[1] == want
    assert store.execute(like + " AND part = :part", {"part": ""})[1] == want
    with store.transaction() as conn:
        assert [tuple(r) for r in conn.exec_driver_sql(like)] == want
        assert [tuple(r) for r in conn.exec_driver_sql(like + " AND part = :part", {"part": ""})] == want
        assert [tuple(r) for r in driver(conn).execute(like).fetchall()] == want
        assert [tuple(r) for r in driver(conn).execute(like + " AND part = ?", ("",)).fetchall()] == want
        again = "".join([like[:7], like[7:]])  # the same text in another string: the translation is cached by text
        assert [tuple(r) for r in driver(conn).execute(again).fetchall()] == want
        assert [tuple(r) for r in conn.exec_driver_sql(again)] == want


def test_check_finds_a_search_row_that_is_not_its_items_text(store: Store) -> None:
    """A search row changed behind the store's back (by hand, or by an old
    function) is found: FTS5's integrity check on SQLite, the words made
    again from the item on PostgreSQL."""
    kept = add(store, "/a/kept.txt", prose(1, 60))
    changed = add(store, "/a/changed.txt", prose(2, 60))
    sound(store)
    with store.transaction() as conn:
        if store.location.url is not None:
            conn.exec_driver_sql("UPDATE items_fts SET document = to_tsvector('simple', 'something else') "
                                 "WHERE rowid = :id", {"id": changed})
        else:  # FTS5 takes the words to remove as given: the index keeps the old ones, adds new
            conn.exec_driver_sql("INSERT INTO items_fts (rowid, title, text) VALUES (:id, NULL, 'something else')",
                                 {"id": changed})
    problems = [p for p in check_store(store) if p.check == "fts-index"]
    assert problems, "a search row that is not its item's text went unnoticed"
    if store.location.url is not None:
        assert problems[0].item_ids == [changed] and kept not in problems[0].item_ids, problems


def test_check_finds_sketch_keys_that_are_not_their_representatives_sketch(store: Store) -> None:
    """The candidate lookup reads sketch_keys: a representative missing a
    key would not find its near copies, and a key of a member would offer
    it as a representative.  check finds both; recluster mends them."""
    original = prose(3, 80)
    first = add(store, "/a/original.txt", original)
    member = add(store, "/a/draft.txt", revised(original, 5, changes=2))
    other = add(store, "/a/other.txt", prose(4, 80))
    assert clusters(store)[member] == first, "the draft should join its original"
    sound(store)
    _, (row,) = store.execute("SELECT min(value) FROM sketch_keys WHERE item_id = :id", {"id": first})
    with store.transaction() as conn:
        conn.exec_driver_sql("DELETE FROM sketch_keys WHERE item_id = :id AND value = :v", {"id": first, "v": row[0]})
        conn.exec_driver_sql("INSERT INTO sketch_keys (value, item_id) VALUES (12345, :id)", {"id": member})
    found = {p.check: p.item_ids for p in check_store(store)}
    assert found.get("sketch-keys") == sorted([first, member]), f"{found}: want {first} and {member}, not {other}"
    store.recluster()
    sound(store)


def test_recluster_tells_how_many_texts_it_has_placed(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """``recluster(progress=...)`` hears (placed, of) from 0 to every text,
    never going back: what the command's bar shows on a terminal."""
    from lifededup.store import clustering

    monkeypatch.setattr(clustering, "PROGRESS_EVERY", 2)  # a report every two texts, on a store of seven
    with store.transaction():
        for n in range(5):
            add(store, f"/a/{n}.txt", prose(10 + n, 80))
        add(store, "/a/copy.txt", prose(10, 80))
        add(store, "/a/draft.txt", revised(prose(11, 80), 3, changes=2))
    heard: list[tuple[int, int]] = []
    store.recluster(progress=lambda placed, of: heard.append((placed, of)))
    assert heard[0] == (0, 7) and heard[-1] == (7, 7), heard
    assert [p for p, _ in heard] == sorted(p for p, _ in heard) and len(heard) >= 4, heard
    sound(store)


def test_a_store_refusing_for_now_is_told_from_a_statement_that_is_wrong(tmp_path: Path) -> None:
    """``is_unavailable``: SQLite locked by another writer is a refusal for
    now (the watcher waits and tries again); a table that does not exist is
    not (waiting would not help), bare or wrapped by SQLAlchemy."""
    import sqlite3

    from sqlalchemy import create_engine
    from sqlalchemy.exc import OperationalError

    from lifededup.store import is_unavailable

    db = tmp_path / "locked.db"
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN IMMEDIATE")
    waiting = sqlite3.connect(db, timeout=0, isolation_level=None)
    with pytest.raises(sqlite3.OperationalError) as locked:
        waiting.execute("BEGIN IMMEDIATE")
    with pytest.raises(sqlite3.OperationalError) as missing:
        waiting.execute("SELECT * FROM no_such_table")
    engine = create_engine(f"sqlite:///{tmp_path / 'other.db'}")
    with pytest.raises(OperationalError) as wrapped, engine.connect() as conn:
        conn.exec_driver_sql("SELECT * FROM no_such_table")
    assert is_unavailable(locked.value), f"{locked.value} is the store busy for now"
    assert not is_unavailable(missing.value) and not is_unavailable(wrapped.value), "a wrong statement waits for nothing"
    holder.execute("ROLLBACK")
    holder.close()
    waiting.close()
    engine.dispose()


def test_a_mistyped_server_url_is_refused_not_made_a_file_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """LIFEDEDUP_DB='postgresql//lifededup@nas/lifededup' (a colon forgotten)
    made ./postgresql/lifededup@nas/lifededup, folders and all, and indexed
    into it: the machine never reached the shared store."""
    from click.testing import CliRunner

    from lifededup.cli import main

    monkeypatch.chdir(tmp_path)
    for typed in ("postgresql//lifededup@nas/lifededup", "postgresql:/lifededup", "Postgres:lifededup",
                  "sqlite:/home/me/store.db"):
        monkeypatch.setenv("LIFEDEDUP_DB", typed)
        result = CliRunner().invoke(main, ["index", str(tmp_path)])
        assert result.exit_code == 1 and "looks like a database URL with a slip" in result.output, result.output
        assert "Traceback" not in result.output
    assert list(tmp_path.iterdir()) == [], "nothing is made here"
    with open_store("./postgresql-notes.db") as store:  # a file whose name only starts so is a file
        assert store.path == Path("postgresql-notes.db")


def test_an_item_deleted_by_hand_leaves_no_crash_for_the_next_near_copy(store: Store) -> None:
    """`sql --write "DELETE FROM items WHERE id = 1"` leaves the item's
    sketch_keys rows (they have no foreign key): the next index of a text
    sharing its sketch values ended in 'LookupError: item 1 has no
    fingerprint'. The stale representative is no candidate; check names the
    rows and recluster mends them."""
    text = prose(4)
    first = store.upsert_item(ItemRecord("/docs/a.txt", text=text), fp(text))
    store.execute("DELETE FROM items WHERE id = :i", {"i": first})
    again = revised(text, 1)
    second = store.upsert_item(ItemRecord("/docs/b.txt", text=again), fp(again))
    _, rows = store.execute("SELECT cluster_id FROM clusters WHERE item_id = :i", {"i": second})
    assert [tuple(r) for r in rows] == [(second,)], rows
    assert [p.check for p in check_store(store)] == ["sketch-keys"]
    store.recluster()
    sound(store)


def test_an_sqlite_url_reads_its_path_from_the_current_folder_as_the_help_says(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A tester's sqlite:///tmp/x.db made ./tmp/x.db: three slashes are a path from the current folder
    (SQLAlchemy's reading), four an absolute one; the help said sqlite:///PATH and no more."""
    from click.testing import CliRunner

    from lifededup.cli import main

    monkeypatch.chdir(tmp_path)
    with open_store("sqlite:///here.db") as store:
        assert store.path == Path("here.db")
    with open_store(f"sqlite:///{tmp_path}/abs.db") as store:  # four slashes: tmp_path is absolute
        assert store.path == tmp_path / "abs.db"
    shown = CliRunner().invoke(main, ["search", "--help"]).output
    assert "PATH from the current folder; four slashes before an absolute one" in " ".join(shown.split()), shown
