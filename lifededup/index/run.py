"""``run()``: the indexing pipeline assembled from its stages --
scan -> skip unchanged (plan) -> extract (worker processes) -> fingerprint
(batches) -> store (batched transactions)."""

from __future__ import annotations

import threading
import time
from collections.abc import Generator, Iterable, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path

from lifededup.extract import Outcome, extract_many
from lifededup.fingerprint import DEFAULT_PARAMS
from lifededup.index.config import IndexConfig
from lifededup.index.order import in_scan_order
from lifededup.index.plan import Plan, known_under, plan, stored_elsewhere
from lifededup.index.progress import Progress, Quiet
from lifededup.index.scan import absolute, scan
from lifededup.index.write import IDENTIFY, BatchWriter, Tally
from lifededup.index.rules import FolderRules
from lifededup.store import Store, WatchedFolder

# over clusters, whose sha1 column is indexed (an index-only scan)
_EXACT = "SELECT count(*) - count(DISTINCT sha1) FROM clusters"
_NEAR = ("SELECT count(*) FROM clusters c JOIN clusters r ON r.item_id = c.cluster_id "
         "WHERE c.item_id != c.cluster_id AND c.sha1 != r.sha1")
_FAILURES = "SELECT count(*) FROM items WHERE status != 'ok'"
_TOUCH = ("UPDATE items SET size = :size, mtime = :mtime, raw_sha1 = :sha1 "
          "WHERE path = :path AND part = ''")


@dataclass
class Summary(Tally):
    """A run's counts (files unless said otherwise) and the store's duplicates after it.

    ``failed`` counts items (files or parts) that could not be read in this
    run; ``failed_in_store`` every item the store holds as failed, whose
    reasons ``lifededup failures`` lists.  ``exact_duplicates``: stored
    documents whose text is an exact copy of an earlier one;
    ``near_duplicates``: members of a cluster that differ from its
    representative (both None when the run was asked not to count them:
    they read the whole store).
    """

    exact_duplicates: int | None = None
    near_duplicates: int | None = None
    failed_in_store: int = 0
    seconds: float = 0.0
    interrupted: bool = False

    @property
    def read(self) -> int:
        return self.new + self.updated

    def then(self, later: Summary) -> Summary:
        """This run's counts plus a later one's; the store's state as after the later."""
        added = {f.name: getattr(self, f.name) + getattr(later, f.name) for f in fields(Tally)}
        return replace(later, **added, seconds=self.seconds + later.seconds,
                       interrupted=self.interrupted or later.interrupted)

    def as_dict(self) -> dict[str, object]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class Scope:
    """A path to index, under the rules of the folder it lies in (``base``:
    that watched folder, whose rules match paths relative to it)."""

    path: Path
    rules: FolderRules = FolderRules()
    base: Path | None = None


def run(store: Store, paths: Iterable[Path | str], config: IndexConfig = IndexConfig(), *,
        base: Path | None = None, progress: Progress = Quiet(),
        stop: threading.Event | None = None, duplicates: bool = True) -> Summary:
    """Bring the store in line with the files at or under ``paths``: read new
    and changed files, follow moves, forget files that are gone.

    ``base``: the watched folder the paths lie in (its rules match paths
    relative to it).  ``stop``: set it (from a signal handler, another thread)
    to end the run after the batch in flight is committed; the summary then
    says ``interrupted`` and the next run finishes the work.  The user's files
    are only ever read.
    """
    scopes = [Scope(absolute(p), config.rules, base) for p in paths]
    return run_scopes(store, scopes, config, progress=progress, stop=stop, duplicates=duplicates)


def run_in_folders(store: Store, paths: Iterable[Path | str], folders: Sequence[WatchedFolder],
                   config: IndexConfig = IndexConfig(), *, progress: Progress = Quiet(),
                   stop: threading.Event | None = None, duplicates: bool = True) -> Summary:
    """:func:`run` for paths that may lie in watched folders: each path in a
    watched folder is indexed under that folder's patterns (as the watcher
    does), the others under ``config.rules``.  One run for all of them, so a
    file moved from one folder to another keeps its item."""
    scopes = []
    for path in map(absolute, paths):
        home = max((f for f in folders if _inside(path, f.path)), key=lambda f: len(f.path), default=None)
        scopes.append(Scope(path, config.rules) if home is None
                      else Scope(path, FolderRules.of(home), Path(home.path)))
    return run_scopes(store, scopes, config, progress=progress, stop=stop, duplicates=duplicates,
                      homes=[f.path for f in folders])


def run_scopes(store: Store, scopes: Sequence[Scope], config: IndexConfig = IndexConfig(), *,
               progress: Progress = Quiet(), stop: threading.Event | None = None, duplicates: bool = True,
               homes: Sequence[str] = ()) -> Summary:
    """One run over several paths, each under its own rules: one plan, so a
    file that vanished from one path and appeared under another is a move.
    ``homes``: the watched folders, where a moved file may have come from."""
    started = time.monotonic()
    tally = Tally()
    # a dict: overlapping paths (a folder and a file in it) find a file once
    found = {seen.path: seen for s in scopes for seen in scan(s.path, s.rules, s.base)}
    roots = [str(s.path) for s in scopes]
    todo = plan(found.values(), known_under(store, roots, reread_scans=config.limits.ocr), stored_elsewhere(store, [*homes, *roots]))
    _follow(store, todo, tally)
    interrupted = _read(store, todo, config, tally, progress, stop)
    return _summary(store, tally, started, interrupted, duplicates)


def _inside(path: Path, folder: str) -> bool:
    return str(path) == folder or str(path).startswith(folder.rstrip("/") + "/")


def _follow(store: Store, todo: Plan, tally: Tally) -> None:
    """Moves, removals and refreshed stats: one transaction, before any reading."""
    with store.transaction():
        for old, new in todo.moves:
            store.move_item(old, new)
        if todo.removals:
            store.remove_items(todo.removals)
        for seen, sha1, identity in todo.touched:
            store.execute(_TOUCH, {"size": seen.size, "mtime": seen.mtime, "sha1": sha1, "path": seen.path})
            if identity is not None:
                store.execute(IDENTIFY, {"path": seen.path, "device": identity[0], "inode": identity[1]})
        for path, (device, inode) in todo.identified:
            store.execute(IDENTIFY, {"path": path, "device": device, "inode": inode})
    tally.moved, tally.removed = len(todo.moves), len(todo.removals)
    tally.unchanged = todo.unchanged


def _read(store: Store, todo: Plan, config: IndexConfig, tally: Tally, progress: Progress,
          stop: threading.Event | None) -> bool:
    """Extract, fingerprint and store the files to read; True if stopped early."""
    if not todo.to_read:
        return False
    params = config.params or store.params or DEFAULT_PARAMS
    to_read = {t.seen.path: t for t in todo.to_read}
    writer = BatchWriter(store, params, to_read, tally, progress, config.batch_items, config.batch_seconds)
    workers = max(1, min(config.workers, len(to_read)))
    outcomes: Generator[Outcome, None, None] = extract_many(list(to_read), config.limits, workers=workers)
    progress.start(len(to_read))
    stopped = False
    try:
        with writer.in_background():
            for outcome in in_scan_order(outcomes, list(to_read)):
                writer.add(outcome)
                if stop is not None and stop.is_set():
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
    return Summary(**counts, exact_duplicates=exact, near_duplicates=near,
                   failed_in_store=_count(store, _FAILURES), seconds=time.monotonic() - started,
                   interrupted=interrupted)


def _count(store: Store, sql: str) -> int:
    value = store.execute(sql)[1][0][0]
    return int(value) if isinstance(value, int) else 0
