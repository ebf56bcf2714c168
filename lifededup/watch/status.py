"""What the watcher reports (``WatchStatus``, which the daemon writes for
``daemon status``) and its timing defaults: light to import, so that
``daemon status`` and the watch commands' options start without watchdog,
the indexer or SQLAlchemy."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

# Quiet time before a file is read: long enough for an editor's atomic save
# or a copy to finish, short enough to feel live (paperless-ngx waits about as long).
DEFAULT_DELAY_S = 2.0
# The full rescan that catches what the system's event queue dropped (inotify
# overflows under bursts); a rescan of unchanged files costs one stat each.
DEFAULT_RESCAN_S = 3600.0
# How often a watcher that follows the store's folders (``watch`` without
# PATHS, the daemon) reads them again, to take up `folders add` and `remove`.
FOLLOW_S = 5.0
# Work the store refused (locked, disk full, its server down or restarting)
# is tried again this soon: a rescan, the paths that changed meanwhile -- and,
# as the watcher starts, a store whose server cannot be reached yet (`watch --retry`).
RETRY_S = 30.0


def said_when(moment: float | datetime | None) -> str:
    """A moment as ``daemon status`` and the web view's status page say it:
    in local time, its zone named. A status file's times are seconds since
    the epoch; the store keeps a folder's last scan as a naive UTC datetime.
    The page said a watcher's last full scan in local time and its folder's
    last scan beside it in UTC, neither zone named (04:08:09 and 03:08 for
    one scan, in Paris)."""
    if not moment:
        return "never"
    if isinstance(moment, datetime):
        moment = moment.replace(tzinfo=moment.tzinfo or timezone.utc).timestamp()
    return datetime.fromtimestamp(moment).astimezone().strftime("%Y-%m-%d %H:%M:%S %Z")


@dataclass
class AbsentFolder:
    """A watched folder not there to scan, whose items the store keeps."""

    path: str
    # "missing" (not a folder), "unlistable", "empty" (the store holds items under it: a disk's bare mount
    # point, the folder deleted and made again), "replaced" (another folder at its path, scanned at once)
    now: str
    items: int


@dataclass
class WatchStatus:
    """What the watcher is doing (written by the daemon for ``daemon status``)."""

    watching: list[str]
    # paths waiting (waiting_files + waiting_folders)
    pending: int = 0
    # files with changes not yet read (the run in flight's included), folders waiting for a scan
    waiting_files: int = 0
    waiting_folders: int = 0
    batches: int = 0
    indexed: int = 0
    # the store's failed items (every machine's), and this machine's of them (None: a watcher before it)
    failed: int = 0
    failed_here: int | None = None
    last_indexed_at: float | None = None  # wall-clock time.time()
    last_rescan_at: float | None = None
    state: str = "starting"
    # when the state began (wall clock): `daemon status` says how long it has been indexing.  Of "watching",
    # it is when the last batch or scan ended (each is a state of its own), not when watching began
    state_since: float | None = None
    # when this watcher began watching (wall clock): the web view's "watching since" (None: a watcher before it,
    # or one waiting for its store's server)
    watching_since: float | None = None
    # the last file read (its stored path): what a long scan is at
    last_read: str | None = None
    # watched folders whose items are kept though the folder is not there (or empty): `daemon status` names them
    absent: list[AbsentFolder] = field(default_factory=list)
    # the store's server cannot be reached: what the driver said (its first line), since when (wall clock),
    # and how often the work it refused is tried again; None once the store answers again
    unreachable: str | None = None
    unreachable_since: float | None = None
    retry_after: float | None = None
    # the store's server answers and turns this watcher away (its role dropped or renamed, the database
    # renamed, the password changed): the server's words, since when; tried again every retry_after, as
    # an admin may put it right on the server with no restart here.  None once it lets the watcher in
    refused: str | None = None
    refused_since: float | None = None
