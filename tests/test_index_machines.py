"""Several indexers, one store (issue 15): machines index their own folders
into one PostgreSQL store at the same time.  Each sees, moves and removes only
its own items; clustering sees every item committed before it, whichever
machine wrote it, so two indexers writing at once give the clusters one
indexer gives."""

from __future__ import annotations

import logging
import os
import random
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from corpus_store import CORPUS, corpus_store
from pg_server import Server
from test_store import sound

from lifededup.index import IndexConfig, run
from lifededup.store import (
    ItemRecord, Store, UnsupportedStore, check_store, list_folders, list_machines, open_store,
)
from lifededup.store import engine as clustering_engine
from lifededup.store.clustering import MemoryRepresentatives, load_member
from store_samples import fp, prose


def named(path: str, part: str, root: Path) -> str:
    """An item's name as the sample's truth writes it: its file relative to
    its machine's folder (``root/<folder>/...``), and its part."""
    name = Path(*Path(path).relative_to(root).parts[1:]).as_posix()
    return f"{name} [{part}]" if part else name


def partition(store: Store, name: dict[int, str]) -> set[frozenset[str]]:
    """The clusters as sets of item names."""
    _, rows = store.execute("SELECT item_id, cluster_id FROM clusters")
    groups: dict[int, set[str]] = {}
    for item_id, cluster_id in rows:
        groups.setdefault(int(str(cluster_id)), set()).add(name[int(str(item_id))])
    return {frozenset(g) for g in groups.values()}


def arrival_orders_agree(store: Store, orders: int = 20) -> bool:
    """Whether the store's own engine forms one partition of its texts
    whatever order they arrive in (each near-copy group a clique under the
    rule): then concurrent writers, whose interleaving is anyone's, must
    give exactly the clusters of one writer."""
    _, rows = store.execute("SELECT i.id, i.text FROM items i JOIN fingerprints f ON f.item_id = i.id")
    texts = {int(str(r[0])): str(r[1]) for r in rows}
    with store.transaction() as conn:
        members = [load_member(conn, i) for i in sorted(texts)]
        settings = store._clustering(conn)
    found = set()
    for seed in range(orders):
        lookup = MemoryRepresentatives(settings, texts)
        for member in members:
            assert member is not None
            lookup.remember(member)
        order = sorted(texts)
        random.Random(seed).shuffle(order)
        clustering_engine.cluster_in_order(order, lookup)
        groups: dict[int, set[int]] = {}
        for item, cluster in lookup.cluster_of.items():
            groups.setdefault(cluster, set()).add(item)
        found.add(frozenset(frozenset(g) for g in groups.values()))
    return len(found) == 1


def test_two_indexer_processes_on_one_postgresql_store_give_one_indexers_clusters(
        tmp_path: Path, pg_url: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """sample_corpus/ dealt out to two machines -- a third of its files to
    each one's own folder, a third to a folder both index (the same paths on
    two machines) -- so that drafts, the .docx and .pdf of one document, a
    mail and its copy in the mailbox fall on both sides.  Two real `lifededup
    index` processes (LIFEDEDUP_MACHINE laptop / nas, 8 items a transaction
    so that their writes interleave) index at once.  Then every file is in
    the store once per machine that indexed it, `lifededup check` is clean,
    and the clusters, as sets of names, are those of one SQLite index of
    sample_corpus/.  The comparison is made as the items arrived, without
    `recluster`: the sample's near-copy groups form one partition in any
    arrival order (checked below on the SQLite store, 20 orders through the
    store's own engine), so any interleaving of the two writers must give it."""
    reference = corpus_store(tmp_path_factory)
    root = tmp_path / "machines"
    files = sorted(p for p in CORPUS.rglob("*") if p.is_file() and not p.is_symlink())
    folders = {"laptop": ["laptop", "both"], "nas": ["nas", "both"]}
    for n, source in enumerate(files):
        target = root / ("laptop", "nas", "both")[n % 3] / source.relative_to(CORPUS)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)

    runs = [subprocess.Popen(
        [sys.executable, "-m", "lifededup", "index", "--db", pg_url, "--batch", "8", "-j", "1",
         *(str(root / f) for f in mine)],
        env={**os.environ, "LIFEDEDUP_MACHINE": machine}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True) for machine, mine in folders.items()]
    for machine, process in zip(folders, runs):
        out, err = process.communicate(timeout=600)
        assert process.returncode == 0, f"the {machine}'s indexer failed:\n{out}\n{err}"
    checked = subprocess.run([sys.executable, "-m", "lifededup", "check", "--db", pg_url],
                             capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, f"check found problems:\n{checked.stdout}\n{checked.stderr}"

    with open_store(reference.db) as single:
        assert arrival_orders_agree(single), "the sample's partition depends on arrival order: compare after recluster"
        _, rows = single.execute("SELECT path, part FROM items")
        reference_names = {named(str(p), str(part), CORPUS.parent) for p, part in rows}
    with open_store(pg_url) as shared:
        _, rows = shared.execute("SELECT id, machine, path, part FROM items ORDER BY id")
        name = {int(str(i)): named(str(p), str(part), root) for i, _, p, part in rows}
        for machine, mine in folders.items():
            stored = [named(str(p), str(part), root) for _, m, p, part in rows if m == machine]
            assert len(stored) == len(set(stored)), f"an item of the {machine} is stored twice"
            want = {n for n in reference_names
                    if (root / mine[0] / n.split(" [")[0]).exists() or (root / mine[1] / n.split(" [")[0]).exists()}
            assert set(stored) == want, (f"the {machine}'s items differ from its files: missing "
                                         f"{sorted(want - set(stored))[:5]}, extra {sorted(set(stored) - want)[:5]}")
        switches = sum(1 for a, b in zip(rows, rows[1:]) if a[1] != b[1])
        assert switches > 2, f"the two indexers did not write at the same time (machine changed {switches} times)"
        got = partition(shared, name)
        want_partition = {frozenset(reference.name(i) for i in group)
                          for group in _groups(single_store_clusters(reference.db))}
        assert got == want_partition, (
            f"clusters differ from one SQLite index: only here {sorted(map(sorted, got - want_partition))[:3]}, "
            f"only there {sorted(map(sorted, want_partition - got))[:3]}")
        sound(shared)


def single_store_clusters(db: Path) -> list[tuple[int, int]]:
    with open_store(db) as store:
        _, rows = store.execute("SELECT item_id, cluster_id FROM clusters")
    return [(int(str(i)), int(str(c))) for i, c in rows]


def _groups(pairs: list[tuple[int, int]]) -> list[set[int]]:
    groups: dict[int, set[int]] = {}
    for item, cluster in pairs:
        groups.setdefault(cluster, set()).add(item)
    return list(groups.values())


def test_search_show_and_failures_say_which_machine_a_copy_is_on(tmp_path: Path, store_url: str) -> None:
    """Each machine indexes a copy of a report and a broken PDF (in folders
    of their own: an SQLite store cannot hold one path twice)."""
    import json

    from test_daemon import lifededup

    text = prose(5)
    for machine in ("laptop", "nas"):
        folder = tmp_path / machine
        folder.mkdir()
        (folder / "report.txt").write_text(text)
        (folder / "broken.pdf").write_bytes(b"%PDF-1.4 cut short")
        with open_store(store_url, machine=machine) as store:
            run(store, [folder], IndexConfig(workers=1))
    env = {**os.environ, "LIFEDEDUP_DB": store_url, "LIFEDEDUP_MACHINE": "laptop"}
    shown = lifededup(env, "show", str(tmp_path / "laptop" / "report.txt"), "--json")
    assert shown.returncode == 0, shown.stderr
    found = json.loads(shown.stdout)
    assert found["item"]["machine"] == "laptop", found["item"]
    assert sorted(m["item"]["machine"] for m in found["members"]) == ["laptop", "nas"], found["members"]
    listed = lifededup(env, "show", str(tmp_path / "laptop" / "report.txt")).stdout
    assert f"nas:{tmp_path / 'nas' / 'report.txt'}" in listed, listed
    failed = lifededup(env, "failures").stdout
    assert f"\t{tmp_path / 'laptop' / 'broken.pdf'}\t" in failed, failed
    assert f"\tnas:{tmp_path / 'nas' / 'broken.pdf'}\t" in failed, failed
    word = text.split()[0]
    searched = lifededup(env, "search", word, "--json")
    assert searched.returncode == 0, searched.stderr
    [hit] = json.loads(searched.stdout)["hits"]
    assert {hit["machine"], *(c["machine"] for c in hit["copies"])} == {"laptop", "nas"}, hit
    listed = lifededup(env, "search", word).stdout
    assert "nas:" in listed and "report.txt" in listed, listed


def test_an_sqlite_store_holding_another_machines_path_is_refused_before_reading(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text(prose(1))
    db = tmp_path / "one.db"
    with open_store(db, machine="old-name") as store:
        run(store, [folder], IndexConfig(workers=1))
    with open_store(db, machine="new-name") as store:
        # the two ways out: pin the old name, or give the files back (a store upgraded on the wrong computer)
        with pytest.raises(UnsupportedStore, match="LIFEDEDUP_MACHINE=old-name.*lifededup machines rename old-name "
                                                   "new-name"):
            run(store, [folder], IndexConfig(workers=1))
        _, rows = store.execute("SELECT machine, path FROM items")
        assert rows == [("old-name", str(folder / "a.txt"))], f"the store must be left as it was: {rows}"
        assert list_folders(store) == []
        assert [m.name for m in list_machines(store)] == ["old-name"], "the refused run claimed its name"
    with open_store(db, machine="old-name") as store:
        summary = run(store, [folder], IndexConfig(workers=1))
        assert summary.unchanged == 1, "under its pinned name the machine finds its items again"
        store.upsert_item(ItemRecord(str(folder / "b.txt"), text=prose(2)), fp(prose(2)))
        sound(store)


def test_an_indexer_waits_for_the_write_lock_as_long_as_another_writer_holds_it(tmp_path: Path,
                                                                                  pg_url: str) -> None:
    """Writers on PostgreSQL take turns through one advisory lock: an indexer
    that finds it held waits -- past SQLite's busy timeout, the only timeout
    a writer has there -- and finishes once it is free, instead of failing."""
    import psycopg

    from lifededup.store.opening import BUSY_TIMEOUT_MS, WRITE_LOCK

    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(3):
        (folder / f"{n}.txt").write_text(prose(n))
    open_store(pg_url).close()
    with psycopg.connect(pg_url, application_name="suspended laptop") as holder:
        holder.execute(f"SELECT pg_advisory_xact_lock({WRITE_LOCK})")  # held until the transaction ends
        indexer = subprocess.Popen([sys.executable, "-m", "lifededup", "index", "--db", pg_url, "-j", "1",
                                    str(folder)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            waited = 0.0
            while waited < BUSY_TIMEOUT_MS / 1000 + 1:
                assert indexer.poll() is None, f"the indexer did not wait for the lock: {indexer.communicate()}"
                time.sleep(0.5)
                waited += 0.5
            [(waiting,)] = holder.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted").fetchall()
            assert waiting == 1, f"the indexer should be waiting for the write lock ({waiting} waiting)"
        finally:
            holder.rollback()
        out, err = indexer.communicate(timeout=120)
        holder_pid = holder.info.backend_pid
    assert indexer.returncode == 0 and "new 3," in out, (out, err)
    # it said whom it waited for, rather than nothing for as long as it waited (a tester's 60 s)
    assert f"waiting for another writer (suspended laptop, server process {holder_pid}, in a transaction since" \
        in err and "at most 10 minutes" in err, err


def test_sql_write_says_whom_it_waits_for(pg_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """`sql --write` runs its statement on a raw cursor of its own
    (``Store.execute``), which took its turn silently: opened before
    another writer took the lock, it waited without a word."""
    import psycopg

    from lifededup.store.opening import WRITE_LOCK

    caplog.set_level(logging.WARNING, logger="lifededup.store")
    with open_store(pg_url) as store, psycopg.connect(pg_url, application_name="suspended laptop") as holder:
        holder.execute(f"SELECT pg_advisory_xact_lock({WRITE_LOCK})")
        done: list[int] = []
        writer = threading.Thread(target=lambda: done.append(
            store.execute_counted("UPDATE items SET title = title")[2]), daemon=True)
        writer.start()
        try:
            writer.join(4)  # past the 2 s a turn may take unsaid
            assert writer.is_alive(), "the statement did not wait for the lock"
        finally:
            holder.rollback()
        writer.join(60)
        holder_pid = holder.info.backend_pid
    assert done == [0], done
    said = [r.getMessage() for r in caplog.records]
    assert any(f"waiting for another writer (suspended laptop, server process {holder_pid}" in m for m in said), said


def test_a_short_wait_for_the_write_lock_goes_unsaid(tmp_path: Path, pg_url: str) -> None:
    """Two machines' watchers take turns all the time: a turn taken within 2 s puts no line in the log."""
    import psycopg

    from lifededup.store.opening import WRITE_LOCK

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text(prose(1))
    open_store(pg_url).close()
    with psycopg.connect(pg_url) as holder, psycopg.connect(pg_url, autocommit=True) as watching:
        holder.execute(f"SELECT pg_advisory_xact_lock({WRITE_LOCK})")
        indexer = subprocess.Popen([sys.executable, "-m", "lifededup", "index", "--db", pg_url, "-j", "1",
                                    str(folder)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:  # another machine's batch, committed half a second after the indexer first asked for its turn
            asked = "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%advisory_xact_lock%' AND pid <> %s"
            while not watching.execute(asked.replace("%s", str(holder.info.backend_pid))).fetchone()[0]:
                assert indexer.poll() is None, indexer.communicate()
                time.sleep(0.02)
            time.sleep(0.5)
        finally:
            holder.rollback()
        out, err = indexer.communicate(timeout=120)
    assert indexer.returncode == 0 and "new 1," in out and "waiting for" not in err, (out, err)


def test_a_writer_session_idle_in_its_transaction_is_ended_by_the_server_and_a_reader_is_not(pg_url: str) -> None:
    """A writer stopped mid-transaction (a laptop suspended) held the write
    lock, and every other machine with it, until it woke: the server ends a
    writer's session idle in a transaction past 10 minutes."""
    with open_store(pg_url) as writer, open_store(pg_url, readonly=True) as reader:
        assert writer.execute("SHOW idle_in_transaction_session_timeout")[1] == [("10min",)]
        assert reader.execute("SHOW idle_in_transaction_session_timeout")[1] == [("0",)]


def test_check_holds_no_writer_back_and_reads_one_snapshot(pg_url: str) -> None:
    """`lifededup check` on a shared store runs for minutes at a million
    items: every machine's indexer used to wait for it.  It now reads one
    snapshot without the writers' lock -- it runs while a writer holds the
    lock mid-batch, and that writer's uncommitted items are not in it (a
    half-written batch would look like broken invariants)."""
    import threading

    with open_store(pg_url) as store:
        for n in range(4):
            store.upsert_item(ItemRecord(f"/docs/{n}.txt", text=prose(n)), fp(prose(n)))
    with open_store(pg_url) as writer, open_store(pg_url) as checker:
        found: list[object] = []
        with writer.transaction():
            writer.upsert_item(ItemRecord("/docs/mid-batch.txt", text=prose(9)), fp(prose(9)))
            thread = threading.Thread(target=lambda: found.append(check_store(checker)), daemon=True)
            thread.start()
            thread.join(60)
            assert not thread.is_alive(), "check waited for the writer's batch to commit"
            with checker.snapshot() as conn:
                seen = conn.exec_driver_sql("SELECT count(*) FROM items").scalar()
        assert found == [[]] and seen == 4, (found, seen)


def test_a_lone_read_takes_no_turn_among_the_writers_and_a_lone_write_does(pg_url: str) -> None:
    """``Store.execute`` outside a transaction on a writable PostgreSQL store
    (the indexer's planning reads, ``sql --write``): a statement that only
    reads runs while another writer holds the write lock, as a lone SELECT
    does on SQLite; one that writes waits for its turn, then runs."""
    import threading

    import psycopg

    from lifededup.store.opening import WRITE_LOCK

    results: dict[str, object] = {}
    # opened before the lock is taken: opening checks the schema in a
    # writing transaction, which takes its turn as on SQLite (BEGIN IMMEDIATE)
    stores = [open_store(pg_url) for _ in range(2)]

    def run_in_thread(name: str, sql: str) -> threading.Thread:
        store = stores[0 if name == "read" else 1]

        def target() -> None:
            results[name] = store.execute_counted(sql)

        thread = threading.Thread(target=target, daemon=True)
        thread.start()
        return thread

    with psycopg.connect(pg_url) as holder:
        holder.execute(f"SELECT pg_advisory_xact_lock({WRITE_LOCK})")  # held until the transaction ends
        reading = run_in_thread("read", "SELECT count(*) FROM items")
        reading.join(30)
        assert not reading.is_alive(), "a lone SELECT waited for another writer's turn"
        assert results["read"] == (["count"], [(0,)], 1), results
        writing = run_in_thread("write", "INSERT INTO params (name, value) VALUES ('note', '1')")
        writing.join(2)
        assert writing.is_alive(), "a lone write must wait while another writer holds the lock"
        holder.rollback()
    writing.join(30)
    assert not writing.is_alive() and results["write"] == ([], [], 1), results
    for store in stores:
        store.close()


def test_an_indexer_that_loses_its_server_says_so_and_the_next_run_finishes(postgres: Server,
                                                                            tmp_path: Path) -> None:
    """The server stops in the middle of `lifededup index` (the NAS
    reboots): one line says so, no traceback; what was committed is whole,
    and the same command, once the server is back, finishes the work with
    `check` clean.  (A server of its own, which this test stops and starts
    again; ``postgres`` only skips the test where none can run.)"""
    import psycopg

    files = 500
    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(files):
        (folder / f"{n}.txt").write_text(prose(n, words=60))
    server = Server.start()
    try:
        url = server.new_database()
        open_store(url).close()
        command = [sys.executable, "-m", "lifededup", "index", "--db", url, "-j", "1", "--batch", "20", str(folder)]
        indexer = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        with psycopg.connect(url, autocommit=True) as watcher:
            deadline = time.monotonic() + 60
            while int(watcher.execute("SELECT count(*) FROM items").fetchall()[0][0]) < 40:
                assert indexer.poll() is None and time.monotonic() < deadline, \
                    f"the indexer ended before the server could be stopped: {indexer.communicate()}"
                time.sleep(0.05)
        server.stop(keep=True)  # a few batches in, most of the files still to read
        out, err = indexer.communicate(timeout=120)
        assert indexer.returncode == 1, f"the indexer went on without its server: {out} {err}"
        assert "Error: lost the store's server" in err and "Traceback" not in err, err
        server = Server.start(root=server.root)
        again = subprocess.run(command, capture_output=True, text=True, timeout=300)
        assert again.returncode == 0, again.stderr
        with open_store(url, readonly=True) as store:
            assert store.execute("SELECT count(*) FROM items")[1] == [(files,)], "the second run finishes the work"
            sound(store)
    finally:
        server.stop()


def test_a_role_that_may_only_read_searches_and_is_told_why_it_cannot_write(tmp_path: Path, pg_url: str,
                                                                           postgres: Any) -> None:
    """A household member given SELECT alone searched well, but index,
    folders add and recluster ended in 69 lines of traceback ending in
    'InsufficientPrivilege: permission denied for table machines'."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text(prose(1))
    done = subprocess.run([sys.executable, "-m", "lifededup", "index", "--db", pg_url, str(folder)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    postgres.admin("DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'reader')"
                   " THEN CREATE ROLE reader LOGIN; END IF; END$$")
    with open_store(pg_url) as store, store.transaction() as conn:
        conn.exec_driver_sql("GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader")
    reader = pg_url.replace("postgresql://postgres@", "postgresql://reader@")
    word = prose(1).split()[3]
    for args in (["search", word], ["dups"], ["check"]):
        found = subprocess.run([sys.executable, "-m", "lifededup", *args, "--db", reader], capture_output=True,
                               text=True, timeout=120)
        assert found.returncode == 0, (args, found.stdout, found.stderr)
    (folder / "b.txt").write_text(prose(2))
    for args in (["index", str(folder)], ["folders", "add", str(folder)], ["recluster"]):
        refused = subprocess.run([sys.executable, "-m", "lifededup", *args, "--db", reader], capture_output=True,
                                 text=True, timeout=120)
        assert refused.returncode == 1 and "Traceback" not in refused.stderr, (args, refused.stderr)
        assert "the store's server refused this command: permission denied" in refused.stderr, refused.stderr


def test_the_writer_waited_for_is_named_from_this_store_not_another_on_the_server(
        pg_url: str, postgres: Server, caplog: pytest.LogCaptureFixture) -> None:
    """Two stores on one server (explorer K: a family's and a copy): an
    advisory lock is the database's own, but the holder was looked for in
    every database's locks, and the wait was said to be for a session of
    the other store that happened to hold the same key."""
    import psycopg

    from lifededup.store.opening import WRITE_LOCK

    other = postgres.new_database()
    caplog.set_level(logging.WARNING, logger="lifededup.store")
    try:
        with (psycopg.connect(other, application_name="another store") as elsewhere,
              open_store(pg_url) as store, psycopg.connect(pg_url, application_name="suspended laptop") as holder):
            elsewhere.execute(f"SELECT pg_advisory_xact_lock({WRITE_LOCK})")  # first: listed first
            holder.execute(f"SELECT pg_advisory_xact_lock({WRITE_LOCK})")
            writer = threading.Thread(target=lambda: store.execute_counted("UPDATE items SET title = title"),
                                      daemon=True)
            writer.start()
            try:
                writer.join(4)
                assert writer.is_alive(), "the statement did not wait for the lock"
            finally:
                holder.rollback()
                elsewhere.rollback()
            writer.join(60)
            holder_pid = holder.info.backend_pid
    finally:
        postgres.drop_database(other)
    said = [r.getMessage() for r in caplog.records if "waiting for" in r.getMessage()]
    assert said and all(f"(suspended laptop, server process {holder_pid}" in m for m in said), said


def test_a_turn_taken_from_a_writer_at_work_is_no_warning_and_names_its_machine(
        pg_url: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two laptops indexing at once take turns all the time (explorer K:
    3,221 files each, 6 and 11 WARNINGs, each saying a suspended computer
    may hold the store).  A wait for a writer at work (its transaction
    running) is said at INFO, naming that writer's machine; only a writer
    idle in its transaction, or a wait past LONG_WAIT_S, is a WARNING."""
    import psycopg

    from lifededup.store.opening import WRITE_LOCK

    monkeypatch.setenv("LIFEDEDUP_MACHINE", "laptop-a")
    caplog.set_level(logging.INFO, logger="lifededup.store")
    with open_store(pg_url) as store:
        with store.reading() as conn:
            [(named,)] = conn.execute("SELECT application_name FROM pg_stat_activity WHERE pid = pg_backend_pid()"
                                      ).fetchall()
        assert named == "lifededup laptop-a", named
        with psycopg.connect(pg_url, application_name="lifededup laptop-b", autocommit=True) as busy:
            working = threading.Thread(target=lambda: busy.execute(
                f"BEGIN; SELECT pg_advisory_xact_lock({WRITE_LOCK}); SELECT pg_sleep(5); COMMIT"), daemon=True)
            working.start()
            time.sleep(1)  # laptop-b's batch holds the turn, at work
            assert store.execute_counted("UPDATE items SET title = title")[2] == 0
            working.join(30)
    said = [(r.levelno, r.getMessage()) for r in caplog.records if "waiting for" in r.getMessage()]
    assert said and all(level == logging.INFO for level, _ in said), said
    assert "(lifededup laptop-b, server process" in said[0][1] and "suspended" not in said[0][1], said


def test_a_read_through_a_writing_store_takes_no_writers_turn(store_url: str) -> None:
    """The watcher looks at its folders every few seconds through its own
    (writing) store; that read took the writers' turn, and on a shared store
    waited behind another machine's batch (helper L).  A read waits for no
    writer: here one holds the turn until the read is done."""
    import sqlite3

    import psycopg

    from lifededup.store import add_folder, list_folders
    from lifededup.store.opening import WRITE_LOCK

    postgres = store_url.startswith("postgresql://")
    with open_store(store_url) as store:  # opened, as the watcher's is, before another writer takes its turn
        add_folder(store, "/home/me/Documents")
        holder: Any = psycopg.connect(store_url) if postgres else sqlite3.connect(store_url, isolation_level=None)
        try:
            if postgres:
                holder.execute(f"SELECT pg_advisory_xact_lock({WRITE_LOCK})")
            else:
                holder.execute("BEGIN IMMEDIATE")  # a writer's batch in progress
            found: list[list[str]] = []
            reader = threading.Thread(target=lambda: found.append([f.path for f in list_folders(store)]),
                                      daemon=True)
            reader.start()
            reader.join(30)  # the writer holds its turn all this while
            assert found == [["/home/me/Documents"]], "the read waited for the writer's turn"
        finally:
            holder.rollback() if postgres else holder.execute("ROLLBACK")
            holder.close()
            reader.join(60)


def test_a_role_that_may_only_read_is_told_its_store_needs_its_owner_to_upgrade_it(pg_url: str,
                                                                                    postgres: Any) -> None:
    """A newer lifededup on a searching machine: the store is a revision behind, and the reader's
    role may not upgrade it.  Every command said "... is not a usable lifededup store: permission
    denied for table items", as if the store were another program's; it says what to do."""
    from test_migrations import head, upgrade_to

    upgrade_to(pg_url, head())
    postgres.admin("DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'reader')"
                   " THEN CREATE ROLE reader LOGIN; END IF; END$$")
    with open_store(pg_url) as store, store.transaction() as conn:
        conn.exec_driver_sql("GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader")
    upgrade_to(pg_url, "-1", down=True)
    reader = pg_url.replace("postgresql://postgres@", "postgresql://reader@")
    for args in (["search", "river"], ["dups"], ["serve", "--port", "1"]):  # serve: refused before it listens
        refused = subprocess.run([sys.executable, "-m", "lifededup", *args, "--db", reader], capture_output=True,
                                 text=True, timeout=120)
        assert refused.returncode == 1 and "Traceback" not in refused.stderr, (args, refused.stderr)
        assert "not a usable lifededup store" not in refused.stderr, refused.stderr
        assert ("the store's server refused to open the store for the role in its URL: permission denied"
                in refused.stderr), refused.stderr
        assert "the store's owner brings it up to date first" in refused.stderr, refused.stderr
    # the library says the same to a script opening the store (it said "not a usable lifededup store")
    with pytest.raises(UnsupportedStore, match="refused to open the store for the role in its URL: permission denied"):
        open_store(reader, readonly=True).close()
    upgraded = subprocess.run([sys.executable, "-m", "lifededup", "check", "--db", pg_url], capture_output=True,
                              text=True, timeout=120)
    assert upgraded.returncode == 0, upgraded.stderr
    found = subprocess.run([sys.executable, "-m", "lifededup", "search", "river", "--db", reader],
                           capture_output=True, text=True, timeout=120)
    assert found.returncode == 0 and found.stdout == "no matches\n", found.stderr


def test_search_prints_another_machines_path_whole_so_that_show_takes_it_back(tmp_path: Path, pg_url: str) -> None:
    """Search said this user's home ``~`` inside another machine's path too (``nas:~/docs/a.txt``: the
    home of the machine searching, not of the one holding the file), which `show` could not take back;
    the web view already printed it whole."""
    home = tmp_path / "home"
    (home / "docs").mkdir(parents=True)
    (home / "docs" / "a.txt").write_text(prose(1))
    env = {**os.environ, "HOME": str(home), "LIFEDEDUP_DB": pg_url}

    def lifededup(machine: str, *args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "lifededup", *args], capture_output=True, text=True,
                              timeout=120, env={**env, "LIFEDEDUP_MACHINE": machine})
        assert done.returncode == 0, (args, done.stderr)
        return done.stdout

    lifededup("nas", "index", str(home / "docs"))
    word = prose(1).split()[3]
    assert lifededup("nas", "search", word).startswith("  1. ~/docs/a.txt  ("), "this machine's file: ~"
    printed = lifededup("laptop", "search", word)
    assert printed.startswith(f"  1. nas:{home}/docs/a.txt  ("), printed
    assert lifededup("laptop", "show", f"nas:{home}/docs/a.txt").startswith(f"item 1: nas:{home}/docs/a.txt ")
