"""A watcher running when a newer lifededup upgrades its store under it
(`pip install -U`, then a search; or another machine's on a shared store):
it stops though it has nothing to write, `daemon status` says what it left,
and the newer watcher started again reads the files the upgrade marked."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest
from index_samples import files_on_disk, stored_files, write_text
from test_daemon import lifededup
from test_watch import eventually

from lifededup.index import IndexConfig, run
from lifededup.index.progress import Quiet
from lifededup.store import StoreTooNew, open_store
from lifededup.store.opening import make_engine, resolve


def _stamp(store_url: str, sql: str) -> None:
    """Change the store as it is, whatever its revision (no Alembic, no refusal of a newer one)."""
    engine = make_engine(resolve(store_url), readonly=False)
    with engine.begin() as conn:
        conn.exec_driver_sql(sql)
    engine.dispose()


def test_an_idle_watcher_stops_once_a_newer_lifededup_upgrades_the_store(tmp_path: Path, store_url: str) -> None:
    """A watcher with nothing to write went on "watching" after the upgrade,
    until a file changed or its hourly rescan: the files the newer revision
    marked to be read again waited that long for the restart that reads them,
    and `daemon status` said it watched.  It now stops within seconds with
    EX_TEMPFAIL (its unit restarts it); the status says what is left unread."""
    root = tmp_path / "archive"
    write_text(root / "a.txt", seed=1)
    write_text(root / "b.txt", seed=2)
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "LIFEDEDUP_DB": store_url}
    open_store(store_url).close()
    head = open_store(store_url).execute("SELECT version_num FROM alembic_version")[1][0][0]
    watcher = subprocess.Popen([sys.executable, "-m", "lifededup", "watch", "--delay", "0.3", str(root)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        with open_store(store_url, readonly=True) as reader:
            eventually(lambda: set(stored_files(reader)) == files_on_disk(root), "the watcher catches up")
        # a newer lifededup's upgrade, as 0031 and 0032 left it: a revision this one does not know, and a file
        # marked to be read again; then nothing changes in the folder
        _stamp(store_url, f"UPDATE items SET mtime = NULL WHERE path = '{(root / 'b.txt').resolve()}'")
        _stamp(store_url, "UPDATE alembic_version SET version_num = '9999_from_the_future'")
        try:
            _, err = watcher.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail("the watcher went on watching a store a newer lifededup had upgraded")
    finally:
        if watcher.poll() is None:
            watcher.kill()
            watcher.wait()
    assert watcher.returncode == 75, err
    assert "upgraded to schema revision 9999_from_the_future by another lifededup" in err, err
    assert "Start the watcher again with that one" in err and "Traceback" not in err, err
    status = lifededup(env, "daemon", "status")
    assert "state: stopped: a newer lifededup upgraded the store (see the log), left unread: the files the " \
           "upgrade marked to be read again" in status.stdout, status.stdout

    # the newer lifededup started again (here: the revision the code knows): it reads the marked file
    _stamp(store_url, f"UPDATE alembic_version SET version_num = '{head}'")
    again = subprocess.Popen([sys.executable, "-m", "lifededup", "watch", "--delay", "0.3", str(root)], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        with open_store(store_url, readonly=True) as reader:
            eventually(lambda: not reader.execute("SELECT path FROM items WHERE mtime IS NULL")[1],
                       "the restarted watcher reads the file the upgrade marked")
    finally:
        again.terminate()
        _, err = again.communicate(timeout=60)
    assert again.returncode == 0, err
    assert "updated 1" in err, err
    checked = lifededup(env, "check")
    assert checked.returncode == 0 and checked.stdout.startswith("ok: 2 items"), checked.stdout + checked.stderr


class _UpgradedAsListed(Quiet):
    """A newer lifededup upgrades the store as the run has planned its reads, before it writes them."""

    def __init__(self, store_url: str) -> None:
        self.store_url = store_url

    def listed(self, files: Mapping[str, tuple[int, float]]) -> None:
        _stamp(self.store_url, "UPDATE alembic_version SET version_num = '9999_from_the_future'")


def test_a_run_in_flight_writes_no_stat_into_a_store_upgraded_under_it(tmp_path: Path, store_url: str) -> None:
    """A file marked to be read again that fails as its item holds it has only its stat written (index.write):
    a batch of such files took no turn that checked the schema, so an older lifededup's run in flight wrote
    their stats into the store a newer one upgraded meanwhile -- its marks to read them again spent, the
    newer reader never to see them.  It now stops before writing (StoreTooNew), the mark kept."""
    root = tmp_path / "archive"
    root.mkdir()
    (root / "broken.pdf").write_bytes(b"%PDF-1.4\n" + bytes(range(256)) * 8)
    with open_store(store_url) as store:
        run(store, [root], IndexConfig())
        assert store.execute("SELECT status FROM items")[1] == [("corrupt",)]
        store.execute("UPDATE items SET mtime = NULL")  # a revision's mark, as 0031 and 0032 leave it
        with pytest.raises(StoreTooNew, match="9999_from_the_future"):
            run(store, [root], IndexConfig(), progress=_UpgradedAsListed(store_url))
    engine = make_engine(resolve(store_url), readonly=True)
    with engine.connect() as conn:
        marks = conn.exec_driver_sql("SELECT mtime FROM items").scalars().all()
    engine.dispose()
    assert marks == [None], "the older run spent the newer revision's mark"
