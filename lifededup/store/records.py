"""What the indexer hands the store for one item."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from datetime import date, datetime, timezone
from typing import Any

from lifededup.store.searchable import apart

# Names the machine whose files a store's items are (README, "Machines").
MACHINE_ENV = "LIFEDEDUP_MACHINE"


@dataclass(frozen=True)
class ItemRecord:
    """One item as extracted.  ``(path, part)`` names it among its machine's
    items (the store's ``machine`` is written with it): ``part`` is ``''`` for
    a whole file, or the piece's path of containers inside it, levels joined
    by ``" / "`` (``"message 12"``, ``"message 12 / attachment 1: a.zip /
    report.pdf"``).  ``parent_id`` is
    the id :meth:`Store.upsert_item` returned for the containing item.

    ``text`` is the extracted text, or ``None`` for an item with none (an image,
    a scanned PDF): such an item is stored and searchable by its metadata, but
    has no fingerprint and no cluster.
    """

    path: str
    part: str = ""
    parent_id: int | None = None
    kind: str = "document"
    mime_type: str | None = None
    size: int | None = None
    mtime: float | None = None
    doc_date: datetime | date | str | None = None
    title: str | None = None
    raw_sha1: str | None = None
    text: str | None = None
    # the text's full length when it was cut at the indexer's limit (None: whole)
    text_cut: int | None = None
    # a mail's sender and recipients: "from NAME <ADDRESS>; to ...; cc ..." (None: not a mail)
    people: str | None = None

    def row(self, *, status: str, error: str | None, indexed_at: datetime) -> dict[str, Any]:
        doc_date = self.doc_date.isoformat() if isinstance(self.doc_date, (date, datetime)) else self.doc_date
        text = self.text if status == "ok" else None
        return {
            "path": self.path,
            "part": self.part,
            "parent_id": self.parent_id,
            "kind": self.kind,
            "mime_type": self.mime_type,
            "size": self.size,
            "mtime": self.mtime,
            "doc_date": doc_date,
            "title": self.title,
            "raw_sha1": self.raw_sha1,
            "status": status,
            "error": error,
            "indexed_at": stored_time(indexed_at),
            "text": text,
            "text_cut": self.text_cut if status == "ok" else None,
            "people": self.people,
            # what the search index reads (revision 0022): NULL unless they hold CJK characters
            "title_apart": apart(self.title),
            "text_apart": apart(text),
            "people_apart": apart(self.people),
        }


# the text form SQLAlchemy's DateTime uses on SQLite
_TIME = "%Y-%m-%d %H:%M:%S.%f"


def utc_now() -> datetime:
    """Stored naive, in UTC, as SQLAlchemy's DateTime does on SQLite."""
    return datetime.now(timezone.utc).replace(tzinfo=None)


def stored_time(when: datetime) -> str:
    """A time as the store keeps it, on either backend (PostgreSQL casts the text)."""
    return when.strftime(_TIME)


def read_time(value: object) -> datetime | None:
    """A stored time back: SQLite's text (with or without its fraction), or
    the ``datetime`` PostgreSQL gives."""
    if value is None or isinstance(value, datetime):
        return value
    text = str(value)
    return datetime.strptime(text if "." in text else text + ".0", _TIME)


def machine_name() -> str:
    """The name this machine's items and watched folders are kept under:
    ``$LIFEDEDUP_MACHINE`` when set, else the host name.  Paths are unique
    per machine, so a machine renamed keeps its items only under the same
    name: set ``LIFEDEDUP_MACHINE`` to pin it."""
    return os.environ.get(MACHINE_ENV, "").strip() or socket.gethostname() or "localhost"


def printed_back(name: str) -> bool:
    """Whether a machine name can be read back from ``MACHINE:PATH``, the way
    another machine's file is printed (and ``show`` takes it): it holds
    neither ':' nor '/', as no host name does."""
    return ":" not in name and "/" not in name
