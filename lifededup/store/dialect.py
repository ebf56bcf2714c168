"""The store's SQL on either backend: SQLite through ``sqlite3``, PostgreSQL
through psycopg.

The store writes its statements once, with ``:name`` (or ``?``) parameters,
as SQLite's driver takes them; on PostgreSQL :func:`pyformat` rewrites them
into psycopg's ``%(name)s`` / ``%s`` (once per statement text, cached).  What
the two dialects spell differently is chosen where it is written, by
:func:`is_postgres`.

:func:`driver` gives the connection under an SQLAlchemy one, for the
statements run for every item (SQLAlchemy's per-statement work cost more than
most of them): the ``sqlite3`` connection itself, or a :class:`PgDriver` with
the same ``execute`` / ``executemany`` calls.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol, Union

if TYPE_CHECKING:
    from sqlalchemy import Connection

Params = Union[Mapping[str, Any], Sequence[Any]]

# a quoted string or name (left as it is), a cast (::), a :name, a ?, a %
_TOKEN = re.compile(r"""'(?:[^']|'')*'|"(?:[^"]|"")*"|::|(?<![:\w]):([A-Za-z_]\w*)|(\?)|(%)""")


@lru_cache(maxsize=1024)
def pyformat(sql: str) -> str:
    """``sql`` with SQLite's ``:name`` and ``?`` parameters as psycopg's
    ``%(name)s`` and ``%s``.  A statement without parameters is left as it is;
    with them, every ``%`` is doubled (psycopg reads ``%`` even inside quotes)."""
    if not any(m.group(1) or m.group(2) for m in _TOKEN.finditer(sql)):
        return sql

    def swap(m: re.Match[str]) -> str:
        if m.group(1):
            return f"%({m.group(1)})s"
        if m.group(2):
            return "%s"
        if m.group(3):
            return "%%"
        return m.group(0).replace("%", "%%")

    return _TOKEN.sub(swap, sql)


class Driver(Protocol):
    """A driver connection as the store uses one: ``sqlite3.Connection``'s calls."""

    def execute(self, sql: str, params: Params = ..., /) -> Any: ...

    def executemany(self, sql: str, rows: Iterable[Params], /) -> Any: ...


class PgDriver:
    """A psycopg connection taking the store's SQLite-style statements."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Params = (), /) -> Any:
        query = pyformat(sql)
        # a statement without parameters goes as it is (its % are not markers)
        return self.conn.execute(query, params if query != sql else None)

    def executemany(self, sql: str, rows: Iterable[Params], /) -> Any:
        cursor = self.conn.cursor()
        cursor.executemany(pyformat(sql), list(rows))
        return cursor


def path_bytes(postgres: bool) -> str:
    """``items.path`` (or ``watched_folders.path``) as compared in byte
    order, as SQLite compares it: a PostgreSQL database may compare text by
    a language (initdb under en_US.UTF-8), which sorts "/A/x" and "/á/x"
    inside "/a"'s range of paths ("/a/" to "/a0").  Revision 0026 indexes
    ``(machine, path COLLATE "C")``."""
    return 'path COLLATE "C"' if postgres else "path"


def is_postgres(conn: Connection) -> bool:
    return conn.dialect.name == "postgresql"


def driver(conn: Connection) -> Driver:
    """The driver connection under ``conn``, inside its transaction."""
    found = conn.connection.driver_connection
    if isinstance(found, sqlite3.Connection):
        return found
    return PgDriver(found)


def translate_driver_sql(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any,
                         executemany: bool) -> tuple[str, Any]:
    """SQLAlchemy's ``before_cursor_execute`` hook on a PostgreSQL engine:
    statements given as plain SQL (``exec_driver_sql``) get psycopg's
    parameters; compiled ones already have them."""
    if context is not None and getattr(context, "compiled", None) is None:
        query = pyformat(statement)
        if query == statement and not parameters:
            return statement, None
        return query, parameters
    return statement, parameters


def driver_errors() -> tuple[type[BaseException], ...]:
    """What a statement may raise on either backend: SQLite's errors,
    SQLAlchemy's wrapping of a driver's, and psycopg's own (statements run on
    the driver connection; psycopg is imported only once a PostgreSQL store
    is opened)."""
    import sys

    # each only once imported: a command reading on the driver alone
    # (store.reader) has not imported SQLAlchemy, and none of its errors
    # can come from it
    sqlalchemy_exc, psycopg = sys.modules.get("sqlalchemy.exc"), sys.modules.get("psycopg")
    return ((sqlite3.Error,) + ((sqlalchemy_exc.DBAPIError,) if sqlalchemy_exc is not None else ())
            + ((psycopg.Error,) if psycopg is not None else ()))
