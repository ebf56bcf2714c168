"""Watching folders: keep the store true to them as they change.

Public API
----------
``Watcher(store, folders, config, stop, *, delay=2.0, rescan_every=3600.0,
retry_after=30.0, clock=time.monotonic, ignore=(), on_status=None).run()``
    Follows watchdog events in ``folders`` (``WatchedFolder`` rows) until
    ``stop`` is set: first a catch-up scan, then each changed path once it is
    stable (``Debouncer``: no events for ``delay`` seconds and size and mtime
    unchanged, on ``clock``), indexed through ``lifededup.index.run_in_folders``
    over all folders at once (so moves, also from one watched folder to
    another, keep their items; deletions repair clusters); a full rescan every
    ``rescan_every`` seconds.  Work the store refuses -- locked, a full disk,
    its server down or restarting (``store.is_unavailable``) -- is logged
    and tried again after ``retry_after`` seconds, the changed paths with
    it.  ``on_status(WatchStatus)`` hears what it does.

``Debouncer(delay, clock)``: ``note(path, partner)``, ``settled()``, ``next_due()``.

The daemon (``lifededup.watch.daemon``): ``start(argv, paths) -> int``,
``stop(paths) -> int | None`` (returns once the watcher and its workers are
gone), ``read_status(paths) -> DaemonStatus``, ``DaemonPaths.default()``
(pid, log and status files in the user's state folder);
``systemd_unit(Unit(command, store, folders, environment)) -> str`` (refuses,
with ``DaemonError``, a unit that could not work), ``install(unit, path,
paths, enable=True)``, ``uninstall(path)``, ``user_unit_path()``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lifededup import lazy_names
from lifededup.watch.debounce import Debouncer
from lifededup.watch.status import DEFAULT_DELAY_S, DEFAULT_RESCAN_S, FOLLOW_S, RETRY_S, WatchStatus

# The watcher (watchdog, the indexer, SQLAlchemy) is imported when first used.
if TYPE_CHECKING:
    from lifededup.watch.watcher import Watcher

__getattr__ = lazy_names(__name__, {"Watcher": ("lifededup.watch.watcher", "Watcher")})

__all__ = ["DEFAULT_DELAY_S", "DEFAULT_RESCAN_S", "FOLLOW_S", "RETRY_S", "Debouncer", "WatchStatus", "Watcher"]
