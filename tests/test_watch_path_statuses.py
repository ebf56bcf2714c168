"""A FIFO and links dropped in a watched folder -- a link out of the
folders, one to nothing, two round a circle -- fail for what the path is,
not for what its bytes say: a file being written never fails so.  Dropped
in a folder just made, beside an empty file and an archive (as in a
tester's folder on the real archive), each is recorded with its status
(not-a-file, link-outside, broken-link, link-loop), and the log names it
once: one WARNING "could not read" and no other line (none of the INFO
that a file changed too lately to be read gets).  Real watchdog events."""

from __future__ import annotations

import logging
import os
import subprocess
from pathlib import Path

import pytest
from test_watch import eventually, watching

from lifededup.store import Store

CORPUS = Path(__file__).resolve().parent.parent / "sample_corpus"
PATHS = {"a-fifo": "not-a-file", "outside.txt": "link-outside", "broken.txt": "broken-link", "loop1": "link-loop",
         "loop2": "link-loop"}


def statuses(store: Store, root: Path) -> dict[str, str]:
    rows = store.execute("SELECT path, status FROM items WHERE part = ''")[1]
    return {Path(str(r[0])).name: str(r[1]) for r in rows if str(r[0]).startswith(str(root.resolve()))}


def test_a_fifo_and_links_are_warned_of_at_once_not_said_to_be_still_written(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="lifededup.watch")
    root, elsewhere = tmp_path / "Downloads", tmp_path / "private.txt"
    root.mkdir()
    elsewhere.write_text("not in the watched folder", encoding="utf-8")
    with watching(tmp_path, root, delay=2.0) as store:
        drop = root / "drop"  # a folder made, then filled: scanned, the scan meeting each just made
        drop.mkdir()
        # an empty file and an archive first, as in the tester's folder: the folder's scan then meets
        # what follows within the watcher's delay of its making
        (drop / "empty.txt").write_bytes(b"")
        subprocess.run(["tar", "czf", str(drop / "corpus.tar.gz"), "-C", str(CORPUS.parent), "sample_corpus"], check=True)
        os.mkfifo(drop / "a-fifo")
        (drop / "outside.txt").symlink_to(elsewhere)
        (drop / "broken.txt").symlink_to(drop / "gone.txt")
        (drop / "loop1").symlink_to(drop / "loop2")
        (drop / "loop2").symlink_to(drop / "loop1")
        eventually(lambda: PATHS.items() <= statuses(store, drop).items(), "each recorded with its status")
    for name in PATHS:
        said = [(r.levelname, r.getMessage()) for r in caplog.records if f"/{name}" in r.getMessage()]
        assert [level for level, _ in said] == ["WARNING"] and "could not read" in said[0][1], \
            f"{name}: not warned of once, at once: {said}"
