"""A path is indexed once it is stable: no events for ``delay`` seconds and
its size and mtime unchanged since the last event (paperless-ngx's consumer
does the same), measured on an injected monotonic clock.

Paths whose events came close together settle together: a file moved from
one watched folder to another arrives as a deletion in one and a creation in
the other (two watches, no move event), and the indexer must see both in one
run to keep the file's item.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

Stat = tuple[int, float] | None  # (size, mtime); None: the path is gone

# Events this close to a settled path's last event settle with it (the two
# halves of a move between watches arrive milliseconds apart).
TOGETHER_S = 0.5
# A path written to with no pause of ``delay`` for this long (a log appended
# every second) is indexed as it is, and again once it changes: its text in
# the store is at most this old, where it was missing for as long as the
# writing went on -- for good, for a log written all day.
MAX_WAIT_S = 60.0


def stat_of(path: str) -> Stat:
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return st.st_size, st.st_mtime


@dataclass
class _Pending:
    last_event: float
    stat: Stat
    partner: str | None = None
    # the first event since the path last settled (MAX_WAIT_S)
    first_event: float = 0.0
    # a folder (its event said so): scanned whole when it settles
    folder: bool = False


class Debouncer:
    """Paths with recent events, and which of them have settled.

    ``note(path, partner)`` records an event (``partner``: the other end of a
    move, settled together so the indexer sees both and keeps the item).
    ``settled()`` returns the paths that are ready and forgets them;
    ``overdue`` then holds those of them taken while still being written.
    ``waiting()``: how many files and folders wait.  Events may be noted
    from another thread than the one that settles them.
    """

    def __init__(self, delay: float, clock: Callable[[], float] = time.monotonic,
                 stat: Callable[[str], Stat] = stat_of, max_wait: float = MAX_WAIT_S) -> None:
        self.delay, self.clock, self.stat = delay, clock, stat
        self.max_wait = max(max_wait, delay)
        self._pending: dict[str, _Pending] = {}
        # the paths of the last settled() taken while still being written (max_wait)
        self.overdue: frozenset[str] = frozenset()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._pending)

    def note(self, path: str, partner: str | None = None, *, folder: bool = False) -> None:
        stat = self.stat(path)
        with self._lock:
            previous = self._pending.get(path)
            keep = partner or (previous.partner if previous else None)
            now = self.clock()
            self._pending[path] = _Pending(now, stat, keep, previous.first_event if previous else now, folder)

    def waiting(self) -> tuple[int, int]:
        """(files, folders) waiting to settle: what ``daemon status`` says waits."""
        with self._lock:
            folders = sum(p.folder for p in self._pending.values())
            return len(self._pending) - folders, folders

    def files(self) -> list[str]:
        """The files (not folders) waiting to settle."""
        with self._lock:
            return [path for path, pending in self._pending.items() if not pending.folder]

    def forget(self, paths: list[str]) -> None:
        """Forget these paths' events: they need nothing done (the watcher stops, and the store holds them as
        they are)."""
        with self._lock:
            for path in paths:
                self._pending.pop(path, None)

    def forget_read(self, path: str, read: Stat) -> None:
        """Forget a file's events if a run just read it as they left it: its
        (size, mtime) at its last event is what the run ``read`` (as its
        scan found it).  A later change is a later event, noted anew."""
        with self._lock:
            pending = self._pending.get(path)
            if pending is not None and not pending.folder and pending.partner is None and pending.stat == read:
                del self._pending[path]

    def next_due(self) -> float | None:
        """Seconds until the earliest pending path may settle (None: nothing pending)."""
        with self._lock:
            if not self._pending:
                return None
            earliest = min(min(p.last_event + self.delay, p.first_event + self.max_wait)
                           for p in self._pending.values())
        return max(0.0, earliest - self.clock())

    def settled(self) -> list[str]:
        with self._lock:
            return self._settled()

    def _settled(self) -> list[str]:
        now = self.clock()
        ready: set[str] = set()
        overdue_ones: set[str] = set()
        for path, pending in list(self._pending.items()):
            overdue = now - pending.first_event >= self.max_wait  # written to without a pause: taken as it is
            if now - pending.last_event < self.delay and not overdue:
                continue
            current = self.stat(path)
            if current != pending.stat and not overdue:
                # still being written though its events have stopped: wait again
                self._pending[path] = _Pending(now, current, pending.partner, pending.first_event, pending.folder)
                continue
            ready.add(path)
            if overdue and (now - pending.last_event < self.delay or current != pending.stat):
                overdue_ones.add(path)
            if pending.partner is not None:
                ready.add(pending.partner)
        latest = max((self._pending[p].last_event for p in ready if p in self._pending), default=None)
        if latest is not None:
            for path, pending in list(self._pending.items()):
                if path not in ready and pending.last_event <= latest + TOGETHER_S \
                        and self.stat(path) == pending.stat:
                    ready.add(path)
        for path in ready:
            self._pending.pop(path, None)
        self.overdue = frozenset(overdue_ones)
        return sorted(ready)
