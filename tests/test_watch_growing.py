"""A file written slowly to its final name (a PDF downloading at a few kB/s,
explorer E's s2_growing.sh) is read as it is every ``max_wait`` seconds,
while it grows: each read of the half-written PDF was a WARNING, "damaged
PDF", until it was whole.  It is said once, at INFO, and read again once it
is still; only a file still damaged then is warned of.  Real watchdog
events; the watcher's ``max_wait`` cut from 60 s to 3 so that the test
lasts seconds."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

import pytest
from test_watch import eventually
from test_watch import watching as watched

from lifededup.store import Store

PDF = Path(__file__).resolve().parent.parent / "sample_corpus/Documents/residents-minutes/PDF/residents-minutes-v1.pdf"
# a write every 0.1 s, ten times within the watcher's delay: never a pause it could take for the end
DELAY_S, MAX_WAIT_S, EVERY_S = 1.0, 3.0, 0.1


def watching(tmp_path: Path, root: Path) -> AbstractContextManager[Store]:
    """The watcher of ``test_watch``, one worker, its delay and max_wait cut to DELAY_S and MAX_WAIT_S."""
    return watched(tmp_path, root, delay=DELAY_S, max_wait=MAX_WAIT_S, workers=1)


def write_slowly(path: Path, data: bytes, seconds: float, after_each: Callable[[], object] | None = None) -> float:
    """``data`` appended in pieces every EVERY_S for ``seconds`` (``after_each()``
    called after each piece); returns when it ended (time.time())."""
    pieces = int(seconds / EVERY_S)
    size = -(-len(data) // pieces)
    with path.open("wb") as out:
        for start in range(0, len(data), size):
            out.write(data[start:start + size])
            out.flush()
            time.sleep(EVERY_S)
            if after_each is not None:
                after_each()
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
    quiet = said(caplog, logging.INFO, "minutes.pdf: not readable")
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
    quiet = said(caplog, logging.INFO, "cut.pdf: not readable")
    assert len(quiet) == 1 and quiet[0].created < ended, [r.getMessage() for r in caplog.records]


def test_a_download_that_stalls_is_warned_of_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A download stalled for longer than the watcher's delay (wget on a slow
    line) is still: it is read, found damaged, and warned of -- which was
    said again at each stall, the same file still coming.  Once warned of,
    a file that grew since and fails alike is said at INFO."""
    caplog.set_level(logging.INFO, logger="lifededup.watch")
    root = tmp_path / "Downloads"
    root.mkdir()
    target = root / "stalls.pdf"
    data = PDF.read_bytes()
    with watching(tmp_path, root) as store, target.open("wb") as out:
        for start in range(0, len(data), -(-len(data) // 4)):  # four bursts, each followed by a stall
            out.write(data[start:start + -(-len(data) // 4)])
            out.flush()
            stalled = time.time()
            if start + -(-len(data) // 4) < len(data):
                eventually(lambda: any(r.created > stalled for r in said(caplog, logging.WARNING, "stalls.pdf"))
                           or any(r.created > stalled for r in said(caplog, logging.INFO, "stalls.pdf: still")),
                           "the stalled download is read, and found not readable")
        out.close()
        eventually(lambda: any(s == "ok" and "Elm Court" in str(t) for s, t in status_of(store, target)),
                   "the PDF is read whole once written")
    warned = said(caplog, logging.WARNING, "stalls.pdf")
    assert len(warned) == 1, f"warned of once, not at each stall: {[r.getMessage() for r in warned]}"
    again = said(caplog, logging.INFO, "stalls.pdf: still not readable")
    assert len(again) == 2, f"said at INFO at each later stall: {[r.getMessage() for r in caplog.records]}"
    counted = [r.getMessage() for r in said(caplog, logging.INFO, ", failed ") if "failed 0" not in r.getMessage()]
    assert len(counted) == 1, f"counted failed once: {counted}"
