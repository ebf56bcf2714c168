"""The items the store holds as failed, with their reasons."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from lifededup.store import Store

# Two range seeks on ix_items_status (failures are few); `!=` would scan every
# item, and `+path` keeps SQLite from walking the (path, part) index instead.
_FAILED = ("SELECT path, part, status, error, machine FROM items WHERE status < 'ok' OR status > 'ok' "
           "ORDER BY +path, part, machine LIMIT :limit")


@dataclass(frozen=True)
class FailedItem:
    path: str
    part: str
    status: str
    reason: str
    # the machine whose file it is (a shared store lists every machine's failures)
    machine: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The shape of ``lifededup failures --json`` and the web view's ``/failures.json``."""
        return asdict(self)


def failures(store: Store, limit: int | None = None) -> list[FailedItem]:
    _, rows = store.execute(_FAILED, {"limit": -1 if limit is None else limit})
    return [FailedItem(str(p), str(part), str(s), str(e or ""), str(m)) for p, part, s, e, m in rows]
