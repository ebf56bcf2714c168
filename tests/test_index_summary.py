"""The summary line's pace: a run that read no file (everything unchanged)
printed ``0.0 files/s``, as if it had crawled; it says ``no file read``.
A run whose files all failed read them too, and counts them in its pace
(it printed ``0.0 files/s`` as well).  ``--json`` keeps its keys."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from lifededup.cli import main

_PACE = re.compile(r"\((\d+\.\d) s, (.*)\)$")


def index(store_url: str, folder: Path, *more: str) -> str:
    done = CliRunner().invoke(main, ["index", "--workers", "1", "--db", store_url, *more, str(folder)])
    assert done.exit_code == 0, done.output
    return done.stdout


def pace(printed: str) -> str:
    """What the summary's first line says in its parentheses after the seconds."""
    found = _PACE.search(printed.splitlines()[0])
    assert found is not None, f"no (seconds, pace) at the end of the summary's first line: {printed}"
    return found.group(2)


def test_a_run_that_read_nothing_says_so(store_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    for n in range(3):
        (folder / f"note-{n}.txt").write_text(f"Note {n}: the hedge by the lane wants cutting before the frost.\n")
    first = index(store_url, folder)
    assert re.fullmatch(r"\d+\.\d files/s", pace(first)), first
    again = index(store_url, folder)
    assert again.startswith("new 0, updated 0, unchanged 3,"), again
    assert pace(again) == "no file read", f"a run that read nothing: {again}"


def test_a_run_whose_files_all_failed_counts_them_in_its_pace(store_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "cut.pdf").write_bytes(b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog")
    printed = index(store_url, folder)
    assert "failed 1" in printed, printed
    rate = pace(printed)
    assert rate.endswith(" files/s") and float(rate.split()[0]) > 0, f"one file read, and failed: {printed}"


def test_json_keeps_its_keys_when_nothing_was_read(store_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "note.txt").write_text("The gate latch sticks in wet weather; oil it in October.\n")
    first = json.loads(index(store_url, folder, "--json"))
    again = json.loads(index(store_url, folder, "--json"))
    assert sorted(again) == sorted(first), f"--json's keys moved: {sorted(first)} -> {sorted(again)}"
    assert (again["new"], again["updated"], again["unchanged"]) == (0, 0, 1), again


def test_the_command_that_lists_the_failures_names_the_store_given(store_url: str, tmp_path: Path) -> None:
    """Given --db, the summary's `why they failed` names it: bare, `lifededup failures` listed the
    default store's failures (or none), not this run's."""
    import shlex

    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "empty.txt").write_bytes(b"")
    (folder / "note.txt").write_text("The hedge by the lane wants cutting before the frost comes in.\n")
    printed = index(store_url, folder).splitlines()
    assert printed[2].startswith("why they failed: lifededup failures --db "), printed
    command = shlex.split(printed[2].removeprefix("why they failed: lifededup "))
    listed = CliRunner().invoke(main, command, env={"XDG_DATA_HOME": str(tmp_path / "data")})
    assert listed.exit_code == 0, listed.output
    assert listed.stdout == f"empty\t{folder / 'empty.txt'}\tempty.txt is empty (0 bytes)\n"


def test_images_and_scans_are_said_apart_from_the_broken_files(store_url: str, tmp_path: Path) -> None:
    """A photo library read "failed 5,000", as if its photos were broken: they are failed items (their
    words are in their pixels, `no-text-layer`), and the summary's last line says how many, and what
    reads them."""
    sample = Path(__file__).resolve().parent.parent / "sample_corpus" / "Bad files"
    folder = tmp_path / "scans"
    folder.mkdir()
    for name in ("holiday photo.jpg", "scanned letter.pdf", "truncated download.pdf"):
        (folder / name).write_bytes((sample / name).read_bytes())
    (folder / "note.txt").write_text("The gate latch sticks in wet weather; oil it in October.\n")
    printed = index(store_url, folder).splitlines()
    assert printed[0].startswith("new 1, updated 0, unchanged 0, moved 0, removed 0, failed 3 "), printed
    assert printed[-1] == ("2 of them are images or scans with no text layer: the same command with --ocr reads "
                           "them (Tesseract's OCR, slower)"), printed
    (folder / "note.txt").write_text("The gate latch sticks in wet weather; oil it in November.\n")
    again = json.loads(index(store_url, folder, "--json"))
    assert (again["updated"], again["failed"], again["no_text_layer"]) == (1, 0, 0), again  # only what it read
