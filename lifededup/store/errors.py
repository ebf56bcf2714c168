"""What can go wrong with a store, as exceptions a command can show as they are."""

from __future__ import annotations

import sys


class StoreError(Exception):
    """Base class: a store problem a person can act on (the message says how)."""


class StoreNotFound(StoreError):
    """A read-only open of a store that does not exist yet."""


class StoreTooNew(StoreError):
    """The store was upgraded by a newer lifededup than this one."""


class UnsupportedStore(StoreError):
    """Not an SQLite URL, or not a file lifededup can use."""


class ParamsMismatch(StoreError):
    """A fingerprint made under other params than the store was built with:
    their features are not comparable, so mixing them would cluster wrongly."""


class ItemNotFound(StoreError):
    """No item with that id or path."""


class StoreDamaged(StoreError):
    """SQLite found the store's file damaged (a disk error, a copy cut short,
    bytes overwritten).  The message says how to rebuild it: the store holds
    nothing the indexed files do not."""


class MissingExtension(StoreError):
    """A PostgreSQL store's upgrade needs an extension (revision 0029's
    unaccent) that the store's role may not create, or that the server
    lacks: the message says what to run, and as whom."""


class MissingIndex(StoreError):
    """An index the schema declares is not in the store (dropped by hand):
    ``lifededup check`` names it and the statement that makes it again."""


# SQLite's primary result codes for a store it cannot use for now: another
# writer past the busy timeout (BUSY, LOCKED), a disk gone read-only, away
# or failing (READONLY, IOERR, CANTOPEN: an unplugged drive), a full disk
# (FULL).  Its other errors -- no such table, a syntax error -- pass with no
# waiting, and a damaged file is StoreDamaged (opening.damage_of).
_SQLITE_FOR_NOW = frozenset({5, 6, 8, 10, 13, 14})


# PostgreSQL's SQLSTATE of a statement the role in the URL may not run
_INSUFFICIENT_PRIVILEGE = "42501"


def driver_error(exc: BaseException) -> BaseException:
    """The driver's own exception: SQLAlchemy's wrapper of it looked through
    (SQLAlchemy looked up, not imported: it is loaded only if a store used it)."""
    wrapped = sys.modules.get("sqlalchemy.exc")
    orig = getattr(exc, "orig", None) if wrapped is not None and isinstance(exc, wrapped.DBAPIError) else None
    return orig if isinstance(orig, BaseException) else exc


# PostgreSQL's SQLSTATEs of a server that cannot be reached: class 08
# (connection exception: refused, lost) and 57P01-57P03 (shut down, crashed,
# starting up); a connection that was never made has none at all.
_UNREACHABLE = ("08", "57P01", "57P02", "57P03")


def is_unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` says the store's server cannot be reached -- stopped,
    restarting, the network between away -- rather than that it answers and
    refuses the work for now (its disk full): ``daemon status`` says so."""
    exc = driver_error(exc)
    psycopg = sys.modules.get("psycopg")
    if psycopg is None or not isinstance(exc, psycopg.OperationalError):
        return False
    state = getattr(exc, "sqlstate", None)
    return state is None or str(state).startswith(_UNREACHABLE)


def driver_said(exc: BaseException) -> str:
    """What the database said, in the driver's words (a message to show)."""
    return str(driver_error(exc)).strip()


def first_said(exc: BaseException) -> str:
    """The first line of :func:`driver_said` (libpq goes on with hints and
    the socket tried), or the error's type where the driver said nothing."""
    return driver_said(exc).partition("\n")[0] or type(exc).__name__


def is_denied(exc: BaseException) -> bool:
    """Whether the server refused ``exc``'s statement to the role in the store's URL (permission denied)."""
    return getattr(driver_error(exc), "sqlstate", None) == _INSUFFICIENT_PRIVILEGE


def is_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` says the store cannot be used just now -- SQLite locked
    past its busy timeout, its disk full or away, a PostgreSQL server down,
    restarting or gone from under a connection -- so that the same work may
    succeed later (the watcher tries it again rather than drop it).  The
    driver's own error counts as SQLAlchemy's wrapping of it: the write path
    runs on the driver's cursors, and a pool that cannot connect raises the
    driver's error as it is."""
    import sqlite3

    exc = driver_error(exc)
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        return isinstance(code, int) and code & 0xFF in _SQLITE_FOR_NOW
    psycopg = sys.modules.get("psycopg")
    # the server's connection, resource and shutdown errors (classes 08, 53, 57, 58)
    return psycopg is not None and isinstance(exc, psycopg.OperationalError)


# What a server says as it turns a connection away for now: starting up, shutting
# down or recovering ("the database system is ..."), its connections all taken
_NOT_YET = ("the database system is", "too many clients", "remaining connection slots")


def is_turned_away(exc: BaseException) -> bool:
    """Whether the server answered and turned the connection away for a
    reason waiting does not mend: no such database or role, a password
    refused, or none given.  libpq gives a connection refused at its start
    no SQLSTATE (``is_unreachable`` takes it for a server away): only the
    words tell the server's own FATAL from a socket no one listens on."""
    said = driver_said(exc)
    if "no password supplied" in said:  # (libpq's own: the server asked for one)
        return True
    return "FATAL:" in said and not any(words in said for words in _NOT_YET)


def refusal(exc: BaseException) -> str | None:
    """The server's own words as it turned the connection away
    (``is_turned_away``) -- 'role "nas" does not exist', 'password
    authentication failed for user "nas"' -- without libpq's socket or host
    before them (nor a password: neither says one); None if it did not."""
    if not is_unreachable(exc) or not is_turned_away(exc):
        return None
    lines = driver_said(exc).splitlines()
    said = next((line for line in lines if "FATAL:" in line or "no password supplied" in line), lines[0])
    return said.partition("FATAL:")[2].strip() or said.rpartition("failed: ")[2].strip()


def server_away(exc: BaseException) -> BaseException | None:
    """The driver's error in ``exc`` or in what caused it (opening a store
    wraps it twice: ``opening.cannot_use``, then a command's message) that
    says the store's server cannot be reached for now -- stopped, booting,
    the network between away: waiting may mend it -- else None (a server
    that answered and turned the connection away is not away)."""
    trouble = server_trouble(exc)
    return None if trouble is None or is_turned_away(trouble) else trouble


def server_trouble(exc: BaseException) -> BaseException | None:
    """The driver's error in ``exc`` or in what caused it that says the
    store's server cannot be reached, or answered and turned the connection
    away (``refusal`` tells which); else None."""
    seen: BaseException | None = exc
    while seen is not None:
        if is_unreachable(seen):
            return driver_error(seen)
        seen = seen.__cause__ or seen.__context__
    return None


def server_words(exc: BaseException) -> str | None:
    """What to say of a store's server that cannot be reached or refuses
    the connection, in the server's (or the driver's) words -- "refuses
    this connection: role "nas" does not exist", "cannot be reached
    (connection failed: ...)" -- else None."""
    trouble = server_trouble(exc)
    if trouble is None:
        return None
    refused = refusal(trouble)
    if refused is not None:
        return f"refuses this connection: {refused}"
    return f"cannot be reached ({first_said(trouble)})"
