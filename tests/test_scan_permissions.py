"""Folders shut to the user and links named as junk, under ``index``, the
watcher and the CLI (explorer E's findings left open by helper F): a folder
that may be listed but not entered keeps the items in it and is recorded
once; a path behind a folder one may not open is said to be shut, not gone;
a link the rules leave out by its name is never recorded, whatever it
points to.  Real files, real processes (as root without the capabilities
that let root read anything: ``setpriv``), real watchdog events."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

import pytest
from index_samples import stored_files, write_text
from test_watch_permissions import (  # noqa: F401 -- env and home are fixtures
    PRIVILEGES, env, home, items, lifededup, needs_permissions, taken_up, wait_for, watcher,
)

from lifededup.index import IndexConfig, run_in_folders
from lifededup.store import WatchedFolder, open_store

ENTERED_NOT = "folder cannot be entered, only listed: Permission denied"

# r without x: `ls` lists the names, and no file in it may be looked at
LISTED_ONLY = pytest.mark.parametrize("mode", [0o444, 0o400], ids=["chmod-444", "chmod-u=r"])


@needs_permissions
@LISTED_ONLY
def test_index_keeps_the_items_of_a_folder_listed_but_not_entered(tmp_path: Path, env: dict[str, str], home: Path,
                                                                   mode: int) -> None:
    private = home / "private"
    notes = [write_text(private / "council.txt", seed=3), write_text(private / "garden.txt", seed=4)]
    write_text(home / "open.txt", seed=5)
    lifededup("index", str(home), env=env)
    before = items(tmp_path / "s.db")
    private.chmod(mode)
    said = lifededup("index", str(home), env=env)
    now = items(tmp_path / "s.db")
    assert {str(n): now.get(str(n)) for n in notes} == {str(n): before[str(n)] for n in notes}, \
        f"each file keeps its item, status and text while its folder is shut: {said}; {now}"
    assert now[str(private)][1:3] == ("unreadable", ENTERED_NOT), now.get(str(private))
    assert "failed 1 " in said, f"the folder recorded once, not each file in it: {said}"
    private.chmod(0o755)
    opened = lifededup("index", str(home), env=env)
    after = items(tmp_path / "s.db")
    assert str(private) not in after and after == before, f"the folder entered again, its record goes: {after}"
    assert "new 0, updated 0" in opened, opened


@needs_permissions
@LISTED_ONLY
def test_the_watcher_keeps_the_item_of_a_file_edited_in_a_folder_listed_but_not_entered(
        tmp_path: Path, env: dict[str, str], home: Path, mode: int) -> None:
    private = home / "private"
    note = write_text(private / "council.txt", seed=3)
    with watcher(tmp_path, home, env, settled=note) as log:
        was = items(tmp_path / "s.db")[str(note)][0]
        written_in_shut_folder(private, mode, {note: "P.S. still broken.\n"}, taken_up(tmp_path, home, "a.txt", 4, log))
        taken_up(tmp_path, home, "b.txt", 5, log)()
        stored = {path: row[:3] for path, row in items(tmp_path / "s.db").items()}
        assert stored.get(str(note), (0, ""))[:2] == (was, "ok"), \
            f"a file the watcher may not look at is not replaced by a failure: its item is kept: {stored}"
        assert stored[str(private)][1:] == ("unreadable", ENTERED_NOT), stored
        private.chmod(0o755)
        with note.open("a") as edited:
            edited.write("One more line about the streetlight.\n")
        wait_for(lambda: "streetlight" in (items(tmp_path / "s.db")[str(note)][3] or ""), "the edit read", log)
        assert items(tmp_path / "s.db")[str(note)][:2] == (was, "ok"), "under the item it had"


def written_in_shut_folder(folder: Path, mode: int, writes: dict[Path, str], between: Callable[[], None]) -> None:
    """``folder`` made ``mode``, ``between`` called, then the files in it
    appended to through descriptors opened before (as root may anyway)."""
    with ExitStack() as files:
        opened = {path: files.enter_context(path.open("a")) for path in writes}
        folder.chmod(mode)
        between()
        for path, text in writes.items():
            opened[path].write(text)


def refused(*args: str, env: dict[str, str]) -> str:
    """What a command that must refuse says (it exits 1 or 2, without a traceback)."""
    done = subprocess.run([*(PRIVILEGES or []), sys.executable, "-m", "lifededup", *args], env=env, text=True,
                          capture_output=True, timeout=300, errors="replace")
    assert done.returncode in (1, 2) and "Traceback" not in done.stderr, done.stderr
    return done.stderr


@needs_permissions
@pytest.mark.parametrize("mode", [0o000, 0o444], ids=["chmod-000", "chmod-444"])
def test_the_cli_says_a_path_behind_a_shut_folder_cannot_be_read_not_that_it_does_not_exist(
        tmp_path: Path, env: dict[str, str], home: Path, mode: int) -> None:
    locked = home / "locked"
    note = write_text(locked / "a.txt", seed=1)
    (locked / "sub").mkdir()
    locked.chmod(mode)
    for command in (["index", str(note)], ["folders", "add", str(locked / "sub")], ["watch", str(locked / "sub")],
                    ["fingerprint", str(note)]):
        said = refused(*command, env=env)
        assert "does not exist" not in said and "cannot be read, permission denied" in said, f"{command}: {said}"
        assert f"you may not open the folder {locked}" in said, f"{command}: the folder that shuts it named: {said}"
    assert str(locked) not in lifededup("folders", "list", env=env), "nothing added"
    assert "does not exist" in refused("index", str(home / "gone.txt"), env=env), "a path not there still is"


def test_a_link_named_as_junk_is_never_recorded_whatever_it_points_to(tmp_path: Path) -> None:
    """A full index and the watcher's event: an editor's backup name
    (``note.txt~``), emacs's autosave (``#note.txt#``), a partial download,
    each leading nowhere; and, under a folder's include pattern, a link that
    pattern leaves out.  A link to nothing the rules admit is recorded, and
    a link to a folder is judged by the folders' rules, as a folder named
    so is (``photos~``, out of the walls, is recorded)."""
    root = tmp_path / "home"
    note = write_text(root / "note.txt", seed=1)
    shots = write_text(tmp_path / "elsewhere" / "photos" / "list.txt", seed=2)
    junk = [root / "note.txt~", root / "#note.txt#", root / "report.pdf.part"]
    for link in junk:
        link.symlink_to(root / "gone" / link.name)
    (root / "photos~").symlink_to(shots.parent)
    (root / "report.pdf").symlink_to(root / "gone" / "report.pdf")
    (root / "notes.txt").symlink_to(root / "gone" / "notes.txt")
    folder = WatchedFolder(str(root))
    with open_store(tmp_path / "s.db") as store:
        run_in_folders(store, [root], [folder], IndexConfig(workers=1))
        assert stored_files(store) == {str(note): "ok", str(root / "photos~"): "link-outside",
                                       str(root / "report.pdf"): "broken-link",
                                       str(root / "notes.txt"): "broken-link"}, \
            f"no junk-named link recorded; the other links are: {stored_files(store)}"
        before = stored_files(store)
        summary = run_in_folders(store, [str(p) for p in junk], [folder], IndexConfig(workers=1), named=False)
        assert stored_files(store) == before and summary.failed == 0, f"the watcher's events: {stored_files(store)}"
    pdfs = WatchedFolder(str(root), include=("*.pdf",))
    with open_store(tmp_path / "pdfs.db") as store:
        run_in_folders(store, [root], [pdfs], IndexConfig(workers=1))
        run_in_folders(store, [str(root / "notes.txt")], [pdfs], IndexConfig(workers=1), named=False)
        assert stored_files(store) == {str(root / "report.pdf"): "broken-link",
                                       str(root / "photos~"): "link-outside"}, \
            f"a link to nothing that *.pdf leaves out is not recorded: {stored_files(store)}"
