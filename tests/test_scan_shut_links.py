"""A link into a folder one may not open (``chmod 000``) is not a link to
nothing: it was recorded ``broken-link``, "which is not there", and its
target -- there all along -- was sent looking for.  It is ``unreadable``,
naming the shut folder (as ``index.blocked_by`` names it for a path given),
and followed once the folder opens.  Real files, a real link, real
processes (as root without the capabilities that let root read anything:
``setpriv``)."""

from __future__ import annotations

import os
from pathlib import Path

from index_samples import write_text
from test_watch_permissions import env, home, items, lifededup, needs_permissions  # noqa: F401 -- fixtures


@needs_permissions
def test_a_link_into_a_shut_folder_is_unreadable_naming_it_and_read_once_it_opens(
        tmp_path: Path, env: dict[str, str], home: Path) -> None:
    locked = home / "locked"
    secret = write_text(locked / "minutes.txt", seed=3)
    link = home / "desk" / "minutes-link.txt"
    link.parent.mkdir()
    link.symlink_to(os.path.relpath(secret, link.parent))
    locked.chmod(0o000)
    said = lifededup("index", str(home), env=env)
    stored = items(tmp_path / "s.db")
    _, status, reason, _ = stored[str(link)]
    assert status == "unreadable" and "not there" not in str(reason), f"recorded as a link to nothing: {reason}"
    assert str(locked) in str(reason) and "Permission denied" in str(reason), f"names the shut folder: {reason}"
    assert str(secret) not in stored, stored
    again = lifededup("index", str(home), env=env)
    assert "new 0, updated 0, unchanged 0, moved 0, removed 0, failed 0" in again, \
        f"recorded once, not again each run: {said}; {again}"
    locked.chmod(0o755)
    opened = lifededup("index", str(home), env=env)
    after = items(tmp_path / "s.db")
    assert after.get(str(secret), (0, ""))[1] == "ok" and str(link) not in after, \
        f"the folder opened, the link's file is read and its record goes: {opened}; {after}"


@needs_permissions
def test_a_link_out_through_a_shut_folder_is_a_link_out(tmp_path: Path, env: dict[str, str], home: Path) -> None:
    outside = tmp_path / "elsewhere" / "locked"
    secret = write_text(outside / "minutes.txt", seed=4)
    link = home / "minutes-link.txt"
    link.symlink_to(secret)
    write_text(home / "open.txt", seed=5)
    outside.chmod(0o000)
    try:
        lifededup("index", str(home), env=env)
    finally:
        outside.chmod(0o755)
    _, status, reason, _ = items(tmp_path / "s.db")[str(link)]
    assert status == "link-outside", f"never read, whatever is behind the folder: {status}: {reason}"
