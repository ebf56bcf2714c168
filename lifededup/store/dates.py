"""The date a person files a document under, as SQL on both backends: its
own (a mail's Date header, a PDF's creation date) when the extractor found
one, else the file's modification time -- what a search row, its copies and
an item's page show, and what ``--since``/``--until`` compare.

``OWN_DATE`` is the document's own date alone: NULL where it has none, or
one that does not read as a date (``sql --write`` can store anything), which
then falls back to the mtime.  Where it is NULL the date shown is the
file's (``file_date``): perhaps the day it was copied, not written.
Read from ``items i``; both give one comparable UTC text,
``2026-11-27 03:03:54``.
"""

from __future__ import annotations

# SQLite's datetime() turns an ISO date or time (offsets included) into that
# text, and gives NULL for one it cannot read.
OWN_DATE = "datetime(i.doc_date)"
ITEM_DATE = f"coalesce({OWN_DATE}, datetime(i.mtime, 'unixepoch'))"
# PostgreSQL has no lenient datetime(): a doc_date that reads as an ISO date
# or time (what the indexer writes: a datetime's or a date's isoformat()) is
# cast, anything else is NULL, as in SQLite; a time with an offset is turned
# to UTC, one without is UTC already (SQLite takes it so), whatever the
# session's time zone.  COLLATE "C": compared with an ISO day as text, byte
# by byte, as SQLite compares.
_DAY = r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])"
_TIME = r"[T ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?"
_OFFSET = r"(Z|[+-]\d\d(:?\d\d(:\d\d)?)?)"
_SHOWN = "'YYYY-MM-DD HH24:MI:SS'"
PG_OWN_DATE = (
    "CASE "
    f"WHEN i.doc_date ~ '^{_DAY}{_TIME}{_OFFSET}$' "
    f"THEN to_char(CAST(i.doc_date AS timestamptz) AT TIME ZONE 'UTC', {_SHOWN}) "
    f"WHEN i.doc_date ~ '^{_DAY}({_TIME})?$' THEN to_char(CAST(i.doc_date AS timestamp), {_SHOWN}) END"
)
PG_ITEM_DATE = f"(coalesce({PG_OWN_DATE}, to_char(to_timestamp(i.mtime) AT TIME ZONE 'UTC', {_SHOWN})) COLLATE \"C\")"


def item_date(postgres: bool) -> str:
    """``ITEM_DATE`` as the backend spells it."""
    return PG_ITEM_DATE if postgres else ITEM_DATE


def file_dated(postgres: bool) -> str:
    """Whether an item's date is its file's: it has no own date that reads."""
    return f"({PG_OWN_DATE if postgres else OWN_DATE}) IS NULL"
