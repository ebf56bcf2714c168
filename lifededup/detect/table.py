"""Detectors' signatures kept in SQLite, each detector in its own indexed
tables, so that several can be kept in one store and compared on it.

For a detector named ``n`` (``-`` becomes ``_``):

* ``detect_n``      -- ``item_id`` (primary key, an ``items`` row), ``sha1``,
  ``sketch`` (the detector's encoded sketch; NULL for a text too short for it);
* ``detect_n_keys`` -- ``(slot, value, item_id)``: the detector's index keys,
  primary key ``(slot, value, item_id)`` so that finding candidates is one
  index range per key, as :class:`~lifededup.detect.index.CandidateIndex`
  does in memory;
* ``detectors``     -- which spec (``simhash:3``...) each table was built with:
  keys made under another spec would not find the same pairs.

The tables are created by Alembic revision 0003 (``migrations/``); ``metadata``
here describes them (less the foreign keys to ``items``, ON DELETE CASCADE, that
the revision adds) and this module only reads and writes them, over a
connection the caller owns and commits.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Generic

from sqlalchemy import (
    Column,
    Connection,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    delete,
    func,
    insert,
    select,
    tuple_,
)

from lifededup.detect.base import Body, Detector, Signature
from lifededup.detect.spec import DETECTOR_NAMES

__all__ = ["TABLES", "SpecMismatch", "TableIndex", "metadata", "table_stem"]

metadata = MetaData()

detectors = Table(
    "detectors",
    metadata,
    Column("name", String, primary_key=True),
    Column("spec", Text, nullable=False),
)

# SQLite limits the host parameters of one statement (32766 since 3.32,
# 999 before); lookups go in chunks well below the old limit.
_CHUNK = 400


class SpecMismatch(ValueError):
    """A detector's table was built with another spec."""


def table_stem(name: str) -> str:
    return "detect_" + name.replace("-", "_")


def _tables(name: str) -> tuple[Table, Table]:
    stem = table_stem(name)
    sketches = Table(
        stem,
        metadata,
        Column("item_id", Integer, primary_key=True, autoincrement=False),
        Column("sha1", String(40), nullable=False),
        Column("sketch", LargeBinary, nullable=True),
    )
    keys = Table(
        stem + "_keys",
        metadata,
        Column("slot", Integer, primary_key=True, autoincrement=False),
        Column("value", Integer, primary_key=True, autoincrement=False),
        Column("item_id", Integer, primary_key=True, autoincrement=False),
        Index(f"ix_{stem}_keys_item_id", "item_id"),
        sqlite_with_rowid=False,
    )
    return sketches, keys


TABLES = {name: _tables(name) for name in DETECTOR_NAMES}


class TableIndex(Generic[Body]):
    """The candidate lookup of :class:`CandidateIndex`, backed by a store's
    tables; items are store item ids, and earlier means a smaller id."""

    def __init__(self, detector: Detector[Body], connection: Connection, *, rebuild: bool = False) -> None:
        self.detector = detector
        self.connection = connection
        self.sketches, self.keys = TABLES[detector.name]
        built = connection.execute(select(detectors.c.spec).where(detectors.c.name == detector.name)).scalar()
        if built is not None and built != detector.spec and not rebuild:
            raise SpecMismatch(
                f"the {detector.name} table was built with {built}, not {detector.spec}: "
                f"use {built}, or rebuild the table for {detector.spec}"
            )
        if built != detector.spec:
            self.clear()
            connection.execute(delete(detectors).where(detectors.c.name == detector.name))
            connection.execute(insert(detectors).values(name=detector.name, spec=detector.spec))

    def clear(self) -> None:
        self.connection.execute(delete(self.keys))
        self.connection.execute(delete(self.sketches))

    def __len__(self) -> int:
        return int(self.connection.execute(select(func.count()).select_from(self.sketches)).scalar_one())

    def add(self, item_id: int, signature: Signature[Body]) -> None:
        """File ``item_id`` under its keys, replacing what it had."""
        self.remove([item_id])
        body = None if signature.body is None else self.detector.encode(signature.body)
        self.connection.execute(insert(self.sketches).values(item_id=item_id, sha1=signature.sha1, sketch=body))
        keys = dict.fromkeys(self.detector.keys(signature))
        self.connection.execute(
            insert(self.keys), [{"slot": slot, "value": value, "item_id": item_id} for slot, value in keys]
        )

    def remove(self, item_ids: Sequence[int]) -> None:
        for start in range(0, len(item_ids), _CHUNK):
            chunk = list(item_ids[start : start + _CHUNK])
            self.connection.execute(delete(self.keys).where(self.keys.c.item_id.in_(chunk)))
            self.connection.execute(delete(self.sketches).where(self.sketches.c.item_id.in_(chunk)))

    def candidates(self, signature: Signature[Body]) -> list[int]:
        """Item ids sharing at least one key with ``signature``, smallest first."""
        keys = list(dict.fromkeys(self.detector.keys(signature)))
        found: set[int] = set()
        for start in range(0, len(keys), _CHUNK):
            wanted = tuple_(self.keys.c.slot, self.keys.c.value).in_(keys[start : start + _CHUNK])
            found.update(self.connection.execute(select(self.keys.c.item_id).where(wanted)).scalars())
        return sorted(found)

    def _loaded(self, sha1: str, sketch: bytes | None) -> Signature[Body]:
        return Signature(sha1=sha1, body=None if sketch is None else self.detector.decode(sketch))

    def signature(self, item_id: int) -> Signature[Body]:
        row = self.connection.execute(
            select(self.sketches.c.sha1, self.sketches.c.sketch).where(self.sketches.c.item_id == item_id)
        ).one()
        return self._loaded(row.sha1, row.sketch)

    def matches(self, signature: Signature[Body]) -> list[int]:
        """Candidates the detector accepts as near-duplicates, smallest id first."""
        found = self.candidates(signature)
        if not found:
            return []
        rows: list[tuple[int, str, bytes | None]] = []
        for start in range(0, len(found), _CHUNK):
            chunk = found[start : start + _CHUNK]
            rows += [
                (row.item_id, row.sha1, row.sketch)
                for row in self.connection.execute(
                    select(self.sketches.c.item_id, self.sketches.c.sha1, self.sketches.c.sketch).where(
                        self.sketches.c.item_id.in_(chunk)
                    )
                )
            ]
        accepted = [
            item_id for item_id, sha1, sketch in rows
            if self.detector.is_near_duplicate(signature, self._loaded(sha1, sketch))
        ]
        return sorted(accepted)
