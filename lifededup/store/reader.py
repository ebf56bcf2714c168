"""A read-only store on the driver alone -- the standard library's
``sqlite3``, or psycopg -- for the commands that only read (``search``):
importing SQLAlchemy costs a command about a fifth of a second, more than the
search itself.

``open_reader(url_or_path=None) -> Reader | ServerReader | Store``: a
:class:`Reader` when the store is an SQLite file at the head the revision
files write (the common case), a :class:`ServerReader` when it is a
PostgreSQL database at that head (connected as every read-only engine
connects, ``opening.server_connect_args``); otherwise the full
:func:`open_store` (read-only), which upgrades an older store or says what
is wrong with it.  A server that cannot be reached is the same error
either way (which server, what the driver said).  All give ``reading()``:
the driver connection inside one read transaction -- on SQLite the
``sqlite3`` connection, with the pragmas and the authorizer of every
read-only store connection (``opening._configure``); on PostgreSQL a
``dialect.PgDriver`` in a READ ONLY transaction of a session whose every
transaction is read only -- with the same ``execute(sql, params)`` taking
the store's ``:name`` parameters.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar
from urllib.parse import quote

from lifededup.store import pg_url
from lifededup.store.dialect import Driver, PgDriver, pyformat
from lifededup.store.errors import StoreNotFound
from lifededup.store.opening import Location, _configure, _written_head, cannot_use, resolve, server_connect_args
from lifededup.store.machines import machine_identity
from lifededup.store.records import machine_name

if TYPE_CHECKING:
    from lifededup.store.store import Store


class Readable(Protocol):
    """What a read needs of a store: its location (``location.url`` is set
    for PostgreSQL), the machine asking (``machine_name()``: "this
    machine's" folders), and a read transaction on the driver's connection."""

    location: Location
    machine: str

    @property
    def identity(self) -> str: ...  # which computer is asking (lifededup.store.machines)

    def reading(self) -> AbstractContextManager[Driver]: ...

    def close(self) -> None: ...


Rows = tuple[list[str], list[tuple[object, ...]], int]


class Queryable(Readable, Protocol):
    """A store that runs one statement as given (``lifededup sql``)."""

    def execute_counted(self, sql: str, params: dict[str, object] | None = None) -> Rows: ...


_R = TypeVar("_R", bound="_OnDriver")


class _OnDriver:
    """What both readers on a driver alone are: read-only, about this
    machine and this computer (as a ``Store`` is), one connection closed at
    the end."""

    readonly = True

    def __init__(self, conn: Any, location: Location) -> None:
        self._conn = conn
        self.location = location
        self.machine = machine_name()

    @property
    def identity(self) -> str:
        return machine_identity()

    def close(self) -> None:
        self._conn.close()

    def __enter__(self: _R) -> _R:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class Reader(_OnDriver):
    """A store opened read-only on ``sqlite3`` alone (see module docs)."""

    _conn: sqlite3.Connection

    @property
    def path(self) -> Path:
        return self.location.file

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """The connection inside one read transaction (one snapshot)."""
        self._conn.execute("BEGIN")
        try:
            yield self._conn
        except BaseException:
            if self._conn.in_transaction:
                self._conn.rollback()  # the read's own error is the one to see
            raise
        self._conn.execute("COMMIT")

    def execute_counted(self, sql: str, params: dict[str, object] | None = None) -> Rows:
        """``Store.execute_counted`` on a read-only store: one statement, as
        given, in a transaction of its own (the connection's pragmas and
        authorizer refuse any change)."""
        cursor = self._conn.execute(sql, params or {})
        try:
            rows = [tuple(r) for r in cursor.fetchall()] if cursor.description else []
            return [d[0] for d in cursor.description or ()], rows, int(cursor.rowcount)
        finally:
            cursor.close()


class ServerReader(_OnDriver):
    """A PostgreSQL store opened read-only on psycopg alone (see module
    docs); its connection a ``psycopg.Connection``, not autocommit."""

    @contextmanager
    def reading(self) -> Iterator[PgDriver]:
        """The connection inside one READ ONLY transaction, as a
        ``Store``'s read-only engine begins each: the session's every
        transaction is (``default_transaction_read_only``, set as it
        connects), so no statement says so -- it was a round trip a search
        (helper W).  A ``SET`` of that default inside a read is undone
        with it: a read is rolled back."""
        import psycopg

        try:
            yield PgDriver(self._conn)
        except BaseException:
            try:
                self._conn.rollback()
            except psycopg.Error:
                pass  # the read's own error is the one to see
            raise
        # rolled back, not committed: what a READ ONLY transaction still lets
        # a statement make (a large object, lo_from_bytea) is not kept
        self._conn.rollback()

    def execute_counted(self, sql: str, params: dict[str, object] | None = None) -> Rows:
        """``Store.execute_counted`` on a read-only store: one statement (a
        prepared one cannot hold two), in a READ ONLY transaction of its own."""
        import psycopg

        cursor = self._conn.cursor()
        try:
            cursor.execute("SET TRANSACTION READ ONLY")
            cursor.execute(pyformat(sql), params or None, prepare=True)
            rows = [tuple(r) for r in cursor.fetchall()] if cursor.description else []
            found = [d[0] for d in cursor.description or ()], rows, int(cursor.rowcount)
            self._conn.rollback()  # as reading(): nothing a read made is kept
            return found
        except BaseException:
            try:
                self._conn.rollback()
            except psycopg.Error:
                pass  # the statement's own error is the one to see
            raise
        finally:
            cursor.close()


def open_reader(url_or_path: str | Path | None = None, *, migrate: bool = True) -> Reader | ServerReader | Store:
    """Open the store to read (see module docs); ``migrate=False``: a store
    at an older revision is read as it is (``open_store``'s ``migrate``)."""
    location = resolve(url_or_path)
    if location.url is not None:
        server = _server_at_head(location)
        if server is not None:
            return server
        from lifededup.store import open_store

        return open_store(location.url, readonly=True, migrate=migrate)
    if not location.file.is_file():
        raise StoreNotFound(f"no store at {location}: index something first (or check --db)")
    conn = _at_head(location)
    if conn is not None:
        return Reader(conn, location)
    from lifededup.store import open_store

    return open_store(location.path, readonly=True, migrate=migrate)


def _at_head(location: Location) -> sqlite3.Connection | None:
    """A read-only connection to the store if it is at the written head, else None."""
    head = _written_head()
    if head is None:
        return None
    uri = f"file:{quote(str(location.file.resolve()))}?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    except sqlite3.Error:
        return None
    try:
        _configure(conn, readonly=True)
        versions = [r[0] for r in conn.execute("SELECT version_num FROM alembic_version")]
    except sqlite3.Error:
        versions = []  # not a store, a damaged one, one before Alembic: open_store says which
    if versions != [head]:
        conn.close()
        return None
    return conn


def _server_at_head(location: Location) -> ServerReader | None:
    """A reader on the PostgreSQL store if it is at the written head, else
    None (then ``open_store`` upgrades it, refuses it, or says what is
    wrong).  Raises ``UnsupportedStore`` for a server that cannot be
    reached, with the message ``open_store`` gives."""
    assert location.url is not None
    head = _written_head()
    parsed = pg_url.parse(location.url)
    kwargs = parsed.connect_kwargs() if parsed is not None else None
    if head is None or kwargs is None:
        return None
    try:
        import psycopg
    except ImportError:
        return None  # open_store says how to install the driver
    try:
        # the URL's parts, then the engine's connect_args over them, as SQLAlchemy passes them
        args: dict[str, Any] = {**kwargs, **server_connect_args(readonly=True)}
        conn = psycopg.connect(**args)
    except psycopg.OperationalError as exc:
        raise cannot_use(location, exc) from exc
    except psycopg.Error:
        return None
    try:
        versions = [r[0] for r in conn.execute("SELECT version_num FROM alembic_version")]
        conn.rollback()
    except psycopg.Error:
        versions = []  # an empty database, not a store: open_store says which
    if versions != [head]:
        conn.close()
        return None
    return ServerReader(conn, location)
