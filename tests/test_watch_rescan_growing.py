"""The watcher's periodic rescan, not an event, meets a file still being
written (a download in progress): it recorded the half file a failure
("corrupt"), listed by `lifededup failures` until the next read, where a
file an event took so was recorded nothing (``test_watch_growing_store``).
The rescan defers it the same way: nothing recorded, read again once it is
still.  A file damaged and still is recorded as before.

Real watchdog events and a real rescan every second; the events are kept
from settling while the file is written (a write every 0.1 s, ``max_wait``
60 s), so that only the rescans read it as it grows.  The two slow tests (10 s
each: the file written over 8 s) take one backend each, the watcher's part
being the same on both: the half-written file on SQLite, the damaged one on
PostgreSQL."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from test_watch import eventually, watching
from test_watch_growing import PDF, said
from test_watch_growing_store import listed, write_watching, written_unlisted

from lifededup.store import Store

# a rescan a second: eight of them, at least, while the file is written (test_watch_growing_store.SECONDS)
RESCAN_S, DELAY_S, MAX_WAIT_S = 1.0, 1.0, 60.0


@contextmanager
def rescanning(tmp_path: Path, root: Path, store_url: str | None) -> Iterator[Store]:
    with watching(tmp_path, root, store_url=store_url, rescan_every=RESCAN_S, delay=DELAY_S, max_wait=MAX_WAIT_S,
                  workers=1) as store:
        yield store


def test_a_rescan_records_nothing_of_a_pdf_still_being_written(tmp_path: Path,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="lifededup.watch")
    root = tmp_path / "Downloads"
    root.mkdir()
    with rescanning(tmp_path, root, None) as store:
        ended = written_unlisted(store, root / "minutes.pdf")
    quiet = said(caplog, logging.INFO, "minutes.pdf: not readable")
    assert quiet and all(r.created < ended for r in quiet), \
        f"said at INFO while it grew: {[r.getMessage() for r in caplog.records]}"
    assert not said(caplog, logging.WARNING, "minutes.pdf"), [r.getMessage() for r in caplog.records]


def test_a_pdf_left_damaged_is_recorded_by_a_rescan_once_still(pg_url: str, tmp_path: Path) -> None:
    root = tmp_path / "Downloads"
    root.mkdir()
    target = root / "cut.pdf"
    with rescanning(tmp_path, root, pg_url) as store:
        seen: list[object] = []
        write_watching(target, PDF.read_bytes()[:20_000], seen, lambda: listed(store, target))
        eventually(lambda: bool(listed(store, target)), "the half PDF is listed once it is still")
        assert [said.split(":")[0] for said in listed(store, target)] == ["corrupt"], listed(store, target)
    assert not any(seen), f"listed while it was written: {[s for s in seen if s][:3]}"


def test_a_damaged_file_long_still_is_recorded_by_the_catch_up_scan(store_url: str, tmp_path: Path) -> None:
    root = tmp_path / "Downloads"
    root.mkdir()
    target = root / "cut.pdf"
    target.write_bytes(PDF.read_bytes()[:20_000])
    an_hour_ago = time.time() - 3600
    os.utime(target, (an_hour_ago, an_hour_ago))
    with rescanning(tmp_path, root, store_url) as store:
        now = listed(store, target)
    assert [said.split(":")[0] for said in now] == ["corrupt"], f"recorded by the catch-up scan at once: {now}"
