"""A file too large to read (over the readers' ``max_bytes``, recorded
``too-large``) is never hashed, so a rename was followed by its device and
inode only when its name stayed the same: renamed, it was taken for a file
deleted and a new one -- its record removed and made again under a new id,
``removed 1, failed 1``.  It keeps its item and record under the new name,
as any renamed file does: for ``index`` twice and for the watcher's real
events.  The file is sparse: 257 MiB on disk cost nothing to make or scan."""

from __future__ import annotations

import os
from pathlib import Path

from click.testing import CliRunner
from test_watch import eventually, watching

from lifededup.cli import main
from lifededup.extract import Limits
from lifededup.store import Store, open_store

SIZE = Limits.max_bytes + 2**20


def a_huge_pdf(path: Path) -> Path:
    """A PDF by its first bytes (so read as one, and refused by its size), sparse."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"%PDF-1.4\n")
    os.truncate(path, SIZE)
    return path.resolve()


def rows(store: Store) -> dict[str, tuple[object, ...]]:
    """path -> (id, status) of every item."""
    return {str(r[0]): (r[1], r[2]) for r in store.execute("SELECT path, id, status FROM items")[1]}


def index(db: Path, folder: Path) -> str:
    done = CliRunner().invoke(main, ["index", "--db", str(db), "--workers", "1", str(folder)])
    assert done.exit_code == 0, done.output
    return done.output


def test_index_follows_a_renamed_file_too_large_to_read(tmp_path: Path) -> None:
    root = tmp_path / "archive"
    disk = a_huge_pdf(root / "disk.pdf")
    (root / "note.txt").write_text("A note on the garden fence, mended in May.\n")
    db = tmp_path / "s.db"
    index(db, root)
    with open_store(db, readonly=True) as store:
        before = rows(store)
    assert before[str(disk)][1] == "too-large", before
    renamed = root / "Images" / "vm-disk.pdf"
    renamed.parent.mkdir()
    disk.rename(renamed)
    said = index(db, root)
    with open_store(db, readonly=True) as store:
        after = rows(store)
    assert after.get(str(renamed.resolve())) == before[str(disk)] and str(disk) not in after, \
        f"the renamed file keeps its item and record: {before} -> {after}"
    assert "moved 1, removed 0, failed 0" in said, f"followed as a move, not removed and recorded again: {said}"


def test_the_watcher_follows_a_renamed_file_too_large_to_read(tmp_path: Path) -> None:
    root = tmp_path / "archive"
    disk = a_huge_pdf(root / "disk.pdf")
    with watching(tmp_path, root) as store:
        # (made just now: the catch-up scan may take it for a file still being written, recorded once still)
        eventually(lambda: rows(store).get(str(disk), (0, ""))[1] == "too-large", "the file is recorded too-large")
        before = rows(store)
        renamed = root / "vm-disk.pdf"
        disk.rename(renamed)
        eventually(lambda: str(renamed.resolve()) in rows(store) and str(disk) not in rows(store),
                   "the rename is taken up")
        after = rows(store)
    assert after == {str(renamed.resolve()): before[str(disk)]}, \
        f"the renamed file keeps its item and record: {before} -> {after}"
