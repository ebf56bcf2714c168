"""A file or folder whose name ends with a backslash (``a\\``, legal on
Linux): every command prints it as the store escapes it, ``a\\\\`` -- the one
way a name is printed, which ``show`` takes back -- and none doubles that
again (``show`` said "no item '.../a\\\\\\\\'" of a name pasted as printed).
Real files, real stores on both backends, the real command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from store_samples import prose


def lifededup(store_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LIFEDEDUP_DB": store_url}
    return subprocess.run([sys.executable, "-m", "lifededup", *args], env=env, capture_output=True, text=True,
                          timeout=120)


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
