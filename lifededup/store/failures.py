"""The items the store holds as failed, with their reasons (``lifededup
failures``, the web view's failures page; ``lifededup.index`` gives them too)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from lifededup.store.reader import Readable
from lifededup.store.records import stored_time

# Two range seeks on ix_items_status (failures are few); `!=` would scan every
# item, and `+path` keeps SQLite from walking the (path, part) index instead
# (PostgreSQL has no such prefix, and plans from its statistics).
# (not the files that vanished while read: gone, not failed; the next run forgets them)
_FAILED_ITEMS = "FROM items WHERE (status < 'ok' OR status > 'ok') AND status != 'vanished'"
_FAILED = ("SELECT path, part, status, error, machine, id " + _FAILED_ITEMS
           + "{only} ORDER BY {path}, part, machine LIMIT :limit")
# the store's failed items, and this machine's of them (a watcher's, for `daemon status`; an index run's summary)
_COUNTS = "SELECT count(*), count(CASE WHEN machine = :machine THEN 1 END) " + _FAILED_ITEMS
# one machine's (`failures --machine`; a watcher's run, its own)
_OF_MACHINE = " AND machine = :machine"
# recorded since a time (what a watcher's run just met)
_SINCE = " AND indexed_at >= :since"
# how many of each status, the most first (`failures`' last line, the web view's list of kinds)
_BY_STATUS = "SELECT status, count(*) " + _FAILED_ITEMS + "{only} GROUP BY status ORDER BY count(*) DESC, status"


@dataclass(frozen=True)
class FailedItem:
    path: str
    part: str
    status: str
    reason: str
    # the machine whose file it is (a shared store lists every machine's failures)
    machine: str = ""
    # its item, whose page the web view links (None: a record made by hand, not read from a store)
    id: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The shape of ``lifededup failures --json`` and the web view's ``/failures.json``."""
        return asdict(self)


def failures(store: Readable, limit: int | None = None, *, since: datetime | None = None,
             machine: str | None = None, statuses: Sequence[str] = ()) -> list[FailedItem]:
    """The failed items by path (through ``reading()``: on the driver alone
    where the store was opened so, as ``lifededup failures`` opens it);
    ``machine``: only that machine's (every machine's by default);
    ``since``: only this machine's, recorded at that time (UTC) or later;
    ``statuses``: only those of these statuses (``no-text-layer``: the scans
    ``index --ocr`` reads), every status where none is given."""
    sqlite = store.location.backend == "sqlite"
    # no limit: SQLite's LIMIT -1, PostgreSQL's LIMIT NULL
    everything = -1 if sqlite else None
    params: dict[str, object] = {"limit": everything if limit is None else limit}
    only = ""
    if since is not None:
        params.update(since=stored_time(since))
        only, machine = _SINCE, store.machine
    only += _only(params, machine, statuses)
    with store.reading() as db:
        rows = db.execute(_FAILED.format(path="+path" if sqlite else "path", only=only), params).fetchall()
    return [FailedItem(str(p), str(part), str(s), str(e or ""), str(m), int(i)) for p, part, s, e, m, i in rows]


def failed_by_status(store: Readable, *, machine: str | None = None) -> dict[str, int]:
    """How many failed items of each status the store holds, the most first
    (ties by status); ``machine``: that machine's alone.  What a long list
    of failures is made of, and which to look at: ``failures --status``."""
    params: dict[str, object] = {}
    with store.reading() as db:
        rows = db.execute(_BY_STATUS.format(only=_only(params, machine)), params).fetchall()
    return {str(status): int(count) for status, count in rows}


def _only(params: dict[str, object], machine: str | None, statuses: Sequence[str] = ()) -> str:
    """The conditions, after ``_FAILED_ITEMS``', of one machine's failures
    and of some statuses, their values put in ``params``."""
    only = ""
    if machine is not None:
        params.update(machine=machine)
        only += _OF_MACHINE
    if statuses:
        named = {f"status_{at}": status for at, status in enumerate(dict.fromkeys(statuses))}
        params.update(named)
        only += f" AND status IN ({', '.join(':' + name for name in named)})"
    return only


def failed_counts(store: Readable) -> tuple[int, int]:
    """How many items the store holds as failed, and how many of them are
    this machine's: on a shared store the daemon's own are the ones to fix
    on this computer (``daemon status`` says both)."""
    with store.reading() as db:
        row = db.execute(_COUNTS, {"machine": store.machine}).fetchone()
    return (int(row[0]), int(row[1])) if row is not None else (0, 0)
