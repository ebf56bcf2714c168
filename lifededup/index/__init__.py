"""The indexer: keeps the store true to the files in some folders.

Public API
----------
``run(store, paths, config=IndexConfig(), *, base=None, walls=None, progress=Quiet(), stop=None, duplicates=True) -> Summary``
    One pass over the files at or under ``paths`` (folders or single files):
    new and changed files are read (``extract_many``, one worker process per
    core), fingerprinted a batch at a time (``fingerprint_many``) and written a
    batch per transaction; unchanged files cost one ``stat`` (then, if the
    stat differs, a raw SHA-1); a new file that is a stored file gone from
    disk -- same bytes, or same inode and name -- under the paths or in a
    watched folder is a move (``Store.move_item``: item and cluster kept;
    see ``plan``); files gone are removed with cluster repair; files that fail are
    recorded with their reason and the run goes on, as is every path the
    scan passes over (``Skipped``: a link out of the walls or into a loop, a
    FIFO, an unreadable folder).  Nothing outside ``walls`` (default: the
    watched folder ``base``, else the paths) is read: the link rule,
    README "Links".  Interrupted (``stop``
    set, Ctrl-C, kill -9), the store is left consistent and the next run
    finishes the work.  The user's files are only read, never written.
    ``duplicates=False`` skips counting the store's duplicates (a read of the
    whole store) for callers that do not show them, such as the watcher.
    While it runs, batches are written from a thread of its own: use
    ``store`` for nothing else until it returns.  Every file is
    ``store.machine``'s: on a store shared by several machines a run reads,
    moves and removes only that machine's items (moves are followed among
    them), and an SQLite store holding a path as another machine's file is
    refused before anything is read (``UnsupportedStore``).

``run_in_folders(store, paths, folders, config, *, progress, stop, duplicates) -> Summary``
    :func:`run` with each path under the patterns of the watched folder it
    lies in (what ``lifededup index`` and the watcher call, so they agree),
    all in one plan: a file moved from one watched folder to another keeps
    its item.  ``unsettled`` (paths) and ``changing(seen)`` (a predicate):
    the files still being written, which a failed read records nothing of
    (``Summary.deferred``: the watcher reads them again once still).
``run_scopes(store, scopes, config, ...)``, ``Scope(path, rules, base)``: the same over paths with rules of their own

``IndexConfig(workers, limits, rules, params, batch_items, batch_seconds, max_text_chars)``, ``max_workers()``
``FolderRules(include, exclude, hidden)``, ``is_junk(name)``, ``page_parts_of(page)``: which files are indexed
``Summary``: new, updated, unchanged, moved, removed, failed, exact/near duplicates
``Progress`` (protocol), ``Quiet``, ``LogLines(write)``, ``Bar()``: progress reporting
``scan(root, rules, base=None) -> Iterator[Seen]``, ``absolute(path)``;
``blocked_by(path)``: the folder on its way that may not be entered (why it cannot be looked at);
``Scanner(rules, Walls.of(folders))``: ``enter(path)``, then ``found``,
``skipped`` (``Skipped(path, status, reason)``) and ``followed``
``failures(store, limit=None) -> list[FailedItem]``: what could not be read, and why
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lifededup import lazy_names
from lifededup.index.config import IndexConfig, default_workers, max_workers
from lifededup.store.failures import FailedItem, failures
from lifededup.index.progress import Bar, LogLines, Progress, Quiet
from lifededup.index.rules import FolderRules, is_junk, page_parts_of
from lifededup.index.scan import Scanner, Seen, Skipped, Walls, absolute, blocked_by, scan

# The run itself (extraction, fingerprinting, the store's writer: numpy and
# SQLAlchemy) is imported when first used: `lifededup index --help` and
# the watcher's commands that only read options or files start without it.
if TYPE_CHECKING:
    from lifededup.index.run import Scope, Summary, failed_in_store, run, run_in_folders, run_scopes

__getattr__ = lazy_names(__name__, {name: ("lifededup.index.run", name) for name in
                                    ("Scope", "Summary", "failed_in_store", "run", "run_in_folders", "run_scopes")})

__all__ = [
    "Bar", "FailedItem", "FolderRules", "IndexConfig", "LogLines", "Progress", "Quiet", "Scanner", "Scope", "Seen",
    "Skipped", "Summary", "Walls", "absolute", "blocked_by", "default_workers", "failed_in_store", "failures",
    "is_junk", "max_workers", "page_parts_of", "run",
    "run_in_folders", "run_scopes", "scan",
]
