"""A watcher whose machine was renamed or forgotten from another computer
(`machines rename`, `machines forget` on the NAS) while it watched: it
stops and says why, with EX_CONFIG (78), which its systemd unit does not
restart -- it would come back under a name that is gone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from index_samples import files_on_disk, stored_files, write_text
from test_daemon import lifededup
from test_watch import eventually

from lifededup.store import add_folder, forget_machine, list_folders, open_store, remove_folder, rename_machine


@pytest.mark.parametrize("gone", ["renamed", "forgotten"])
def test_a_watcher_whose_machine_is_renamed_or_forgotten_stops_without_a_write(
        tmp_path: Path, store_url: str, gone: str) -> None:
    """Explorer K: `machines rename laptop-b bobs-laptop` run on the NAS
    while laptop-b's daemon ran left it running and watching nothing, its
    log saying only "no longer watched (lifededup folders remove)": files
    saved on the laptop were never indexed again, and nothing said so.  Only
    a write found the name gone, and with its folders gone it wrote nothing.
    The folders vanishing from the store is enough to stop it."""
    root = tmp_path / "Documents"
    write_text(root / "first.txt", seed=1)
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "LIFEDEDUP_DB": store_url,
           "LIFEDEDUP_MACHINE": "laptop-b"}
    with open_store(store_url, machine="laptop-b") as laptop:
        add_folder(laptop, str(root.resolve()))
    watcher = subprocess.Popen([sys.executable, "-m", "lifededup", "watch", "--delay", "0.3"], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        with open_store(store_url, readonly=True, machine="laptop-b") as reader:
            eventually(lambda: set(stored_files(reader)) == files_on_disk(root), "the watcher catches up")
        with open_store(store_url, machine="nas") as nas:
            if gone == "renamed":
                assert rename_machine(nas, "laptop-b", "bobs-laptop") == 1
            else:
                assert forget_machine(nas, "laptop-b") == 1
        # no file written: the watcher has nothing to write, and must still learn its name is gone
        _, err = watcher.communicate(timeout=60)
    finally:
        if watcher.poll() is None:
            watcher.kill()
            watcher.wait()
    assert watcher.returncode == 78, f"EX_CONFIG, which the unit does not restart, not {watcher.returncode}: {err}"
    assert "'laptop-b' was renamed or forgotten" in err and "Traceback" not in err, err
    if gone == "renamed":
        assert "bobs-laptop (1 items)" in err and "export LIFEDEDUP_MACHINE=NEW" in err, err
    status = lifededup(env, "daemon", "status")
    assert "state: stopped: this machine's name was renamed or forgotten" in status.stdout, status.stdout
    with open_store(store_url, readonly=True, machine="laptop-b") as reader:
        _, rows = reader.execute("SELECT count(*) FROM items WHERE machine = 'laptop-b'")
        assert list_folders(reader) == [] and rows == [(0,)], "nothing written back under the old name"


def test_a_folder_removed_by_its_own_machine_keeps_the_watcher_running(tmp_path: Path, store_url: str) -> None:
    """`folders remove` of one folder of two is no name gone: the watcher
    follows the other on."""
    kept, dropped = tmp_path / "Documents", tmp_path / "Old"
    write_text(kept / "a.txt", seed=1)
    write_text(dropped / "b.txt", seed=2)
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "LIFEDEDUP_DB": store_url,
           "LIFEDEDUP_MACHINE": "laptop-b"}
    with open_store(store_url, machine="laptop-b") as laptop:
        add_folder(laptop, str(kept.resolve()))
        add_folder(laptop, str(dropped.resolve()))
    watcher = subprocess.Popen([sys.executable, "-m", "lifededup", "watch", "--delay", "0.3"], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        with open_store(store_url, machine="laptop-b") as store:
            eventually(lambda: len(stored_files(store)) == 2, "the watcher catches up")
            assert remove_folder(store, str(dropped.resolve())) == 0
            eventually(lambda: f"watching: {kept.resolve()}\n" in lifededup(env, "daemon", "status").stdout,
                       "the folder removed is dropped")
            write_text(kept / "later.txt", seed=3)
            eventually(lambda: str((kept / "later.txt").resolve()) in stored_files(store), "the rest is followed")
        assert watcher.poll() is None, watcher.communicate()[1]
    finally:
        watcher.terminate()
        watcher.wait(60)
