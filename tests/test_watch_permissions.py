"""Permissions and junk links under the watcher and ``index`` (explorer E's
f_unreadable_sticks, f_unreadable_edit, f_emacs_lock, f_hidden_links): a
file whose permissions are mended is read, a file edited in a folder that
cannot be listed keeps its item, and a link the rules leave out is never
recorded.  Real files, real processes and real watchdog events; as root the
processes run without the capabilities that let root read anything
(``setpriv``), else permissions would not bind them."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest
from hostile_corpus import without_read_override
from index_samples import item_ids, stored_files, write_text
from store_samples import prose
from test_watch import watching

from lifededup.index import IndexConfig, run_in_folders
from lifededup.store import WatchedFolder, open_store

PRIVILEGES = without_read_override()
needs_permissions = pytest.mark.skipif(
    PRIVILEGES is None, reason="running as root without setpriv: permissions cannot bind a process here")


TIMEOUT_S = 60.0


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_DATA_HOME": str(tmp_path / "data"),
            "XDG_CONFIG_HOME": str(tmp_path / "config"), "LIFEDEDUP_DB": str(tmp_path / "s.db")}


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "home"
    root.mkdir()
    yield root
    for folder, names, _ in os.walk(root):  # its folders listed again, for pytest's cleanup
        for name in names:
            if not os.path.islink(os.path.join(folder, name)):
                os.chmod(os.path.join(folder, name), 0o755)


def lifededup(*args: str, env: dict[str, str]) -> str:
    done = subprocess.run([*(PRIVILEGES or []), sys.executable, "-m", "lifededup", *args], env=env, text=True,
                          capture_output=True, timeout=300, errors="replace")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return done.stdout


def items(db: Path) -> dict[str, tuple[int, str, str | None, str | None]]:
    """path -> (id, status, error, text) of every file item, read with plain sqlite3, read-only."""
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    except sqlite3.OperationalError:
        return {}  # not made yet
    try:
        rows = conn.execute("SELECT path, id, status, error, text FROM items WHERE part = ''").fetchall()
    except sqlite3.OperationalError:
        return {}  # its tables not made yet
    finally:
        conn.close()
    return {r[0]: (r[1], r[2], r[3], r[4]) for r in rows}


def wait_for(check: Callable[[], bool], what: str, log: Path | None = None) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    said = log.read_text(errors="replace")[-3000:] if log is not None else ""
    raise AssertionError(f"not within {TIMEOUT_S:g} s: {what}\n{said}")


@contextmanager
def watcher(tmp_path: Path, root: Path, env: dict[str, str], settled: Path) -> Iterator[Path]:
    """``lifededup watch root`` in a process permissions bind; yields its log
    once its catch-up scan has stored ``settled``."""
    log = tmp_path / "watch.log"
    with log.open("w") as out:
        process = subprocess.Popen([*(PRIVILEGES or []), sys.executable, "-m", "lifededup", "watch", str(root),
                                    "--delay", "0.3", "-j", "1"], env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: items(tmp_path / "s.db").get(str(settled), (0, ""))[1] == "ok", "the catch-up scan", log)
        yield log
        assert process.poll() is None, f"the watcher died:\n{log.read_text(errors='replace')[-3000:]}"
    finally:
        process.terminate()
        code = process.wait(TIMEOUT_S)
    said = log.read_text(errors="replace")
    assert code == 0 and "Traceback" not in said, f"exit {code}:\n{said[-3000:]}"


def locked_copy(root: Path, name: str, seed: int) -> Path:
    """A file put in ``root`` as ``sudo cp`` leaves one: unreadable (mode 000)
    from the moment it appears (written beside the folder, moved in)."""
    aside = root.parent / name
    write_text(aside, seed=seed)
    aside.chmod(0)
    return aside.rename(root / name)


@needs_permissions
def test_index_reads_a_file_whose_permissions_were_mended(tmp_path: Path, env: dict[str, str], home: Path) -> None:
    note = locked_copy(home, "insurance.txt", seed=1)
    lifededup("index", str(home), env=env)
    first = items(tmp_path / "s.db")[str(note)]
    assert first[1] == "unreadable", f"a file mode 000 cannot be read: {first}"
    # who may not read it, whose it is and how it can be: it said "permission denied: Permission denied"
    assert re.fullmatch(r"permission denied: \S+ may not read it \(owner \S+, -{10}\); it is read once that user "
                        r"may \(chmod a\+r, or the file's group\)", first[2] or ""), first
    again = lifededup("index", str(home), env=env)
    assert "new 0, updated 0" in again and "failed 0 " in again, \
        f"a file still unreadable is not read (nor a failure logged) again each run: {again}"
    note.chmod(0o644)  # neither its size nor its mtime changes
    mended = lifededup("index", str(home), env=env)
    now = items(tmp_path / "s.db")[str(note)]
    assert now[1] == "ok" and prose(1, 200)[:60] in (now[3] or ""), f"read once it can be: {now}; {mended}"
    assert now[0] == first[0], f"under the item it had: {first[0]} -> {now[0]}"
    assert "updated 1" in mended, mended


@needs_permissions
def test_the_watcher_reads_a_file_once_its_permissions_are_mended(tmp_path: Path, env: dict[str, str],
                                                                  home: Path) -> None:
    first = write_text(home / "first.txt", seed=2)
    with watcher(tmp_path, home, env, settled=first) as log:
        note = locked_copy(home, "insurance.txt", seed=1)
        wait_for(lambda: items(tmp_path / "s.db").get(str(note), (0, ""))[1] == "unreadable",
                 "the locked file recorded unreadable", log)
        was = items(tmp_path / "s.db")[str(note)][0]
        note.chmod(0o644)  # chown, chmod: an IN_ATTRIB alone
        wait_for(lambda: items(tmp_path / "s.db")[str(note)][1] == "ok", "the mended file read", log)
        assert items(tmp_path / "s.db")[str(note)][0] == was, "the file keeps its item"


def written_in_locked_folder(folder: Path, writes: dict[Path, str], between: Callable[[], None]) -> None:
    """``folder`` made unreadable (mode 000), ``between`` called, then the
    files in it written (appended to, or made) through descriptors opened
    before -- as root may write there anyway, and a user not."""
    with ExitStack() as files:
        opened = {path: files.enter_context(path.open("a")) for path in writes}
        folder.chmod(0)
        between()
        for path, text in writes.items():
            opened[path].write(text)


def taken_up(tmp_path: Path, root: Path, name: str, seed: int, log: Path) -> Callable[[], None]:
    """A file written in ``root`` and waited for: the events before its own were taken up too."""

    def wait() -> None:
        path = write_text(root / name, seed=seed)
        wait_for(lambda: items(tmp_path / "s.db").get(str(path), (0, ""))[1] == "ok", f"{name} read", log)

    return wait


@needs_permissions
def test_a_file_edited_in_a_folder_that_cannot_be_listed_keeps_its_item(tmp_path: Path, env: dict[str, str],
                                                                        home: Path) -> None:
    private = home / "private"
    note = write_text(private / "council.txt", seed=3)
    with watcher(tmp_path, home, env, settled=note) as log:
        was = items(tmp_path / "s.db")[str(note)][0]
        # the folder's chmod, an event or none, taken up before the edit: E's edit came seconds later
        written_in_locked_folder(private, {note: "P.S. still broken.\n"}, taken_up(tmp_path, home, "a.txt", 4, log))
        taken_up(tmp_path, home, "b.txt", 5, log)()
        stored = {path: row[:3] for path, row in items(tmp_path / "s.db").items()}
        assert stored.get(str(note), (0, ""))[:2] == (was, "ok"), \
            f"a file the watcher cannot see is not gone: its item is kept: {stored}"
        assert stored[str(private)][1:] == ("unreadable", "folder cannot be listed: Permission denied"), stored
        assert "could not read " + str(private) in log.read_text(errors="replace"), "said in the log"
        private.chmod(0o755)
        with note.open("a") as edited:
            edited.write("One more line about the streetlight.\n")
        wait_for(lambda: "streetlight" in (items(tmp_path / "s.db")[str(note)][3] or ""), "the edit read", log)
        assert items(tmp_path / "s.db")[str(note)][:2] == (was, "ok"), "under the item it had"
    said = lifededup("index", str(home), env=env)
    stored = {path: row[:3] for path, row in items(tmp_path / "s.db").items()}
    assert str(private) not in stored and stored[str(note)][:2] == (was, "ok"), \
        f"the folder listed again, its record goes: {said}; {stored}"


@needs_permissions
def test_a_file_saved_in_a_locked_folder_is_read_once_the_folder_is_readable(tmp_path: Path, env: dict[str, str],
                                                                            home: Path) -> None:
    private = home / "private"
    note = write_text(private / "council.txt", seed=3)
    with watcher(tmp_path, home, env, settled=note) as log:
        later = private / "later.txt"
        written_in_locked_folder(private, {note: "P.S. still broken.\n", later: prose(6, 200)},
                                 taken_up(tmp_path, home, "a.txt", 4, log))
        wait_for(lambda: str(private) in items(tmp_path / "s.db"), "the locked folder recorded", log)
        private.chmod(0o755)  # the folder's event only: nothing in it changes
        wait_for(lambda: items(tmp_path / "s.db").get(str(later), (0, ""))[1] == "ok",
                 "the file saved meanwhile read", log)
        assert str(private) not in items(tmp_path / "s.db"), "the folder's record gone once it is listed"


def test_the_watcher_records_no_link_the_rules_leave_out(tmp_path: Path) -> None:
    root = tmp_path / "home"
    write_text(root / "note.txt", seed=5)
    (root / "webapp" / ".venv" / "bin").mkdir(parents=True)
    with watching(tmp_path, root) as store:
        # emacs's lock beside a file being edited, for the whole session; a link made in a project's .venv
        (root / ".#note.txt").symlink_to("user@host.4242:1700000000")
        (root / "webapp" / ".venv" / "bin" / "python3-alt").symlink_to(sys.executable)
        write_text(root / "later.txt", seed=6)  # its event comes after theirs: once it is read, theirs were taken
        wait_for(lambda: stored_files(store).get(str(root / "later.txt")) == "ok", "the file written after")
        assert stored_files(store) == {str(root / "note.txt"): "ok", str(root / "later.txt"): "ok"}, \
            f"only the files: no junk link recorded as a failure: {stored_files(store)}"


def test_a_watched_path_that_is_a_link_left_out_is_never_recorded(tmp_path: Path) -> None:
    """The watcher's runs (``named=False``) on links the rules leave out:
    an editor's lock, a hidden alias, one under an excluded folder, one in a
    hidden folder.  The alias's file keeps its item (not taken for gone)."""
    root = tmp_path / "home"
    note = write_text(root / "note.txt", seed=7)
    (root / "build").mkdir()
    (root / ".cache").mkdir()
    links = {root / ".#note.txt": "user@host.1:2", root / ".alias": str(note),
             root / "build" / "out": "/usr", root / ".cache" / "python": sys.executable}
    for link, target in links.items():
        link.symlink_to(target)
    folder = WatchedFolder(str(root), exclude=("build",))
    with open_store(tmp_path / "s.db") as store:
        run_in_folders(store, [root], [folder], IndexConfig(workers=1), named=False)
        before = item_ids(store)
        summary = run_in_folders(store, [str(p) for p in links], [folder], IndexConfig(workers=1), named=False)
        assert stored_files(store) == {str(note): "ok"}, f"no link left out recorded: {stored_files(store)}"
        assert item_ids(store) == before and summary.removed == 0, summary
