"""Skip stage: compare what the scan found with what the store holds, and
decide per file -- unchanged, moved, removed, or to be read.

A file whose size and mtime are those stored is unchanged without being read
(a ``stat`` only).  Otherwise its raw SHA-1 decides: the same bytes as stored
(a ``touch``, a copy that kept its content) is unchanged too; the same bytes
as a file that vanished in this run is that file moved or renamed, and keeps
its item and cluster.  A file item stored with a NULL mtime was left half
written (a mailbox interrupted mid-way) and is read again.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from lifededup.index.scan import Seen, raw_sha1
from lifededup.store import Store

# Two seeks in the (path, part) index: the path itself, and the range of
# paths that start with "root/" ('0' is the character after '/').
_KNOWN_UNDER = (
    "SELECT path, size, mtime, raw_sha1 FROM items WHERE path = :root AND part = '' UNION ALL "
    "SELECT path, size, mtime, raw_sha1 FROM items WHERE path >= :low AND path < :high AND part = ''"
)


@dataclass(frozen=True)
class Known:
    """A file item as the store holds it."""

    path: str
    size: int | None
    mtime: float | None
    raw_sha1: str | None


@dataclass(frozen=True)
class ToRead:
    seen: Seen
    raw_sha1: str | None
    is_new: bool


@dataclass
class Plan:
    """What a run has to do, decided before anything is read."""

    unchanged: int = 0
    # the same bytes under a new size/mtime: only the stat is refreshed
    touched: list[tuple[Seen, str]] = field(default_factory=list)
    moves: list[tuple[str, str]] = field(default_factory=list)
    removals: list[str] = field(default_factory=list)
    to_read: list[ToRead] = field(default_factory=list)


def known_under(store: Store, roots: Iterable[str], reread_scans: bool = False) -> dict[str, Known]:
    """The file items stored at or under these paths.  ``reread_scans`` (OCR is on): the scans stored
    without text (``no-text-layer``) count as half written, so they are read again, with OCR."""
    found: dict[str, Known] = {}
    query = _KNOWN_UNDER.replace("raw_sha1 FROM", "raw_sha1, status FROM")
    for root in roots:
        stem = root.rstrip("/")
        _, rows = store.execute(query, {"root": root, "low": stem + "/", "high": stem + "0"})
        for path, size, mtime, sha1, status in rows:
            stale = reread_scans and status == "no-text-layer"
            found[str(path)] = Known(str(path), size, None if stale else mtime, sha1)  # type: ignore[arg-type]
    return found


def plan(seen: Iterable[Seen], known: dict[str, Known]) -> Plan:
    """Decide what to do with every file found and every file that vanished."""
    result = Plan()
    changed: list[Seen] = []
    present: set[str] = set()
    for file in seen:
        present.add(file.path)
        stored = known.get(file.path)
        if stored is not None and stored.mtime is not None and (stored.size, stored.mtime) == (file.size, file.mtime):
            result.unchanged += 1
        else:
            changed.append(file)
    vanished: dict[str, list[str]] = defaultdict(list)
    for path, stored in known.items():
        if path not in present:
            # a half-written item is not worth keeping as a move source
            complete = stored.mtime is not None and stored.raw_sha1 is not None
            vanished[stored.raw_sha1 or "" if complete else ""].append(path)
    for file in changed:
        _decide(file, known.get(file.path), vanished, result)
    result.removals = sorted(p for paths in vanished.values() for p in paths)
    return result


def _decide(file: Seen, stored: Known | None, vanished: dict[str, list[str]], result: Plan) -> None:
    sha1 = raw_sha1(file.path)
    if stored is not None:
        if sha1 is not None and stored.mtime is not None and sha1 == stored.raw_sha1:
            result.unchanged += 1
            result.touched.append((file, sha1))
        else:
            result.to_read.append(ToRead(file, sha1, is_new=False))
        return
    if sha1 and vanished.get(sha1):
        old = vanished[sha1].pop(0)
        result.moves.append((old, file.path))
        result.touched.append((file, sha1))  # its stat as found at its new place
        return
    result.to_read.append(ToRead(file, sha1, is_new=True))
