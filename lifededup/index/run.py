"""``run()``: the indexing pipeline assembled from its stages --
scan -> skip unchanged (plan) -> extract (worker processes) -> fingerprint
(batches) -> store (batched transactions)."""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable, Generator, Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path, PurePath

from lifededup.extract import Outcome, extract_many
from lifededup.extract.isolate import as_said
from lifededup.extract.mbox import GrownMailboxes
from lifededup.extract.registry import extract_source, kind_by_name
from lifededup.extract.renamed import LINK_MIME, renamed_title, titled_by_name
from lifededup.fingerprint import DEFAULT_PARAMS
from lifededup.index.config import IndexConfig, max_workers
from lifededup.index.order import in_scan_order
from lifededup.index.plan import Known, Plan, StoredElsewhere, known_under, plan, stored_messages
from lifededup.index.progress import Progress, Quiet
from lifededup.index.scan import UNREADABLE, Scanner, Seen, Skipped, Walls, absolute
from lifededup.index.write import IDENTIFY, BatchWriter, Tally
from lifededup.index.rules import FolderRules
from lifededup.model import fs_path, stored_path
from lifededup.store import ItemRecord, Store, WatchedFolder
from lifededup.store.failures import failed_counts

# over clusters, whose sha1 column is indexed (an index-only scan)
_EXACT = "SELECT count(*) - count(DISTINCT sha1) FROM clusters"
# the texts of each cluster besides its representative's, each counted once (its exact copies are _EXACT's):
# the two add up to the items a collapsed search hides
_NEAR = ("SELECT (SELECT count(*) FROM (SELECT DISTINCT cluster_id, sha1 FROM clusters) AS texts) "
         "- (SELECT count(DISTINCT cluster_id) FROM clusters)")
# by path: this machine's (revision 0009)
_STATUS_OF = "SELECT status, error FROM items WHERE path = :path AND part = '' AND machine = :machine"
_TOUCH = ("UPDATE items SET size = :size, mtime = :mtime, raw_sha1 = :sha1 "
          "WHERE path = :path AND part = '' AND machine = :machine")
# a moved file's own failure reason, which names it (_named_anew)
_REASON_OF = "SELECT id, error FROM items WHERE path = :path AND part = '' AND machine = :machine AND error IS NOT NULL"
_SET_REASON = "UPDATE items SET error = :error WHERE id = :id"
# a moved file's own title, and its text where it may be a man page's link (extract.renamed.titled_by_name)
_TITLED_AT = ("SELECT id, kind, mime_type, title, CASE WHEN mime_type = :link THEN text END FROM items "
              "WHERE path = :path AND part = '' AND machine = :machine AND title IS NOT NULL")


@dataclass
class Summary(Tally):
    """A run's counts (files unless said otherwise) and the store's duplicates after it.

    ``failed`` counts items (files or parts) that could not be read in this
    run; ``failed_in_store`` every item the store holds as failed, whose
    reasons ``lifededup failures`` lists, and ``failed_here`` this machine's
    of them (on a shared store the others are other computers' to fix).
    ``exact_duplicates``: stored documents whose text is an exact copy of
    an earlier one;
    ``near_duplicates``: the texts of a cluster other than its
    representative's, each once -- with the exact ones, the items a
    collapsed search hides (both None when the run was asked not to count
    them: they read the whole store).  ``deferred``: the files still being
    written (``unsettled``) that could not be read, and why: nothing of them
    was recorded.
    """

    exact_duplicates: int | None = None
    near_duplicates: int | None = None
    failed_in_store: int = 0
    failed_here: int = 0
    seconds: float = 0.0
    interrupted: bool = False
    deferred: dict[str, str] = field(default_factory=dict)

    @property
    def read(self) -> int:
        return self.new + self.updated

    def vanished_words(self) -> str:
        """The files that vanished while read, for a summary line ("" when none did)."""
        return f", vanished {self.vanished:,} (deleted or moved while read)" if self.vanished else ""

    def then(self, later: Summary) -> Summary:
        """This run's counts plus a later one's; the store's state as after the later."""
        added = {f.name: getattr(self, f.name) + getattr(later, f.name) for f in fields(Tally)}
        return replace(later, **added, seconds=self.seconds + later.seconds,
                       interrupted=self.interrupted or later.interrupted, deferred={**self.deferred, **later.deferred})

    def as_dict(self) -> dict[str, object]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class Scope:
    """A path to index, under the rules of the folder it lies in (``base``:
    that watched folder, whose rules match paths relative to it) and the
    link rule's ``walls`` (README "Links"): the folders nothing may be read
    outside of."""

    path: str
    rules: FolderRules = FolderRules()
    base: Path | None = None
    walls: tuple[str, ...] = ()


def run(store: Store, paths: Iterable[Path | str], config: IndexConfig = IndexConfig(), *,
        base: Path | None = None, walls: Sequence[Path | str] | None = None, progress: Progress = Quiet(),
        stop: threading.Event | None = None, duplicates: bool = True) -> Summary:
    """Bring the store in line with the files at or under ``paths``: read new
    and changed files, follow moves, forget files that are gone, record every
    path passed over (a link out of the folders, a FIFO, an unreadable
    folder) with its reason.

    ``base``: the watched folder the paths lie in (its rules match paths
    relative to it).  ``walls``: the folders nothing may be read outside of
    (the link rule, README "Links"); default ``base``, else ``paths`` themselves
    (a link named as a path is followed: it was chosen).  ``stop``: set it
    (from a signal handler, another thread) to end the run after the batch in
    flight is committed; the summary then says ``interrupted`` and the next
    run finishes the work.  The user's files are only ever read.
    """
    if base is not None:
        given = [os.path.abspath(os.path.expanduser(os.fspath(p))) for p in paths]
    else:
        given = [str(absolute(p)) for p in paths]
    fence = tuple(str(w) for w in (walls or ([base] if base is not None else given)))
    scopes = [Scope(path, config.rules, base, fence) for path in given]
    return run_scopes(store, scopes, config, progress=progress, stop=stop, duplicates=duplicates)


def run_in_folders(store: Store, paths: Iterable[Path | str], folders: Sequence[WatchedFolder],
                   config: IndexConfig = IndexConfig(), *, progress: Progress = Quiet(),
                   stop: threading.Event | None = None, duplicates: bool = True, named: bool = True,
                   watched: Callable[[], list[str]] | None = None, unsettled: Iterable[str] = (),
                   changing: Callable[[Seen], bool] | None = None) -> Summary:
    """:func:`run` for paths that may lie in watched folders: each path in a
    watched folder is indexed under that folder's patterns (as the watcher
    does), with the watched folders as its walls.  One run for all of them,
    so a file moved from one folder to another keeps its item.

    ``named`` (``lifededup index PATH``): the user chose the paths, so a link
    named is followed and a path outside every watched folder is indexed
    under ``config.rules``, a wall of its own.  ``named=False`` (the watcher's
    events): paths are taken as they are, for the link rule to judge, and a
    path outside every watched folder is never read.

    ``unsettled``: paths of files still being written (the watcher's, taken
    while written to without a pause): one that cannot be read is recorded
    nothing -- the store keeps what it had, the previous good item or
    nothing -- and is named in ``Summary.deferred``, to be read again once
    it is still.  ``changing(seen)``: whether a file found (``seen``: its
    size and mtime when the scan found it) that could not be read is still
    being written all the same -- the watcher's judgement, for the files its
    rescan meets mid-download, which no event marked: deferred alike."""
    by_path = {fs_path(f.path): f for f in folders}
    scopes = []
    for given in paths:
        path = str(absolute(given)) if named else os.path.abspath(os.fspath(given))
        home = max((f for f in by_path if _inside(Path(path), f)), key=len, default=None)
        if home is not None:
            scopes.append(Scope(path, FolderRules.of(by_path[home]), Path(home), tuple(by_path)))
        elif named:
            scopes.append(Scope(path, config.rules, None, (path,)))
    return run_scopes(store, scopes, config, progress=progress, stop=stop, duplicates=duplicates,
                      homes=[f.path for f in folders], watched=watched, admits=_innermost_rules(by_path),
                      unsettled=unsettled, changing=changing)


def _innermost_rules(by_path: dict[str, WatchedFolder]) -> Callable[[str], bool] | None:
    """Where a watched folder lies inside another (``~/archive/Mail`` with
    its own ``--include '*.eml'``), whether a file found is admitted by the
    innermost folder's patterns: the scan of the outer folder walks the
    inner one by the outer's, and ``index ~/archive`` and ``index
    ~/archive/Mail`` took a file in and out in turn, under a new id each
    time.  None where no folder lies inside another."""
    homes = sorted(by_path, key=len, reverse=True)  # the innermost first
    if not any(_inside(Path(inner), outer) for inner in homes for outer in homes if inner != outer):
        return None
    rules = {home: FolderRules.of(by_path[home]) for home in homes}

    def admits(stored: str) -> bool:
        path = fs_path(stored)
        home = next((h for h in homes if _inside(Path(path), h)), None)
        return home is None or rules[home].admits(PurePath(os.path.relpath(path, home)))

    return admits


def run_scopes(store: Store, scopes: Sequence[Scope], config: IndexConfig = IndexConfig(), *,
               progress: Progress = Quiet(), stop: threading.Event | None = None, duplicates: bool = True,
               homes: Sequence[str] = (), watched: Callable[[], list[str]] | None = None,
               admits: Callable[[str], bool] | None = None, unsettled: Iterable[str] = (),
               changing: Callable[[Seen], bool] | None = None) -> Summary:
    """One run over several paths, each under its own rules and walls: one
    plan, so a file that vanished from one path and appeared under another is
    a move.  ``homes``: the watched folders (stored form), where a moved file
    may have come from.  ``watched``: the folders still watched, asked in
    each batch's transaction (the watcher of the store's folders): a file
    read under one removed since is not written, and the run stops there
    (interrupted), for the watcher to take the change up.  ``admits``: a
    file found that it refuses is left out (a nested watched folder's
    patterns, ``_innermost_rules``); ``unsettled``, ``changing``: see :func:`run_in_folders`."""
    started = time.monotonic()
    found: dict[str, Seen] = {}
    skipped: dict[str, Skipped] = {}
    roots: list[str] = []
    walls: set[str] = set()
    for scope in scopes:
        scanner = Scanner(scope.rules, Walls.of(scope.walls or (scope.path,)))
        walls.update(scanner.walls.folders)
        roots += scanner.enter(scope.path)
        roots += scanner.followed
        # a dict: overlapping paths (a folder and a file in it) find a file once
        found.update(scanner.found)
        skipped.update(scanner.skipped)
    # a store kept in a folder it indexes is not one of its files: read, they
    # were 'unsupported' and 'empty' failures, read again every run (they
    # change with every write)
    for own in map(stored_path, store.location.own_files()):
        found.pop(own, None)
        skipped.pop(own, None)
    if admits is not None:
        found = {path: seen for path, seen in found.items() if admits(path)}
    known = known_under(store, roots, config.limits)  # another machine's files in an SQLite store: refused
    # another computer of this name is refused before anything is read or
    # written -- and the name is claimed only by a run that goes on
    store.claim_machine()
    _keep_skipped(known, skipped.values())
    if config.reread:
        _mark_unread(store, known, found)
    todo = plan(found.values(), known, StoredElsewhere(store, [*homes, *roots]), reread=config.reread,
                messages=stored_messages(store), hash_up_to=config.limits.max_bytes)
    tally = Tally()
    _follow(store, todo, tally, list(skipped.values()), known)
    # the scan's form of each path: real, stored
    writing = frozenset(stored_path(os.path.realpath(os.fspath(p))) for p in unsettled)
    deferred: dict[str, str] = {}
    interrupted = _read(store, todo, config, tally, progress, stop, watched, sorted(walls), writing, deferred,
                        changing)
    return replace(_summary(store, tally, started, interrupted, duplicates), deferred=deferred)


# A file item marked half written: the next run reads it again (revision 0014's mark)
_UNREAD = "UPDATE items SET mtime = NULL WHERE machine = :machine AND path = :path AND part = ''"


def _mark_unread(store: Store, known: dict[str, Known], found: Iterable[str]) -> None:
    """Every known file found read again (``--reread``), marked in the store
    first, so that a run interrupted is finished by the next ``index`` or
    rescan rather than started over.  Files gone are not marked: one moved
    is still followed (a half-written item is no move's source)."""
    again = [path for path in found if path in known]
    if not again:
        return
    with store.transaction() as conn:
        conn.exec_driver_sql(_UNREAD, [{"machine": store.machine, "path": path} for path in again])
    for path in again:
        known[path] = replace(known[path], mtime=None)


def _keep_skipped(known: dict[str, Known], skipped: Iterable[Skipped]) -> None:
    """A path passed over keeps its record; the items under a folder that
    cannot be listed now are kept until it can (as for an unplugged disk)."""
    for item in skipped:
        known.pop(item.path, None)
        if item.status == UNREADABLE:
            for path in [p for p in known if p.startswith(item.path.rstrip("/") + "/")]:
                del known[path]


def _inside(path: Path, folder: str) -> bool:
    return str(path) == folder or str(path).startswith(folder.rstrip("/") + "/")


def _follow(store: Store, todo: Plan, tally: Tally, skipped: list[Skipped], known: dict[str, Known]) -> None:
    """Moves, removals, refreshed stats and paths passed over: one transaction, before any reading.
    A record of a file that vanished as it was read, forgotten now it is gone, is not counted removed:
    its run counted it vanished -- the watcher said "vanished 17", then "removed 17" of the same files
    (a folder copied in and deleted while read)."""
    with store.transaction():
        # checked under the write lock (the run's start checked before its plan): stats refreshed by an older
        # lifededup into a store a newer one upgraded meanwhile would spend its marks to read files again
        store.claim_machine()
        passed_over = _record_skipped(store, skipped)  # files, each failed whole
        tally.failed += passed_over
        tally.failed_files += passed_over
        again = {t.seen.path for t in todo.to_read}
        for old, new in todo.moves:
            store.move_item(old, new)
            _name_moved(store, old, new)
            if new in again:
                # to be read again under its item (changed, or renamed to be read otherwise), its stat
                # still the old file's -- which a rename keeps: marked half written, so that a run
                # stopped before the read leaves it to the next one, not taken for unchanged
                store.execute(_UNREAD, {"machine": store.machine, "path": new})
        if todo.removals:
            store.remove_items(todo.removals)
        # (a statement a file: after a `touch` of 20,000 files, as many round trips to a server, unless sent together)
        store.execute_many(_TOUCH, [{"size": seen.size, "mtime": seen.mtime, "sha1": sha1, "path": seen.path,
                                     "machine": store.machine} for seen, sha1, _ in todo.touched])
        store.execute_many(IDENTIFY, [
            *({"path": seen.path, "device": identity[0], "inode": identity[1], "machine": store.machine}
              for seen, _, identity in todo.touched if identity is not None),
            *({"path": path, "device": device, "inode": inode, "machine": store.machine}
              for path, (device, inode) in todo.identified)])
    tally.moved = len(todo.moves)
    tally.removed = sum(path not in known or known[path].status != "vanished" for path in todo.removals)
    tally.unchanged = todo.unchanged


def _name_moved(store: Store, old: str, new: str) -> None:
    """A file moved keeps its record: if it failed, the reason its reader
    gave names it by the name it has now.  `failures` listed a too-large
    file moved to ``Images/vm.pdf`` as "disk.pdf is 257 MiB, over the 256 MiB
    limit", a name no file has any more.  So does the title of a file its
    reader titled by its name (:mod:`lifededup.extract.renamed`: a mailbox,
    an archive), as reading it again would: search and `show` named
    ``old.mbox`` after it became ``2023.mbox``."""
    # the names as the reader had them: a stored name's escapes undone (model.stored_path)
    old_name, new_name = (os.path.basename(fs_path(path)) for path in (old, new))
    said = as_said(old_name), as_said(new_name)  # as its reason says them: odd bytes U+FFFD
    _, rows = store.execute(_REASON_OF, {"path": new, "machine": store.machine})
    for item_id, reason in rows:
        renamed = _named_anew(str(reason), *said)
        if renamed != reason:
            store.execute(_SET_REASON, {"error": renamed, "id": item_id})
    _retitle_moved(store, new, old_name, new_name)


def _retitle_moved(store: Store, new: str, old_name: str, new_name: str) -> None:
    """The file's own item at ``new`` titled anew, if its title was its old
    name (the file is not read): its names as the reader had them."""
    _, rows = store.execute(_TITLED_AT, {"path": new, "machine": store.machine, "link": LINK_MIME})
    for item_id, kind, mime, title, link_text in rows:
        if not titled_by_name(str(kind), None if mime is None else str(mime),
                              None if link_text is None else str(link_text)):
            continue
        retitled = renamed_title(str(title), old_name, new_name)
        if retitled is not None and retitled != title:
            store.retitle(int(str(item_id)), retitled)


def _named_anew(reason: str, old: str, new: str) -> str:
    """``reason`` with the file's ``old`` name turned ``new``: readers name
    the file in what they say of it (``disk.pdf is 257 MiB, over the 256 MiB
    limit``, ``damaged x.docx: ...``, ``cannot read x.odt: ...``).  Only
    where the old name stands once, as a name -- between spaces, a colon or
    the ends of the reason: a name that is also a word of it (a file called
    ``read``: "cannot read read: ...") is left as it was rather than changed
    in the wrong place."""
    found = list(re.finditer(rf"(?:^|(?<=\s)){re.escape(old)}(?=[\s:]|$)", reason)) if old != new else []
    if len(found) != 1:
        return reason
    return reason[:found[0].start()] + new + reason[found[0].end():]


def _record_skipped(store: Store, skipped: list[Skipped]) -> int:
    """Record each path passed over, unless it is recorded so already; how many were new."""
    recorded = 0
    for item in skipped:
        _, rows = store.execute(_STATUS_OF, {"path": item.path, "machine": store.machine})
        if [tuple(r) for r in rows] == [(item.status, item.reason)]:
            continue
        if rows:  # was a file, or passed over for another reason: its parts go too
            store.remove_items([item.path])
        store.record_failure(ItemRecord(path=item.path, kind=kind_by_name(os.path.basename(item.path))), item.reason,
                             status=item.status)
        recorded += 1
    return recorded


def _read(store: Store, todo: Plan, config: IndexConfig, tally: Tally, progress: Progress,
          stop: threading.Event | None, watched: Callable[[], list[str]] | None = None,
          walls: Sequence[str] = (), unsettled: frozenset[str] = frozenset(),
          deferred: dict[str, str] | None = None, changing: Callable[[Seen], bool] | None = None) -> bool:
    """Extract, fingerprint and store the files to read; True if stopped early.
    The workers read nothing outside ``walls`` (README "Links"); the files
    still being written (``unsettled``, or found so by ``changing``) that
    could not be read are put in ``deferred``, not recorded."""
    if not todo.to_read:
        return False
    params = config.params or store.params or DEFAULT_PARAMS
    to_read = {t.seen.path: t for t in todo.to_read}
    writer = BatchWriter(store, params, to_read, tally, progress, config.batch_items, config.batch_seconds,
                         watched=watched, unsettled=unsettled, deferred={} if deferred is None else deferred,
                         changing=changing)
    workers = max(1, min(config.workers, max_workers(), len(to_read)))
    # mailboxes that grew are read from where they grew (plan.Grown)
    grown = {fs_path(t.seen.path): (t.grown.offset, t.grown.end, t.grown.messages)
             for t in todo.to_read if t.grown is not None}
    # the scan's real paths: one made a link since is not read (it may lead out of the folders)
    outcomes: Generator[Outcome, None, None] = extract_many(
        list(to_read), config.limits, workers=workers, extractor=GrownMailboxes(grown) if grown else extract_source,
        max_text_chars=config.max_text_chars, real=True, walls=walls)
    progress.listed({path: (t.seen.size, t.seen.mtime) for path, t in to_read.items()})
    progress.start(len(to_read))
    stopped = False
    try:
        with writer.in_background():
            for outcome in in_scan_order(outcomes, list(to_read)):
                writer.add(outcome)
                if (stop is not None and stop.is_set()) or writer.dropped.is_set():
                    stopped = True
                    break
            writer.flush()
    finally:
        outcomes.close()
        progress.finish()
    return stopped


def _summary(store: Store, tally: Tally, started: float, interrupted: bool, duplicates: bool) -> Summary:
    counts = {f.name: getattr(tally, f.name) for f in fields(tally)}
    exact, near = (_count(store, _EXACT), _count(store, _NEAR)) if duplicates else (None, None)
    failed, here = failed_counts(store)
    return Summary(**counts, exact_duplicates=exact, near_duplicates=near, failed_in_store=failed, failed_here=here,
                   seconds=time.monotonic() - started, interrupted=interrupted)


def failed_in_store(store: Store) -> int:
    """The items the store holds as failed (every machine's): what a summary and the watcher's status count."""
    return failed_counts(store)[0]


def _count(store: Store, sql: str) -> int:
    value = store.execute(sql)[1][0][0]
    return int(value) if isinstance(value, int) else 0
