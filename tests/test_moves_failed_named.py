"""A file recorded as failed and then renamed or moved keeps its item and
record (``test_moves_too_large``), but its reason named it by its old name:
`lifededup failures` listed ``Images/vm-image.pdf`` as "disk.pdf is 257 MiB,
over the 256 MiB limit".  The reason names the file where it is now, and
the old path holds nothing -- for ``index`` run twice (the move between the
runs) and for the watcher's real events, on both backends."""

from __future__ import annotations

import json
import os
from pathlib import Path

from click.testing import CliRunner, Result
from test_moves_too_large import a_huge_pdf, rows
from test_watch import eventually, watching

from lifededup.cli import main
from lifededup.store import Store
from lifededup.store.failures import failures

LIMIT = "is 257 MiB, over the 256 MiB limit"


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def index(store_url: str, folder: Path) -> str:
    done = cli("index", "--db", store_url, "--workers", "1", str(folder))
    assert done.exit_code == 0, done.output
    return done.stdout


def listed(store_url: str) -> list[tuple[str, str, str]]:
    """What `lifededup failures --json` says: (path, status, reason) of each."""
    done = cli("failures", "--json", "--db", store_url)
    assert done.exit_code == 0, done.output
    return [(f["path"], f["status"], f["reason"]) for f in json.loads(done.stdout)]


def test_index_names_a_moved_file_too_large_to_read_where_it_is(store_url: str, tmp_path: Path) -> None:
    root = tmp_path / "archive"
    disk = a_huge_pdf(root / "disk.pdf")
    index(store_url, root)
    assert listed(store_url) == [(str(disk), "too-large", f"disk.pdf {LIMIT}")], listed(store_url)
    moved = root / "Images" / "vm-image.pdf"
    moved.parent.mkdir()
    disk.rename(moved)
    said = index(store_url, root)
    assert "moved 1, removed 0, failed 0" in said, said
    now = listed(store_url)
    assert now == [(str(moved.resolve()), "too-large", f"vm-image.pdf {LIMIT}")], \
        f"`failures` names the file where it is, by its name now: {now}"
    shown = cli("show", "--json", "--db", store_url, str(moved))
    assert shown.exit_code == 0, shown.output
    item = json.loads(shown.stdout)["item"]
    assert (item["path"], item["status"]) == (str(moved.resolve()), "too-large"), item
    old = cli("show", "--db", store_url, str(disk))
    assert old.exit_code != 0 and "no item" in old.output, f"the old path holds nothing: {old.output}"


def test_index_names_a_renamed_empty_file_anew(store_url: str, tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "draft.txt").write_bytes(b"")
    index(store_url, root)
    (root / "draft.txt").rename(root / "letter to the council.txt")
    index(store_url, root)
    now = listed(store_url)
    assert [(Path(p).name, reason) for p, _, reason in now] == \
        [("letter to the council.txt", "letter to the council.txt is empty (0 bytes)")], now


def reasons(store: Store) -> dict[str, tuple[str, str]]:
    return {f.path: (f.status, f.reason) for f in failures(store)}


def test_the_watcher_names_a_moved_file_too_large_to_read_where_it_is(store_url: str, tmp_path: Path) -> None:
    root = tmp_path / "archive"
    disk = a_huge_pdf(root / "disk.pdf")
    (root / "Images").mkdir()
    with watching(tmp_path, root, store_url=store_url) as store:
        # (made just now: the catch-up scan may take it for a file still being written, recorded once still)
        eventually(lambda: reasons(store) == {str(disk): ("too-large", f"disk.pdf {LIMIT}")}, "the file is recorded")
        before = rows(store)
        moved = root / "Images" / "vm-image.pdf"
        disk.rename(moved)
        eventually(lambda: str(moved.resolve()) in reasons(store), "the move is taken up")
        after, now = rows(store), reasons(store)
    assert now == {str(moved.resolve()): ("too-large", f"vm-image.pdf {LIMIT}")}, \
        f"`failures` names the file where it is, by its name now: {now}"
    assert after == {str(moved.resolve()): before[str(disk)]}, f"kept its item, the old path holds nothing: {after}"


def test_index_names_a_renamed_file_whose_name_is_not_utf8_or_has_a_backslash_anew(store_url: str,
                                                                                  tmp_path: Path) -> None:
    """The reason names such a file as its reader did (an odd byte U+FFFD, a
    backslash as it is), not as the store escapes its path: it kept its old
    name ("caf\ufffd.txt is empty") after the move."""
    root = tmp_path / "notes"
    root.mkdir()
    raw = os.fsencode(root)
    Path(os.fsdecode(raw + b"/caf\xe9.txt")).write_bytes(b"")
    Path(os.fsdecode(raw + b"/back\\slash.txt")).write_bytes(b"\x00\x01\x02\x03 not a format" * 8)
    index(store_url, root)
    before = sorted(reason for _, _, reason in listed(store_url))
    assert before[1] == "caf\ufffd.txt is empty (0 bytes)" and before[0].startswith("back\\slash.txt "), before
    os.rename(raw + b"/caf\xe9.txt", raw + b"/th\xe9.txt")
    os.rename(raw + b"/back\\slash.txt", raw + b"/for\\ward.txt")
    said = index(store_url, root)
    assert "moved 2" in said, said
    now = sorted(reason for _, _, reason in listed(store_url))
    assert now == [before[0].replace("back\\slash.txt", "for\\ward.txt", 1), "th\ufffd.txt is empty (0 bytes)"], now
