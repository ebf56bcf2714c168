"""``lifededup index`` with no paths reads the folders the store watches, as
the watcher's catch-up does; a watched folder not there now (a disk not
plugged in) is said and its items kept; with no watched folder, it says
what to type.  Real folders, both backends, the CLI as a person runs it."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from lifededup.cli import main
from lifededup.store import open_store


def lifededup(db: str, *args: str, code: int = 0) -> str:
    done = CliRunner().invoke(main, [*args, "--db", db])
    assert done.exit_code == code, done.output
    return done.output


def paths(db: str) -> set[str]:
    _, rows = open_store(db).execute("SELECT path FROM items")
    return {Path(str(r[0])).name for r in rows}


def test_a_bare_index_reads_the_watched_folders_and_keeps_one_not_there(tmp_path: Path, store_url: str) -> None:
    letters, usb = tmp_path / "letters", tmp_path / "usb"
    letters.mkdir()
    usb.mkdir()
    (letters / "to-ann.txt").write_text("Dear Ann, the survey of the river starts on Monday at the old mill.")
    (usb / "backup-note.txt").write_text("The backup disk holds the photographs of the harbour festival.")
    lifededup(store_url, "folders", "add", str(letters), str(usb))
    assert "new 2," in lifededup(store_url, "index")
    (letters / "to-bob.txt").write_text("Dear Bob, the boat leaves the harbour at dawn on Saturday, weather allowing.")
    shutil.move(usb, tmp_path / "unplugged")  # the disk taken away
    said = lifededup(store_url, "index")
    assert "new 1," in said and "removed 0," in said
    assert f"{usb} is not there now (a disk not plugged in?): its items are kept" in said
    assert paths(store_url) == {"to-ann.txt", "to-bob.txt", "backup-note.txt"}


def test_a_bare_index_of_a_store_that_watches_nothing_says_what_to_type(tmp_path: Path, store_url: str) -> None:
    said = lifededup(store_url, "index", code=2)
    assert "name the folders or files to index (lifededup index ~/Documents ~/Mail" in said
    assert "lifededup folders add ~/Documents" in said
