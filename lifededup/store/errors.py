"""What can go wrong with a store, as exceptions a command can show as they are."""

from __future__ import annotations


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


class MissingIndex(StoreError):
    """An index the schema declares is not in the store (dropped by hand):
    ``lifededup check`` names it and the statement that makes it again."""


def is_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` says the store cannot be used just now -- SQLite locked
    past its busy timeout or its disk full, a PostgreSQL server down,
    restarting or gone from under a connection -- so that the same work may
    succeed later (the watcher tries it again rather than drop it).  The
    driver's own error counts as SQLAlchemy's wrapping of it: the write path
    runs on the driver's cursors, and a pool that cannot connect raises the
    driver's error as it is."""
    import sqlite3
    import sys

    if isinstance(exc, sqlite3.OperationalError):
        return True
    # looked up, not imported: neither library is loaded unless a store used it
    for module, name in (("sqlalchemy.exc", "OperationalError"), ("psycopg", "OperationalError")):
        loaded = sys.modules.get(module)
        if loaded is not None and isinstance(exc, getattr(loaded, name)):
            return True
    return False
