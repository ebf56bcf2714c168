"""Skip stage: compare what the scan found with what the store holds, and
decide per file -- unchanged, moved, removed, or to be read.

A file whose size and mtime are those stored is unchanged without being read
(a ``stat`` only).  Otherwise its raw SHA-1 decides: the same bytes as stored
(a ``touch``, a copy that kept its content) is unchanged too.

A file at a path the store does not know may be a file the store knows,
moved (renamed, or dragged into another watched folder).  It is that file,
and keeps its item, id and cluster, when a stored file that is no longer on
disk has

1. the same bytes (raw SHA-1): moved as it was; or
2. the same device and inode and the same name (a Maildir message's flags
   aside): moved on one file system, then changed before the indexer saw it
   (it is read again, under its item);
   or
3. neither hashed (a file too large to read, :func:`_worth_hashing`) and the
   same device, inode, size and mtime, whatever its name: renamed as it was
   (a rename keeps all four; an inode reused by another file keeps none of
   the last two).  It was taken for a file deleted and a new one.

A file moved keeps its item, but is read again under it where its new
name reads otherwise (:func:`_named_alike`: ``page.txt`` become
``page.html``, ``notes.txt`` become ``notes.md``, another date in the
name): it is stored as reading it afresh stores it.

The stored file is looked for first among the files that vanished from the
paths of this run, then anywhere in the store (a file moved from a watched
folder this run does not scan), as long as the folder it was in is still
there -- an unplugged disk's files are not gone -- or the file found is that
very file, its device, inode and name: the folder it was in was renamed
(``mv Docs Documents``, then ``folders add Documents``: its files keep their
items, rather than being read again beside them).  A file item stored with a
NULL mtime was left half written (a mailbox interrupted mid-way) and is read
again.

A mailbox stored whole that grew by messages appended -- its stored bytes
(SHA-1 of the file's first stored ``size`` bytes equal to the stored
``raw_sha1``) followed by a message's ``From `` line -- is read from where it
grew (:class:`Grown`): its stored messages are kept, the new ones numbered
after them.  Anything else (shrunk, changed within, a message unfinished when
it was stored, a file that failed) is read whole.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath

from lifededup.extract import Limits
from lifededup.extract.mbox import Separators
from lifededup.extract.renamed import read_alike_here
from lifededup.extract.sandbox import REFUSED
from lifededup.index.dates import date_in_name
from lifededup.index.scan import Seen, holds_maildir_folders, opened_found, raw_sha1
from lifededup.model import fs_path
from lifededup.store import Store, UnsupportedStore
from lifededup.store.dialect import path_bytes

# Two seeks in the (path, part) index -- on PostgreSQL (machine, path,
# part) and (machine, path COLLATE "C"), revision 0026 -- the path itself,
# and the range of paths that start with "root/" ('0' is the character after
# '/'), in byte order: PostgreSQL compares text by the database's collation,
# and under en-US (glibc's or ICU's, initdb's usual default) "/A/x", "/a+b/x"
# and "/á/x" sort inside "/a"'s range, whose scan took their files for its
# own gone and deleted their items.  Only this machine's files (revision
# 0009), except on SQLite: see known_under.
_KNOWN_UNDER = (
    "SELECT path, size, mtime, raw_sha1, device, inode, status, machine, error, kind FROM items "
    "WHERE path = :root AND part = '' {mine} UNION ALL "
    "SELECT path, size, mtime, raw_sha1, device, inode, status, machine, error, kind FROM items "
    "WHERE {bytes} >= :low AND {bytes} < :high AND part = '' {mine}"
)
# Parts that failed for want of time or memory (a mailbox's message): their file is read again under more.
_SHORT_PARTS_UNDER = (
    "SELECT path, status, error FROM items WHERE path = :root AND part <> '' AND status IN {short} {mine} "
    "UNION ALL SELECT path, status, error FROM items WHERE {bytes} >= :low AND {bytes} < :high AND part <> '' "
    "AND status IN {short} {mine}"
)
_SHORT = ("timeout", "crashed", "too-large")
# A seek in ix_items_raw_sha1 and one in ix_items_inode; a file with
# thousands of stored copies checks the first few (each costs an lstat).
# Moves are followed among this machine's files only.
# Known.follows: complete, or half written and no vanished file's record.
_SAME_FILE = (
    "SELECT * FROM (SELECT path, size, mtime, raw_sha1, device, inode, kind, status FROM items WHERE raw_sha1 = :sha1 "
    "AND part = '' AND (mtime IS NOT NULL OR status <> 'vanished') AND machine = :machine ORDER BY path LIMIT 64) "
    "AS by_bytes UNION "
    "SELECT * FROM (SELECT path, size, mtime, raw_sha1, device, inode, kind, status FROM items WHERE inode = :inode "
    "AND device = :device AND part = '' AND (mtime IS NOT NULL OR status <> 'vanished') AND machine = :machine "
    "LIMIT 64) AS by_identity"
)

# The same for many new files at once (StoredElsewhere.prefetch): a first
# index of 4,001 files asked 4,001 times, a round trip each to a server
# (6 s of 18 on a local PostgreSQL).  Each SHA-1's first 64 by path, as
# above; each identity's (rarely more than one) all, in Python.
_SAME_BYTES = (
    "SELECT path, size, mtime, raw_sha1, device, inode, kind, status FROM (SELECT path, size, mtime, raw_sha1, "
    "device, inode, kind, status, ROW_NUMBER() OVER (PARTITION BY raw_sha1 ORDER BY path) AS n FROM items "
    "WHERE raw_sha1 IN ({keys}) AND part = '' AND (mtime IS NOT NULL OR status <> 'vanished') "
    "AND machine = :machine) AS by_bytes WHERE n <= 64"
)
_SAME_INODE = (
    "SELECT path, size, mtime, raw_sha1, device, inode, kind, status FROM items WHERE inode IN ({keys}) "
    "AND part = '' AND (mtime IS NOT NULL OR status <> 'vanished') AND machine = :machine"
)
# keys a statement (SQLite's default limit of a statement's parameters is 32,766; PostgreSQL's 65,535)
_KEYS = 500

Identity = tuple[int, int]  # (st_dev, st_ino)


@dataclass(frozen=True)
class Known:
    """A file item as the store holds it."""

    path: str
    size: int | None
    mtime: float | None
    raw_sha1: str | None
    device: int | None = None
    inode: int | None = None
    kind: str | None = None
    status: str | None = None

    @property
    def complete(self) -> bool:
        """Fully written (a half-written item, its mtime not yet stored, is not
        worth keeping as a move source); a file too large to read has no
        SHA-1 (:func:`_worth_hashing`), and is followed by its identity."""
        return self.mtime is not None

    @property
    def follows(self) -> bool:
        """A move source: complete, or half written for a read still to come
        (moved to a name that reads otherwise, a mailbox interrupted, marked
        to be read again) -- still that file's item, read again where it went.
        A file renamed a second time before it was read lost its item.  A
        record of a file that vanished as it was read holds none of its bytes."""
        return self.complete or self.status not in (None, "vanished")


@dataclass(frozen=True)
class Grown:
    """A mailbox to read from where it grew: its bytes from ``offset`` (the
    size stored) to ``end`` (the size hashed), its new messages numbered
    after the ``messages`` its stored bytes hold."""

    offset: int
    end: int
    messages: int


@dataclass(frozen=True)
class ToRead:
    seen: Seen
    raw_sha1: str | None
    is_new: bool
    identity: Identity | None = None
    grown: Grown | None = None


@dataclass
class Plan:
    """What a run has to do, decided before anything is read."""

    unchanged: int = 0
    # the same bytes under a new size/mtime (or a new place): stat and identity refreshed
    # (no SHA-1: a file too large to hash, moved as it was)
    touched: list[tuple[Seen, str | None, Identity | None]] = field(default_factory=list)
    # unchanged files stored before their identity was kept (revision 0008)
    identified: list[tuple[str, Identity]] = field(default_factory=list)
    moves: list[tuple[str, str]] = field(default_factory=list)
    removals: list[str] = field(default_factory=list)
    to_read: list[ToRead] = field(default_factory=list)


def identity_of(path: str) -> Identity | None:
    """The file's (device, inode), inode folded into SQLite's signed 64 bits
    (``path``: a stored path)."""
    try:
        st = os.stat(fs_path(path), follow_symlinks=False)
    except OSError:
        return None
    inode = st.st_ino - (1 << 64) if st.st_ino >= 1 << 63 else st.st_ino
    return st.st_dev, inode


def known_under(store: Store, roots: Iterable[str], limits: Limits = Limits()) -> dict[str, Known]:
    """This machine's file items stored at or under these paths.  A file
    that failed for want of what this run gives counts as half written, so
    it is read again: with OCR on (``limits.ocr``), a scan stored without
    text (``no-text-layer``); a parser stopped for time, or out of memory,
    under a lower ``timeout_s`` or ``memory_mb`` than this run's
    (``_short_of``), the file's own or a part's (a mailbox's message);
    a file ``unreadable`` that opens now (:func:`_readable_now`).

    An SQLite store keeps its paths unique whatever the machine (revision
    0009), so another machine's file there would collide with this one's:
    that is refused here, before anything is read (:class:`UnsupportedStore`,
    saying how to pin the name)."""
    found: dict[str, Known] = {}
    shared = store.location.backend != "sqlite"
    mine = "AND machine = :machine" if shared else ""
    by_bytes = path_bytes(shared)
    query = _KNOWN_UNDER.format(mine=mine, bytes=by_bytes)
    short_parts = _SHORT_PARTS_UNDER.format(short=str(_SHORT), mine=mine, bytes=by_bytes)
    for root in roots:
        stem = root.rstrip("/")
        params: dict[str, object] = {"root": root, "low": stem + "/", "high": stem + "0", "machine": store.machine}
        _, rows = store.execute(short_parts, params)
        short = {str(path) for path, status, error in rows if _short_of(str(status), error, limits)}
        _, rows = store.execute(query, params)
        for path, size, mtime, sha1, device, inode, status, machine, error, kind in rows:
            if machine != store.machine:
                raise UnsupportedStore(_not_this_machine(store, str(path), str(machine)))
            stale = (status == "vanished" or (limits.ocr and status == "no-text-layer")  # never read: read it
                     or _short_of(str(status), error, limits) or path in short
                     or str(error).startswith(REFUSED)  # the reader's install, not the file: mended since?
                     or (status == "missing-tool" and _installed_since(error))
                     or (status == "unreadable" and _readable_now(str(path))))
            found[str(path)] = Known(str(path), size, None if stale else mtime,  # type: ignore[arg-type]
                                     sha1, device, inode, str(kind), str(status))  # type: ignore[arg-type]
    return found


def _readable_now(path: str) -> bool:
    """Whether a file recorded ``unreadable`` opens now: its permissions
    mended (``chmod 644``, ``chown``) change neither its size nor its mtime,
    so it was taken as unchanged and stayed a failure for good.  One that
    still does not open is not read again (the whole read, and a failure
    logged, every run)."""
    try:
        with opened_found(path):
            return True
    except OSError:
        return False


# MissingTool's reason: "reading manual pages needs 'groff': install it with ..."
_NEEDS = re.compile(r"needs '([^']+)'")


def _installed_since(error: object) -> bool:
    """Whether the program a ``missing-tool`` failure needed is on PATH now:
    a file is read again once it is installed, not only when it changes."""
    needed = _NEEDS.search(str(error))
    return needed is not None and shutil.which(needed.group(1)) is not None


# The limit a failure was recorded under, as its reason says it
# (extract/isolate.py): "stopped after 60 s without progress", "ran out of
# the 2048 MiB memory limit", a crash "... or the 2048 MiB memory limit".
_SECONDS_GIVEN = re.compile(r"stopped after ([0-9.]+) s without progress")
_MIB_GIVEN = re.compile(r"the ([0-9]+) MiB memory limit")


def _short_of(status: str, error: object, limits: Limits) -> bool:
    """Whether a file failed under a lower time or memory limit than
    ``limits``: raising --timeout or --memory-mb and indexing again reads
    it again (a file that fails under the same limits is not read again
    each run, which would cost the whole limit every time)."""
    if status not in _SHORT or not isinstance(error, str):
        return False
    seconds = _SECONDS_GIVEN.search(error) if status == "timeout" else None
    if seconds is not None:
        return float(seconds.group(1)) < limits.timeout_s
    mib = _MIB_GIVEN.search(error)
    return mib is not None and int(mib.group(1)) < limits.memory_mb


def _not_this_machine(store: Store, path: str, other: str) -> str:
    return (f"the store {store.location} holds {path} as a file of the machine {other!r}, and this is {store.machine!r}: "
            "an SQLite store is one machine's file (a path is unique in it). If this is that machine under a new "
            f"name, pin the old one: export LIFEDEDUP_MACHINE={other}; if the files are this machine's, given to "
            f"{other!r} when a command there upgraded the store, give them back: lifededup machines rename "
            f"{other} {store.machine} (README, \"Machines\"); "
            "to index both machines into one store, use a PostgreSQL store")


class StoredElsewhere:
    """A lookup of the stored files with these bytes or this identity that
    are gone from disk from a folder still there (``homes``: the watched
    folders; a file in none of them needs its own folder still there), and
    of the stored file that is this one, gone from its path: a folder
    renamed, the watched folder itself included, moves its files with it
    (an unplugged disk's files are on no device now there).  The rows of
    the keys given to :meth:`prefetch` are read in a few statements; any
    other key is read by one of its own."""

    def __init__(self, store: Store, homes: Sequence[str]) -> None:
        self.store, self.homes = store, homes
        self._by_sha1: dict[str, list[Known]] = {}
        self._by_identity: dict[Identity, list[Known]] = {}

    def prefetch(self, keys: Sequence[tuple[str | None, Identity | None]]) -> None:
        """Read the stored rows of these (SHA-1, identity) keys now, a few statements for all."""
        sha1s = sorted({sha1 for sha1, _ in keys if sha1 is not None} - self._by_sha1.keys())
        identities = sorted({identity for _, identity in keys if identity is not None} - self._by_identity.keys())
        for start in range(0, len(sha1s), _KEYS):
            chunk = sha1s[start:start + _KEYS]
            found: dict[str, list[Known]] = {sha1: [] for sha1 in chunk}
            for known in self._rows(_SAME_BYTES, chunk):
                found[str(known.raw_sha1)].append(known)
            self._by_sha1.update(found)
        for start in range(0, len(identities), _KEYS):
            wanted = identities[start:start + _KEYS]
            by_identity: dict[Identity, list[Known]] = {identity: [] for identity in wanted}
            for known in self._rows(_SAME_INODE, sorted({inode for _, inode in wanted})):
                same = by_identity.get((known.device, known.inode))  # type: ignore[arg-type]
                if same is not None:
                    same.append(known)
            self._by_identity.update({identity: sorted(rows, key=lambda k: k.path)[:64]
                                      for identity, rows in by_identity.items()})

    def _rows(self, query: str, keys: Sequence[object]) -> list[Known]:
        names = {f"k{i}": key for i, key in enumerate(keys)}
        _, rows = self.store.execute(query.format(keys=", ".join(f":{name}" for name in names)),
                                     {**names, "machine": self.store.machine})
        return [Known(*row) for row in rows]  # type: ignore[arg-type]

    def __call__(self, sha1: str | None, identity: Identity | None) -> list[Known]:
        if sha1 is None and identity is None:
            return []
        fetched = (sha1 is None or sha1 in self._by_sha1) and (identity is None or identity in self._by_identity)
        if fetched:
            both = [*self._by_sha1.get(sha1 or "", ()), *self._by_identity.get(identity or (-1, -1), ())]
            found = list(dict.fromkeys(both))  # each row once, as the UNION of _SAME_FILE gives it
        else:
            device, inode = identity or (None, None)
            _, got = self.store.execute(_SAME_FILE, {"sha1": sha1, "device": device, "inode": inode,
                                                     "machine": self.store.machine})
            found = [Known(*row) for row in got]  # type: ignore[arg-type]
        return [k for k in sorted(found, key=lambda k: k.path)
                if _gone(k.path, self.homes) or (identity is not None and (k.device, k.inode) == identity
                                                 and not os.path.lexists(fs_path(k.path)))]


# A file's parts, this machine's: a seek in the (path, part) index
_PARTS = "SELECT part FROM items WHERE path = :path AND part <> '' AND machine = :machine"
# A mailbox's message, the top level of its parts ("message 12", "message 12 / attachment 1: a.pdf")
_MESSAGE = re.compile(r"message ([1-9][0-9]*)(?: / |$)")


def message_number(part: str) -> int | None:
    """The number of the mailbox's message a part is or lies in (None: no message's part)."""
    found = _MESSAGE.match(part)
    return None if found is None else int(found.group(1))


def stored_messages(store: Store) -> Callable[[str], set[int] | None]:
    """A lookup of the numbers of the messages stored of a file (a mailbox),
    None when a part of it is no message's."""

    def lookup(path: str) -> set[int] | None:
        _, rows = store.execute(_PARTS, {"path": path, "machine": store.machine})
        numbers = [message_number(str(row[0])) for row in rows]
        return None if None in numbers else {n for n in numbers if n is not None}

    return lookup


def _gone(path: str, homes: Sequence[str]) -> bool:
    """Whether a stored file is gone from a folder that is still there (stored paths)."""
    if os.path.lexists(fs_path(path)):
        return False
    home = max((h for h in homes if path.startswith(h.rstrip("/") + "/")), key=len, default=None)
    return os.path.isdir(fs_path(home if home is not None else str(PurePath(path).parent)))


def plan(seen: Iterable[Seen], known: dict[str, Known],
         elsewhere: StoredElsewhere | None = None, *,
         reread: bool = False, messages: Callable[[str], set[int] | None] | None = None,
         hash_up_to: int | None = None) -> Plan:
    """Decide what to do with every file found and every file that vanished.

    ``known``: the stored files under the run's paths; ``elsewhere``: a
    lookup of stored files gone from other places (:class:`StoredElsewhere`);
    ``reread``: a file moved with its bytes unchanged is read again too
    (``index --reread``, which marks the others half written);
    ``messages``: a lookup of a mailbox's stored messages
    (:func:`stored_messages`), without which every mailbox that grew is read whole;
    ``hash_up_to``: the largest file hashed (the readers' ``max_bytes``), see :func:`_worth_hashing`.
    """
    result = Plan()
    changed: list[Seen] = []
    present: set[str] = set()
    for file in seen:
        present.add(file.path)
        stored = known.get(file.path)
        if stored is not None and stored.mtime is not None and (stored.size, stored.mtime) == (file.size, file.mtime):
            result.unchanged += 1
            if stored.inode is None and (identity := identity_of(file.path)) is not None:
                result.identified.append((file.path, identity))
        else:
            changed.append(file)
    vanished = _Vanished([k for path, k in known.items() if path not in present], elsewhere)
    hashed = [(file, stored, *_hashed(file, stored, messages, hash_up_to))
              for file, stored in ((file, known.get(file.path)) for file in changed)]
    if elsewhere is not None:  # the new files' keys, read in a few statements
        elsewhere.prefetch([(sha1, identity) for _, stored, _, sha1, identity in hashed if stored is None])
    for file, stored, grown, sha1, identity in hashed:
        _decide(file, stored, vanished, result, grown, sha1, identity, reread)
    result.removals = sorted(vanished.left())
    return result


class _Vanished:
    """Stored files no longer on disk, each claimed by one new file at most
    (found by bytes and by identity in dicts: a moved folder of thousands of
    files is thousands of lookups, not their square)."""

    def __init__(self, gone: list[Known], elsewhere: StoredElsewhere | None) -> None:
        self.gone = {k.path: k for k in sorted(gone, key=lambda k: k.path)}
        self.by_sha1: dict[str, list[Known]] = defaultdict(list)
        self.by_identity: dict[Identity, list[Known]] = defaultdict(list)
        for k in self.gone.values():
            if k.follows and k.raw_sha1 is not None:
                self.by_sha1[k.raw_sha1].append(k)
            if k.follows and k.device is not None and k.inode is not None:
                self.by_identity[(k.device, k.inode)].append(k)
        self.elsewhere = elsewhere
        self.claimed: set[str] = set()

    def claim(self, file: Seen, sha1: str | None, identity: Identity | None) -> tuple[str, bool] | None:
        """The stored file a new file is, and whether its bytes are the same."""
        candidates = [*self.by_sha1.get(sha1 or "", ()), *self.by_identity.get(identity or (-1, -1), ())]
        found = _match([k for k in candidates if k.path not in self.claimed], file, sha1, identity)
        if found is None and self.elsewhere is not None:
            others = [k for k in self.elsewhere(sha1, identity) if k.path not in self.claimed and k.path not in self.gone]
            found = _match(others, file, sha1, identity)
        if found is None:
            return None
        self.claimed.add(found.path)
        same = found.raw_sha1 == sha1 and (sha1 is not None or _as_it_was(found, file))
        return found.path, same and found.complete  # half written, it is read again wherever it went

    def left(self) -> list[str]:
        return [path for path in self.gone if path not in self.claimed]


def _match(candidates: list[Known], file: Seen, sha1: str | None, identity: Identity | None) -> Known | None:
    name = PurePath(file.path).name
    sources = [k for k in candidates if k.follows]
    if sha1 is not None:
        same_bytes = [k for k in sources if k.raw_sha1 == sha1]
        if same_bytes:
            # of several, the one with the same identity, then the same name, then the first path
            same_bytes.sort(key=lambda k: ((k.device, k.inode) != identity, PurePath(k.path).name != name, k.path))
            return same_bytes[0]
    if identity is not None:
        for k in sorted(sources, key=lambda k: k.path):
            if (k.device, k.inode) == identity and (_named_the_same(k.path, file.path) or _as_it_was(k, file)):
                return k
    return None


def _named_the_same(old: str, new: str) -> bool:
    """Whether two stored paths name their files alike: the same name, a Maildir message's flags aside."""
    return _without_maildir_flags(fs_path(old)) == _without_maildir_flags(fs_path(new))


def _as_it_was(stored: Known, file: Seen) -> bool:
    """Whether a file never hashed (too large) is the stored one as it was,
    neither hashed: the same size and mtime (its identity, the caller's)."""
    return stored.raw_sha1 is None and (stored.size, stored.mtime) == (file.size, file.mtime)


def _hashed(file: Seen, stored: Known | None, messages: Callable[[str], set[int] | None] | None,
            hash_up_to: int | None) -> tuple[Grown | None, str | None, Identity | None]:
    """How a mailbox grew, the file's raw SHA-1 and its identity."""
    grown, sha1 = None, None
    if stored is not None and messages is not None and _may_have_grown(stored, file):
        grown, sha1 = _grown(file, stored, messages)  # the raw SHA-1 in the same pass
    if sha1 is None and _worth_hashing(file, hash_up_to):
        sha1 = raw_sha1(file.path)
    return grown, sha1, identity_of(file.path)


def _decide(file: Seen, stored: Known | None, vanished: _Vanished, result: Plan, grown: Grown | None,
            sha1: str | None, identity: Identity | None, reread: bool = False) -> None:
    if stored is not None:
        if sha1 is not None and stored.mtime is not None and sha1 == stored.raw_sha1:
            result.unchanged += 1
            result.touched.append((file, sha1, identity))
        else:
            result.to_read.append(ToRead(file, sha1, is_new=False, identity=identity, grown=grown))
        return
    found = vanished.claim(file, sha1, identity)
    if found is None:
        result.to_read.append(ToRead(file, sha1, is_new=True, identity=identity))
        return
    old, same_bytes = found
    result.moves.append((old, file.path))
    if same_bytes and not reread and _named_alike(old, file.path):
        result.touched.append((file, sha1, identity))  # its stat as found at its new place
    else:
        result.to_read.append(ToRead(file, sha1, is_new=False, identity=identity))  # changed, or named anew


def _named_alike(old: str, new: str) -> bool:
    """Whether a file moved from ``old`` to ``new`` (stored paths), read
    afresh, is what it was: read alike by its names (as the reader has them,
    :func:`~lifededup.extract.renamed.read_alike_here`: by another spelling
    of its format's suffix too, ``.htm`` become ``.html``) and the same date in them
    (the stored names, as the writer reads them: :func:`~lifededup.index.dates.date_in_name`,
    for a format that records none -- whether this one does is not stored).
    Otherwise it is read again under its item: ``page.txt`` become
    ``page.html`` was kept as text, tags and all, with no title."""
    if not read_alike_here(Path(fs_path(new)), *(_without_maildir_flags(fs_path(path)) for path in (old, new))):
        return False
    return date_in_name(PurePath(old).name) == date_in_name(PurePath(new).name)


# A Maildir message's name ends in its info, its flags (maildir(5): "UNIQUE:2,FLAGS", S seen, R replied, F
# flagged, T trashed; ":1," the experimental kind): a mail client renames it at each change of them.
_MAILDIR_INFO = re.compile(r":[12],[^:]*$")


def _without_maildir_flags(path: str) -> str:
    """The name of the file at ``path``, without its flags where it is a Maildir's message (in the ``cur`` or
    ``new`` of a Maildir): a mail marked seen or replied to is renamed, its bytes the same, and reads as it
    did -- as a mail, by its content.  Its new name's "suffix" (``.laptop`` become ``.laptop:2,S``) read as a
    file that might read otherwise, and every mail marked read was read again."""
    folder, name = os.path.split(path)
    if os.path.basename(folder) in ("cur", "new") and holds_maildir_folders(os.path.dirname(folder)):
        return _MAILDIR_INFO.sub("", name)
    return name


def _worth_hashing(file: Seen, hash_up_to: int | None) -> bool:
    """Whether to hash a file's bytes here, in the indexer's own process:
    any file a reader will read (up to ``hash_up_to``, its ``max_bytes``),
    and a mailbox of any size (read as a stream; its hash tells mail
    appended).  A larger file is recorded too-large unread; hashing it read
    every byte first -- a 20 GB disk image of a running virtual machine, again
    at every change the watcher saw.  Without a hash such a file is followed
    by its identity (device and inode) when it moves."""
    if hash_up_to is None or file.size <= hash_up_to:
        return True
    try:
        with opened_found(file.path) as handle:
            return handle is not None and handle.read(5) == b"From "
    except OSError:
        return False


def _may_have_grown(stored: Known, file: Seen) -> bool:
    """Whether a stored file may be a mailbox that grew: one read whole and
    well (kind, status, a complete row) and larger now."""
    return (stored.complete and stored.kind == "mailbox" and stored.status == "ok" and stored.size is not None
            and 0 < stored.size < file.size)


def _grown(file: Seen, stored: Known, messages: Callable[[str], set[int] | None]) -> tuple[Grown | None, str | None]:
    """How to read a mailbox from where it grew (None: read it whole), and
    its raw SHA-1, hashed in the same pass as its stored bytes.  The stored
    messages must be those its stored bytes hold, numbered 1 to N; any
    numbered after them were stored by a read of its new bytes that was
    interrupted, which this read does again."""
    assert stored.size is not None
    read = _read_grown(file.path, stored.size)
    if read is None:
        return None, None
    sha1, length, prefix, held, starts = read
    if prefix != stored.raw_sha1 or not starts or length != file.size or held == 0:
        return None, sha1
    numbers = messages(file.path)
    if numbers is None or not set(range(1, held + 1)) <= numbers:
        return None, sha1
    return Grown(offset=stored.size, end=length, messages=held), sha1


# bytes hashed at a time, as scan.raw_sha1 does
_CHUNK = 2**20


def _read_grown(path: str, offset: int) -> tuple[str, int, str, int, bool] | None:
    """One pass over a file: SHA-1 of its bytes, their length, SHA-1 of
    the first ``offset`` of them, the messages those hold and whether a
    message starts at ``offset``; None if unreadable.  Opened as
    :func:`lifededup.index.scan.raw_sha1` opens a file (:func:`~lifededup.index.scan.opened_found`)."""
    try:
        with opened_found(path) as handle:
            if handle is None:
                return None
            whole, separators = hashlib.sha1(), Separators()
            length, prefix, after = 0, None, b""
            while chunk := handle.read(_CHUNK):
                if length < offset:
                    stored = chunk[:offset - length]
                    whole.update(stored)
                    separators.feed(stored)
                    if length + len(chunk) >= offset:
                        prefix = whole.copy().hexdigest()  # the stored bytes' SHA-1: the same pass goes on
                    whole.update(chunk[len(stored):])
                else:
                    whole.update(chunk)
                if length + len(chunk) > offset and len(after) < _CHUNK:
                    after += chunk[max(0, offset - length):]
                length += len(chunk)
        if prefix is None:
            return None
        line = after[:after.find(b"\n") + 1] if b"\n" in after else after
        return whole.hexdigest(), length, prefix, separators.messages, separators.next_starts(line)
    except OSError:
        return None
