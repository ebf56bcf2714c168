"""A file written slowly to its final name (a PDF downloading at a few kB/s,
explorer E's s2_growing.sh) is read as it is every ``max_wait`` seconds,
while it grows: each read of the half-written PDF was a WARNING, "damaged
PDF", until it was whole.  It is said once, at INFO, and read again once it
is still; only a file still damaged then is warned of.  Real watchdog
events; the watcher's ``max_wait`` cut from 60 s to 3 so that the test
lasts seconds."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from test_watch import TIMEOUT_S, eventually

from lifededup.index import IndexConfig
from lifededup.store import Store, WatchedFolder, open_store
from lifededup.watch import Watcher, WatchStatus

PDF = Path(__file__).resolve().parent.parent / "sample_corpus/Documents/residents-minutes/PDF/residents-minutes-v1.pdf"
# a write every 0.1 s, ten times within the watcher's delay: never a pause it could take for the end
DELAY_S, MAX_WAIT_S, EVERY_S = 1.0, 3.0, 0.1


@contextmanager
def watching(tmp_path: Path, root: Path) -> Iterator[Store]:
    db = tmp_path / "watch.db"
    open_store(db).close()
    stop, caught_up = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def report(status: WatchStatus) -> None:
        if status.state == "watching":
            caught_up.set()

    def target() -> None:
        try:
            with open_store(db) as store:
                Watcher(store, [WatchedFolder(str(root.resolve()))], IndexConfig(workers=1), stop, delay=DELAY_S,
                        max_wait=MAX_WAIT_S, on_status=report).run()
        except BaseException as exc:  # reported in the test's thread
            errors.append(exc)
            caught_up.set()

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    reader = open_store(db, readonly=True)
    try:
        assert caught_up.wait(TIMEOUT_S) and not errors, errors
        yield reader
    finally:
        stop.set()
        thread.join(TIMEOUT_S)
        reader.close()
    assert not thread.is_alive() and not errors, errors


def write_slowly(path: Path, data: bytes, seconds: float) -> float:
    """``data`` appended in pieces every EVERY_S for ``seconds``; returns when it ended (time.time())."""
    pieces = int(seconds / EVERY_S)
    size = -(-len(data) // pieces)
    with path.open("wb") as out:
        for start in range(0, len(data), size):
            out.write(data[start:start + size])
            out.flush()
            time.sleep(EVERY_S)
    return time.time()


def said(caplog: pytest.LogCaptureFixture, level: int, words: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno == level and words in r.getMessage()]


def status_of(store: Store, path: Path) -> list[tuple[object, ...]]:
    return [tuple(r) for r in store.execute("SELECT status, text FROM items WHERE path = :p AND part = ''",
                                            {"p": str(path.resolve())})[1]]


def test_a_pdf_written_slowly_is_said_once_quietly_and_read_whole(tmp_path: Path,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="lifededup.watch")
    root = tmp_path / "Downloads"
    root.mkdir()
    target = root / "minutes.pdf"
    with watching(tmp_path, root) as store:
        write_slowly(target, PDF.read_bytes(), seconds=8.0)
        eventually(lambda: any(s == "ok" and "Elm Court" in str(t) for s, t in status_of(store, target)),
                   "the PDF is read whole once written")
    warned = said(caplog, logging.WARNING, "minutes.pdf")
    assert not warned, f"a PDF still being written was warned of: {[r.getMessage() for r in warned]}"
    quiet = said(caplog, logging.INFO, "minutes.pdf is still being written")
    assert len(quiet) == 1, f"said once, at INFO, while it grew: {[r.getMessage() for r in caplog.records]}"


def test_a_pdf_that_stops_half_written_is_warned_of_once_still(tmp_path: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="lifededup.watch")
    root = tmp_path / "Downloads"
    root.mkdir()
    target = root / "cut.pdf"
    with watching(tmp_path, root) as store:
        ended = write_slowly(target, PDF.read_bytes()[:20_000], seconds=8.0)
        eventually(lambda: any(r.created > ended for r in said(caplog, logging.WARNING, "could not read")),
                   "the half PDF is warned of once it is still")
        assert [s for s, _ in status_of(store, target)] == ["corrupt"], "and recorded as a failure"
    warned = said(caplog, logging.WARNING, "cut.pdf")
    assert len(warned) == 1 and "damaged or truncated PDF" in warned[0].getMessage(), \
        f"warned of once, when still: {[(r.created - ended, r.getMessage()) for r in warned]}"
    quiet = said(caplog, logging.INFO, "cut.pdf is still being written")
    assert len(quiet) == 1 and quiet[0].created < ended, [r.getMessage() for r in caplog.records]
