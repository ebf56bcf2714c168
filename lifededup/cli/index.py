"""``lifededup index``: one-shot indexing of folders (and the options and signals the watcher shares)."""

from __future__ import annotations

import json
import shlex
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

import click

from lifededup.cli import main
from lifededup.cli.options import (
    BATCH, MEMORY_MB, SECONDS, TEXT_MB, ExistingPath, F, db_option, opened_store, same_store,
)
from lifededup.extract import Limits
from lifededup.index import Bar, IndexConfig, LogLines, default_workers, max_workers

if TYPE_CHECKING:
    from lifededup.index import Progress, Summary
    from lifededup.store.folders import WatchedFolder


def progress_for_output() -> Progress:
    """A bar on a terminal, log lines (to stderr) when output goes to a file or pipe."""
    if sys.stderr.isatty():
        return Bar()
    return LogLines(lambda line: click.echo(line, err=True))


@contextmanager
def stop_on_signals(stop: threading.Event, signals: tuple[signal.Signals, ...] = (signal.SIGINT, signal.SIGTERM),
                    said: Callable[[str], None] | None = None) -> Iterator[None]:
    """The first SIGINT/SIGTERM sets ``stop`` (the batch in flight is committed,
    then the run ends); a second one interrupts at once (reading stops; the
    transaction open then is committed or rolled back, never left half-done).
    ``said``: how the signal's name is told (the watcher's log), else a line on stderr for a terminal."""

    def handle(signum: int, frame: FrameType | None) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        if said is not None:
            said(signal.Signals(signum).name)
        else:
            click.echo(f"\n{signal.Signals(signum).name}: finishing the current batch "
                       "(press Ctrl-C again to stop at once)", err=True)

    previous = {s: signal.signal(s, handle) for s in signals}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _failed_files(summary: Summary) -> str:
    """Which of the failed items are whole files: new + updated + those are
    the files read (the rest are parts inside files read, a mailbox's)."""
    parts = summary.failed - summary.failed_files
    if not parts:
        return ""
    if not summary.failed_files:  # a mail archive's first run: "(0 file(s) and 18 part(s) inside files)"
        return " (all of them parts inside files, no whole file)"
    return f" ({summary.failed_files:,} file(s) and {parts:,} part(s) inside files)"


def _pace(summary: Summary) -> str:
    """The run's time, and the files it read a second -- all it read, those
    that failed or vanished too (the README's "files read").  A run that
    read none (all unchanged, or only moved and removed) says so: its
    "0.0 files/s" read as a run that crawled."""
    files = summary.read + summary.failed_files + summary.vanished
    if not files:
        return f"{summary.seconds:.1f} s, no file read"
    rate = files / summary.seconds if summary.seconds > 0 else 0.0
    return f"{summary.seconds:.1f} s, {rate:.1f} files/s"


def _stored_failures(summary: Summary) -> str:
    """The store's failed items -- this machine's, where other machines' are
    in it too: on a shared store "41 failed item(s)" after indexing on the
    laptop counted the NAS's as the laptop's, files no one here can fix."""
    others = summary.failed_in_store - summary.failed_here
    if not others:
        return f"{summary.failed_in_store:,} failed item(s)"
    return f"{summary.failed_here:,} failed item(s) of this machine's, and {others:,} on other machines"


def _why_failed(summary: Summary, machine: str, store: str) -> str | None:
    """Where the reasons are: every machine's by default, this one's alone where others' are in the store too."""
    if summary.failed_here == summary.failed_in_store:
        return f"why they failed: lifededup failures{store}" if summary.failed_in_store else None
    return (f"why they failed: lifededup failures --machine {shlex.quote(machine)}{store}"
            if summary.failed_here else None)


def summary_lines(summary: Summary, *, reread: bool = False, ocr: bool = False, machine: str = "",
                  store: str = "") -> list[str]:
    """``machine``: the one that ran (named in the command that lists its failures, on a shared store);
    ``store``: `` --db STORE`` where the run was given one, which that command then needs too; ``ocr``: the
    run read scans with OCR (those it could not read then lack Tesseract, which their reason says)."""
    lines = [
        f"new {summary.new:,}, updated {summary.updated:,}, unchanged {summary.unchanged:,}, "
        f"moved {summary.moved:,}, removed {summary.removed:,}, failed {summary.failed:,}{_failed_files(summary)}"
        f"{summary.vanished_words()} ({_pace(summary)})",
        f"store: {summary.exact_duplicates:,} exact duplicate(s), {summary.near_duplicates:,} near-duplicate(s), "
        f"{_stored_failures(summary)}",
    ]
    why = _why_failed(summary, machine, store)
    if why is not None:
        lines.append(why)
    if summary.no_text_layer and not ocr:
        # a photo library read "failed 5,000": they are not broken, their text is only in their pixels
        lines.append(f"{summary.no_text_layer:,} of them are images or scans with no text layer: the same "
                     "command with --ocr reads them (Tesseract's OCR, slower)")
    if summary.interrupted:
        lines.append("interrupted: the store is consistent; " + _FINISH[reread])
    return lines


def _watched_there(folders: Sequence[WatchedFolder], store: str) -> list[Path]:
    """A bare ``index``'s paths: the watched folders there now.  One not
    there (a disk not plugged in) is said and left as the store has it: not
    scanned, so its files are not taken for deleted.  ``store``: the
    `` --db STORE`` the commands said need."""
    from lifededup.model import fs_path, shown

    if not folders:
        raise click.UsageError(
            f"name the folders or files to index (lifededup index ~/Documents ~/Mail{store}), or watch folders "
            f"(lifededup folders add ~/Documents{store}): a bare `lifededup index{store}` reads those")
    there = [Path(fs_path(f.path)) for f in folders if Path(fs_path(f.path)).is_dir()]
    for folder in folders:
        if not Path(fs_path(folder.path)).is_dir():
            click.echo(f"{shown(folder.path)} is not there now (a disk not plugged in?): its items are kept as they "
                       "are, and read when it is back", err=True)
    if not there:
        raise click.ClickException("none of the watched folders is there now: nothing read, nothing changed")
    return there


# How to finish an interrupted run: a plain `index` finishes a --reread (the
# files it did not reach are marked), which running it again would start over
_FINISH = {False: "run the same command again to finish",
           True: "a plain `lifededup index` of the same paths (without --reread) finishes it"}


def max_text_option(func: F) -> F:
    """``--max-text-mb``: what bounds memory on a huge file (index and watch)."""
    return click.option(
        "--max-text-mb", type=TEXT_MB, default=IndexConfig.max_text_chars / 2**20, show_default=True,
        help="The most text kept of one item, in millions of characters (Mi); a longer text is cut and the cut "
        "recorded (items.text_cut). What bounds memory on a huge file.")(func)


def ocr_option(func: F) -> F:
    """``--ocr``: read scans with Tesseract (index, watch, daemon start)."""
    return click.option(
        "--ocr", is_flag=True, default=False,
        help="Read scans (PDFs without a text layer, PNG/JPEG/TIFF images) with Tesseract OCR: slow, seconds a "
        "page (sudo apt-get install tesseract-ocr tesseract-ocr-eng).")(func)


@main.command("index")
@click.argument("paths", nargs=-1, type=ExistingPath(path_type=Path))
@click.option("--workers", "-j", type=click.IntRange(1, max_workers()), default=default_workers,
              show_default="one per core", help="Extraction worker processes (at most 4 per core).")
@click.option("--timeout", type=SECONDS, default=Limits.timeout_s, show_default=True,
              help="Seconds a file's parser may run without progress before it is stopped.")
@click.option("--memory-mb", type=MEMORY_MB, default=Limits.memory_mb, show_default=True,
              help="Memory limit of each worker process, in MiB.")
@click.option("--batch", type=BATCH, default=IndexConfig.batch_items, show_default=True,
              help="Items per transaction: what an interruption may lose (it is read again next run).")
@max_text_option
@ocr_option
@click.option("--reread", is_flag=True,
              help="Read every file again, changed or not: after upgrading lifededup, what it now reads better "
              "(a format or a failure it could not read before); each counts as updated.  Interrupted, a plain "
              "`index` finishes it.")
@click.option("--json", "as_json", is_flag=True,
              help="The summary as one JSON object (new, updated, unchanged, moved, removed, failed, items, bytes, "
              "failed_files, vanished, no_text_layer (the failed that are images or scans OCR would read), "
              "exact_duplicates, near_duplicates, failed_in_store (every machine's), failed_here (this machine's of "
              "them), seconds, interrupted, deferred (the files still being written that could not "
              "be read, and why: nothing of them recorded)).")
@db_option
def index_command(paths: tuple[Path, ...], workers: int, timeout: float, memory_mb: int, batch: int,
                  max_text_mb: float, ocr: bool, reread: bool, as_json: bool, db: str | None) -> None:
    """Index the files in PATHS (folders or files) into the store.

    With no PATHS, the folders the store watches (`lifededup folders add`),
    as the watcher's catch-up reads them; one not there now (a disk not
    plugged in) is said, and its items are kept.

    New and changed files are read and fingerprinted; unchanged ones are
    skipped (same size and mtime, or same bytes); moved or renamed files keep
    their item and cluster (one renamed to a name read otherwise -- page.txt
    to page.html, another date in its name -- is read again under its item);
    files gone from the folders are removed from the store.  Files that
    cannot be read, and paths passed over (a link out of the folders, a
    FIFO, an unreadable folder), are recorded with their
    reason (see `lifededup failures`) and do not stop the run.  Nothing
    outside PATHS (or the watched folders they lie in) is read: a link that
    leads out is recorded and skipped.  Files in a watched
    folder (`lifededup folders`) follow its patterns.  Ctrl-C commits the batch
    in flight and stops; run the command again to finish.  Your files are
    only read, never changed.  A path not there as typed, but there with
    its accents encoded the other way (a Mac's copy names "e" + U+0301
    where a keyboard types "\u00e9"), is read as it is on disk, and said.

    Items belong to this machine ($LIFEDEDUP_MACHINE, else the host name):
    several machines may index into one PostgreSQL store at once, each
    seeing, moving and removing only its own items.

    \b
    Example:
      lifededup index ~/Documents ~/Mail
      lifededup dups
      lifededup folders add ~/Documents && lifededup index
    """
    config = IndexConfig(workers=workers, limits=Limits(timeout_s=timeout, memory_mb=memory_mb, ocr=ocr),
                         batch_items=batch, max_text_chars=int(max_text_mb * 2**20), reread=reread)
    from lifededup.index import run_in_folders  # the indexer, SQLAlchemy and numpy: not for --help
    from lifededup.store import list_folders

    stop = threading.Event()
    with opened_store(db, verify=True) as store, stop_on_signals(stop):
        machine = store.machine
        folders = list_folders(store)
        try:
            summary = run_in_folders(store, paths or _watched_there(folders, same_store(db)), folders, config,
                                     progress=progress_for_output(), stop=stop)
        except KeyboardInterrupt:
            raise click.ClickException(
                "interrupted: the store is consistent (the batch in flight was committed or rolled back); "
                + _FINISH[reread]) from None
    if as_json:
        click.echo(json.dumps(summary.as_dict(), indent=2))
        return
    for line in summary_lines(summary, reread=reread, ocr=ocr, machine=machine, store=same_store(db)):
        click.echo(line)
