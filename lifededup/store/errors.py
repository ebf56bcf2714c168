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
