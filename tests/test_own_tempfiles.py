"""lifededup's own temporary files never become items, with ``TMPDIR`` inside
a watched folder (closing notes 14 and 16): its workers' folders
(``lifededup-worker-*``), the parts it copies out for a program
(``lifededup-part-*``), OCR's pages, and the folder of multiprocessing's
forkserver socket (``pymp-*``) -- each in the temporary folder, and only
there: a file of the user's named so elsewhere is read, and a folder named
``lifededup-`` otherwise in the temporary folder (a test's, a benchmark's).  Real
processes with their own ``TMPDIR``, real files, real watchdog events."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

from index_samples import write_text
from test_watch_permissions import env, items, lifededup, wait_for, watcher  # noqa: F401 -- env is a fixture

FIXTURES = Path(__file__).parent / "fixtures"


def dead_pid() -> int:
    """The pid of a process that has exited (as a killed indexer's is)."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def test_index_records_none_of_lifededups_own_temporary_files(tmp_path: Path, env: dict[str, str]) -> None:
    """What a killed indexer leaves in a TMPDIR inside the folder (a
    worker's folder, a part copied out, a forkserver's folder) is read by
    no later ``index``; one run with TMPDIR elsewhere had read them, and
    they are forgotten once TMPDIR is there again."""
    home = tmp_path / "home"
    temp = home / "tmp"
    left = [write_text(temp / f"lifededup-worker-{dead_pid()}-abc123" / "lifededup-part-x1.txt", seed=1),
            write_text(temp / "lifededup-part-y2.txt", seed=2),
            write_text(temp / "pymp-k3j4" / "notes.txt", seed=3)]
    mine = [write_text(home / "lifededup-part-notes.txt", seed=4), write_text(temp / "letter.txt", seed=5),
            write_text(temp / "drafts" / "lifededup-part-plan.txt", seed=6),
            write_text(temp / "lifededup-deep-x7" / "bottom.txt", seed=7)]  # a test's own folder (test_hostile)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    lifededup("index", str(home), env={**env, "TMPDIR": str(elsewhere)})
    assert {str(p) for p in left + mine} <= set(items(tmp_path / "s.db")), "TMPDIR elsewhere: they are files"
    said = lifededup("index", str(home), env={**env, "TMPDIR": str(temp)})
    stored = {path: row[1] for path, row in items(tmp_path / "s.db").items()}
    assert stored == {str(p): "ok" for p in mine}, f"lifededup's own files forgotten, the user's kept: {stored}"
    assert "removed 3" in said, said
    said = lifededup("index", str(home), env={**env, "TMPDIR": str(temp)})
    assert "new 0, updated 0" in said and "failed 0 " in said, f"and never read again: {said}"


def test_the_watcher_records_none_of_its_own_temporary_files(tmp_path: Path, env: dict[str, str]) -> None:
    """The watcher with its TMPDIR in the folder it watches reads a .doc in
    a zip (copied out to a temporary file for antiword, in its worker's
    folder) and starts its forkserver (a socket in ``pymp-*``): none of it
    is stored, and no failure."""
    home = tmp_path / "home"
    temp = home / "tmp"
    temp.mkdir(parents=True)
    first = write_text(home / "first.txt", seed=1)
    with watcher(tmp_path, home, {**env, "TMPDIR": str(temp)}, settled=first) as log:
        with zipfile.ZipFile(home / "office.zip", "w") as archive:
            archive.write(FIXTURES / "office" / "rota.doc", "rota.doc")
        wait_for(lambda: items(tmp_path / "s.db").get(str(home / "office.zip"), (0, ""))[1] == "ok",
                 "the zip read", log)
        later = write_text(home / "later.txt", seed=2)  # its event comes after theirs: once read, theirs were taken
        wait_for(lambda: items(tmp_path / "s.db").get(str(later), (0, ""))[1] == "ok", "the file written after", log)
        stored = {path: row[1:3] for path, row in items(tmp_path / "s.db").items()}
        ours = {path: row for path, row in stored.items() if path.startswith(str(temp) + os.sep)}
        assert not ours, f"lifededup's own temporary files recorded: {ours}"
        assert set(stored) == {str(first), str(home / "office.zip"), str(later)}, stored


def test_index_under_a_temporary_folder_too_long_for_a_socket(tmp_path: Path, env: dict[str, str]) -> None:
    """The forkserver that starts the workers listens on a socket in TMPDIR,
    and a socket's path holds 107 bytes: under a TMPDIR of 80 characters
    every ``index`` ended in a traceback ("AF_UNIX path too long") and read
    nothing.  The workers are spawned then, and every file is read -- a .doc
    in a zip too, copied out to a temporary file for antiword."""
    temp = tmp_path / ("t" * max(1, 80 - len(str(tmp_path))))
    temp.mkdir()
    assert len(str(temp)) >= 80, temp
    home = tmp_path / "home"
    letter = write_text(home / "letter.txt", seed=1)
    home.mkdir(exist_ok=True)
    with zipfile.ZipFile(home / "office.zip", "w") as archive:
        archive.write(FIXTURES / "office" / "rota.doc", "rota.doc")
    said = lifededup("index", "-j", "2", str(home), env={**env, "TMPDIR": str(temp)})
    assert "new 2," in said and "failed 0 " in said, said
    stored = items(tmp_path / "s.db")
    assert {path: row[1] for path, row in stored.items()} == {str(letter): "ok", str(home / "office.zip"): "ok"}, stored
    assert not list(temp.iterdir()), f"the workers' temporary files are gone: {list(temp.iterdir())}"
