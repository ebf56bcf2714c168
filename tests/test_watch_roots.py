"""What the watcher says when a watched folder changes under it: explorer E
unmounted a watched disk, and the log said nothing until it came back (the
mount point left behind is another folder at the same path)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from index_samples import item_ids, write_text
from test_watch import eventually, watching


def test_a_disk_unmounted_from_a_watched_folder_is_said(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="lifededup.watch")
    root, disk = tmp_path / "home", tmp_path / "usb"
    write_text(root / "a.txt", seed=1)
    write_text(disk / "photos.txt", seed=2)
    with watching(tmp_path, root, also=(disk,)) as store:
        before = item_ids(store)
        disk.rename(tmp_path / "usb-unmounted")
        disk.mkdir()  # the bare mount point an unmounted disk leaves
        eventually(lambda: f"{disk.resolve()} is no longer the folder that was watched" in caplog.text,
                   "the log says the folder changed")
        assert item_ids(store) == before, "its items are kept"
        disk.rmdir()
        (tmp_path / "usb-unmounted").rename(disk)  # mounted again
        eventually(lambda: f"{disk.resolve()}: there now, scanned" in caplog.text, "and that it is back")
        assert item_ids(store) == before
