"""Where a store lives, and opening one: connection settings, and bringing an
older store up to the program's Alembic head under the store's write lock.

A store is an SQLite file or a PostgreSQL database (``postgresql://``, the
psycopg driver); the same Alembic revisions make both.

Concurrency (one writer, many readers, as the watcher and a search run side
by side): on SQLite, WAL lets readers read while a writer writes; every
writing transaction starts with ``BEGIN IMMEDIATE`` so it takes the write
lock up front and waits (``busy_timeout``) instead of failing with "database
is locked" when it would otherwise upgrade a read lock mid-transaction.  On
PostgreSQL every writing transaction first takes a transaction-level
advisory lock (``WRITE_LOCK``), the same turn-taking for any number of
machines' indexers; read-only sessions are READ ONLY on the server.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import logging
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import platformdirs

from lifededup.store import pg_url
from lifededup.store.dialect import translate_driver_sql
from lifededup.store.errors import (StoreDamaged, StoreNotFound, StoreTooNew, UnsupportedStore, driver_error,
                                    first_said, is_denied)

# SQLAlchemy is imported where an engine is made or its errors are met:
# resolving a location and reading the head (store/reader.py) need neither.
if TYPE_CHECKING:
    from sqlalchemy import Connection, Engine
    from alembic.config import Config
    from alembic.runtime.migration import MigrationInfo
    from alembic.script import ScriptDirectory

ENV_VAR = "LIFEDEDUP_DB"
STORE_FILE = "lifededup.db"
# Long enough for a writer's batch to commit while another waits its turn.
BUSY_TIMEOUT_MS = 10_000
CACHE_KIB = 65_536
WAL_CHECKPOINT_PAGES = 10_000


@dataclass(frozen=True)
class Location:
    """Where a store lives: an SQLite file (``path``), or a PostgreSQL
    database (``url``, an SQLAlchemy URL naming the psycopg driver), and what
    to call it in messages (a server's password never shown)."""

    path: Path | None = None
    url: str | None = None

    @property
    def backend(self) -> str:
        return "postgresql" if self.url is not None else "sqlite"

    @property
    def file(self) -> Path:
        """The store file (an SQLite store's only)."""
        if self.path is None:
            raise UnsupportedStore(f"{self} is a database server, not a file")
        return self.path

    def own_files(self) -> list[str]:
        """The real paths of an SQLite store's files -- the database, its
        -wal, -shm and -journal -- which an indexer or watcher of a folder
        holding them passes over; none for a server's store."""
        if self.path is None:
            return []
        real = os.path.realpath(self.path)
        return [real + suffix for suffix in ("", "-wal", "-shm", "-journal")]

    def __str__(self) -> str:
        if self.url is not None:
            return slashes_shown(_password_hidden(self.url))
        return str(self.path)


def _password_hidden(url: str) -> str:
    parsed = pg_url.parse(url)
    if parsed is not None:  # without importing SQLAlchemy, the same text
        return parsed.render("postgresql", hide_password=True)
    from sqlalchemy.engine import make_url

    made = make_url(url)
    hidden = {k: ("***" if k in pg_url.SECRET_KEYS else v) for k, v in made.query.items()}
    return made.set(drivername="postgresql", query=hidden).render_as_string(hide_password=True)


def slashes_shown(url: str) -> str:
    """A URL's query with its slashes as they are: a server reached by its
    socket folder reads ``host=/run/postgresql``, not ``host=%2Frun%2Fpostgresql``
    (a '/' needs no escape in a query, so the URL still reads back the same;
    a '%' of a value is escaped as %25, so no other %2F is made a slash)."""
    head, mark, query = url.partition("?")
    return head + mark + query.replace("%2F", "/")


def default_path() -> Path:
    """The store used when neither ``--db`` nor ``LIFEDEDUP_DB`` says another:
    the user's data folder ($XDG_DATA_HOME/lifededup on Linux)."""
    return platformdirs.user_data_path("lifededup") / STORE_FILE


def resolve(url_or_path: str | Path | None) -> Location:
    """A path, an ``sqlite:///`` or ``postgresql://`` URL, or None
    (``LIFEDEDUP_DB``, else the default)."""
    if url_or_path is None or url_or_path == "":
        url_or_path = os.environ.get(ENV_VAR) or default_path()
    if isinstance(url_or_path, str) and "://" in url_or_path:
        return _location_of_url(url_or_path)
    if isinstance(url_or_path, str) and _MISTYPED_URL.match(url_or_path):
        # postgresql//host/db, postgresql:/db: a shared store's URL with a slip, not a file to make here
        raise UnsupportedStore(f"{url_or_path!r} looks like a database URL with a slip in it, not a file path: "
                               "write postgresql://USER@HOST/DATABASE, or a file's path (./NAME for a file so called)")
    return Location(Path(url_or_path).expanduser())


# A path that begins like a database URL: postgresql//, postgres:, sqlite:/ (a file named so is given as ./NAME).
_MISTYPED_URL = re.compile(r"(postgres(ql)?|sqlite)(\+\w+)?(:|//)", re.IGNORECASE)


def store_named(store: str) -> str:
    """`` --db STORE`` for a command said about ``store`` (as a store's location prints: a watcher's
    report names its store so), where that is not the store a bare command opens (the default, or
    LIFEDEDUP_DB's); empty where it is.  For the commands the CLI's messages and the web view suggest."""
    import shlex

    from lifededup.store.errors import StoreError

    try:
        bare = str(resolve(None))
    except StoreError:  # LIFEDEDUP_DB mistyped: a bare command opens nothing
        bare = ""
    return "" if not store or store == bare else f" --db {shlex.quote(store)}"


def _location_of_url(url: str) -> Location:
    fast = pg_url.parse(url)
    if fast is not None:  # without importing SQLAlchemy, the URL it would give
        return Location(url=fast.render("postgresql+psycopg", hide_password=False))
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise UnsupportedStore(f"{url!r} is not a database URL: {exc}") from exc
    except ValueError as exc:  # int() of the port
        raise UnsupportedStore(f"{url!r} is not a database URL: its port is not a number") from exc
    # the scheme as written: SQLAlchemy's get_driver_name() would load a
    # dialect, which postgres:// (a common spelling, no dialect of its
    # own) does not name, and whose default driver is not psycopg before 2.1
    backend, _, driver_name = parsed.drivername.partition("+")
    if backend in ("postgresql", "postgres"):
        if driver_name not in ("psycopg", ""):
            raise UnsupportedStore(f"{url!r}: lifededup talks to PostgreSQL through psycopg; "
                                   "write postgresql://USER@HOST/DATABASE")
        if not parsed.database:
            raise UnsupportedStore(f"{url!r}: say which database (postgresql://USER@HOST/DATABASE)")
        return Location(url=parsed.set(drivername="postgresql+psycopg").render_as_string(hide_password=False))
    if backend != "sqlite":
        raise UnsupportedStore(
            f"{url!r}: a lifededup store is an SQLite file or a PostgreSQL database; "
            "give a path, an sqlite:///PATH URL or a postgresql://USER@HOST/DATABASE URL"
        )
    if not parsed.database or parsed.database == ":memory:":
        raise UnsupportedStore(f"{url!r}: an in-memory store would vanish; give a file path")
    return Location(Path(parsed.database).expanduser())


def migrations_dir() -> Path:
    """The Alembic scripts: shipped as ``lifededup.migrations`` in an installed
    package, or the top-level ``migrations/`` of a source checkout."""
    spec = importlib.util.find_spec("lifededup.migrations")
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    source = Path(__file__).resolve().parents[2] / "migrations"
    if (source / "env.py").is_file():
        return source
    raise UnsupportedStore("lifededup's migrations are missing: reinstall lifededup")


# Alembic is imported only where a store is created, upgraded or found
# unknown: importing it costs about a tenth of a second, which every command
# paid, a search too, to learn that the store was already at head.


def alembic_config() -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    return config


_SCRIPTS_LOCK = threading.Lock()


def revision_scripts() -> ScriptDirectory:
    """The revisions, read once a process.  Alembic reads every revision
    file again for each ``ScriptDirectory`` it makes, and an upgrade made two
    (its own check, then ``command.upgrade``'s): a tenth of a second for each
    new store, twice in a process that makes many (a test suite, a daemon
    given new stores)."""
    with _SCRIPTS_LOCK:
        return _scripts_of(migrations_dir())


@functools.cache
def _scripts_of(folder: Path) -> ScriptDirectory:
    from alembic.script import ScriptDirectory

    script = ScriptDirectory(str(folder))
    script.get_current_head()  # reads the files now, under the lock
    return script


def _create_private(path: Path) -> None:
    """Create an empty store file readable by its owner only: it holds the
    text of private documents.  SQLite gives its -wal and -shm files the same
    mode."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        return
    os.close(fd)
    os.chmod(path, 0o600)


# The key of the transaction-level advisory lock every writing transaction on
# a PostgreSQL store takes first: PostgreSQL's counterpart of SQLite's BEGIN
# IMMEDIATE.  Writers (indexers on several machines) take turns for the
# length of a transaction, as on SQLite, so that an item is clustered against
# every item committed before it; readers never take it.
WRITE_LOCK = 0x6C6966656465  # "lifede"
# Seconds a writer's session may sit in a transaction between two statements before the server ends it
# (PostgreSQL's idle_in_transaction_session_timeout): a writer works between them, never waits this long.
IDLE_WRITER_S = 600
# A connection's execution option: its transactions only read, so they begin
# as readers do (``Store.snapshot``) even on a writable store's engine.
READS_ONLY = "lifededup_reads_only"


def server_connect_args(*, readonly: bool) -> dict[str, object]:
    """What every connection to a PostgreSQL store passes ``psycopg.connect``
    besides the URL's parts: an engine's and ``store/reader.py``'s alike."""
    # A plan for each execution's own values, never the generic plan the
    # server would otherwise settle on for a statement psycopg prepared
    # (psycopg prepares one run five times; the server goes generic after
    # five more): how many items a search's words match decides its best
    # plan -- a generic one made the 11th run of a phrase search at a
    # million items 1,050 ms instead of 360.
    # A sequential scan starts at the table's beginning: with the server's
    # synchronized scans, a scan cut short by LIMIT leaves its position for
    # the next one to start from, so the same search counted the clusters of
    # a different "first 10,001" matches each time (at least 9,767, then
    # 9,595, then 9,500 results at 100,000 items).
    options = "-c plan_cache_mode=force_custom_plan -c synchronize_seqscans=off"
    if readonly:
        # every transaction of the session, not only those SQLAlchemy begins
        options += " -c default_transaction_read_only=on"
    else:
        # a writer holds the write lock for its transaction: one that stops between two statements (a
        # laptop suspended mid-batch) would keep every other machine waiting until it woke; the
        # server ends such a session, and the next run, or the watcher's retry, does its work again
        options += f" -c idle_in_transaction_session_timeout={IDLE_WRITER_S}s"
    from lifededup.store.records import machine_name

    # the machine, for a writer waiting for another's turn to be told whose it is (over a Unix socket a
    # session has no address; explorer K's two laptops both read as "lifededup")
    return {"application_name": f"lifededup {machine_name()}"[:63], "connect_timeout": 10, "options": options}


def _server_engine(location: Location, *, readonly: bool) -> Engine:
    """An engine on a PostgreSQL store.  A read-only one starts every
    transaction READ ONLY: the server itself refuses any change."""
    from sqlalchemy import create_engine, event

    assert location.url is not None
    try:
        import psycopg  # noqa: F401
    except ImportError as exc:
        raise UnsupportedStore(
            f"{location} is a PostgreSQL store, and its driver is not installed: "
            "pip install 'lifededup[postgres]'") from exc
    engine = create_engine(location.url, pool_size=2, pool_pre_ping=True,
                           connect_args=server_connect_args(readonly=readonly))
    _hush_pool()
    reads = "SET TRANSACTION READ ONLY"
    event.listen(engine, "before_cursor_execute", translate_driver_sql, retval=True)

    @event.listens_for(engine, "begin")
    def _begin(conn: Any) -> None:
        if readonly:
            return  # the session's every transaction is READ ONLY (server_connect_args): no round trip to say so
        if conn.get_execution_options().get(READS_ONLY):
            conn.exec_driver_sql(reads)
        else:
            take_write_turn(lambda sql: conn.exec_driver_sql(sql).first())

    return engine


def _hush_pool() -> None:
    """SQLAlchemy's pool logs "Exception during reset or similar" and a driver's traceback when it cannot
    roll back a connection it takes back, which a server lost while the indexer was sending ("cannot exit
    pipeline mode while busy") does: through Python's last-resort handler, onto the terminal above the
    command's own one line ("lost the store's server ... run the same command again").  The connection is
    dropped either way; the error that matters reaches the command, which says it."""
    quiet = logging.getLogger("sqlalchemy.pool")
    if quiet.propagate:
        quiet.addHandler(logging.NullHandler())
        quiet.propagate = False


log = logging.getLogger(__name__)

# Who holds the write lock: a bigint advisory key is classid (its high 32 bits) and objid (its low 32)
_HOLDER = (
    "SELECT a.pid, a.application_name, host(a.client_addr), a.xact_start, a.state FROM pg_locks l "
    "JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted "
    f"AND l.classid = {WRITE_LOCK >> 32} AND l.objid = {WRITE_LOCK & 0xFFFFFFFF} AND l.objsubid = 1 "
    # an advisory lock is its database's own: another store on the server may hold the same key
    "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
)


# Two machines' watchers indexing at once take turns all the time: a wait this short goes unsaid; one
# for a writer at work is said at INFO (a turn, as README "Sharing a store" says), and a WARNING once
# it lasts LONG_WAIT_S; one for a writer idle in its transaction (a laptop suspended mid-batch) at once.
QUIET_WAIT_S = 2.0
LONG_WAIT_S = 60.0


def take_write_turn(first_row: Callable[[str], Any]) -> None:
    """Take the writers' lock for this transaction (``first_row`` runs a
    statement on it, returning its first row): at once or within
    ``QUIET_WAIT_S``, silently; else say who holds it (above), then wait
    for it.  The engine's transactions and ``Store.execute``'s raw cursor
    (`sql --write`) both take their turn so."""
    started = time.monotonic()
    said = warned = False
    while not first_row(f"SELECT pg_try_advisory_xact_lock({WRITE_LOCK})")[0]:
        waited = time.monotonic() - started
        if waited >= QUIET_WAIT_S and not warned:
            held = first_row(_HOLDER)
            stalled = held is not None and str(held[4]).startswith("idle in transaction")
            if stalled or waited >= LONG_WAIT_S:
                log.warning("%s", _waiting_for(held, stalled, waited))
                first_row(f"SELECT pg_advisory_xact_lock({WRITE_LOCK})")
                return
            if not said:
                log.info("%s", _waiting_for(held, stalled, waited))
                said = True
        time.sleep(0.05)  # a turn free is taken within 50 ms, as a blocking wait would


def _waiting_for(held: Any, stalled: bool, waited: float) -> str:
    """What a writer waiting for another's turn is told: who holds it (``held``:
    a row of ``_HOLDER``, or None), since when, and how long it may."""
    if held is None:
        who = "another writer"
    else:
        pid, program, host, since, state = held
        where = f" on {host}" if host else ""
        when = f", in a transaction since {since:%Y-%m-%d %H:%M:%S %Z}" if since is not None else ""
        who = f"another writer ({program or 'a client'}{where}, server process {pid}{when}, {state})"
    if stalled:
        return (f"waiting for {who} to finish writing to the store; a writer stopped mid-transaction (a "
                f"computer suspended) holds the store at most {IDLE_WRITER_S // 60} minutes")
    if waited >= LONG_WAIT_S:
        return f"still waiting, after {waited:.0f} s, for {who} to finish writing to the store"
    return f"waiting for {who} to finish its turn writing to the store"


def make_engine(location: Location, *, readonly: bool) -> Engine:
    """An engine whose connections carry the store's pragmas (SQLite), or
    its transactions' read-only mode or write lock (PostgreSQL)."""
    from sqlalchemy import create_engine, event, pool

    if location.url is not None:
        return _server_engine(location, readonly=readonly)
    path = location.file

    def connect() -> sqlite3.Connection:
        if readonly:
            uri = f"file:{quote(str(path.resolve()))}?mode=ro"
            conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        else:
            conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        _configure(conn, readonly=readonly)
        return conn

    engine = create_engine("sqlite://", creator=connect, poolclass=pool.QueuePool, pool_size=2)
    # The driver's own transaction handling is off (isolation_level=None); we
    # say exactly how each transaction begins.
    begin = "BEGIN" if readonly else "BEGIN IMMEDIATE"

    @event.listens_for(engine, "begin")
    def _begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN" if conn.get_execution_options().get(READS_ONLY) else begin)

    return engine


def _configure(conn: sqlite3.Connection, *, readonly: bool) -> None:
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys = ON")
    # 64 MiB of page cache (SQLite's default is 2 MiB): an insert touches a
    # leaf of each of ~10 indexes with random keys, and a large store's
    # interior pages should stay cached (benchmarks/bench_store.py).
    conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
    if readonly:
        # Belt and braces over mode=ro: no statement may change any file,
        # not even an ATTACHed one.
        conn.execute("PRAGMA query_only = ON")
        # ATTACH would open (and create) another file, and a PRAGMA that sets
        # something may write (journal_mode, wal_checkpoint): a reader needs neither.
        conn.set_authorizer(_read_only_authorizer)
        return
    conn.execute("PRAGMA journal_mode = WAL")
    # WAL + NORMAL: a commit survives a crash of the program; only a power cut
    # may lose the last commits, never consistency (SQLite docs, "WAL").
    conn.execute("PRAGMA synchronous = NORMAL")
    # Checkpoint every ~40 MiB of WAL instead of SQLite's ~4 MiB: in a large
    # store a batch of inserts dirties ~8 random index pages an item, so the
    # default checkpoints (and syncs) after nearly every batch.
    conn.execute(f"PRAGMA wal_autocheckpoint = {WAL_CHECKPOINT_PAGES}")


# PRAGMAs that only read, with or without an argument (a table or index
# name, or how many errors to list); every other PRAGMA given a value sets
# something, and these few write even without one.
_READING_PRAGMAS = frozenset({
    "table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo", "foreign_key_list",
    "foreign_key_check", "integrity_check", "quick_check", "function_list", "module_list", "pragma_list",
    "collation_list", "database_list", "compile_options",
})
_WRITING_PRAGMAS = frozenset({"wal_checkpoint", "optimize", "incremental_vacuum", "shrink_memory"})


def _read_only_authorizer(action: int, arg1: str | None, arg2: str | None, *_: object) -> int:
    if action in (sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH):
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_PRAGMA:
        name = (arg1 or "").lower()
        if name in _WRITING_PRAGMAS or (arg2 is not None and name not in _READING_PRAGMAS):
            return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK


# SQLite's primary result codes for a damaged file (sqlite3 exceptions carry them).
_SQLITE_CORRUPT = 11
_SQLITE_NOTADB = 26


def damage_of(exc: BaseException, location: Location) -> StoreDamaged | None:
    """The :class:`StoreDamaged` an SQLite error means, or None if it is another kind of error."""
    orig = driver_error(exc)
    code = getattr(orig, "sqlite_errorcode", None)
    if not isinstance(code, int) or code & 0xFF not in (_SQLITE_CORRUPT, _SQLITE_NOTADB):
        return None
    if code & 0xFF == _SQLITE_NOTADB and (location.path is None or not _has_sqlite_header(location.path)):
        return None  # some other file given as the store: not ours to call damaged
    return StoreDamaged(damaged_message(location, str(orig)))


def _has_sqlite_header(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def damaged_message(location: Location, finding: str) -> str:
    """What is wrong with a damaged store, and how to get a sound one back."""
    return (f"the store {location} is damaged: SQLite says {finding!r}. It holds nothing your files "
            f"don't, so build it again from them: move it aside (mv '{location}' '{location}.damaged'), "
            "then run `lifededup index FOLDER...` (and `lifededup folders add` the folders you watched); "
            "`lifededup check` says what is damaged.")


def quick_check(engine: Engine, location: Location) -> None:
    """SQLite's quick check (every page and index entry well formed, without
    comparing indexes with their tables); raises :class:`StoreDamaged`."""
    from sqlalchemy.exc import DBAPIError

    try:
        with engine.connect() as conn:
            found = [str(r[0]) for r in conn.exec_driver_sql("PRAGMA quick_check(20)")]
    except DBAPIError as exc:
        damage = damage_of(exc, location)
        if damage is not None:
            raise damage from exc
        raise
    if found != ["ok"]:
        raise StoreDamaged(damaged_message(location, "; ".join(found)))


def current_revision(engine: Engine) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def _refuse_unknown(revision: str | None, script: ScriptDirectory, location: Location, conn: Connection) -> None:
    known = {s.revision for s in script.walk_revisions()}
    if revision is not None and revision not in known:
        from sqlalchemy import inspect

        # another program's Alembic revision, not a newer lifededup's: its
        # tables are not lifededup's (every revision keeps the first's)
        _refuse_other_history(set(inspect(conn).get_table_names()), location)
        raise StoreTooNew(
            f"the store {location} is at schema revision {revision}, made by a newer "
            f"lifededup than this one (which knows up to {script.get_current_head()}); "
            "upgrade lifededup (pip install -U lifededup) to use it"
        )


def upgrade(engine: Engine, location: Location) -> None:
    """Bring the store to head.  The check and the upgrade run in one
    ``BEGIN IMMEDIATE`` transaction, so of two processes opening a new store
    one migrates and the other waits, then finds nothing to do."""
    from alembic.runtime.environment import EnvironmentContext
    from alembic.runtime.migration import MigrationContext

    config = alembic_config()
    script = revision_scripts()
    with engine.connect() as conn, conn.begin():
        revision = MigrationContext.configure(conn).get_current_revision()
        _refuse_unknown(revision, script, location, conn)
        if revision is None:
            _refuse_foreign(conn, location)
        head = script.get_current_head()
        if revision != head:
            if revision is not None:  # a store made by an older lifededup: said, as it may take a while
                log.warning("upgrading %s from schema revision %s to %s (a large store takes a while; files a "
                            "revision marks are read again by the next index or rescan)", location, revision, head)
                config.attributes["on_version_apply"] = _RevisionsSaid(script, revision).applied
            config.attributes["connection"] = conn

            def run_revisions() -> None:  # command.upgrade(config, "head"), through the revisions already read
                with EnvironmentContext(config, script, fn=lambda rev, _: script._upgrade_revs("head", rev),
                                        destination_rev="head"):
                    script.run_env()

            if revision is None:
                _new_store(conn, head, run_revisions)
            else:
                run_revisions()


# What the revisions sent the driver to make an empty store, by the server it was made on: a process
# that makes another store there sends the same statements again (_new_store).
_MADE: dict[tuple[object, ...], list[tuple[str, Any, bool]]] = {}
_MADE_LOCK = threading.Lock()


def _server_of(conn: Connection, head: str | None) -> tuple[object, ...]:
    """What the revisions' statements for an empty store depend on: the revisions (their head), and the
    backend and its version (Alembic and SQLAlchemy write some statements by the version).  The revisions
    choose by the backend alone: none reads the database's settings."""
    return head, conn.dialect.name, conn.dialect.server_version_info


def _new_store(conn: Connection, head: str | None, run_revisions: Callable[[], None]) -> None:
    """Make an empty store: by its revisions the first time a process makes one on a server, and from then on
    by the statements those revisions sent the driver, sent again on the same transaction.  The revisions
    run through Alembic's operations, which cost several times the statements they send (0.3 s a store: a
    fifth of the CPU of a test suite that makes stores by the thousand); an empty store's revisions send the
    same statements every time, as none of them reads what is not their own."""
    from sqlalchemy import event

    key = _server_of(conn, head)
    with _MADE_LOCK:
        made = _MADE.get(key)
    if made is not None:
        cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        try:
            for statement, parameters, many in made:
                (cursor.executemany if many else cursor.execute)(statement, parameters)
        finally:
            cursor.close()
        return
    sent: list[tuple[str, Any, bool]] = []

    def record(_conn: object, _cursor: object, statement: str, parameters: Any, _context: object,
               many: bool) -> None:
        sent.append((statement, parameters, many))

    event.listen(conn, "after_cursor_execute", record)  # what reached the driver, after the engine's own hooks
    try:
        run_revisions()
    finally:
        event.remove(conn, "after_cursor_execute", record)
    with _MADE_LOCK:
        _MADE.setdefault(key, sent)


class _RevisionsSaid:
    """An upgrade's revisions said one by one, where its first warning goes: each as it starts, its number and
    what it does (its docstring's first paragraph), and when it is done how long it took.  A revision that
    rewrites every document ran 6 minutes at a million items with nothing on screen, and looked hung.  Alembic
    calls ``applied`` after each revision (``on_version_apply``, migrations/env.py), so it says the next."""

    def __init__(self, script: ScriptDirectory, current: str) -> None:
        self._todo = [s for s in script.iterate_revisions("heads", current)][::-1]
        self._started = 0.0
        self._start_next()

    def _start_next(self) -> None:
        if self._todo:
            revision = self._todo.pop(0)
            log.warning("  %s %s ...", revision.revision, " ".join(revision.doc.split()).rstrip("."))
            self._started = time.monotonic()

    def applied(self, *, step: MigrationInfo, **_: object) -> None:
        from lifededup.model import lasting

        log.warning("  %s done in %s", step.up_revision_id, lasting(time.monotonic() - self._started))
        self._start_next()


# The tables the first revision made, which every store keeps.
OWN_TABLES = frozenset({"items", "fingerprints", "clusters", "params"})


def _refuse_foreign(conn: Connection, location: Location) -> None:
    """A database without lifededup's version table becomes a store only if
    it is empty: one holding tables of its own is another program's (a
    browser's places.sqlite given as --db, say), and lifededup writes into no
    one else's database -- every command, a search too, would otherwise
    create its tables there.  (The first revision runs in one transaction
    with the version row, so a store never has tables and no version.)"""
    from sqlalchemy import inspect

    inspector = inspect(conn)
    _refuse_tables({*inspector.get_table_names(), *inspector.get_view_names()}, location)


def _refuse_foreign_file(location: Location) -> None:
    """``_refuse_foreign`` for an SQLite file, on a read-only connection
    before any writable one: opening one sets WAL mode, which rewrites the
    file's header.  A file SQLite cannot read is left to the opening that
    follows, which says what it is (not a database, or a damaged store)."""
    path = location.file
    try:
        if path.stat().st_size == 0:
            return
        conn = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True)
    except (OSError, sqlite3.Error):
        return
    try:
        names = {str(r[0]) for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite%'")}
    except sqlite3.Error:
        return
    finally:
        conn.close()
    if "alembic_version" not in names:
        _refuse_tables(names, location)
    _refuse_other_history(names, location)


def _refuse_other_history(names: set[str], location: Location) -> None:
    """A database with an Alembic history (``names``: its tables) that lacks
    the tables lifededup's first revision made is another program's (a Flask
    app's, say), not a store of a newer lifededup."""
    if not OWN_TABLES <= names:
        _refuse_tables(names - {"alembic_version"} or names, location)


def _refuse_tables(names: set[str], location: Location) -> None:
    if names:
        found = sorted(names)
        shown = ", ".join(found[:5]) + (f" and {len(found) - 5} more" if len(found) > 5 else "")
        where = "a new file" if location.url is None else "an empty database"
        raise UnsupportedStore(
            f"{location} is not a lifededup store: it holds another program's tables ({shown}) and no "
            f"lifededup schema, and lifededup writes into no other program's database. Give --db {where} "
            "(or the store you meant)"
        )


def _literals(path: Path) -> dict[str, object]:
    """The module-level ``NAME = literal`` assignments of a Python file."""
    found: dict[str, object] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name):
            try:
                found[target.id] = ast.literal_eval(value)
            except (ValueError, TypeError, SyntaxError):
                found[target.id] = None  # not a literal: not plain enough
    return found


# The revision files are read once a process, under a lock: CPython 3.11's
# ast.parse in two threads at once can fail with "SystemError: AST
# constructor recursion depth mismatch" (python/cpython gh-106905), and the
# web view opens a store in each of its threads.
_HEAD_LOCK = threading.Lock()


def _written_head() -> str | None:
    """The head revision as the revision files write it (their
    ``revision`` and ``down_revision``), read without Alembic; None when a
    file does not say it plainly or there is not one head -- then Alembic
    decides."""
    with _HEAD_LOCK:
        return _head_of_files()


@functools.cache
def _head_of_files() -> str | None:
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in sorted((migrations_dir() / "versions").glob("*.py")):
        if path.name == "__init__.py":
            continue
        names = _literals(path)
        revision, down = names.get("revision"), names.get("down_revision")
        if not isinstance(revision, str):
            return None
        revisions.add(revision)
        parents.update(down if isinstance(down, (tuple, list)) else [down] if isinstance(down, str) else [])
    heads = revisions - parents
    return heads.pop() if len(heads) == 1 else None


def at_written_head(engine: Engine) -> bool:
    """Whether the store is at the head the revision files write: then no
    command needs Alembic.  False when unsure (no version table yet, a
    revision file that does not say plainly)."""
    from sqlalchemy.exc import DatabaseError

    head = _written_head()
    if head is None:
        return False
    try:
        with engine.connect() as conn:
            versions = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalars().all()
    except DatabaseError:
        return False
    return versions == [head]


def needs_upgrade(engine: Engine, location: Location) -> bool:
    script = revision_scripts()
    revision = current_revision(engine)
    with engine.connect() as conn:
        _refuse_unknown(revision, script, location, conn)
        if revision is None:
            _refuse_foreign(conn, location)
    return revision != script.get_current_head()


def cannot_use(location: Location, finding: object) -> UnsupportedStore:
    """The store cannot be reached or opened: which store, and what the driver said
    (and, where the server asked for a password none gave, where it goes)."""
    said = str(finding).strip()
    if "no password supplied" in said:
        said += (" (the server asks for a password: put it in ~/.pgpass, one line HOST:PORT:DATABASE:USER:PASSWORD, "
                 "chmod 600 ~/.pgpass; README, \"Sharing a store\")")
    return UnsupportedStore(f"cannot use the store {location}: {said}")


@contextmanager
def database_errors(location: Location) -> Iterator[None]:
    """Say which file is not a store, or is a damaged one, instead of SQLite's
    bare message; which server cannot be reached, instead of the driver's."""
    from sqlalchemy.exc import DatabaseError, OperationalError

    try:
        yield
    except OperationalError as exc:
        if location.url is None:
            damage = damage_of(exc, location)
            if damage is not None:
                raise damage from exc
        raise cannot_use(location, exc.orig) from exc
    except DatabaseError as exc:
        damage = damage_of(exc, location)
        if damage is not None:
            raise damage from exc
        if is_denied(exc):
            raise UnsupportedStore(refused_opening(first_said(exc))) from exc
        raise UnsupportedStore(f"{location} is not a usable lifededup store: {exc.orig}") from exc


def refused_opening(said: str) -> str:
    """A role that may only read, refused while its store was opened: a newer lifededup upgrading an older
    store (it said so), or a role not granted SELECT.  This said "... is not a usable lifededup store:
    permission denied for table items", as if the store were another program's."""
    return (f"the store's server refused to open the store for the role in its URL: {said}. That role "
            "may not change the store: where this lifededup said it was upgrading the store, the store's owner "
            "brings it up to date first (any command given the owner's URL does, lifededup check); else the role "
            "needs SELECT on the store's tables (README, \"Sharing a store\")")


def open_engine(location: Location, *, readonly: bool, migrate: bool = True, verify: bool = False) -> Engine:
    """Open (creating and upgrading as needed) and return the engine to use.

    ``migrate=False`` with ``readonly``: an older store is read as it is (the
    file is never changed).  ``verify``: SQLite's quick check first."""
    if location.url is not None:
        return _open_server(location, readonly=readonly, migrate=migrate)
    path = location.file
    if readonly and not path.is_file():
        raise StoreNotFound(f"no store at {location}: index something first (or check --db)")
    if readonly and path.stat().st_size == 0:
        # a command that only reads does not make a store of an empty file (a typo's --db notes.txt)
        raise StoreNotFound(f"no store at {location}: it is an empty file; index something into it first "
                            "(or check --db)")
    _refuse_foreign_file(location)
    if readonly:
        engine = make_engine(location, readonly=True)
        with database_errors(location):
            if verify:
                quick_check(engine, location)
            if not at_written_head(engine) and needs_upgrade(engine, location) and migrate:
                # Every command brings an older store up to date, a read-only
                # one too: upgrade through a short-lived writable engine.
                writer = make_engine(location, readonly=False)
                upgrade(writer, location)
                writer.dispose()
        return engine
    _create_private(path)
    engine = make_engine(location, readonly=False)
    with database_errors(location):
        if verify:
            quick_check(engine, location)
        if not at_written_head(engine):
            upgrade(engine, location)
    return engine


def _open_server(location: Location, *, readonly: bool, migrate: bool) -> Engine:
    """A PostgreSQL store, brought to head under the write lock (an empty
    database becomes a store, as a new file does)."""
    engine = make_engine(location, readonly=readonly)
    with database_errors(location):
        if not at_written_head(engine):
            if readonly and not migrate:
                needs_upgrade(engine, location)  # refuses a newer store
                return engine
            writer = engine if not readonly else make_engine(location, readonly=False)
            upgrade(writer, location)
            if writer is not engine:
                writer.dispose()
    return engine
