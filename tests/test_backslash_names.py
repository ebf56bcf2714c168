"""A file or folder whose name ends with a backslash (``a\\``, legal on
Linux): every command prints it as the store escapes it, ``a\\\\`` -- the one
way a name is printed, which ``show`` takes back -- and none doubles that
again (``show`` said "no item '.../a\\\\\\\\'" of a name pasted as printed).
Real files, real stores on both backends, the real command."""

from __future__ import annotations

import subprocess
from pathlib import Path

from in_process import lifededup_here
from store_samples import prose


def lifededup(store_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return lifededup_here(*args, env={"LIFEDEDUP_DB": store_url})


def test_a_name_ending_with_a_backslash_prints_as_stored_and_is_not_doubled_again(tmp_path: Path,
                                                                                   store_url: str) -> None:
    root = tmp_path / "home"
    (root / "dir\\").mkdir(parents=True)
    (root / "dir\\" / "a\\").write_text(prose(2))
    (root / "b\\").write_text(prose(2))
    indexed = lifededup(store_url, "index", "-j", "1", str(root))
    assert indexed.returncode == 0, indexed.stderr
    printed_a, printed_b = f"{root}/dir\\\\/a\\\\", f"{root}/b\\\\"  # the store's escape of one backslash: two
    for command in (["dups"], ["show", str(root / "b\\")], ["show", printed_b]):
        said = lifededup(store_url, *command)
        assert said.returncode == 0, said.stderr
        assert printed_a in said.stdout and printed_b in said.stdout, f"{command}:\n{said.stdout}"
        assert "\\\\\\" not in said.stdout, f"{command} doubled an escaped backslash again:\n{said.stdout}"

    missing = lifededup(store_url, "show", f"{root}/gone\\\\")  # pasted as a name is printed
    assert missing.returncode == 1, missing.stdout
    assert f"no item '{root}/gone\\\\' in" in missing.stderr, missing.stderr
    typed = lifededup(store_url, "show", f"{root}/gone\\")  # typed as the file is named
    assert f"no item '{root}/gone\\' in" in typed.stderr, typed.stderr


def test_folders_remove_takes_a_folder_back_as_folders_list_prints_it(tmp_path: Path, store_url: str) -> None:
    """`folders list` printed dir\\\\ and `folders remove` of it, pasted, said
    "dir\\\\\\\\ is not watched" -- as did the `folders remove --forget` that
    `daemon status` and `folders remove` suggest for a folder gone."""
    folder = tmp_path / "dir\\"
    (folder / "inner").mkdir(parents=True)
    (folder / "inner" / "notes.txt").write_text(prose(3))
    printed = f"{tmp_path}/dir\\\\"
    added = lifededup(store_url, "folders", "add", str(folder))
    assert added.returncode == 0, added.stderr
    indexed = lifededup(store_url, "index", "-j", "1", str(folder))
    assert indexed.returncode == 0, indexed.stderr
    assert lifededup(store_url, "folders", "list").stdout.startswith(f"{printed}  ("), "listed as the store escapes it"

    removed = lifededup(store_url, "folders", "remove", "--keep", printed)
    assert removed.returncode == 0, removed.stderr
    assert removed.stdout.startswith(f"no longer watching {printed}; its 1 item(s) stay"), removed.stdout
    assert "no watched folders" in lifededup(store_url, "folders", "list").stdout

    folder.rename(tmp_path / "renamed")  # gone: its kept item is forgotten by the name printed
    forgot = lifededup(store_url, "folders", "remove", "--forget", printed)
    assert forgot.returncode == 0, forgot.stderr
    assert forgot.stdout == f"{printed} was not watched; it is not there any more: forgot its 1 item(s)\n", forgot.stdout
