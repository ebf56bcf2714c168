"""``lifededup folders``, ``lifededup watch`` and ``lifededup daemon``: keeping
the store true to folders as they change."""

from __future__ import annotations

import logging
import os
import shutil
import sys
import threading
import time
from datetime import datetime
from pathlib import Path

import click

from lifededup.cli import main
from lifededup.cli.index import stop_on_signals
from lifededup.cli.options import DELAY, SECONDS, TEXT_MB, db_option, opened_store
from lifededup.index import IndexConfig, absolute, default_workers, max_workers
from lifededup.model import stored_path
from lifededup.store import WatchedFolder, add_folder, list_folders, remove_folder
from lifededup.watch import DEFAULT_DELAY_S, DEFAULT_RESCAN_S, Watcher, WatchStatus
from lifededup.watch import daemon as daemons


@main.group("folders")
def folders_group() -> None:
    """The folders the watcher keeps indexed (kept in the store).

    \b
    Example:
      lifededup folders add ~/Documents --exclude 'node_modules'
      lifededup folders list
    """


@folders_group.command("add")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--include", multiple=True, metavar="GLOB",
              help="Index only files matching this (repeatable), e.g. '*.pdf' or 'Mail/*.mbox'.")
@click.option("--exclude", multiple=True, metavar="GLOB",
              help="Never index files or folders matching this (repeatable), e.g. 'node_modules'.")
@db_option
def folders_add(paths: tuple[Path, ...], include: tuple[str, ...], exclude: tuple[str, ...], db: str | None) -> None:
    """Watch PATHS (hidden and junk files are always skipped).  Adding a
    folder again replaces its patterns.

    \b
    Example:
      lifededup folders add ~/Documents ~/Mail --exclude '*.iso'
    """
    with opened_store(db) as store:
        for path in paths:
            folder = add_folder(store, stored_path(str(absolute(path))), include, exclude)
            click.echo(f"watching {_describe(folder)}")
    click.echo("index them now with `lifededup watch` (or `lifededup daemon start`)")


@folders_group.command("remove")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@db_option
def folders_remove(paths: tuple[Path, ...], db: str | None) -> None:
    """Stop watching PATHS.  Their items stay in the store.

    \b
    Example:
      lifededup folders remove ~/Downloads
    """
    with opened_store(db) as store:
        for path in paths:
            if not remove_folder(store, stored_path(str(absolute(path)))):
                raise click.ClickException(f"{path} is not watched; see `lifededup folders list`")
            click.echo(f"no longer watching {stored_path(str(absolute(path)))}")


@folders_group.command("list")
@db_option
def folders_list(db: str | None) -> None:
    """List the watched folders, their patterns and when each was last scanned.

    \b
    Example:
      lifededup folders list
    """
    with opened_store(db) as store:
        folders = list_folders(store)
    for folder in folders:
        scanned = folder.last_scanned_at.strftime("%Y-%m-%d %H:%M UTC") if folder.last_scanned_at else "never"
        click.echo(f"{_describe(folder)}  (last scanned {scanned})")
    if not folders:
        click.echo("no watched folders: lifededup folders add PATH")


def _describe(folder: WatchedFolder) -> str:
    patterns = [f"include {p}" for p in folder.include] + [f"exclude {p}" for p in folder.exclude]
    return folder.path + (f"  [{', '.join(patterns)}]" if patterns else "")


class _StatusFile:
    """Writes the watcher's status for ``daemon status``: when its state changes, else at most once a second."""

    def __init__(self, paths: daemons.DaemonPaths, store: str) -> None:
        self.paths, self.store, self.last, self.state = paths, store, 0.0, ""

    def __call__(self, status: WatchStatus) -> None:
        now = time.monotonic()
        if now - self.last >= 1.0 or status.state != self.state:
            self.last, self.state = now, status.state
            daemons.write_status(self.paths, status, self.store)


@main.command("watch")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--delay", type=DELAY, default=DEFAULT_DELAY_S, show_default=True,
              help="Seconds a file must stay unchanged before it is read.")
@click.option("--rescan", type=SECONDS, default=DEFAULT_RESCAN_S, show_default=True,
              help="Seconds between full rescans (they catch events the system dropped).")
@click.option("--workers", "-j", type=click.IntRange(1, max_workers()), default=default_workers,
              show_default="one per core", help="Extraction worker processes (at most 4 per core).")
@click.option("--max-text-mb", type=TEXT_MB, default=IndexConfig.max_text_chars / 2**20, show_default=True,
              help="The most text kept of one item, in millions of characters (Mi); a longer text is cut "
              "and the cut recorded (items.text_cut).")
@db_option
def watch_command(paths: tuple[Path, ...], delay: float, rescan: float, workers: int, max_text_mb: float,
                  db: str | None) -> None:
    """Watch folders and keep the store true to them, in the foreground (for
    a terminal or systemd; `lifededup daemon start` runs it in the background).

    It first catches up with a scan, then indexes each created, changed,
    moved or deleted file once it is stable.  Without PATHS it watches the
    folders of `lifededup folders list`.  Ctrl-C or SIGTERM commits the batch
    in flight and exits.

    \b
    Example:
      lifededup folders add ~/Documents && lifededup watch
    """
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr)
    daemon_paths = daemons.DaemonPaths.default()
    stop = threading.Event()
    with opened_store(db, verify=True) as store, stop_on_signals(stop):
        location = store.location
        folders = [WatchedFolder(stored_path(str(absolute(p)))) for p in paths] or list_folders(store)
        if not folders:
            raise click.ClickException("no folders to watch: add some with `lifededup folders add PATH`, "
                                       "or give them: lifededup watch PATH...")
        try:
            daemons.claim(daemon_paths)
        except daemons.DaemonError as exc:
            raise click.ClickException(str(exc)) from exc
        store_files = tuple(str(location.path.resolve()) + s for s in ("", "-wal", "-shm", "-journal"))
        config = IndexConfig(workers=workers, max_text_chars=int(max_text_mb * 2**20))
        watcher = Watcher(store, folders, config, stop, delay=delay, rescan_every=rescan,
                          ignore=store_files, on_status=_StatusFile(daemon_paths, str(location)))
        click.echo(f"watching {', '.join(f.path for f in folders)} into {location} (pid {os.getpid()})",
                   err=True)
        try:
            watcher.run()
        except KeyboardInterrupt:
            raise click.ClickException("interrupted: the store is consistent (the batch in flight was committed "
                                       "or rolled back); the next scan finishes the work") from None
        finally:
            daemons.release(daemon_paths)
    click.echo("stopped", err=True)


@main.group("daemon")
def daemon_group() -> None:
    """The watcher in the background: start, stop, status, and a systemd unit.

    \b
    Example:
      lifededup folders add ~/Documents
      lifededup daemon start && lifededup daemon status
    """


@daemon_group.command("start")
@click.option("--delay", type=DELAY, default=DEFAULT_DELAY_S, show_default=True,
              help="Seconds a file must stay unchanged before it is read.")
@db_option
def daemon_start(delay: float, db: str | None) -> None:
    """Start `lifededup watch` detached, its log in the user's state folder.

    \b
    Example:
      lifededup daemon start
    """
    with opened_store(db) as store:  # fail here, not in the background, if the store or folders are wrong
        if not list_folders(store):
            raise click.ClickException("no folders to watch: add some first with `lifededup folders add PATH`")
        location = str(store.path)
    paths = daemons.DaemonPaths.default()
    argv = [sys.executable, "-m", "lifededup", "watch", "--db", location, "--delay", str(delay)]
    try:
        pid = daemons.start(argv, paths)
    except daemons.DaemonError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"started (pid {pid}); log: {paths.log}")


@daemon_group.command("stop")
def daemon_stop() -> None:
    """Stop the daemon: it commits the batch in flight, then exits.

    \b
    Example:
      lifededup daemon stop
    """
    try:
        pid = daemons.stop(daemons.DaemonPaths.default())
    except daemons.DaemonError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo("not running" if pid is None else f"stopped (pid {pid})")


def _when(timestamp: float | None) -> str:
    if not timestamp:
        return "never"
    return datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M:%S")


@daemon_group.command("status")
def daemon_status() -> None:
    """Whether the daemon runs, what it watches, how many files wait, when it
    last indexed and how many items failed.  Exits 3 when it does not run.

    \b
    Example:
      lifededup daemon status
    """
    paths = daemons.DaemonPaths.default()
    status = daemons.read_status(paths)
    click.echo(f"running (pid {status.pid})" if status.running else "not running")
    report = status.report
    if report is not None:
        click.echo(f"store: {report.get('store')}")
        click.echo(f"watching: {', '.join(report.get('watching', [])) or 'nothing'}")
        click.echo(f"state: {report.get('state')}, waiting: {report.get('pending', 0)} path(s)")
        click.echo(f"last indexed: {_when(report.get('last_indexed_at'))}, files read: {report.get('indexed', 0)}, "
                   f"failed items in store: {report.get('failed', 0)}")
        click.echo(f"last full scan: {_when(report.get('last_rescan_at'))}")
    click.echo(f"log: {paths.log}")
    if not status.running:
        sys.exit(3)


@daemon_group.command("unit")
def daemon_unit() -> None:
    """Print a systemd user unit that runs the watcher with this lifededup.

    \b
    Example:
      mkdir -p ~/.config/systemd/user
      lifededup daemon unit > ~/.config/systemd/user/lifededup.service
      systemctl --user daemon-reload && systemctl --user enable --now lifededup
    """
    executable = shutil.which("lifededup") or f"{sys.executable} -m lifededup"
    click.echo(daemons.systemd_unit(executable), nl=False)
