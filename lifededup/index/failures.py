"""The items the store holds as failed, with their reasons."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from lifededup.store import Store

# Two range seeks on ix_items_status (failures are few); `!=` would scan every
# item, and `+path` keeps SQLite from walking the (path, part) index instead.
_FAILED = ("SELECT path, part, status, error FROM items WHERE status < 'ok' OR status > 'ok' "
           "ORDER BY +path, part LIMIT :limit")


@dataclass(frozen=True)
class FailedItem:
    path: str
    part: str
    status: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """The shape of ``lifededup failures --json`` and the web view's ``/failures.json``."""
        return asdict(self)


def failures(store: Store, limit: int | None = None) -> list[FailedItem]:
    sql = _FAILED if store.location.url is None else _FAILED.replace("+path", "path")  # SQLite's hint only
    if limit is None:  # LIMIT -1, SQLite's "no limit", is an error on PostgreSQL
        sql = sql.replace(" LIMIT :limit", "")
    _, rows = store.execute(sql, {} if limit is None else {"limit": limit})
    return [FailedItem(str(p), str(part), str(s), str(e or "")) for p, part, s, e in rows]
