"""Scan stage: the files under the given paths that the rules admit, with
their size and mtime (one ``stat`` each: the cheap first test of "unchanged"),
and every path passed over with the reason (recorded as a failed item).

The link rule (README, "Links"): nothing outside the *walls* -- the watched
folders, or the folders named on the command line -- is ever read.  A link
whose target lies inside the walls is followed once, to the target's real
path (a file is stored under its real path, so a folder reached two ways is
indexed once and a loop cannot form); a link that leaves the walls, points
at itself or its own folder, or at nothing, is recorded and skipped.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import BinaryIO

from lifededup.extract import BrokenLink, LinkLoop, LinkOutside
from lifededup.index.rules import FolderRules, holds_page_parts
from lifededup.model import fs_path, stored_path

_READ_BYTES = 1 << 20

# Statuses of the paths a scan passes over (the extractor's statuses are in lifededup.extract).
LINK_OUTSIDE = LinkOutside.status
LINK_LOOP = LinkLoop.status
BROKEN_LINK = BrokenLink.status
UNREADABLE = "unreadable"
NOT_A_FILE = "not-a-file"
_UNLISTED = "folder cannot be listed: {}"
# r without x (chmod 444, u=r): its names may be listed, and none of its files looked at
_UNENTERED = "folder cannot be entered, only listed: {}"
_CANNOT_READ = "cannot be read: {}"
# What lifededup leaves in the temporary folder while it reads, which a TMPDIR in a watched folder
# showed the scan and the watcher: its workers' folders, parts copied out for a program, OCR's pages
# (lifededup.extract: isolate, base, ocr and image), and the folder of the socket of multiprocessing's
# forkserver, which starts its workers (multiprocessing.util.get_temp_dir).  These names only: a
# folder of one's own made there as lifededup-something (a benchmark's, a test's) is read.
_MADE_HERE = ("lifededup-worker-", "lifededup-part-", "lifededup-ocr-", "pymp-")


@dataclass(frozen=True)
class Seen:
    """A file as found on disk; ``path`` is the store's form of its real path (:func:`stored_path`)."""

    path: str
    size: int
    mtime: float


@dataclass(frozen=True)
class Skipped:
    """A path passed over, and why (``status`` is one of the constants above)."""

    path: str
    status: str
    reason: str


def absolute(path: Path | str) -> Path:
    """Paths are stored absolute, with symlinks in the folders resolved, so a
    folder named two ways is indexed once (``os.path.realpath``: a link loop
    is left as it is for the link rule to record, where ``Path.resolve`` raises)."""
    return Path(os.path.realpath(os.path.expanduser(os.fspath(path))))


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


@dataclass(frozen=True)
class Walls:
    """The real paths (fs form) of the folders a run may read in."""

    folders: tuple[str, ...]

    @classmethod
    def of(cls, folders: Iterable[Path | str]) -> Walls:
        return cls(tuple(os.path.realpath(os.path.expanduser(str(f))) for f in folders))

    def home(self, real: str) -> str | None:
        """The innermost wall holding ``real``, or None when it is outside them all."""
        return max((f for f in self.folders if _inside(real, f)), key=len, default=None)


@dataclass
class Scanner:
    """One run's scan: call :meth:`enter` for each path given; ``found``,
    ``skipped`` and ``followed`` (stored real folders reached through links) fill up."""

    rules: FolderRules
    walls: Walls
    found: dict[str, Seen] = field(default_factory=dict)
    skipped: dict[str, Skipped] = field(default_factory=dict)
    followed: list[str] = field(default_factory=list)
    _visited: set[tuple[int, int]] = field(default_factory=set)
    _listings: list[Iterator[os.DirEntry[str]]] = field(default_factory=list)
    # the system's own file systems mounted as the scan starts
    _system: dict[int, str] = field(default_factory=lambda: system_filesystems())
    # the temporary folder this process writes in ($TMPDIR), real path, with a slash
    _temp: str = field(default_factory=lambda: os.path.join(os.path.realpath(tempfile.gettempdir()), ""))

    def enter(self, path: str) -> list[str]:
        """Scan a path given to the run (absolute, fs form, links not
        resolved); return the stored paths whose items the store may hold
        for it: the path itself, and its real path when a link led there."""
        real = os.path.realpath(path)
        if self._made_here(path) or self._made_here(real):
            return [stored_path(path)]  # never recorded; what an older lifededup stored there is forgotten
        link = path if os.path.islink(path) else None
        if link is None and self.walls.home(real) is None:
            link = _first_link(path) or path
        if link is not None and not self._admits_link(link):
            # left out as a scan leaves it (an editor's lock link `.#note.txt`, a link in a `.venv`):
            # never recorded, and its target, not scanned, not taken for gone
            return [stored_path(path)]
        if link is not None:
            self._link(link)
        else:
            self._visit(real)
        # a link refused (a loop, a broken link whose target reads as a folder
        # inside) leaves its target to the scan of that folder: named as a
        # root here, its target's items -- a whole watched folder's -- were
        # taken for gone and removed
        refused = stored_path(path) in self.skipped
        inside = self.walls.home(real) is not None and real != path and not refused
        return [stored_path(path)] + ([stored_path(real)] if inside else [])

    def _visit(self, real: str) -> None:
        if _in_maildir_tmp(real):
            return
        try:
            st = os.stat(real)
        except OSError as exc:
            # not there (any more), or through a link loop (no stored path is): the run forgets what the
            # store held there; anything else may be there
            if exc.errno not in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
                self._unreachable(real, exc)
            return
        if stat.S_ISDIR(st.st_mode):
            if self.rules.admits_within(self._relative(real), maildir=_holds_maildir(real)) and not self._in_page(
                    real, itself=True):
                self._walk(real, st)
        elif self._admits(real):
            self._file(real, st)

    def _unreachable(self, real: str, error: OSError) -> None:
        """A path given that cannot be looked at, though it may be there: a
        folder on its way that may not be listed (``chmod 000``), or listed
        and not entered (``chmod 444``), is recorded as a scan of the watched
        folder records it, and the items under it are kept
        (``run._keep_skipped``); taken for gone, a file edited in it lost its
        item, and came back under a new id.  Without such a folder
        (an I/O error), the path itself is recorded, as a scan records an
        entry it cannot ``stat``."""
        if not (self._admits(real) or self.rules.admits_within(self._relative(real))):
            return  # left out whatever it is: nothing of it is stored
        if not isinstance(error, PermissionError):
            self._skip(real, UNREADABLE, _CANNOT_READ.format(error.strerror or error))
            return
        home = self.walls.home(real)
        start = home if home is not None and home != real else os.path.dirname(real)
        below = PurePath(os.path.relpath(os.path.dirname(real), start)).parts
        for folder in [start] + [os.path.join(start, *below[:n]) for n in range(1, len(below) + 1)]:
            shut = _unlisted(folder) or _unentered(folder)
            if shut is not None:
                self._skip(folder, UNREADABLE, shut)
                return
        self._skip(real, UNREADABLE, _CANNOT_READ.format(error.strerror or error))

    def _admits_link(self, link: str, *, listed: bool = False) -> bool:
        """Whether the rules admit a link where it lies, and every folder on
        its way (not asked again of a folder's entry, ``listed``): as a
        folder when it leads to one, else as a file -- a link to nothing
        named as junk (``note.txt~``, an editor's backup) was admitted as a
        folder might be, and recorded ``broken-link``."""
        relative = self._relative(link)
        if os.path.isdir(link):
            if listed:
                return self.rules.admits_folder(relative) and not holds_page_parts(link)
            return self.rules.admits_within(relative) and not self._in_page(link, itself=True)
        return self.rules.admits_file(relative) if listed else self._admits(link)

    def _made_here(self, path: str) -> bool:
        """Whether a path is one of lifededup's own temporary files or
        folders, or in one (``_MADE_HERE`` in the temporary folder): never a
        document, and gone once read; a file named so elsewhere is read."""
        return path.startswith(self._temp) and path[len(self._temp):].startswith(_MADE_HERE)

    def _relative(self, real: str) -> PurePath:
        home = self.walls.home(real)
        if home is None or (home == real and not os.path.isdir(real)):
            # outside, or a file named alone: the rules see its name (a junk file stays out)
            return PurePath(os.path.basename(real))
        return PurePath(os.path.relpath(real, home))

    def _admits(self, real: str) -> bool:
        return self.rules.admits(self._relative(real)) and not self._in_page(real)

    def _in_page(self, real: str, itself: bool = False) -> bool:
        """Whether ``real`` lies in the folder of a saved page's parts (``itself``: or is one), below its wall:
        a folder given to be watched is read whatever its name."""
        home = self.walls.home(real)
        folder = real if itself else os.path.dirname(real)
        while home is not None and len(folder) > len(home):
            if holds_page_parts(folder):
                return True
            folder = os.path.dirname(folder)
        return False

    def _file(self, real: str, st: os.stat_result, shown: str | None = None) -> None:
        if stat.S_ISREG(st.st_mode):
            seen = Seen(stored_path(real), st.st_size, st.st_mtime)
            self.found[seen.path] = seen
        else:
            what = _kind(st.st_mode)
            self._skip(shown or real, NOT_A_FILE, f"a {what}, not a regular file: never read")

    def _skip(self, path: str, status: str, reason: str) -> None:
        key = stored_path(path)
        self.skipped.setdefault(key, Skipped(key, status, reason))

    def _walk(self, folder: str, st: os.stat_result) -> None:
        """List a folder once; its entries are taken depth first from a stack
        of listings, not by recursion, so no depth of folders exhausts Python's stack."""
        if (st.st_dev, st.st_ino) in self._visited:
            return
        self._visited.add((st.st_dev, st.st_ino))
        system = self._system.get(st.st_dev)
        if system is not None:
            self._skip(folder, NOT_A_FILE, f"the system's own file system ({system}), not documents: never listed")
            return
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError as exc:
            self._skip(folder, UNREADABLE, _UNLISTED.format(exc.strerror or exc))
            return
        shut = _unentered(folder)
        if shut is not None:
            # listed, not entered: each file's stat is refused, and each was recorded unreadable in
            # place of its item (its text and cluster lost, a new id once the folder opened)
            self._skip(folder, UNREADABLE, shut)
            return
        self._listings.append(iter(entries))
        if len(self._listings) > 1:
            return  # an outer _walk is taking entries already
        while self._listings:
            entry = next(self._listings[-1], None)
            if entry is None:
                self._listings.pop()
                continue
            try:
                self._entry(entry)
            except OSError as exc:
                if exc.errno != errno.ENOENT:  # else vanished between listing and stat: nothing there to record
                    # a path past the system's limit (ENAMETOOLONG), an I/O error: said, not dropped unseen
                    self._skip(entry.path, UNREADABLE, _CANNOT_READ.format(exc.strerror or exc))

    def _entry(self, entry: os.DirEntry[str]) -> None:
        if self._made_here(entry.path):
            return
        relative = self._relative(entry.path)
        if entry.is_symlink():
            if self._admits_link(entry.path, listed=True):
                self._link(entry.path)
        elif entry.is_dir(follow_symlinks=False):
            if entry.name == "tmp" and holds_maildir_folders(os.path.dirname(entry.path)):
                return  # see _in_maildir_tmp
            if self.rules.admits_folder(relative, maildir=_holds_maildir(entry.path)) and not holds_page_parts(
                    entry.path):
                self._walk(entry.path, entry.stat(follow_symlinks=False))
        elif self.rules.admits_file(relative):
            self._file(entry.path, entry.stat(follow_symlinks=False))

    def _link(self, link: str) -> None:
        """The link rule, for one link found in (or given to) the walls."""
        try:
            real = os.path.realpath(link, strict=True)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                self._skip(link, LINK_LOOP, "a symbolic link loop: it leads back to itself")
            elif isinstance(exc, PermissionError):
                self._shut_link(link, exc)
            else:
                self._skip(link, BROKEN_LINK, f"a symbolic link to {os.readlink(link)!r}, which is not there")
            return
        if self.walls.home(real) is None:
            self._skip(link, LINK_OUTSIDE, f"a symbolic link out of the watched folders (to {real!r}): never read")
            return
        if _in_maildir_tmp(real) or self._made_here(real):
            return
        st = os.stat(real)
        if stat.S_ISDIR(st.st_mode):
            if _inside(link, real):
                self._skip(link, LINK_LOOP, f"a symbolic link to its own folder {real!r}: a loop")
            elif (st.st_dev, st.st_ino) not in self._visited and self.rules.admits_within(
                    self._relative(real), maildir=_holds_maildir(real)) and not self._in_page(real, itself=True):
                self.followed.append(stored_path(real))
                self._walk(real, st)
        elif self._admits(real):
            self._file(real, st, shown=link)


    def _shut_link(self, link: str, error: PermissionError) -> None:
        """A link whose target may be there, behind a folder one may not open
        (``chmod 000``, or ``444``): recorded ``unreadable``, naming that
        folder, and followed once it opens -- it was recorded
        ``broken-link``, "which is not there"; leading out of the walls
        through that folder, it is a link out."""
        target = os.path.realpath(link)  # as far as it may be resolved: up to the shut folder
        shut = blocked_by(target)
        if shut is not None and self.walls.home(shut) is None:
            self._skip(link, LINK_OUTSIDE, f"a symbolic link out of the watched folders (to {target!r}): never read")
        elif shut is not None:
            self._skip(link, UNREADABLE, f"a symbolic link to {os.readlink(link)!r}, in the folder {shut!r}, which "
                                         f"may not be opened: {error.strerror or error}")
        else:
            self._skip(link, UNREADABLE, _CANNOT_READ.format(error.strerror or error))


# File systems the kernel makes of its own state, not of anyone's files:
# indexing / read every process's /proc files (and blocked on some), each a
# failure, and watching it ran out of inotify watches in /sys.
_SYSTEM_FILESYSTEMS = frozenset({
    "proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2", "securityfs", "debugfs", "tracefs", "pstore",
    "bpf", "mqueue", "hugetlbfs", "configfs", "fusectl", "binfmt_misc", "efivarfs", "autofs", "rpc_pipefs",
    "nsfs", "selinuxfs"})


def system_filesystems() -> dict[int, str]:
    """The device numbers (``st_dev``) of the system's own file systems
    mounted now, with their types (Linux's ``/proc/self/mountinfo``; none
    elsewhere)."""
    found: dict[int, str] = {}
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as mounts:
            for line in mounts:
                fields, _, rest = line.partition(" - ")
                major, _, minor = (fields.split()[2:3] or ["0:0"])[0].partition(":")
                kind = rest.split(" ", 1)[0]
                if kind in _SYSTEM_FILESYSTEMS and major.isdigit() and minor.isdigit():
                    found[os.makedev(int(major), int(minor))] = kind
    except OSError:
        pass
    return found


def _first_link(path: str) -> str | None:
    """The first component of ``path`` that is a symbolic link (how it leaves the walls)."""
    parts = PurePath(path).parts
    for n in range(2, len(parts) + 1):
        prefix = os.path.join(*parts[:n])
        if os.path.islink(prefix):
            return prefix
    return None


def blocked_by(path: str) -> str | None:
    """The first folder on the way to ``path`` that may not be entered
    (``chmod 000``, or ``444``: r without x), or None: what is in it cannot
    be looked at, so a path in it is neither there nor gone -- ``stat``
    says EACCES, not ENOENT."""
    parts = PurePath(os.path.abspath(path)).parts
    for n in range(1, len(parts)):
        folder = os.path.join(*parts[:n])
        if _unentered(folder) is not None:
            return folder
    return None


def _unlisted(folder: str) -> str | None:
    """Why ``folder`` may not be listed (``chmod 000``), or None."""
    try:
        with os.scandir(folder):
            return None
    except OSError as exc:
        return _UNLISTED.format(exc.strerror or exc)


def _unentered(folder: str) -> str | None:
    """Why no name in ``folder`` may be looked up, though it may be listed
    (no x: ``chmod 444``, or ``000``), or None: its ``.`` is looked up in
    it as any name in it is.  (Gone meanwhile, it holds nothing to record.)"""
    try:
        os.stat(os.path.join(folder, "."))
    except PermissionError as exc:
        return _UNENTERED.format(exc.strerror or exc)
    except OSError:
        pass
    return None


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "named pipe (FIFO)"), (stat.S_ISSOCK, "socket"),
                       (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device")):
        if test(mode):
            return name
    return "special file"


def scan(root: Path, rules: FolderRules, base: Path | None = None) -> Iterator[Seen]:
    """Every admitted regular file at or under ``root`` (rules apply to the path
    relative to ``base``, the watched folder, when given), under the link rule
    with ``base`` (else ``root``) as the only wall."""
    walls = Walls.of([base or (root if root.is_dir() else root.parent)])
    scanner = Scanner(rules, walls)
    scanner.enter(os.path.abspath(os.path.expanduser(str(root))))
    yield from scanner.found.values()


@contextmanager
def opened_found(path: str) -> Iterator[BinaryIO | None]:
    """A file a scan found (a stored path), opened to be read in this
    process: None when it is a link made since the scan (not read here: the
    worker records why) or no longer a regular file -- opened without
    blocking (one replaced by a FIFO since the scan hung the run, waiting for
    a writer) and without touching its access time (a mail reader's new-mail
    mark) where the owner may.  An ``OSError`` is the caller's: unreadable."""
    disk = fs_path(path)
    if os.path.realpath(disk) != disk:
        yield None
        return
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        descriptor = os.open(disk, flags | getattr(os, "O_NOATIME", 0))
    except PermissionError:
        descriptor = os.open(disk, flags)
    with open(descriptor, "rb") as handle:
        yield handle if stat.S_ISREG(os.fstat(descriptor).st_mode) else None


def raw_sha1(path: str) -> str | None:
    """SHA-1 of the file's bytes (how a moved file is recognised), None if
    unreadable.  ``path`` is a stored path."""
    try:
        with opened_found(path) as handle:
            if handle is None:
                return None
            digest = hashlib.sha1()
            while chunk := handle.read(_READ_BYTES):
                digest.update(chunk)
            return digest.hexdigest()
    except OSError:
        return None


def _holds_maildir(folder: str) -> bool:
    """Whether a hidden folder is a Maildir: a Maildir++ mail folder (`.Sent`), which is read."""
    return os.path.basename(folder).startswith(".") and holds_maildir_folders(folder)


def holds_maildir_folders(folder: str) -> bool:
    """Whether a folder is a Maildir: its cur and new folders in it (and tmp, where mail is delivered)."""
    return all(os.path.isdir(os.path.join(folder, f)) for f in ("cur", "new"))


def _in_maildir_tmp(real: str) -> bool:
    """Whether a path is a Maildir's ``tmp`` or inside it.  A mail program
    writes a message there and, once whole, renames it into ``new``
    (maildir(5)); what is in ``tmp`` is a message being written, or one left
    by a delivery that failed: never a message to read, so never read, nor
    recorded as a failure.  Its ``cur`` and ``new`` beside it say it is a
    Maildir's (a project's ``tmp`` folder is read)."""
    folder = real
    while True:
        parent = os.path.dirname(folder)
        if parent == folder:
            return False
        if os.path.basename(folder) == "tmp" and holds_maildir_folders(parent):
            return True
        folder = parent
