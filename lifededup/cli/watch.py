"""``lifededup folders``, ``lifededup watch`` and ``lifededup daemon``: keeping
the store true to folders as they change."""

from __future__ import annotations

import functools
import json
import logging
import os
import shlex
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, TypeVar

import click

from lifededup.cli import main
from lifededup.cli.index import max_text_option, ocr_option, stop_on_signals
from lifededup.cli.options import (
    DELAY, SECONDS, ExistingPath, db_option, forms_there, opened_listing, opened_store, same_store, say_taken,
    unreachable,
)
from lifededup.extract import Limits
from lifededup.index import IndexConfig, absolute, default_workers, max_workers
from lifededup.model import from_shown, fs_path, lasting, name_forms, shown, stored_path
from lifededup.store import ENV_VAR, MACHINE_ENV
from lifededup.watch import DEFAULT_DELAY_S, DEFAULT_RESCAN_S, FOLLOW_S, RETRY_S, WatchStatus
from lifededup.watch import daemon as daemons
from lifededup.watch.status import said_when

F = TypeVar("F", bound=Callable[..., object])
# how often a watcher whose report has not changed writes it again, for its updated_at
STATUS_IDLE_S = 60.0

# The store's folders (SQLAlchemy) and the watcher (watchdog, the indexer)
# are imported by the commands that use them: `daemon status` and every
# --help start without them.
if TYPE_CHECKING:
    from lifededup.store import Store, WatchedFolder
    from lifededup.store.opening import Location


@main.group("folders")
def folders_group() -> None:
    """The folders the watcher keeps indexed (kept in the store).

    Each machine has its own: on a store shared by several machines, `list`,
    `add` and `remove` are about this machine's folders and items (its name
    is $LIFEDEDUP_MACHINE, else the host name).

    \b
    Example:
      lifededup folders add ~/Documents --exclude 'node_modules'
      lifededup folders list
    """


@folders_group.command("add")
@click.argument("paths", nargs=-1, required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option("--include", multiple=True, metavar="GLOB",
              help="Index only files matching this (repeatable), e.g. '*.pdf' or 'Mail/*.mbox'.")
@click.option("--exclude", multiple=True, metavar="GLOB",
              help="Never index files or folders matching this (repeatable), e.g. 'node_modules'.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per folder added.")
@db_option
def folders_add(paths: tuple[Path, ...], include: tuple[str, ...], exclude: tuple[str, ...], as_json: bool,
                db: str | None) -> None:
    """Watch PATHS (hidden and junk files are always skipped).  Adding a
    folder again replaces its patterns.  A folder that is not there (a disk
    not plugged in) may be added, or its patterns changed: it is scanned
    once it appears.  A path not there as typed, but there with its accents
    encoded the other way (a Mac's copy), is added as it is on disk, and said.

    \b
    Example:
      lifededup folders add ~/Documents ~/Mail --exclude '*.iso'
    """
    from lifededup.store import add_folder

    for path in paths:  # shut to you (a folder on its way chmod 000): not "not there", and not watchable
        refused = unreachable(path)
        if refused is not None:
            raise click.ClickException(f"{refused}; nothing added")
    with opened_store(db) as store:
        for path in paths:
            folder = add_folder(store, _folder_named(store, path, said=True), include, exclude)
            click.echo(json.dumps(_folder_dict(folder)) if as_json else f"watching {_describe(folder)}")
            if not os.path.exists(fs_path(folder.path)) and not as_json:
                click.echo(f"{path} is not there now (a disk not plugged in?): it is scanned once it appears",
                           err=True)
            elif folder.path in _SYSTEM_FOLDERS:
                click.echo(f"{path} is the system's, not only yours: its programs, libraries and settings will be "
                           "read and searched, and the watcher watches every folder in it (Linux allows 8,192 "
                           "to 1 million); `lifededup folders remove` it and add the folders your documents are "
                           "in (~/Documents, ~/Mail)", err=True)
        if not as_json:
            click.echo(_running_daemon(store) or f"index them now with `lifededup watch{same_store(db)}` (or "
                       f"`lifededup daemon start{same_store(db)}`)")


def _folder_named(store: Store, typed: Path, *, said: bool = False) -> str:
    """The folder a typed path names, as the store holds it: a watched
    folder or one on disk, else one the store holds items under (gone, and
    no longer watched), as typed or else with its names composed where
    they were typed decomposed, or the reverse (a Mac's copy typed on a
    keyboard: ``forms_there``, as ``index`` takes it); a path that is none
    of these, as typed.  ``said``: one taken from disk in another form is
    said on stderr, as ``index`` says it."""
    from lifededup.store import items_under, list_folders

    path = stored_path(str(absolute(typed)))
    pasted = _as_printed(store, typed, path)
    if pasted is not None:
        return pasted
    forms = name_forms(path)
    if len(forms) == 1:
        return path
    watched = {folder.path for folder in list_folders(store)}
    there = forms_there(path, lambda form: form in watched or os.path.lexists(fs_path(form)))
    if not there:  # a count a form, asked only of a name neither watched nor on disk in any form
        return next((form for form in forms if items_under(store, form)), path)
    if said and there[0] != path and os.path.lexists(fs_path(there[0])):
        say_taken(str(typed), there[0])
    return there[0] if there[0] in watched else stored_path(str(absolute(fs_path(there[0]))))


def _as_printed(store: Store, typed: Path, path: str) -> str | None:
    """The folder a path pasted as commands print it stands for -- a
    backslash printed \\\\, a control character \\x0a: `folders list`,
    the `folders remove --forget` that `daemon status` suggests -- where the
    path as typed (``path``, stored) is no folder watched, on disk or holding
    items; else None.  Taken as typed, `a\\\\` was escaped again and "not watched"."""
    from lifededup.store import items_under, list_folders

    printed = from_shown(str(absolute(typed)))
    if printed == path or os.path.lexists(fs_path(path)):
        return None
    watched = {folder.path for folder in list_folders(store)}
    if path in watched or items_under(store, path):
        return None
    return printed if printed in watched or items_under(store, printed) else None


# Folders whose watching would read the system with the documents
_SYSTEM_FOLDERS = frozenset({"/", "/usr", "/etc", "/var", "/opt", "/boot", "/lib", "/bin", "/sbin", "/srv", "/run"})


def _running_daemon(store: Store) -> str:
    """What to say of a running daemon after a change of folders, or nothing
    if none runs: one that watches this store as this machine follows the
    change within seconds."""
    status = daemons.read_status(daemons.DaemonPaths.default())
    if not status.running:
        return ""
    from lifededup.store.opening import slashes_shown

    report = status.report or {}
    # a daemon started before its store was shown with slashes (host=%2Frun%2Fpostgresql) is the same store
    reported = slashes_shown(str(report.get("store", ""))) if store.location.url is not None else report.get("store")
    if reported == str(store.location) and report.get("machine") == store.machine:
        if report.get("follows") is False:
            return (f"the watcher (pid {status.pid}) watches the folders it was given (lifededup watch PATH...), "
                    "not this list: it does not take this change up; run `lifededup watch` without PATHS, or "
                    "the daemon, to follow it")
        return f"the daemon (pid {status.pid}) follows this change within {FOLLOW_S:g} s"
    return (f"the daemon (pid {status.pid}) watches another store ({report.get('store', 'unknown')}"
            f"{', machine ' + str(report['machine']) if report.get('machine') else ''}), not this one")


@folders_group.command("remove")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--forget/--keep", "forget", default=None,
              help="Also forget the folders' items (not in another watched folder), or keep them in the store, "
              "searchable.  Without either, a terminal asks; otherwise they are kept.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per folder: path and items forgotten.")
@db_option
def folders_remove(paths: tuple[Path, ...], forget: bool | None, as_json: bool, db: str | None) -> None:
    """Stop watching PATHS, and keep or forget their items.

    Kept items stay searchable and in their clusters, as the files were when
    last indexed (`lifededup index PATH` brings them up to date again);
    forgotten items are removed from the store and their clusters repaired.
    Your files are never touched.  A folder is named as it is on disk, or
    as `folders list` prints it (a backslash as \\\\, the store's escape).

    \b
    Example:
      lifededup folders remove ~/Downloads --forget
      lifededup folders remove /media/old-disk --keep
    """
    from lifededup.store import items_under, remove_folder
    from lifededup.store.folders import forget_under

    with opened_store(db) as store:
        for path in (_folder_named(store, p) for p in paths):
            choice = forget
            # not there: renamed or moved, most often; kept, its files would show twice once the new place is watched
            gone = not os.path.lexists(fs_path(path))
            if choice is None and sys.stdin.isatty() and not as_json:
                count = items_under(store, path)
                where = " (it is not there any more: renamed or moved?)" if gone else ""
                choice = count > 0 and click.confirm(
                    f"forget the {count:,} item(s) of {path}{where} too? (kept, they stay searchable)", default=gone)
            removed = remove_folder(store, path, forget=bool(choice))
            if removed is None and choice and gone and items_under(store, path):
                # no longer watched, nor there: removed earlier with its items kept, say, then found renamed
                removed = forget_under(store, path)
                click.echo(json.dumps({"path": path, "forgotten": removed}) if as_json else
                           f"{path} was not watched; it is not there any more: forgot its {removed:,} item(s)")
                continue
            if removed is None:
                raise click.ClickException(f"{path} is not watched; see `lifededup folders list{same_store(db)}`")
            if as_json:
                click.echo(json.dumps({"path": path, "forgotten": removed}))
            elif choice:
                click.echo(f"no longer watching {path}; forgot its {removed:,} item(s)")
            elif gone and not items_under(store, path):
                # renamed and indexed at its new place: its files were followed there, with their items
                click.echo(f"no longer watching {path}; it is not there any more, and holds no item")
            else:
                click.echo(f"no longer watching {path}; its {items_under(store, path):,} item(s) stay in the "
                           "store (--forget removes them)")
                if gone:
                    click.echo(f"{path} is not there any more: if it was renamed or moved, its files are indexed "
                               "again where they are now, and these items would show each of them twice; "
                               f"`lifededup folders remove --forget {shlex.quote(path)}{same_store(db)}` forgets them",
                               err=True)
        said = "" if as_json else _running_daemon(store)
    if said:
        click.echo(said, err=True)


@folders_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="A JSON list of folders: path, include, exclude, "
              "added_at, last_scanned_at.")
@db_option
def folders_list(as_json: bool, db: str | None) -> None:
    """List the watched folders, their patterns and when each was last scanned.

    On a store shared by several machines: this machine's folders.

    \b
    Example:
      lifededup folders list
      lifededup folders list --json
    """
    from lifededup.store import list_folders, machine_name

    with opened_listing(db) as store:
        folders = [] if store is None else list_folders(store)
    if as_json:
        click.echo(json.dumps([_folder_dict(f) for f in folders], indent=2))
        return
    for folder in folders:
        scanned = folder.last_scanned_at.strftime("%Y-%m-%d %H:%M UTC") if folder.last_scanned_at else "never"
        click.echo(f"{_describe(folder)}  (last scanned {scanned})")
    if not folders:
        click.echo(f"no watched folders of the machine {machine_name()}: lifededup folders add PATH{same_store(db)}")


def _folder_dict(folder: WatchedFolder) -> dict[str, object]:
    def when(value: datetime | None) -> str | None:
        return value.isoformat() + "Z" if value else None

    return {"path": folder.path, "include": list(folder.include), "exclude": list(folder.exclude),
            "added_at": when(folder.added_at), "last_scanned_at": when(folder.last_scanned_at)}


def _describe(folder: WatchedFolder) -> str:
    patterns = [f"include {p}" for p in folder.include] + [f"exclude {p}" for p in folder.exclude]
    return folder.path + (f"  [{', '.join(patterns)}]" if patterns else "")


class _StatusFile:
    """Writes the watcher's status for ``daemon status``: when its state
    changes, else at most once a second while anything in it changes, and
    once a minute while nothing does -- an idle daemon rewrote the file
    every second for as long as it ran, a write that kept a laptop's disk
    awake.  (``daemon status`` tells a live daemon by its pid, not by the
    file's age.)"""

    def __init__(self, paths: daemons.DaemonPaths, store: str, machine: str, follows: bool) -> None:
        self.paths, self.store, self.machine, self.last, self.state = paths, store, machine, 0.0, ""
        self.log, self.follows = daemons.writes_log(paths), follows
        self.written: dict[str, object] | None = None

    def __call__(self, status: WatchStatus) -> None:
        now = time.monotonic()
        if status.state != self.state or now - self.last >= STATUS_IDLE_S:
            self._write(status, now)
        elif now - self.last >= 1.0:
            said = asdict(status)
            if said != self.written:
                self._write(status, now, said)

    def _write(self, status: WatchStatus, now: float, said: dict[str, object] | None = None) -> None:
        self.last, self.state, self.written = now, status.state, said or asdict(status)
        daemons.write_status(self.paths, status, self.store, self.machine, log=self.log, follows=self.follows)

    def ended(self, status: WatchStatus, why: str) -> None:
        """The watcher stopped by itself: `daemon status` says why, not just "stopped"."""
        status.state = f"stopped: {why}"
        daemons.write_status(self.paths, status, self.store, self.machine, log=self.log, follows=self.follows)


def watcher_options(func: F) -> F:
    """What the watcher is told: ``watch``'s options, which ``daemon start`` passes on."""
    for option in reversed((
        click.option("--delay", type=DELAY, default=DEFAULT_DELAY_S, show_default=True,
                     help="Seconds a file must stay unchanged before it is read."),
        click.option("--rescan", type=SECONDS, default=DEFAULT_RESCAN_S, show_default=True,
                     help="Seconds between full rescans (they catch events the system dropped)."),
        click.option("--retry", type=DELAY, default=RETRY_S, show_default=True,
                     help="Seconds before work the store refused is tried again (locked, its disk full, its server "
                     "down), and between tries to reach a store's server that does not answer as the watcher "
                     "starts (a laptop that boots before its NAS)."),
        click.option("--workers", "-j", type=click.IntRange(1, max_workers()), default=default_workers,
                     show_default="one per core", help="Extraction worker processes (at most 4 per core)."),
        max_text_option,
        ocr_option,
    )):
        func = option(func)
    return func


@main.command("watch")
@click.argument("paths", nargs=-1, type=ExistingPath(file_okay=False, path_type=Path))
@watcher_options
@db_option
def watch_command(paths: tuple[Path, ...], delay: float, rescan: float, retry: float, workers: int,
                  max_text_mb: float, ocr: bool, db: str | None) -> None:
    """Watch folders and keep the store true to them, in the foreground (for
    a terminal or systemd; `lifededup daemon start` runs it in the background).

    It first catches up with a scan, then indexes each created, changed,
    moved or deleted file once it is stable.  Without PATHS it watches the
    folders of `lifededup folders list`, and takes up `folders add` and
    `folders remove` within seconds while it runs.  Ctrl-C or SIGTERM commits the batch
    in flight and exits.  A store's server that cannot be reached as it
    starts (the NAS still booting) is said once and tried again every
    --retry seconds, as a server that goes away while it runs; a wrong
    database, user or password still ends it at once -- but once it runs,
    a server that starts turning it away (the role or database renamed,
    the password changed) is said as such, with the server's reason, and
    tried again every --retry seconds, so that an admin's fix on the server
    needs no restart here.  On a PostgreSQL store shared by several machines
    it keeps this machine's items true to its folders and never touches
    another's; set LIFEDEDUP_MACHINE to pin the machine's name.  A path
    not there as typed, but there with its accents encoded the other way
    (a Mac's copy), is watched as it is on disk, and said.

    \b
    Example:
      lifededup folders add ~/Documents && lifededup watch
    """
    from lifededup.store import MachineTaken, StoreTooNew, WatchedFolder, list_folders
    from lifededup.store.machines import MachineGone
    from lifededup.watch import Watcher

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr)
    # the store's schema upgrades say what they do at INFO; the log is for the watcher's own news
    logging.getLogger("alembic").setLevel(logging.WARNING)
    daemon_paths = daemons.DaemonPaths.default()
    stop = threading.Event()
    waiting = _Waiting(daemon_paths, db, [stored_path(str(absolute(p))) for p in paths], retry)
    with _store_once_reached(db, waiting) as store, stop_on_signals(stop, said=_stopping):
        location = store.location
        folders = [WatchedFolder(stored_path(str(absolute(p)))) for p in paths] or list_folders(store)
        if not folders:
            raise click.ClickException(f"no folders to watch: add some with `lifededup folders add PATH"
                                       f"{same_store(db)}`, or give them: lifededup watch PATH...")
        try:
            store.claim_machine()  # another computer of this name: refused now, not at the first batch
        except MachineTaken as exc:
            raise NameTaken(str(exc)) from exc
        try:
            daemons.claim(daemon_paths)
        except daemons.DaemonError as exc:
            raise click.ClickException(str(exc)) from exc
        # an SQLite store's own files are never indexed; a server's store has none here
        store_files = tuple(location.own_files())
        config = IndexConfig(workers=workers, max_text_chars=int(max_text_mb * 2**20), limits=Limits(ocr=ocr))
        status_file = _StatusFile(daemon_paths, str(location), store.machine, follows=not paths)
        watcher = Watcher(store, folders, config, stop, delay=delay, rescan_every=rescan, retry_after=retry,
                          ignore=store_files, on_status=status_file,
                          # without PATHS, `folders add` and `remove` are followed while it runs
                          follow=None if paths else functools.partial(list_folders, store))
        click.echo(f"watching {', '.join(f.path for f in folders)} of the machine {store.machine} into {location} "
                   f"(pid {os.getpid()})", err=True)
        try:
            watcher.run()
        except MachineTaken as exc:  # claimed by a computer that replaces this one, or renamed, while it watched
            status_file.ended(watcher.status(), "this machine's name was renamed or forgotten (see the log)"
                              if isinstance(exc, MachineGone) else
                              "another computer writes under this machine's name (see the log)")
            raise NameTaken(str(exc)) from exc
        except StoreTooNew as exc:  # upgraded by a newer lifededup while it watched
            status_file.ended(watcher.status(), UPGRADED)
            raise Upgraded(str(exc)) from exc
        except KeyboardInterrupt:
            raise click.ClickException("interrupted: the store is consistent (the batch in flight was committed "
                                       "or rolled back); the next scan finishes the work") from None
        finally:
            daemons.release(daemon_paths)
    click.echo("stopped", err=True)


def _stopping(signal_name: str) -> None:
    """A stop asked for, in the log (the daemon's has no terminal to press Ctrl-C in: `daemon stop` sends
    SIGTERM, and its line came untimed after a blank one)."""
    _log.info("%s: finishing the current batch, then stopping (a second SIGINT or SIGTERM stops at once)",
              signal_name)


class _Waiting:
    """A watcher that waits, as it starts, for its store's server: says so
    once (the log), claims the daemon's pid file and writes its status, so
    that `daemon status` says it runs and what it waits for, as it does of
    a server that goes away while the watcher runs."""

    def __init__(self, paths: daemons.DaemonPaths, db: str | None, watching: list[str], every: float) -> None:
        self.paths, self.db, self.every, self.claimed, self.location = paths, db, every, False, ""
        self.status = WatchStatus(watching=watching, state="waiting for the store's server", retry_after=every)

    def away(self, said: str) -> None:
        """The server did not answer (``said``: the driver's first line)."""
        from lifededup.store.opening import resolve

        if not self.claimed:
            try:
                daemons.claim(self.paths)  # a second watcher is refused now, not once the server answers
            except daemons.DaemonError as exc:
                raise click.ClickException(str(exc)) from exc
            self.claimed = True
            self.location = str(resolve(self.db))  # (a server's password hidden, as `daemon status` names it)
            _log.warning("the store's server cannot be reached: %s does not answer (%s); the watcher waits for it, "
                         "trying every %g s (Ctrl-C stops it)", self.location, said, self.every)
            self.status.unreachable_since = time.time()
        self.status.unreachable = said
        self._write()

    def answered(self) -> None:
        if self.claimed:
            _log.info("the store's server answers: %s", self.location)

    def stopped(self) -> None:
        self.status.state = "stopped"
        self._write()
        daemons.release(self.paths)

    def _write(self) -> None:
        from lifededup.store.records import machine_name

        daemons.write_status(self.paths, self.status, self.location, machine_name(), log=daemons.writes_log(self.paths),
                             follows=not self.status.watching)


_log = logging.getLogger("lifededup.watch")


@contextmanager
def _store_once_reached(db: str | None, waiting: _Waiting) -> Iterator[Store]:
    """The watcher's store (``opened_store``), its server waited for while
    it cannot be reached (``server_away``: not a wrong database, user or
    password, nor a store that is not lifededup's, which end it at once).
    Ctrl-C or SIGTERM while it waits stops it at once ("stopped", exit 0):
    no batch is in flight."""
    from lifededup.store.errors import first_said, server_away

    with ExitStack() as stack:
        previous = signal.signal(signal.SIGTERM, _interrupt)
        try:
            while True:
                try:
                    store = stack.enter_context(opened_store(db, verify=True, too_new=TooOld))
                    break
                except Exception as exc:
                    away = server_away(exc)
                    if away is None:
                        raise
                    waiting.away(first_said(away))
                time.sleep(waiting.every)
        except KeyboardInterrupt:
            if not waiting.claimed:
                raise
            waiting.stopped()
            click.echo("stopped", err=True)
            raise click.exceptions.Exit(0) from None
        finally:
            signal.signal(signal.SIGTERM, previous)
        if waiting.claimed:
            stack.callback(daemons.release, waiting.paths)  # (claimed again by the watcher: released once it ends)
        waiting.answered()
        yield store


def _interrupt(signum: int, frame: FrameType | None) -> None:
    """SIGTERM as Ctrl-C, while nothing is written yet (a watcher waiting for its store)."""
    raise KeyboardInterrupt


class Upgraded(click.ClickException):
    """A newer lifededup upgraded the store while this watcher ran: it exits
    with sysexits' EX_TEMPFAIL, which its systemd unit restarts -- with the
    newer lifededup if it was installed in place; an older one is then
    refused at start, with EX_CONFIG."""

    exit_code = 75


class TooOld(click.ClickException):
    """The store was made by a newer lifededup than this watcher: EX_CONFIG,
    which its systemd unit does not restart (only an upgrade mends it)."""

    exit_code = 78


class NameTaken(click.ClickException):
    """Another computer writes under this machine's name: the watcher exits
    with sysexits' EX_CONFIG, which its systemd unit does not restart
    (``RestartPreventExitStatus``) -- trying again every 10 s mends nothing."""

    exit_code = 78


@main.group("daemon")
def daemon_group() -> None:
    """The watcher in the background: start, stop, status, or a systemd user service (unit, install, uninstall).

    \b
    Example:
      lifededup folders add ~/Documents
      lifededup daemon start && lifededup daemon status
    """


@daemon_group.command("start")
@watcher_options
@click.option("--json", "as_json", is_flag=True, help='One JSON object: {"pid", "log"}.')
@db_option
def daemon_start(delay: float, rescan: float, retry: float, workers: int, max_text_mb: float, ocr: bool,
                 as_json: bool, db: str | None) -> None:
    """Start `lifededup watch` detached, its log in the user's state folder
    (the options are watch's, passed on to it).  A store's server that
    cannot be reached now is said, and the daemon waits for it.

    \b
    Example:
      lifededup daemon start
    """
    location = _daemon_store(db)
    paths = daemons.DaemonPaths.default()
    # a server's URL goes by the environment, where its password does not show in `ps`
    store_option = ["--db", os.path.abspath(location.path)] if location.path is not None else []  # it runs from /
    argv = [sys.executable, "-m", "lifededup", "watch", *store_option, "--delay", str(delay), "--rescan", str(rescan),
            "--retry", str(retry), "-j", str(workers), "--max-text-mb", str(max_text_mb), *(["--ocr"] if ocr else [])]
    try:
        pid = daemons.start(argv, paths, env={} if location.url is None else {ENV_VAR: location.url})
    except daemons.DaemonError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(json.dumps({"pid": pid, "log": str(paths.log)}) if as_json else f"started (pid {pid}); log: {paths.log}")


def _daemon_store(db: str | None) -> Location:
    """The daemon's store, checked here, not in the background: a wrong one,
    or no folders to watch, fail now; a server that cannot be reached now
    (the NAS still booting) is said, and the daemon waits for it."""
    from lifededup.store import list_folders
    from lifededup.store.errors import first_said, server_away
    from lifededup.store.opening import resolve

    try:
        with opened_store(db) as store:
            if not list_folders(store):
                raise click.ClickException("no folders to watch: add some first with `lifededup folders add PATH"
                                           f"{same_store(db)}`")
            return store.location
    except click.ClickException as exc:
        away = server_away(exc)
        if away is None:
            raise
    location = resolve(db)
    click.echo(f"the store's server cannot be reached now: {location} does not answer "
               f"({first_said(away)}); the daemon waits for it (`lifededup daemon status` "
               "says whether it still does)", err=True)
    return location


@daemon_group.command("stop")
@click.option("--json", "as_json", is_flag=True, help='One JSON object: {"stopped": pid or null}.')
def daemon_stop(as_json: bool) -> None:
    """Stop the daemon: it commits the batch in flight, then exits.  Returns
    once it and its worker processes are gone.

    \b
    Example:
      lifededup daemon stop
    """
    try:
        pid = daemons.stop(daemons.DaemonPaths.default())
    except daemons.DaemonError as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        click.echo(json.dumps({"stopped": pid}))
    else:
        click.echo("not running" if pid is None else f"stopped (pid {pid})")


def _state_words(report: dict[str, Any], running: bool) -> str:
    """The state, and how long it has lasted while the watcher runs.  Of
    "watching", since when it watches and how long ago its last batch or
    scan ended: that end is the state's since (each is a state of its own),
    and "watching (for 4 min)" read as the watcher's time watching, of one
    watching since the morning -- the web view's status page says the same."""
    state, since = report.get("state"), report.get("state_since")
    if not running:
        return str(state)
    now = time.time()
    if state != "watching":
        return f"{state}" + (f" (for {lasting(now - since)})" if since else "")
    began = report.get("watching_since")  # (None: written by an older watcher)
    said = "watching" + (f" since {said_when(began)} (for {lasting(now - began)})" if began else "")
    return said + (f", last batch or scan {lasting(now - since)} ago" if since else "")


def _waiting_words(report: dict[str, Any]) -> str:
    """What waits, in what a person can act on: "1,200 files, 3 folders to scan"."""
    if "waiting_files" not in report:  # written by an older watcher: paths, and events not yet taken up
        return f"{int(report.get('pending') or 0):,} path(s)"
    files, folders = int(report["waiting_files"]), int(report.get("waiting_folders") or 0)
    said = f"{files:,} file{'' if files == 1 else 's'}"
    return said + (f", {folders:,} folder{'' if folders == 1 else 's'} to scan" if folders else "")


# Why a watcher stopped by itself when a newer lifededup upgraded its store (`daemon status`'s state)
UPGRADED = "a newer lifededup upgraded the store (see the log)"


def _waiting_said(report: dict[str, Any], running: bool) -> str:
    """What waits; of a watcher that is not running, what it left unread, which the next start's catch-up scan
    reads.  A watcher killed mid-batch said "waiting: 259 files", as though something still waited on them.
    One stopped by an upgrade said "nothing left unread" of the files the upgrade had marked to be read again."""
    if running:
        return f"waiting: {_waiting_words(report)}"
    if report.get("state") == f"stopped: {UPGRADED}":
        return ("left unread: the files the upgrade marked to be read again, and those changed since "
                f"(start the watcher again with the newer lifededup: `lifededup daemon start{_its_store(report)}` "
                "reads them)")
    if not int(report.get("pending") or 0):
        return "nothing left unread"
    return f"left unread: {_waiting_words(report)} (the next `lifededup daemon start{_its_store(report)}` reads them)"


def _its_store(report: dict[str, Any]) -> str:
    """`` --db STORE`` for the commands said about a watcher of another store than a bare command's:
    run as said, `daemon start` watched the default store's folders."""
    from lifededup.store.opening import store_named

    return store_named(str(report.get("store") or ""))


def _kept_words(folder: dict[str, Any], store: str) -> str:
    """A watched folder whose items the store keeps though it is not there,
    or empty: a disk unmounted from its mount point looks the same as the
    folder deleted and made again, so they are kept -- and said, with how to
    forget them."""
    path, items = str(folder["path"]), int(folder["items"])
    now = {"missing": "it is not there", "unlistable": "it cannot be listed",
           "empty": "it is empty now (made again, or its disk unmounted)"}.get(str(folder.get("now")),
                                                                             "it was replaced")
    return (f"{path}: the store keeps its {items:,} item{'' if items == 1 else 's'}, but {now}; they stay until "
            f"files return there, or `lifededup folders remove --forget {shlex.quote(path)}{store}` forgets them")


def _failed_words(report: dict[str, Any]) -> str:
    """The failed items, this machine's apart where the store holds other
    machines' too: on a shared store the daemon's own are the ones to fix
    here, and "41 failed" counted every machine's."""
    failed, here = int(report.get("failed") or 0), report.get("failed_here")
    if here is None or int(here) == failed:  # (None: written by an older watcher)
        return f"failed items in store: {failed:,}"
    return (f"failed items: {int(here):,} of this machine's, {failed:,} in the store (`lifededup failures "
            f"--machine {report.get('machine')}{_its_store(report)}` lists this machine's)")


def _unreachable_words(report: dict[str, Any]) -> str | None:
    """What to say while the watcher cannot reach the store's server, or is
    refused by it (a role or database renamed, a password changed: said as
    a server away, the user looked for a network problem), or None."""
    every = report.get("retry_after")
    refused = report.get("refused")
    if refused:
        since = report.get("refused_since")
        how_long = f" (for {lasting(time.time() - since)})" if since else ""
        return (f"the store's server refuses this watcher since {said_when(since)}{how_long}: {refused}. The server, "
                f"{report.get('store')}, answers but turns it away; the watcher tries again"
                f"{f' every {every:g} s' if every else ''}: once the server's admin puts it right (the role, the "
                "database, the password), the changes waiting are indexed, with no restart")
    said = report.get("unreachable")
    if not said:
        return None
    since = report.get("unreachable_since")
    how_long = f" (for {lasting(time.time() - since)})" if since else ""
    return (f"the store cannot be reached since {said_when(since)}{how_long}: its server, {report.get('store')}, "
            f"does not answer ({said}). The watcher waits for it{f' (tries every {every:g} s)' if every else ''}: "
            "the changes waiting are indexed once the server is back")


@daemon_group.command("status")
@click.option("--json", "as_json", is_flag=True,
              help="One JSON object: running, pid, log (null for a watcher in a terminal or under systemd), "
              "and the watcher's last report (store, watching, state, waiting_files (with changes not yet "
              "read), waiting_folders (to scan), pending (their sum), absent (watched folders not there or "
              "empty whose items are kept: path, now, items), indexed, failed (the store's failed items), failed_here "
              "(this machine's of them), unreachable (what the store's server said while it cannot be reached, "
              "else null), unreachable_since, refused (the server's words while it turns the watcher away: "
              "no such role or database, a password refused; else null), refused_since, retry_after (seconds), "
              "last_read, last_indexed_at, "
              "last_rescan_at, state_since (when the state began: of watching, when the last batch or scan "
              "ended), watching_since (when the watcher began watching), updated_at (when it wrote this: a minute "
              "ago at most while it runs, a second while its report changes) as Unix "
              "times; machine, pid, batches (written since it started)).")
def daemon_status(as_json: bool) -> None:
    """Whether the daemon runs, what it watches and since when (and how long
    ago its last batch or scan ended), how many files wait (of one not
    running: left unread, for its next start), when it last indexed and how
    many items failed (this machine's apart on a store
    other machines' failures are in), and whether the store's server can be
    reached (the watcher waits for it) or refuses the watcher, and why (it
    tries again meanwhile).  Exits 3 when it does not run.

    \b
    Example:
      lifededup daemon status
      lifededup daemon status --json
    """
    paths = daemons.DaemonPaths.default()
    status = daemons.read_status(paths)
    report = status.report
    # a watcher in a terminal, or under systemd, writes no log file: its output is the terminal's, the journal's
    log = None if status.writes_no_log() else str(paths.log)
    if as_json:
        click.echo(json.dumps({"running": status.running, "pid": status.pid, "log": log, "report": report},
                              indent=2))
    else:
        click.echo(f"running (pid {status.pid})" if status.running else "not running")
        if report is not None:
            click.echo(f"store: {report.get('store')}" + (f", machine {report['machine']}" if report.get("machine") else ""))
            unreachable = _unreachable_words(report) if status.running else None
            if unreachable:
                click.echo(unreachable)
            absent = {str(a["path"]): a for a in report.get("absent") or [] if a.get("items")}
            folders = [f + ("" if f in absent or os.path.isdir(fs_path(f)) else
                            " (not there: its items kept until it returns)") for f in report.get("watching", [])]
            # (a watcher that waits for its store's server, as it starts, has not read the store's folders yet)
            nothing = "the store's folders, once it is reached" if report.get("unreachable") else "nothing"
            click.echo(f"watching: {', '.join(folders) or nothing}")
            for folder in absent.values():
                click.echo(_kept_words(folder, _its_store(report)))
            click.echo(f"state: {_state_words(report, status.running)}, {_waiting_said(report, status.running)}")
            if status.running and report.get("state") == "indexing" and report.get("last_read"):
                click.echo(f"last file read: {shown(str(report['last_read']))}")
            click.echo(f"last indexed: {said_when(report.get('last_indexed_at'))}, "
                       f"files read since it started: {int(report.get('indexed') or 0):,}, {_failed_words(report)}")
            click.echo(f"last full scan: {said_when(report.get('last_rescan_at'))}")
        click.echo(f"log: {log}" if log else "log: none: this watcher was not started by `daemon start`; its output "
                   "goes to its terminal, or to systemd's journal (journalctl --user -u lifededup)")
    if not status.running:
        sys.exit(3)


# What the service needs of this shell's environment: PATH (antiword and the
# other format tools), the XDG folders (where `daemon status` looks), the
# machine's name if pinned, and where libpq finds a server's password.
_UNIT_ENVIRONMENT = ("PATH", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME",
                     MACHINE_ENV, "PGPASSFILE")


_UNIT_OCR = click.option("--ocr", is_flag=True, default=False,
                         help="The service reads scans too (watch --ocr): Tesseract OCR, seconds a page.")


def _unit(db: str | None, ocr: bool = False) -> daemons.Unit:
    from lifededup.store import list_folders

    with opened_store(db) as store:
        folders = [f.path for f in list_folders(store)]
        location = store.location
    environment = {name: os.environ[name] for name in _UNIT_ENVIRONMENT if os.environ.get(name)}
    # a server's URL as a person writes it (the unit refuses one with a password)
    target = location.path.resolve() if location.path is not None else str(location)
    # this Python with this lifededup, whatever shell or virtual environment it runs in
    return daemons.Unit([sys.executable, "-m", "lifededup"], target, folders, environment, ocr)



@daemon_group.command("unit")
@_UNIT_OCR
@db_option
def daemon_unit(ocr: bool, db: str | None) -> None:
    """Print a systemd user unit that runs the watcher on this store, with
    this lifededup and the environment it needs (`daemon install` installs
    and starts it).  Refused when the unit could not work: a store with no
    watched folders, a lifededup that does not run outside this shell.

    A PostgreSQL store is named by its URL without a password (the unit
    file would keep it in clear): libpq reads the password from ~/.pgpass
    (or $PGPASSFILE, carried into the unit).  $LIFEDEDUP_MACHINE, if set, is
    carried too, so the service indexes under the name this shell uses.

    \b
    Example:
      mkdir -p ~/.config/systemd/user
      lifededup daemon unit > ~/.config/systemd/user/lifededup.service
      systemctl --user daemon-reload && systemctl --user enable --now lifededup
    """
    try:
        click.echo(daemons.systemd_unit(_unit(db, ocr)), nl=False)
    except daemons.DaemonError as exc:
        raise click.ClickException(str(exc)) from exc


@daemon_group.command("install")
@click.option("--enable/--no-enable", default=True, show_default=True,
              help="Have systemd start it now and at every login (systemctl --user enable --now).")
@_UNIT_OCR
@click.option("--json", "as_json", is_flag=True, help='One JSON object: {"unit", "enabled"}.')
@db_option
def daemon_install(enable: bool, ocr: bool, as_json: bool, db: str | None) -> None:
    """Install the watcher as a systemd user service (the unit of `daemon
    unit`, in ~/.config/systemd/user/) and start it.

    `loginctl enable-linger $USER` keeps it running while you are logged out.

    \b
    Example:
      lifededup folders add ~/Documents && lifededup daemon install
      journalctl --user -u lifededup -f
    """
    target = daemons.user_unit_path()
    try:
        daemons.install(_unit(db, ocr), target, daemons.DaemonPaths.default(), enable=enable)
    except daemons.DaemonError as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        click.echo(json.dumps({"unit": str(target), "enabled": enable}))
        return
    click.echo(f"installed {target}" + ("; started and enabled (systemctl --user status lifededup)" if enable
                                        else f"; start it with: {daemons.SYSTEMCTL_ENABLE}"))


@daemon_group.command("uninstall")
@click.option("--json", "as_json", is_flag=True, help='One JSON object: {"unit", "removed"}.')
def daemon_uninstall(as_json: bool) -> None:
    """Stop and disable the systemd user service and remove its unit file.

    \b
    Example:
      lifededup daemon uninstall
    """
    target = daemons.user_unit_path()
    try:
        removed = daemons.uninstall(target)
    except daemons.DaemonError as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        click.echo(json.dumps({"unit": str(target), "removed": removed}))
    else:
        click.echo(f"removed {target}" if removed else f"not installed ({target} does not exist)")
