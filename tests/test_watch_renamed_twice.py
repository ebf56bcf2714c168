"""A file renamed so that it reads otherwise (``notes.txt`` become
``notes.md``) is moved under its item at once and read again there; renamed
once more before that read -- a name corrected a second later, a large PDF
renamed twice while it is read -- it lost its item: half written until the
read, it was no move source, so its next name was a new item (a new id, its
cluster made again) and the item removed.  It follows its file, and is read
where it went.  Real watchdog events; and ``index`` stopped between the two
renames, as a watcher killed there leaves it."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from click.testing import CliRunner
from index_samples import assert_matches
from store_samples import prose
from test_watch import eventually, watching

from lifededup.cli import main
from lifededup.store import Store, open_store

NOTES = "# The allotment\n\n" + prose(3, 2000) + "\n"


def files(store: Store) -> dict[str, tuple[int, object, object]]:
    """Each stored file's name -> (id, status, title)."""
    _, rows = store.execute("SELECT path, id, status, title FROM items WHERE part = ''")
    return {Path(str(p)).name: (int(str(i)), s, t) for p, i, s, t in rows}


def read(store: Store) -> bool:
    """Whether every file is read (none half written, left to be read again)."""
    return store.execute("SELECT count(*) FROM items WHERE mtime IS NULL")[1] == [(0,)]


@pytest.mark.parametrize("second", ["allotment.md", "allotment.txt"])
def test_a_file_renamed_again_before_it_is_read_keeps_its_item(tmp_path: Path, second: str,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="lifededup.watch")
    root = tmp_path / "home"
    root.mkdir()
    (root / "notes.txt").write_text(NOTES)
    with watching(tmp_path, root) as store:
        item = files(store)["notes.txt"][0]
        (root / "notes.txt").rename(root / "notes.md")
        eventually(lambda: "notes.md" in files(store), "the first rename is followed")
        (root / "notes.md").rename(root / second)  # at once: before, or while, notes.md is read
        eventually(lambda: set(files(store)) == {second} and files(store)[second][1] == "ok" and read(store),
                   "the second rename is followed, and the file read")
        after = files(store)
        assert_matches(store, root)
    title = "The allotment" if second.endswith(".md") else None  # read as Markdown, or as text again
    assert after[second] == (item, "ok", title), (item, after, [r.getMessage() for r in caplog.records])


def test_index_stopped_before_the_read_then_the_file_renamed_keeps_its_item(tmp_path: Path) -> None:
    """The first rename followed and the file left to be read (half written),
    as a watcher or an index killed before the read leaves it; renamed
    again, the next index reads it under its item."""
    root = tmp_path / "home"
    root.mkdir()
    (root / "notes.txt").write_text(NOTES)
    db = str(tmp_path / "s.db")
    assert CliRunner().invoke(main, ["index", "--db", db, str(root)]).exit_code == 0
    with open_store(db) as store:
        item = files(store)["notes.txt"][0]
        # notes.txt renamed notes.md, the move followed, the read not done: what _follow leaves
        store.execute("UPDATE items SET path = :new, mtime = NULL WHERE id = :id",
                      {"new": str((root / "notes.md").resolve()), "id": item})
    (root / "notes.txt").rename(root / "allotment.md")
    said = CliRunner().invoke(main, ["index", "--db", db, str(root)])
    assert said.exit_code == 0 and "new 0, updated 1, unchanged 0, moved 1, removed 0" in said.output, said.output
    with open_store(db) as store:
        assert files(store) == {"allotment.md": (item, "ok", "The allotment")}
        assert_matches(store, root)
