"""The watcher asks the system only for the events it uses, and scans its
folders again when the system dropped some.  Explorer E's watcher over a
home of 5,400 folders asked for every file opened and closed unwritten too:
one backup reading the tree overflowed the kernel's queue of events, and
watchdog's repair of its watches, a walk opening every folder, overflowed it
again, for ever -- full CPU, nothing indexed.  Real watchdog observers, the
kernel's own account of the watches (/proc), a real overflow."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest
from index_samples import assert_matches, files_on_disk, stored_files, write_text
from store_samples import prose
from test_watch import eventually, watching

from lifededup.store import Store

# inotify(7)'s event bits
IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE, IN_CLOSE_NOWRITE, IN_OPEN = 0x2, 0x4, 0x8, 0x10, 0x20
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
QUEUE = Path("/proc/sys/fs/inotify/max_queued_events")


def masks_watching(folder: Path) -> list[int]:
    """The masks of this process's inotify watches on ``folder``, as the kernel keeps them (fdinfo)."""
    inode = folder.stat().st_ino
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") != "anon_inode:inotify":
                continue
            lines = Path(f"/proc/self/fdinfo/{fd}").read_text().splitlines()
        except OSError:
            continue  # closed meanwhile
        for line in lines:
            if line.startswith("inotify wd:"):
                fields = dict(f.split(":", 1) for f in line.split()[1:] if ":" in f)
                if int(fields["ino"], 16) == inode:
                    found.append(int(fields["mask"], 16))
    return found


@pytest.mark.skipif(not Path("/proc/self/fdinfo").is_dir(), reason="no /proc to read the watches from")
def test_the_watcher_asks_for_no_event_of_a_file_only_read(tmp_path: Path) -> None:
    root = tmp_path / "home"
    write_text(root / "notes" / "a.txt", seed=1)
    with watching(tmp_path, root) as store:
        masks = masks_watching(root) + masks_watching(root / "notes")
        assert len(masks) == 2, f"one watch on each folder: {masks}"
        for mask in masks:
            assert not mask & (IN_OPEN | IN_CLOSE_NOWRITE), f"a file opened or read is no event of ours: {mask:#x}"
            wanted = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
            assert mask & wanted == wanted, f"every change is: {mask:#x}"
        write_text(root / "notes" / "b.txt", seed=2)  # and the changes still come
        eventually(lambda: len(stored_files(store)) == 2, "a file written is indexed")


@pytest.mark.alone  # the queue's size is the machine's: scripts/test.sh runs this after the others, by itself
@pytest.mark.skipif(not os.access(QUEUE, os.W_OK),
                    reason="only root can shrink the system's queue of events (fs.inotify.max_queued_events) "
                           "to make it overflow on purpose")
def test_events_the_system_dropped_are_found_by_a_scan_at_once(tmp_path: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    root = tmp_path / "home"
    write_text(root / "burst" / "first.txt", seed=1)  # a folder already there: no event of a folder made
    caplog.set_level(logging.WARNING)
    before = QUEUE.read_text()
    QUEUE.write_text("16")  # the queue of each inotify instance made meanwhile: the watcher's
    try:
        with watching(tmp_path, root) as store:
            QUEUE.write_text(before)  # for everyone else, as it was
            for attempt in range(5):  # on a loaded machine the watcher may keep up with a burst: another one
                burst(store, root, start=300 * attempt)
                if "the system dropped file events" in caplog.text:
                    break
    finally:
        QUEUE.write_text(before)
    assert "the system dropped file events" in caplog.text, caplog.text


def burst(store: Store, root: Path, start: int = 0) -> None:
    texts = {root / "burst" / f"file{i:04d}.txt": prose(100 + i, 20) + "\n" for i in range(start, start + 300)}
    for path, text in texts.items():  # 900 events at least: more than the queue holds, faster than it is read
        path.write_text(text, encoding="utf-8")
    # the hourly rescan is an hour away: only a scan after the overflow finds the files whose events were lost
    eventually(lambda: set(stored_files(store)) == files_on_disk(root), "every file of the burst is indexed",
               timeout=45.0)
    assert_matches(store, root)
