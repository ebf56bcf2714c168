"""An item in full: its metadata, its text and the parts inside it -- what a
page about one document shows, beside ``explain``'s cluster."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import text

from lifededup.store.clustering import id_lists
from lifededup.store.dates import file_dated, item_date
from lifededup.store.dialect import is_postgres
from lifededup.store.records import stored_time
from lifededup.store.store import Store

_COLUMNS = ("i.id, i.path, i.part, i.parent_id, i.kind, i.mime_type, i.size, i.mtime, i.doc_date, i.title, "
            "i.raw_sha1, i.status, i.error, i.indexed_at, c.cluster_id, i.machine, i.people")


def _details_sql(postgres: bool) -> str:
    return (f"SELECT {_COLUMNS}, {item_date(postgres)}, {file_dated(postgres)} "
            "FROM items i LEFT JOIN clusters c ON c.item_id = i.id")


@dataclass(frozen=True)
class ItemDetails:
    """What the store knows of an item besides its text.  ``date`` is the
    date a person files it under, as a search row dates it
    (``store.dates``): its own (``doc_date``), else its mtime --
    ``file_date``, as a search row's: perhaps the day it was copied, not
    written -- in UTC, ``2026-11-27 03:03:54`` (a day alone where the
    document gives no time)."""

    id: int
    path: str
    part: str
    parent_id: int | None
    kind: str
    mime_type: str | None
    size: int | None
    date: str | None
    title: str | None
    raw_sha1: str | None
    status: str
    error: str | None
    indexed_at: str
    cluster_id: int | None
    machine: str = ""  # the machine whose file it is (revision 0009)
    people: str | None = None  # a mail's sender and recipients (revision 0016)
    file_date: bool = False  # the date is the file's mtime: its format records none

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _date(dated: object, file_date: object, doc_date: object) -> tuple[str | None, bool]:
    """The date shown and whether it is the file's (``store.dates``); a
    document that gives a day alone (``2024-03-01``) is not given the
    midnight it does not say."""
    if dated is None:
        return None, False
    own_day = not file_date and isinstance(doc_date, str) and len(doc_date) == 10
    return (str(dated)[:10] if own_day else str(dated)), bool(file_date)


def _stored_time(value: object) -> str:
    """A DateTime column as SQLite keeps it (SQLAlchemy's text form); on
    PostgreSQL it comes back a ``datetime``, and is written the same way."""
    return stored_time(value) if isinstance(value, datetime) else str(value)


def _details(row: Any) -> ItemDetails:
    date, file_date = _date(row[17], row[18], row[8])
    return ItemDetails(
        id=int(row[0]), path=str(row[1]), part=str(row[2]), parent_id=None if row[3] is None else int(row[3]),
        kind=str(row[4]), mime_type=row[5], size=None if row[6] is None else int(row[6]), date=date,
        title=row[9], raw_sha1=row[10], status=str(row[11]), error=row[12], indexed_at=_stored_time(row[13]),
        cluster_id=None if row[14] is None else int(row[14]), machine=str(row[15]), people=row[16],
        file_date=file_date,
    )


def item_details(store: Store, item_ids: Iterable[int]) -> dict[int, ItemDetails]:
    """The details of these items, by id (ids the store lacks are left out)."""
    found: dict[int, ItemDetails] = {}
    with store.transaction() as conn:
        details = _details_sql(is_postgres(conn))
        for marks in id_lists(sorted({int(i) for i in item_ids})):
            found.update((d.id, d) for d in map(_details, conn.exec_driver_sql(f"{details} WHERE i.id IN ({marks})")))
    return found


def item_text(store: Store, item_id: int) -> str | None:
    """The item's extracted text (None without text, or without the item)."""
    with store.transaction() as conn:
        value = conn.execute(text("SELECT text FROM items WHERE id = :i"), {"i": item_id}).scalar()
    return None if value is None else str(value)


def item_parts(store: Store, item_id: int, *, limit: int = 200) -> tuple[list[ItemDetails], int]:
    """The items inside this one (a mailbox's messages, a mail's
    attachments), first ``limit`` by id, and how many there are."""
    with store.transaction() as conn:
        # the driver's own SQL, as the ids above: PostgreSQL's date is spelled with colons (HH24:MI)
        rows = conn.exec_driver_sql(f"{_details_sql(is_postgres(conn))} WHERE i.parent_id = {int(item_id)} "
                                    f"ORDER BY i.id LIMIT {int(limit)}").all()
        total = conn.execute(text("SELECT count(*) FROM items WHERE parent_id = :p"), {"p": item_id}).scalar()
    return [_details(r) for r in rows], int(total or 0)
