"""The watcher: watchdog events -> debouncer -> indexer batches, with a
catch-up scan first and a periodic rescan for events the system dropped.

It runs in the calling thread until ``stop`` is set; the CLI sets it from
SIGINT/SIGTERM (signal handling lives there, not here).  The store is used
from this thread only; watchdog's thread only fills a queue.
"""

from __future__ import annotations

import logging
import math
import os
import queue
import threading
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver, ObservedWatch

# watchdog's inotify observer warns when a folder it already watches (a new
# subfolder, seen twice as a tree is copied in) is added again: it reuses the
# watch, so nothing is lost -- but the warning spells out every path under
# the watch, one line of kilobytes in the daemon's log for each.
warnings.filterwarnings("ignore", message=r"Callback with id .* already exists for watch", category=RuntimeWarning)

from lifededup.extract import PATH_STATUSES
from lifededup.index import IndexConfig, Quiet, Seen, page_parts_of, run_in_folders
from lifededup.model import fs_path, shown, stored_path
from lifededup.store import (
    MachineTaken,
    Store,
    StoreDamaged,
    StoreError,
    StoreTooNew,
    WatchedFolder,
    damage_of,
    driver_said,
    is_unavailable,
    is_unreachable,
    items_under,
    mark_scanned,
)
from lifededup.store.errors import first_said, refusal
from lifededup.store.failures import FailedItem, failed_counts, failures
from lifededup.store.folders import files_as_stored
from lifededup.store.machines import still_named
from lifededup.store.records import utc_now
from lifededup.watch.debounce import MAX_WAIT_S, Debouncer, Stat, stat_of
from lifededup.watch.events import WANTED, Change, Changes
from lifededup.watch.status import DEFAULT_DELAY_S, DEFAULT_RESCAN_S, FOLLOW_S, RETRY_S, AbsentFolder, WatchStatus

log = logging.getLogger("lifededup.watch")

# The items a folder not there keeps are counted again this often (and at
# the next look after a run of this watcher's moved or removed items): a
# count of a disk's 100,000 items took 0.13 s on SQLite and 0.03 s on
# PostgreSQL (items_under, 2 cores, load 0.4) -- 2.6% of a core if done at
# every look, 5 s apart, for the weeks a backup disk stays unplugged.
RECOUNT_S = 60.0
# How often the loop wakes with nothing to do, to notice ``stop``.
_TICK_S = 0.2
# After the system dropped events, every folder is scanned once the burst
# that overflowed its queue has had this long to pass (a scan during it
# would miss what comes after, and be followed by another).
_AFTER_OVERFLOW_S = 5.0


class _Overflows(logging.Handler):
    """The system's queue of events overflowed: the events in it are lost,
    and watchdog says so only in its log (``Inotify queue overflowed``),
    which this handler watches for.  Nothing else tells a file written then
    from one never written: until the next rescan, an hour away, it was not
    indexed."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen = threading.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if "overflow" in record.getMessage().lower():
            self.seen.set()


_WATCHDOG_LOG = logging.getLogger("watchdog.observers")


@dataclass
class Watcher:
    """Keeps ``store`` true to ``folders`` until ``stop`` is set."""

    store: Store
    folders: Sequence[WatchedFolder]
    config: IndexConfig
    stop: threading.Event
    delay: float = DEFAULT_DELAY_S
    # a file written to without a pause of ``delay`` is read as it is after this long (Debouncer)
    max_wait: float = MAX_WAIT_S
    rescan_every: float = DEFAULT_RESCAN_S
    # work the store refused is tried again after this many seconds
    retry_after: float = RETRY_S
    clock: Callable[[], float] = time.monotonic
    # paths never to react to (the store's own files)
    ignore: tuple[str, ...] = ()
    on_status: Callable[[WatchStatus], None] | None = None
    # the store's folders as they are now (``list_folders``): read every
    # ``follow_every`` seconds, so that folders added or removed, or their
    # patterns changed, are followed without a restart (``watch`` without PATHS)
    follow: Callable[[], Sequence[WatchedFolder]] | None = None
    follow_every: float = FOLLOW_S
    _changes: queue.Queue[Change] = field(default_factory=queue.Queue)
    _status: WatchStatus = field(init=False)
    _observer: BaseObserver = field(init=False)
    # each watched root's (device, inode) when its watch was made
    _roots: dict[str, tuple[int, int] | None] = field(init=False, default_factory=dict)
    _watches: dict[str, ObservedWatch] = field(init=False)
    # no changed path is indexed before this time (clock()): the store refused the last ones
    _paused_until: float = field(init=False, default=0.0)
    # a run stopped because a folder it read was removed meanwhile: take the
    # change up at once, then scan what is left
    _changed: bool = field(init=False, default=False)
    # the folders the last scan found not there (a disk not plugged in), or empty while the store holds items
    # under them (its bare mount point), and why: looked for every follow_every seconds, said in the status
    _missing: dict[str, AbsentFolder] = field(init=False, default_factory=dict)
    # files that could not be read while still being written, and their (size, mtime) then: said once,
    # at INFO, and read again once they are still (_name_failures)
    _unsettled: dict[str, Stat] = field(init=False, default_factory=dict)
    # files warned of as not readable, their status and (size, mtime) then: one that grew since and fails
    # alike is not warned of again (_warn) -- a download that stalled longer than ``delay`` was, at each stall
    _warned: dict[str, tuple[str, Stat]] = field(init=False, default_factory=dict)
    # files of the run in flight not read yet, on disk, and their (size, mtime) as its scan found them
    # (_Counting): they wait as much as those with events
    _unread: dict[str, Stat] = field(init=False, default_factory=dict)
    # (taken by the run's writer thread as each file is done, and by a status asked meanwhile)
    _unread_lock: threading.Lock = field(init=False, default_factory=threading.Lock)
    # when (clock()) the items of each folder in _missing were last counted (_kept_under)
    _counted: dict[str, float] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.debouncer = Debouncer(self.delay, self.clock, max_wait=self.max_wait)
        self._status = WatchStatus(watching=[f.path for f in self.folders], retry_after=self.retry_after)
        # the folders on disk (a stored path escapes a name that is not UTF-8):
        # the walls nothing outside of is read (the link rule, README "Links")
        self._disk = {f.path: fs_path(f.path) for f in self.folders}

    def run(self) -> None:
        self._status.watching_since = time.time()
        overflows = _Overflows()
        _WATCHDOG_LOG.addHandler(overflows)
        observer = Observer()
        observer.start()
        self._observer, self._watches = observer, {}
        try:
            # the store's failures from the start, not 0 until the first scan's first batch is written
            self._count_failures()
            self._same_schema()
            next_rescan = self._next_rescan(self.rescan())
            next_follow = next_look = self.clock() + self.follow_every
            if self.follow is None:
                # nothing to follow (`watch PATHS`): never due. Left at its first value, it was in the past
                # from the fifth second on, and the loop waited no time for events: a core at full use,
                # for as long as the watcher ran
                next_follow = math.inf
            while not self.stop.is_set():
                self._wait_for_changes(min(next_rescan, next_follow, next_look))
                if overflows.seen.is_set():
                    overflows.seen.clear()
                    soon = self.clock() + _AFTER_OVERFLOW_S
                    if next_rescan > soon:  # said once for a burst of overflows
                        log.warning("the system dropped file events (its queue overflowed: a burst of changes); "
                                    "every folder is scanned in %g s", _AFTER_OVERFLOW_S)
                        next_rescan = soon
                if self.clock() >= next_look and not self.stop.is_set():
                    self._same_schema()
                    # a folder that was not there (a disk plugged in, a folder made): scanned and followed now,
                    # not at the next hourly rescan -- and so is one that went away since, or was replaced
                    self._look_at_roots()
                    back = [f for f in self.folders if f.path in self._missing and self._back(f)]
                    if back:
                        log.info("%s: there now, scanned", ", ".join(f.path for f in back))
                        if not self.rescan(back):
                            next_rescan = min(next_rescan, self._next_rescan(False))
                    next_look = self.clock() + self.follow_every
                ready = self.debouncer.settled() if self.clock() >= self._paused_until else []
                if ready:
                    self._index(ready)
                if self.follow is not None and (self.clock() >= next_follow or self._changed) \
                        and not self.stop.is_set():
                    taken_up = self._take_up(self.follow)
                    if self._changed:  # a run cut short: what it left unread is scanned again now
                        self._changed, next_rescan = False, self.clock()
                    elif taken_up and not self.rescan(taken_up):
                        next_rescan = min(next_rescan, self._next_rescan(False))
                    next_follow = self.clock() + self.follow_every
                if self.clock() >= next_rescan and not self.stop.is_set():
                    next_rescan = self._next_rescan(self.rescan())
                self._report("watching")
        finally:
            _WATCHDOG_LOG.removeHandler(overflows)
            observer.stop()
            observer.join()
            self._forget_read()
            self._report("stopped")

    def _forget_read(self) -> None:
        """As it stops: of the files whose changes wait, those the store holds
        as they are now -- read by a run that listed them before their events
        were taken up (a `tar x` into a folder being scanned) -- are not left
        unread.  A watcher stopped mid-`tar x` said "left unread: 963 files",
        every one of them read."""
        try:
            self._take_events()
            waiting = {stored_path(path): path for path in self.debouncer.files()}
            stored = files_as_stored(self.store, list(waiting))
            self.debouncer.forget([waiting[str(path)] for path, size, mtime, _ in stored
                                   if mtime is not None and stat_of(waiting[str(path)]) == (size, mtime)])
        except Exception as exc:  # noqa: BLE001 -- a store that fails as the watcher stops: what waits is said whole
            log.debug("could not tell which waiting files were read: %s", exc)

    def _next_rescan(self, done: bool) -> float:
        return self.clock() + (self.rescan_every if done else min(self.rescan_every, self.retry_after))

    def status(self) -> WatchStatus:
        """What waits is counted in files and folders, not in events (a file
        written makes three or four): the events queued are taken into the
        debouncer first -- also while a run reads, from its writer's thread
        (``_Counting``) -- and the files a run has still to read count too.
        During a `tar x` of 2,000 files `daemon status` said "waiting: 5
        path(s)": the folders it made, the files in them being read."""
        self._take_events()
        _, folders = self.debouncer.waiting()
        with self._unread_lock:
            # each file once: one its run listed whose events came after (`tar x` sets a file's mode and
            # times once written) was counted by both -- "waiting: 600 files" of a folder of 300
            also = sum(path not in self._unread for path in self.debouncer.files())
            self._status.waiting_files, self._status.waiting_folders = len(self._unread) + also, folders
        self._status.pending = self._status.waiting_files + folders
        self._status.absent = list(self._missing.values())
        return self._status

    def _count_failures(self) -> None:
        """The store's failed items and this machine's of them, for the status."""
        try:
            self._status.failed, self._status.failed_here = failed_counts(self.store)
        except Exception as exc:
            # the store away (a server restarting): counted after the next batch
            if not self._refused(exc):
                raise
            return
        self._answered()

    def _same_schema(self) -> None:
        """Stop (:class:`StoreTooNew`) once a newer lifededup has upgraded the
        store, looked at every ``follow_every`` seconds and not only as a batch
        is written (``Store.claim_machine``): an idle watcher went on
        "watching" for up to an hour (its next rescan) after a `pip install -U`
        and a search upgraded the store, and the files the upgrade marked to
        be read again waited all that time, for the restart that reads them."""
        try:
            self.store.same_schema()
        except StoreTooNew:
            raise
        except Exception as exc:
            if self._refused(exc):
                return  # the store away: looked at again next time
            raise

    def _refused(self, exc: Exception) -> bool:
        """Whether ``exc`` is the store refusing work for now (tried again
        later, not a failure); one whose server cannot be reached is put in
        the status, with the driver's words and since when: `daemon status`
        said nothing of a server down, only files waiting."""
        if isinstance(exc, StoreError):
            return True
        if not is_unavailable(exc):
            return False
        if is_unreachable(exc):
            self._away(exc)
        return True

    def _away(self, exc: Exception) -> None:
        """The server cannot be reached, or it answers and turns this watcher
        away (``refusal``: its role or database renamed or dropped, the
        password changed), which was said as a server away -- the user looked
        for a network problem.  Both are tried again every retry_after: an
        admin may put the server right, and the watcher goes on, unrestarted."""
        refused = refusal(exc)
        if refused is None:
            if self._status.unreachable is None:
                self._status.unreachable_since = time.time()
            self._status.unreachable = first_said(exc)
            self._status.refused = self._status.refused_since = None
            return
        if self._status.refused != refused:  # said once, not at every try
            log.warning("the store's server refuses this watcher: %s; it tries again every %g s (once the "
                        "server's admin puts it right, the changes waiting are indexed, with no restart)",
                        refused, self.retry_after)
        if self._status.refused is None:
            self._status.refused_since = time.time()
        self._status.refused = refused
        self._status.unreachable = self._status.unreachable_since = None

    def _answered(self) -> None:
        """The store answered: its server is reached again, and the changes
        that wait for it are read now, not up to retry_after later."""
        if self._status.unreachable is not None or self._status.refused is not None:
            self._paused_until = 0.0
        if self._status.refused is not None:
            log.info("the store's server lets this watcher in again")
        self._status.unreachable = self._status.unreachable_since = None
        self._status.refused = self._status.refused_since = None

    def _report(self, state: str) -> None:
        if state != self._status.state:
            self._status.state_since = time.time()
        self._status.state = state
        if self.on_status is not None:
            self.on_status(self.status())

    def _wait_for_changes(self, next_rescan: float) -> None:
        due = self.debouncer.next_due()
        if due is not None:
            # the store refused the last batch: nothing is taken before it is asked again, so paths due are no
            # reason to wake -- the loop woke every 0.01 s for retry_after, its status counting every waiting
            # path each time (a server down during a `tar x` of 20,000 files)
            due = max(due, self._paused_until - self.clock())
        timeout = min(_TICK_S, max(0.0, next_rescan - self.clock()), _TICK_S if due is None else max(due, 0.01))
        try:
            path, partner, folder = self._changes.get(timeout=timeout)
        except queue.Empty:
            return
        self.debouncer.note(path, partner, folder=folder)
        self._take_events()  # a burst: take everything queued at once

    def _take_events(self) -> None:
        while True:
            try:
                path, partner, folder = self._changes.get_nowait()
            except queue.Empty:
                return
            self.debouncer.note(path, partner, folder=folder)

    def rescan(self, folders: Sequence[WatchedFolder] | None = None) -> bool:
        """Index every watched folder (or ``folders`` of them) in full (the
        catch-up, the periodic rescan, a folder just added); False if the
        store refused a write (tried again soon)."""
        self._report("scanning")
        # observe first, then catch up: a change made during the scan is
        # seen by one or the other, never by neither
        self._observe()
        present = []
        for folder in self.folders if folders is None else folders:
            absent = self._absence(folder)
            if absent is None:
                present.append(folder)
                self._missing.pop(folder.path, None)
            else:
                self._missing[folder.path] = absent
                # unmounted or gone: keep its items rather than forget a whole archive
                log.warning("%s is not there (or empty, as a disk's mount point is once it is unmounted); "
                            "its items are kept until it returns", folder.path)
        # one run over every folder: a file moved between two of them keeps its item
        done = self._run(present, [self._disk[f.path] for f in present], scanned=True) if present else True
        self._status.last_rescan_at = time.time()
        return done

    def _take_up(self, follow: Callable[[], Sequence[WatchedFolder]]) -> list[WatchedFolder]:
        """Follow the store's folders as ``folders add`` and ``remove`` left
        them: a folder removed is no longer watched (its items are the
        command's to keep or forget), and the folders added, or whose
        patterns changed, are returned, to be scanned now.  Folders gone
        with this machine's name (renamed or forgotten) raise
        :class:`~lifededup.store.machines.MachineGone`."""
        try:
            now = list(follow())
            if {f.path for f in self.folders} - {f.path for f in now}:
                # `machines rename` or `forget` from another computer takes this machine's folders with its
                # name: it stops (MachineGone), rather than watch nothing on under a name that is gone
                still_named(self.store)
        except MachineTaken:
            raise
        except Exception as exc:
            if self._refused(exc):
                return []  # the store is away: the folders stay as they were, read again next time
            raise
        self._answered()
        before = {f.path: (f.include, f.exclude) for f in self.folders}
        after = {f.path: (f.include, f.exclude) for f in now}
        if after == before:
            return []
        for path in before.keys() - after.keys():
            watch = self._watches.get(path)
            if watch is not None:
                self._unschedule(path, watch)
            self._missing.pop(path, None)
            log.info("%s: no longer watched (lifededup folders remove)", path)
        taken_up = [f for f in now if before.get(f.path) != after[f.path]]
        for folder in taken_up:
            log.info("%s: %s", folder.path, "now watched" if folder.path not in before else "its patterns changed")
        # a folder removed from inside another: its files are the outer one's now, under the outer
        # one's patterns (files the inner one's excluded were left unindexed until the hourly rescan)
        removed = before.keys() - after.keys()
        around = [f for f in now if f not in taken_up and any(_within(path, f.path) for path in removed)]
        for folder in around:
            log.info("%s: scanned again, a folder inside it no longer watched on its own", folder.path)
        taken_up += around
        self.folders = now
        self._disk = {f.path: fs_path(f.path) for f in now}
        self._status.watching = [f.path for f in now]
        return taken_up

    def _observe(self) -> None:
        """Watch for events in every folder that is there; a folder that is
        not (an unplugged disk) is watched again once a rescan finds it back."""
        handler = Changes(self._changes, self.ignore)
        for folder in self.folders:
            watch = self._watches.get(folder.path)
            there = os.path.isdir(self._disk[folder.path])
            identity = _identity(self._disk[folder.path]) if there else None
            if there and watch is not None and self._roots.get(folder.path) != identity:
                # the folder was replaced (a disk unplugged and plugged in again
                # between two rescans, a folder restored): the old watch follows
                # a directory that is gone, so it is made again
                self._unschedule(folder.path, watch)
                watch = None
            if there and watch is None:
                try:
                    # links are not followed by the system's events either (follow_symlink=False)
                    self._watches[folder.path] = self._observer.schedule(
                        handler, self._disk[folder.path], recursive=True, follow_symlink=False, event_filter=WANTED)
                    self._roots[folder.path] = identity
                except OSError as exc:
                    log.error("cannot follow events in %s (%s); only rescans every %g s keep it indexed. "
                              "If the system's limit of watches is reached, raise it: "
                              "sudo sysctl fs.inotify.max_user_watches=524288",
                              folder.path, exc, self.rescan_every)
                except RecursionError:  # watchdog lists the tree with os.walk, which recurses (Python < 3.12)
                    log.error("cannot follow events in %s: its folders nest too deep to watch; only rescans "
                              "every %g s keep it indexed", folder.path, self.rescan_every)
            elif not there and watch is not None:
                self._unschedule(folder.path, watch)

    def _unschedule(self, path: str, watch: ObservedWatch) -> None:
        del self._watches[path]
        self._roots.pop(path, None)
        try:
            self._observer.unschedule(watch)
        except (KeyError, OSError):
            pass  # its emitter already stopped when the folder went

    def _look_at_roots(self) -> None:
        """Each watched folder as it is now: one gone since the last look (a
        disk unplugged, a folder renamed away) is missing, its items kept and
        its watch dropped, so that its return is scanned and followed; one
        replaced at its path (removed and made again, a folder restored) is
        missing too, scanned at once. Only a rescan found these before: a
        folder moved away and made again between two rescans kept a watch on
        the folder that was gone, and nothing in the new one was indexed for
        up to an hour."""
        for folder in self.folders:
            if folder.path in self._missing or folder.path not in self._watches:
                continue
            identity = _identity(self._disk[folder.path]) if os.path.isdir(self._disk[folder.path]) else None
            if identity == self._roots.get(folder.path):
                continue
            self._unschedule(folder.path, self._watches[folder.path])
            # (scanned at once if it holds files, or the store none of its items: _back)
            self._missing[folder.path] = self._absence(folder) or AbsentFolder(folder.path, "replaced", 0)
            if identity is None:
                log.warning("%s is not there any more; its items are kept until it returns", folder.path)
            else:  # said too: an unmounted disk's mount point was silent until the disk came back
                log.warning("%s is no longer the folder that was watched (a disk unmounted from it, or the folder "
                            "made again); its items are kept until it is scanned as it is now", folder.path)

    def _absence(self, folder: WatchedFolder) -> AbsentFolder | None:
        """None if the folder is there to scan; else why not, and how many
        items the store keeps for it (`daemon status` says so).  Not there
        is: not a folder, one that cannot be listed, or an empty one under
        which the store holds items -- the bare mount point an unmounted disk
        leaves (fstab), or a folder deleted and made again, which a scan
        would take for every file deleted, forgetting the disk's whole
        archive.  (Files deleted one by one come as events, which are
        followed: only a scan asks this.)"""
        disk = self._disk[folder.path]
        if not os.path.isdir(disk):  # not Path.is_dir: behind a shut folder it raises (Python 3.11)
            now = "unlistable" if _shut(disk) else "missing"
        else:
            try:
                with os.scandir(disk) as entries:
                    if next(entries, None) is not None:
                        return None
                now = "empty"
            except OSError:
                now = "unlistable"
        known = self._missing.get(folder.path)
        if known is not None and known.now == now != "empty" \
                and self.clock() < self._counted.get(folder.path, -RECOUNT_S) + RECOUNT_S:
            return known  # (an empty one is counted at every look: with no items left it is scanned)
        items = self._kept_under(folder)
        return None if now == "empty" and items == 0 else AbsentFolder(folder.path, now, items)

    def _kept_under(self, folder: WatchedFolder) -> int:
        """How many items the store keeps under a folder not there.  They go
        meanwhile -- `mv Mail Mail2; folders add Mail2` moves them, an
        `index` run elsewhere too -- and a count kept from the first look had
        `daemon status` name Mail, with its 3 items, for as long as it stayed
        away: counted again every RECOUNT_S, and at the next look after a
        run of this watcher's moved or removed items.  In SQL, from a
        snapshot: no writer's turn waited for.  The store away (a server
        restarting), the last count stands."""
        try:
            with self.store.snapshot():
                items = items_under(self.store, folder.path)
            self._counted[folder.path] = self.clock()
            return items
        except Exception as exc:
            known = self._missing.get(folder.path)
            if known is None or not self._refused(exc):
                raise
            return known.items

    def _back(self, folder: WatchedFolder) -> bool:
        """Whether a folder not there is back; if not, what status says of it is brought up to date."""
        absent = self._absence(folder)
        if absent is not None:
            self._missing[folder.path] = absent
        return absent is None

    def _index(self, paths: list[str]) -> None:
        present = [f for f in self.folders if os.path.isdir(self._disk[f.path])]
        disks = [self._disk[f.path].rstrip("/") + "/" for f in present]
        mine = [p for p in paths if any(p.startswith(disk) for disk in disks)]
        # a page saved whole: what was read of its folder of parts before the page was written goes now
        mine += [parts for p in mine for parts in page_parts_of(p) if parts not in mine]
        overdue = self.debouncer.overdue
        # a file that could not be read while being written is not read again, and again, every max_wait
        # seconds while it grows (a PDF downloading for an hour): only once it is still
        for path in [p for p in mine if p in overdue and p in self._unsettled]:
            mine.remove(path)
            self.debouncer.note(path)
        if mine and not self._run(present, mine, overdue=overdue):
            # try them again once the store lets us, not before retry_after:
            # a server down for an hour is not asked every second
            self._paused_until = self.clock() + self.retry_after
            for path in mine:
                self.debouncer.note(path, folder=os.path.isdir(path))

    def _run(self, folders: list[WatchedFolder], paths: list[str], *, scanned: bool = False,
             overdue: frozenset[str] = frozenset()) -> bool:
        """Index ``paths`` of ``folders`` in one run (a move from one folder to
        another is followed); False if the store could not be
        written (locked past its busy timeout by a long ``sql --write``, a
        full disk): the daemon logs it and carries on rather than die."""
        self._report("indexing")
        try:
            # the events' paths as they are (a path through a link is the link
            # rule's to judge); one outside every watched folder is never read
            # following the store's folders, each batch checks its files' folder is still watched: a
            # folder removed while its files are read is not written to (a `remove --forget` not undone)
            follow = self.follow
            watched = None if follow is None else (lambda: [f.path for f in follow()])
            started, began = utc_now(), time.time()
            # a file taken while still being written that cannot be read is recorded nothing (Summary.deferred):
            # taken so by the debouncer (overdue), or found so as it is read (a rescan meets a download)
            summary = run_in_folders(self.store, paths, folders, self.config, stop=self.stop, duplicates=False,
                                     named=False, watched=watched, progress=_Counting(self), unsettled=overdue,
                                     changing=self._changing)
            if summary.interrupted and not self.stop.is_set():
                self._changed = True
            if scanned:
                for folder in folders:
                    mark_scanned(self.store, folder.path)
        except (StoreDamaged, MachineTaken, StoreTooNew):
            raise  # nothing to retry: the message says how to rebuild it, name this computer, or upgrade
        except Exception as exc:  # noqa: BLE001 -- one bad path must not stop the watcher (nor loop its restarts)
            if self._refused(exc):
                # the database's own words (driver_said), without SQLAlchemy's statement and link
                said = str(exc) if isinstance(exc, StoreError) else driver_said(exc)
                refused = refusal(exc)
                if refused is not None:  # libpq's words name the socket before the server's own
                    said = f"its server refuses this watcher: {refused}"
                log.warning("%s: could not write to the store, will try again in %g s: %s",
                            ", ".join(f.path for f in folders), self.retry_after, said)
                return False
            damage = damage_of(exc, self.store.location)
            if damage is not None:
                raise damage from exc
            log.exception("%s: indexing %d path(s) failed; the watcher goes on",
                          ", ".join(f.path for f in folders), len(paths))
            return True
        self._status.batches += 1  # (its files were counted as each batch was written: _Counting)
        self._count_failures()  # (the summary's count is the store's alone)
        if summary.read or summary.removed or summary.moved:
            self._status.last_indexed_at = time.time()
        if summary.removed or summary.moved:  # from a folder not there, perhaps: counted again at the next look
            self._counted.clear()
        # what failed anew: a part that fails as its item recorded already is not (index.write), nor said again
        failed = failures(self.store, since=started) if summary.failed else []
        # nor is a file warned of that grew since and fails alike (a download stalled again): said at INFO
        anew = len(failed) - sum(not f.part and self._grown_alike(fs_path(f.path), f.status) for f in failed)
        if summary.read or summary.removed or summary.moved or anew or summary.vanished:
            counts = (f"{n:,}" for n in (summary.new, summary.updated, summary.moved, summary.removed, anew))
            log.info("%s: new %s, updated %s, moved %s, removed %s, failed %s%s", ", ".join(f.path for f in folders),
                     *counts, summary.vanished_words())
        named = self._name_failures(failed, began, overdue)
        named |= self._name_deferred(summary.deferred)
        warned = self._warn_still_failed([p for p in paths if p in self._unsettled and p not in named])
        for path in paths:
            if path not in named:
                self._unsettled.pop(path, None)  # read whole at last (or gone)
            if path not in named | warned:
                self._warned.pop(path, None)
        return True

    def _warn_still_failed(self, paths: list[str]) -> set[str]:
        """Warn of the files said to be still being written whose failure was
        recorded, and which this run found unchanged since (still, and so
        not read again): their record stands, a WARNING now, as promised --
        a catch-up scan met the file within ``delay`` of its last write, its
        mtime then too recent, and the warning never came (a loaded
        machine's CI run).  Returns the files warned of."""
        warned = set()
        for path in paths:
            if stat_of(path) != self._unsettled.get(path):
                continue  # changed since: read in this run, or its next
            _, rows = self.store.execute(
                "SELECT status, error FROM items WHERE path = :path AND part = '' AND machine = :machine",
                {"path": stored_path(path), "machine": self.store.machine})
            if rows and str(rows[0][0]) not in ("ok", "empty"):
                self._warn(path, shown(stored_path(path)), str(rows[0][0]), str(rows[0][1]))
                warned.add(path)
        return warned

    def _name_failures(self, failed: list[FailedItem], began: float, overdue: frozenset[str]) -> set[str]:
        """The files a run could not read, and why: the log said "failed 3"
        and left the reader to run `lifededup failures` and guess which.
        Returns the files named (on disk)."""
        named = failed[:_FAILURES_NAMED]
        for item in named:
            what, disk = shown(item.path + (f" [{item.part}]" if item.part else "")), fs_path(item.path)
            said_before = disk in self._unsettled
            if item.status == "empty":
                # a file of no text is no fault (a browser's placeholder while it downloads, an editor between
                # its truncate and its write): said, not warned of, and not as a file that could not be read
                log.info("nothing to read in %s: %s", what, shown(item.reason))
            elif item.status not in PATH_STATUSES and self._still_written(disk, began, overdue):
                log.log(logging.DEBUG if said_before else logging.INFO, _CHANGED_UNREADABLE,
                        what, shown(item.reason), self.delay, self.delay)
            elif item.part:
                log.warning("could not read %s: %s", what, shown(item.reason))
            else:
                self._warn(disk, what, item.status, item.reason)
        if len(failed) > len(named):
            log.warning("... and %s more: `lifededup failures` lists them all", f"{len(failed) - len(named):,}")
        return {fs_path(item.path) for item in named}

    def _warn(self, disk: str, what: str, status: str, reason: str) -> None:
        """Warn that a file cannot be read -- once: a file warned of that has
        grown since, and fails alike, is said at INFO.  A download that
        stalls for longer than ``delay`` is still at each stall: it was read
        and warned of ("damaged or truncated PDF") at every one, where it
        was the same file, still coming."""
        if self._grown_alike(disk, status):
            log.info(_GROWN_UNREADABLE, what, shown(reason))
        else:
            log.warning("could not read %s: %s", what, shown(reason))
        self._warned[disk] = (status, stat_of(disk))

    def _grown_alike(self, disk: str, status: str) -> bool:
        """Whether a file that cannot be read was warned of so, and has grown since."""
        now, before = stat_of(disk), self._warned.get(disk)
        return before is not None and before[0] == status and now is not None and before[1] is not None \
            and now[0] > before[1][0]

    def _name_deferred(self, deferred: dict[str, str]) -> set[str]:
        """The files still being written that could not be read, and were
        recorded nothing: said once at INFO, read again once still.  Returns
        them (on disk)."""
        for path, reason in deferred.items():
            disk, now = fs_path(path), stat_of(fs_path(path))
            log.log(logging.DEBUG if disk in self._unsettled else logging.INFO, _CHANGED_UNREADABLE,
                    shown(path), shown(reason), self.delay, self.delay)
            if now is not None:
                self._unsettled[disk] = now
            self.debouncer.note(disk)
        return {fs_path(path) for path in deferred}

    def _changing(self, seen: Seen) -> bool:
        """Whether a file that could not be read is still being written
        (asked from the run's writer thread, while this one waits for the
        run): changed since the scan found it, or written to within
        ``delay`` -- a rescan, which no event leads, met a download in
        progress and recorded it "corrupt" until the next.  Not a file
        unchanged since it was last found so (a clock that runs behind the
        file system's, its mtime ever "recent"): read again once, not
        forever, and recorded as it is."""
        disk = fs_path(seen.path)
        now = stat_of(disk)
        if now is None or now == self._unsettled.get(disk):
            return False
        return now != (seen.size, seen.mtime) or now[1] > time.time() - self.delay

    def _still_written(self, path: str, began: float, overdue: frozenset[str]) -> bool:
        """Whether a file that could not be read was still being written:
        taken while written to without a pause (``Debouncer.overdue``: a PDF
        downloading at 4 kB/s, read as it is every minute), or changed since
        ``delay`` before its read began (wall clock ``began``; the catch-up
        scan met it mid-write).  Its failure was a WARNING every time it was
        read until it was whole.  It is read again once it is still, and
        only a file that is still damaged then is warned of -- also one whose
        (size, mtime) did not change since it was last found so (a clock
        that runs behind the file system's), read again once, not forever."""
        now = stat_of(path)
        if now is None or self._unsettled.get(path) == now:
            self._unsettled.pop(path, None)
            return False
        if path not in overdue and now[1] < began - self.delay:
            self._unsettled.pop(path, None)
            return False
        self._unsettled[path] = now
        self.debouncer.note(path)
        return True


# failed files a run names in the log (the rest are counted)
_FAILURES_NAMED = 10
# What the watcher knows of a file it could not read that had just changed: not that anything
# still writes it (a half PDF placed in one go is as still as it will be), only that it looks again
_CHANGED_UNREADABLE = ("%s: not readable (%s) and changed in the last %g s; read again once unchanged for %g s, "
                       "warned of then if still not readable")

# A file warned of as not readable, read again as it grew, and failing alike (_warn)
_GROWN_UNREADABLE = ("%s: still not readable (%s), as when warned of, and it grew since (a download stalled?): "
                     "read again as it changes, and not warned of again unless it fails otherwise")


class _Counting(Quiet):
    """A run's progress, as the watcher's status: each file read counts as
    its batch is written, so `daemon status` moves during an hour's scan
    rather than once at its end."""

    def __init__(self, watcher: Watcher) -> None:
        self.watcher = watcher

    def listed(self, files: Mapping[str, tuple[int, float]]) -> None:
        with self.watcher._unread_lock:
            self.watcher._unread = {fs_path(path): stat for path, stat in files.items()}  # as events name them

    def start(self, total: int) -> None:
        self.watcher._report("indexing")

    def file_done(self, path: str, size: int) -> None:
        self.watcher._status.indexed += 1
        self.watcher._status.last_read = path
        disk = fs_path(path)
        with self.watcher._unread_lock:
            read = self.watcher._unread.pop(disk, None)
        # its events read as they left it wait no more (those queued meanwhile taken first): during a
        # `tar x` into a folder being read, the files read already were said to wait ("waiting: 628 files"
        # of 126 not read)
        self.watcher._take_events()
        self.watcher.debouncer.forget_read(disk, read)
        self.watcher._report("indexing")

    def finish(self) -> None:
        if not self.watcher.stop.is_set():  # stopped, what it did not read is left unread: still counted
            with self.watcher._unread_lock:
                self.watcher._unread = {}


def _shut(path: str) -> bool:
    """Whether ``path`` cannot be seen for a folder on its way one may not open."""
    try:
        os.stat(path)
    except PermissionError:
        return True
    except OSError:
        return False
    return False


def _identity(path: str) -> tuple[int, int] | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _within(path: str, folder: str) -> bool:
    """Whether ``path`` lies inside ``folder`` (stored paths)."""
    return path.startswith(folder.rstrip("/") + "/")

