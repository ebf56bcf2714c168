"""``lifededup export`` / ``import``: a real store of sample_corpus/ moved in
all four directions between SQLite files and a real PostgreSQL server, and
compared table by table, cluster by cluster and search by search."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from click.testing import CliRunner
from corpus_store import CORPUS, corpus_store
from sqlalchemy import select
from store_samples import fp, prose
from test_migrations import _long_texts, phrase_ids, pieces_and_made, upgrade_to

from lifededup.cli import main
from lifededup.search import search
from lifededup.store import ItemRecord, add_folder, check_store, open_store
from lifededup.store.opening import make_engine, resolve
from lifededup.store.transfer import TransferRefused, copy_store, tables

# FTS5 queries and the same words as a tsquery: the search index, on each backend
QUERIES = ("river", "garden club report", "kitchen", "sourdough", "portugal")


def run(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == code, f"lifededup {' '.join(args)} -> {result.exit_code}: {result.output}"
    return result.output


@pytest.fixture
def source(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A copy of the indexed sample corpus, with a watched folder and its
    last items forgotten (so its next id is past its largest)."""
    path = tmp_path / "source.db"
    with sqlite3.connect(corpus_store(tmp_path_factory).db) as built, sqlite3.connect(path) as copy:
        built.backup(copy)
    with open_store(path) as store:
        add_folder(store, str(CORPUS), exclude=("*.iso",))
        _, [(last,)] = store.execute("SELECT max(id) FROM items")
        store.remove_ids([int(str(last))])
    return str(path)


def rows(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows in key order, as the models' Python values."""
    with open_store(url, readonly=True) as store, store.transaction() as conn:
        return {t.name: [tuple(r) for r in conn.execute(select(t).order_by(*t.primary_key.columns))]
                for t in tables()}


def matches(url: str) -> dict[str, list[int]]:
    """The items each query finds in the search index itself."""
    postgres = url.startswith("postgresql")
    sql = ("SELECT rowid FROM items_fts WHERE document @@ plainto_tsquery('simple', :q) ORDER BY rowid"
           if postgres else "SELECT rowid FROM items_fts WHERE items_fts MATCH :q ORDER BY rowid")
    with open_store(url, readonly=True) as store:
        return {q: [int(str(r[0])) for r in store.execute(sql, {"q": q})[1]] for q in QUERIES}


def next_id(url: str) -> int:
    text = prose(7)
    with open_store(url) as store:
        return store.upsert_item(ItemRecord("/new/after-the-move.txt", text=text), fp(text))


@pytest.mark.parametrize("directions", [("sqlite", "sqlite"), ("sqlite", "postgresql"),
                                        ("postgresql", "postgresql"), ("postgresql", "sqlite")],
                         ids=lambda d: "->".join(d))
def test_a_store_moves_whole_in_every_direction(directions: tuple[str, str], source: str, postgres: Any,
                                                tmp_path: Path) -> None:
    start = source if directions[0] == "sqlite" else postgres.new_database()
    if start != source:
        run("export", "--db", source, start)
    target = str(tmp_path / "target.db") if directions[1] == "sqlite" else postgres.new_database()
    try:
        out = json.loads(run("export", "--db", start, target, "--json"))
        want = rows(source)
        assert out["rows"] == {name: len(found) for name, found in want.items()}, out
        got = rows(target)
        for table, found in want.items():
            assert got[table] == found, f"{table} differs after {directions}: {len(got[table])} vs {len(found)} rows"
        # (--limit: dups without one says LIMIT -1, which PostgreSQL refuses; pgsearch owns dups)
        dups = ("dups", "--json", "--limit", "1000", "--db")
        assert run(*dups, target) == run(*dups, source), "the clusters differ after the move"
        assert matches(target) == matches(source), "the search index finds other items after the move"
        assert run("check", "--db", target).startswith("ok:")
        with open_store(target) as store:
            assert check_store(store) == []
        with open_store(source, readonly=True) as store:
            _, [(largest,)] = store.execute("SELECT seq FROM sqlite_sequence WHERE name = 'items'")
        assert next_id(target) == int(str(largest)) + 1, "a new item must get the id after the source's last"
        with open_store(target) as store:  # and a new watched folder an id of its own
            add_folder(store, "/another/folder")
            _, found = store.execute("SELECT id FROM watched_folders ORDER BY id")
            assert [int(str(r[0])) for r in found] == [1, 2], found
        assert next_id(source) == int(str(largest)) + 1
    finally:
        for url in (start, target):
            if url.startswith("postgresql"):
                postgres.drop_database(url)


def test_search_is_the_same_after_a_round_trip_through_the_server(source: str, pg_url: str,
                                                                 tmp_path: Path) -> None:
    back = str(tmp_path / "back.db")
    run("import", source, "--db", pg_url)
    run("import", pg_url, "--db", back)
    with open_store(source, readonly=True) as before, open_store(back, readonly=True) as after:
        for query in QUERIES:
            want = search(before, query, limit=50).to_dict()
            got = search(after, query, limit=50).to_dict()
            assert got["hits"] == want["hits"], f"search {query!r} differs after SQLite -> PostgreSQL -> SQLite"


def test_a_store_that_holds_anything_is_refused_unless_replaced(source: str, store_url: str) -> None:
    text = prose(3)
    with open_store(store_url) as store:
        store.upsert_item(ItemRecord("/other/archive.txt", text=text), fp(text))
    out = run("export", "--db", source, store_url, code=1)
    assert "not empty (1 item," in out and "--replace" in out and "never merges" in out, out
    with open_store(store_url, readonly=True) as store:
        _, kept = store.execute("SELECT path FROM items")
    assert kept == [("/other/archive.txt",)], f"a refused move must change nothing: {kept}"
    out = run("export", "--db", source, store_url, "--replace")
    assert "replacing its 1 item)" in out, out
    assert rows(store_url) == rows(source)
    assert run("check", "--db", store_url).startswith("ok:")


class Interrupted(Exception):
    pass


class StopIn:
    """Progress that interrupts the move in the middle of one table."""

    def __init__(self, table: str) -> None:
        self.at, self.current = table, ""

    def table(self, name: str, rows: int) -> None:
        self.current = name

    def advance(self, rows: int) -> None:
        if self.current == self.at:
            raise Interrupted

    def finish(self) -> None:
        pass


@pytest.mark.parametrize("table", ["items", "sketch_keys", "fingerprints"])
def test_an_interrupted_move_leaves_the_target_as_it_was(table: str, source: str, store_url: str) -> None:
    text = prose(4)
    with open_store(store_url) as store:
        store.upsert_item(ItemRecord("/other/kept.txt", text=text), fp(text))
    before = rows(store_url)
    with open_store(source, readonly=True, migrate=False) as reading, open_store(store_url) as writing:
        with pytest.raises(Interrupted):
            copy_store(reading, writing, replace=True, progress=StopIn(table))
    assert rows(store_url) == before, f"a move interrupted in {table} changed the target"
    assert run("check", "--db", store_url).startswith("ok:")
    assert matches(store_url)["river"] == [], "the search index must be as it was"


def test_stores_at_different_revisions_are_refused(source: str, tmp_path: Path, pg_url: str) -> None:
    older = tmp_path / "older.db"
    upgrade_to(older, "0007")
    out = run("export", "--db", str(older), str(tmp_path / "new.db"), code=1)
    assert "revision 0007" in out and "lifededup check --db" in out, out
    assert not list(tmp_path.glob("new.db*")), "a refused export left the store file it made"
    # an empty database on a server was given this lifededup's whole schema, then refused "at 0015"
    out = run("export", "--db", str(older), pg_url, code=1)
    assert "revision 0007" in out and "the target is left as it was" in out, out
    engine = make_engine(resolve(pg_url), readonly=True)
    with engine.connect() as conn:
        tables = conn.exec_driver_sql("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'")
        assert tables.scalar() == 0, "a refused export left tables in the target"
    engine.dispose()
    assert run("sql", "--db", str(older), "SELECT version_num FROM alembic_version").split()[-1] == "0007", \
        "export must not upgrade the store it reads"


def test_the_readme_moves_run(source: str, pg_url: str, tmp_path: Path) -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### Moving a store"):]
    block = re.findall(r"```sh\n(.*?)```", section, flags=re.S)[0]
    places = {"postgresql://me@nas/lifededup": pg_url, "/media/usb/lifededup.db": str(tmp_path / "usb.db"),
              "~/lifededup.db": str(tmp_path / "home.db")}
    for line in block.strip().splitlines():
        args = shlex.split(line.split("  #")[0])
        assert args[0] == "lifededup", line
        result = CliRunner().invoke(main, [places.get(a, a) for a in args[1:]], env={"LIFEDEDUP_DB": source})
        assert result.exit_code == 0, f"{line}: {result.output}"
    assert rows(str(tmp_path / "home.db")) == rows(source), "the README's moves lost something on the way"


def test_a_store_is_not_moved_onto_itself(source: str) -> None:
    out = run("export", "--db", source, source, code=1)
    assert "both the source and the target" in out, out


def test_a_nul_in_a_text_is_refused_on_the_server_with_nothing_copied(tmp_path: Path, pg_url: str) -> None:
    path = tmp_path / "nul.db"
    with open_store(path) as store:
        store.upsert_item(ItemRecord("/a.txt", title="a\x00b"), None)
    with open_store(path, readonly=True) as reading, open_store(pg_url) as writing:
        with pytest.raises(TransferRefused, match="NUL"):
            copy_store(reading, writing)
    assert rows(pg_url)["items"] == []


def test_one_path_from_two_machines_is_refused_into_sqlite(tmp_path: Path, pg_url: str) -> None:
    """A shared server's store where the laptop and the nas both hold
    /home/me/notes.txt: SQLite keeps (path, part) unique, so the move into a
    file is refused before anything is written, saying where to move it."""
    text = prose(4)
    for machine in ("laptop", "nas"):
        with open_store(pg_url, machine=machine) as store:
            store.upsert_item(ItemRecord("/home/me/notes.txt", text=text), fp(text))
    target = tmp_path / "one.db"
    out = run("export", "--db", pg_url, str(target), code=1)
    assert "'/home/me/notes.txt' is stored for 2 machines" in out and "PostgreSQL database instead" in out, out
    assert not target.exists(), "a refused move leaves no file behind"
    copied = tmp_path / "laptop-only.db"
    with open_store(pg_url, machine="nas") as nas:
        nas.remove_items(["/home/me/notes.txt"])
    run("export", "--db", pg_url, str(copied))
    assert rows(str(copied))["items"] == rows(pg_url)["items"], "one machine's paths move into a file"


def swollen(source: str, rows: int) -> None:
    """``source`` with many more sketch keys (of its first representative):
    a move long enough to be killed in the middle of."""
    with sqlite3.connect(source) as conn:
        [(rep,)] = conn.execute("SELECT item_id FROM fingerprints WHERE is_representative LIMIT 1")
        conn.executemany("INSERT INTO sketch_keys (value, item_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
                         ((v * 7919 - 2**62, rep) for v in range(rows)))


def moving(conn: Any) -> bool:
    """Whether another session holds a write transaction open on ``conn``'s
    database now: the move's, from its first write to its commit.  (Watching
    for its COPY of the largest table missed it once under the suite's two
    processes, a new connection each look: the COPY ended between two.)"""
    found = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                         "AND pid <> pg_backend_pid() AND backend_xid IS NOT NULL").fetchone()
    return bool(found and found[0])


def writing(path: str) -> bool:
    """Whether a transaction holds the SQLite store's write lock now (the
    move's, from its first statement to its commit)."""
    conn = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError:
        return True
    finally:
        conn.close()


def test_kill_9_in_the_middle_of_a_move_leaves_the_target_as_it_was(source: str, store_url: str,
                                                                    tmp_path: Path) -> None:
    swollen(source, 400_000)
    text = prose(5)
    with open_store(store_url) as store:
        store.upsert_item(ItemRecord("/other/kept.txt", text=text), fp(text))
    before = rows(store_url)
    watching = None
    if store_url.startswith("postgresql"):
        import psycopg

        watching = psycopg.connect(store_url, autocommit=True)
    mover = subprocess.Popen([sys.executable, "-m", "lifededup", "export", "--replace", "--db", source, store_url],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and mover.poll() is None:
            if moving(watching) if watching is not None else writing(store_url):
                break
            time.sleep(0.01)
        ended = mover.poll()
        said = mover.stdout.read().decode() if ended is not None and mover.stdout else ""
        assert ended is None, f"the move ended (exit {ended}) before it could be killed: make the source bigger\n{said}"
        os.kill(mover.pid, signal.SIGKILL)
    finally:
        mover.wait()
        if watching is not None:
            watching.close()
    assert rows(store_url) == before, "kill -9 in the middle of a move changed the target"
    assert run("check", "--db", store_url).startswith("ok:")


def test_a_server_error_is_a_message_and_nothing_is_committed(source: str, pg_url: str, postgres: Any) -> None:
    run("check", "--db", pg_url)  # an empty store, its tables owned by the server's superuser
    postgres.admin("DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'clerk')"
                   " THEN CREATE ROLE clerk LOGIN; END IF; END$$")
    with open_store(pg_url) as store, store.transaction() as conn:
        conn.exec_driver_sql("GRANT ALL ON ALL TABLES IN SCHEMA public TO clerk")
        conn.exec_driver_sql("GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO clerk")
    out = run("export", "--db", source, pg_url.replace("postgresql://postgres@", "postgresql://clerk@"), code=1)
    assert "must be owner" in out and "nothing was committed" in out and "role that owns" in out, out
    assert all(found == [] for found in rows(pg_url).values()), "a failed move left rows behind"


def test_export_on_a_terminal_shows_a_bar_per_table_and_in_a_pipe_only_its_result(source: str,
                                                                                     tmp_path: Path) -> None:
    from test_cli_store import on_a_terminal

    command = [sys.executable, "-m", "lifededup", "export", "--db", source]
    done, shown = on_a_terminal([*command, str(tmp_path / "shown.db")])
    assert done.returncode == 0, done.stdout
    assert b"items:" in shown and b"fingerprints:" in shown and b"row/s" in shown, shown
    piped = subprocess.run([*command, str(tmp_path / "piped.db")], capture_output=True, text=True, timeout=120)
    assert piped.returncode == 0 and piped.stderr == "", piped.stderr


def test_a_move_says_its_rows_and_its_server_as_a_person_reads_them(tmp_path: Path, pg_url: str) -> None:
    """``export`` and ``import`` through the CLI, a real server reached by its
    socket folder: one row of a table is said in the singular ("1 machine",
    not "1 machines"), the server's socket folder as the path it is (not
    ``host=%2Ftmp%2F...``), and a password in the URL never."""
    folder = parse_qs(urlsplit(pg_url).query)["host"][0]
    with_password = pg_url.replace("@/", ":s3cret@/", 1)
    text = prose(4)
    with open_store(pg_url, machine="laptop") as store:
        store.upsert_item(ItemRecord("/home/me/notes.txt", text=text), fp(text))
    out = run("export", "--db", with_password, str(tmp_path / "one.db"))
    assert ": 1 item, 1 machine, " in out, out
    assert f"?host={folder}&" in out and "%2F" not in out, f"the socket folder {folder} is not shown as a path: {out}"
    assert "s3cret" not in out and ":***@/" in out, f"the password is shown: {out}"
    with open_store(pg_url, machine="nas") as store:
        store.upsert_item(ItemRecord("/home/me/other.txt", text=prose(5)), fp(prose(5)))
    out = run("export", "--db", pg_url, str(tmp_path / "two.db"))
    assert ": 2 items, 2 machines, " in out, out
    refused = run("import", "--db", with_password, str(tmp_path / "one.db"), code=1)
    assert f"the target {str(resolve(with_password))} is not empty (2 items, 2 machines," in refused, refused
    assert f"?host={folder}&" in refused and "s3cret" not in refused, refused


def test_a_long_texts_pieces_move_into_postgresql_and_between_servers(tmp_path: Path, postgres: Any) -> None:
    """Moved into PostgreSQL, whose ``items_fts`` a move writes with its
    trigger off, a long text's pieces (revision 0027) are made too, or
    copied from another server: the phrase past its 16,383rd word or its
    256th ``the`` is found there, and ``check`` is clean; back in SQLite too."""
    source = str(tmp_path / "long.db")
    texts = _long_texts()
    with open_store(source) as store:
        ids = {n: store.upsert_item(ItemRecord(f"/{n}.txt", title="notes", text=text), fp(text))
               for n, text in texts.items()}
    wanted = {"filesystem hierarchy standard": [ids[1], ids[4]], "the package": [ids[2], ids[3]], "東 京": [ids[5]]}
    first, second = postgres.new_database(), postgres.new_database()
    try:
        run("export", "--db", source, first)
        run("export", "--db", first, second)
        run("export", "--db", second, str(tmp_path / "back.db"))
        for target in (first, second):
            with open_store(target, readonly=True) as store:
                stored, made = pieces_and_made(store)
                assert sorted({int(str(r[0])) for r in stored}) == [ids[1], ids[2], ids[5]] and stored == made
                assert {phrase: phrase_ids(store, phrase) for phrase in wanted} == wanted
            assert run("check", "--db", target).startswith("ok:")
        with open_store(str(tmp_path / "back.db"), readonly=True) as store:
            assert {phrase: phrase_ids(store, phrase) for phrase in wanted} == wanted
    finally:
        for url in (first, second):
            postgres.drop_database(url)
