"""The watcher and the daemon on a PostgreSQL store shared by several
machines: real watchdog events, real processes, a real server.  A machine's
watcher keeps its own items true to its folders and never reads, moves or
removes another machine's, even at the same paths."""

from __future__ import annotations

import logging
import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from index_samples import files_on_disk, stored_files, write_text
from pg_server import Server
from test_daemon import lifededup
from test_daemon_unit import unit_lines
from test_store import sound
from test_watch import eventually, watching

from lifededup import watch as watch_package
from lifededup.index import IndexConfig, run
from lifededup.store import Store, open_store
from lifededup.store.opening import make_engine, resolve


def files_of(store: Store, machine: str) -> dict[str, tuple[int, str]]:
    """path -> (id, text) of a machine's file items."""
    _, rows = store.execute("SELECT path, id, text FROM items WHERE part = '' AND machine = :m", {"m": machine})
    return {str(p): (int(str(i)), str(t)) for p, i, t in rows}


def test_a_machines_watcher_follows_its_files_and_leaves_anothers_items(tmp_path: Path, pg_url: str) -> None:
    root = tmp_path / "archive"
    for i in range(3):
        write_text(root / f"note{i}.txt", seed=i)
    with open_store(pg_url, machine="nas") as nas:  # the nas indexed the same paths before
        run(nas, [root], IndexConfig(workers=1))
    with open_store(pg_url, readonly=True) as reader:
        nas_before = files_of(reader, "nas")
    assert set(nas_before) == files_on_disk(root), nas_before

    with watching(tmp_path, root, store_url=pg_url, machine="laptop") as reader:
        assert set(files_of(reader, "laptop")) == files_on_disk(root), "the laptop's catch-up indexes its files"
        renamed_id = files_of(reader, "laptop")[str(root / "note1.txt")][0]
        write_text(root / "new.txt", seed=7)
        (root / "note1.txt").rename(root / "renamed.txt")
        (root / "note2.txt").unlink()
        write_text(root / "note0.txt", seed=8)
        eventually(lambda: set(files_of(reader, "laptop")) == files_on_disk(root)
                   and files_of(reader, "laptop")[str(root / "note0.txt")][1].startswith(
                       (root / "note0.txt").read_text().split()[0]),
                   "the laptop's items follow its files")
        laptop = files_of(reader, "laptop")
        assert laptop[str(root / "renamed.txt")][0] == renamed_id, "the renamed file keeps its item"
        assert files_of(reader, "nas") == nas_before, "the nas's items are left as they were"
    with open_store(pg_url, readonly=True) as reader:
        sound(reader)


def test_a_watcher_outlives_a_restart_of_its_server(postgres: Server, tmp_path: Path,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    """The NAS reboots: its server goes away and comes back.  A file written
    meanwhile is indexed once the server is back -- not an hour later, at the
    next rescan -- and the store is sound.  (A server of its own, which this
    test stops and starts again; ``postgres`` only skips it where none can run.)"""
    caplog.set_level(logging.WARNING, logger="lifededup.watch")
    server = Server.start()
    try:
        url = server.new_database()
        root = tmp_path / "archive"
        write_text(root / "a.txt", seed=1)
        with watching(tmp_path, root, store_url=url, retry_after=1.0) as reader:
            server.stop(keep=True)
            write_text(root / "written while the server was down.txt", seed=2)
            eventually(lambda: any("could not write to the store" in r.getMessage() for r in caplog.records),
                       "the watcher reports the server gone and waits for it")
            server = Server.start(root=server.root)
            eventually(lambda: set(stored_files(reader)) == files_on_disk(root),
                       "the file written meanwhile is indexed once the server is back")
        failed = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
        assert not failed, f"the watcher took the server's absence for a failed file: {failed}"
        said = [r.getMessage() for r in caplog.records if "could not write to the store" in r.getMessage()]
        assert not any("sqlalche.me" in m or "[SQL:" in m for m in said), f"SQLAlchemy's words, not the server's: {said}"
        with open_store(url, readonly=True) as reader:
            sound(reader)
    finally:
        server.stop()


def test_daemon_start_status_stop_on_a_postgresql_store(tmp_path: Path, pg_url: str) -> None:
    root = tmp_path / "archive"
    write_text(root / "a.txt", seed=1)
    state = tmp_path / "state"
    env = {**os.environ, "XDG_STATE_HOME": str(state), "LIFEDEDUP_DB": pg_url, "LIFEDEDUP_MACHINE": "laptop"}
    added = lifededup(env, "folders", "add", str(root))
    assert added.returncode == 0, added.stderr
    others = lifededup({**env, "LIFEDEDUP_MACHINE": "nas"}, "folders", "list")
    assert "no watched folders of the machine nas" in others.stdout, "each machine lists its own folders"

    started = lifededup(env, "daemon", "start", "--delay", "0.3")
    assert started.returncode == 0, started.stdout + started.stderr
    pid = int((state / "lifededup" / "watch.pid").read_text())
    try:
        write_text(root / "b.txt", seed=2)
        with open_store(pg_url, readonly=True) as store:
            eventually(lambda: set(files_of(store, "laptop")) == files_on_disk(root), "the daemon indexes b.txt")
        status = lifededup(env, "daemon", "status")
        assert status.returncode == 0, status.stdout + status.stderr
        for want in (f"running (pid {pid})", "store: postgresql://", "machine laptop", f"watching: {root.resolve()}"):
            assert want in status.stdout, f"{want!r} missing from:\n{status.stdout}"
    finally:
        stopped = lifededup(env, "daemon", "stop")
    assert stopped.returncode == 0 and f"stopped (pid {pid})" in stopped.stdout, stopped.stdout + stopped.stderr


def test_the_unit_of_a_postgresql_store_runs_its_watcher_and_refuses_a_password(tmp_path: Path,
                                                                                 pg_url: str) -> None:
    root = tmp_path / "archive"
    write_text(root / "a.txt", seed=1)
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "LIFEDEDUP_DB": pg_url, "LIFEDEDUP_MACHINE": "laptop"}
    assert lifededup(env, "folders", "add", str(root)).returncode == 0
    text = lifededup(env, "daemon", "unit")
    assert text.returncode == 0, text.stderr
    [exec_start] = unit_lines(text.stdout, "ExecStart")
    words = shlex.split(exec_start)
    assert words[-3:-1] == ["watch", "--db"] and words[-1].startswith("postgresql://postgres@/"), exec_start
    environment = dict(shlex.split(e)[0].split("=", 1) for e in unit_lines(text.stdout, "Environment"))
    assert environment.get("LIFEDEDUP_MACHINE") == "laptop", "the pinned machine name goes with the unit"
    # as systemd starts it: the unit's environment only, from the home folder
    process = subprocess.Popen([w.replace("%%", "%") for w in words], env={"HOME": str(tmp_path), **environment},
                               cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        with open_store(pg_url, readonly=True) as store:
            eventually(lambda: set(files_of(store, "laptop")) == files_on_disk(root) or process.poll() is not None,
                       "the unit's watcher indexes the server's store")
            assert process.poll() is None, f"the service exited: {process.stdout.read()}"  # type: ignore[union-attr]
    finally:
        process.send_signal(signal.SIGTERM)
        output = process.communicate(timeout=60)[0]
    assert process.returncode == 0, output

    secret = pg_url.replace("postgresql://postgres@", "postgresql://postgres:hunter2@")
    refused = lifededup({**env, "LIFEDEDUP_DB": secret}, "daemon", "unit")
    assert refused.returncode == 1 and "hunter2" not in refused.stdout + refused.stderr, refused.stdout
    assert "~/.pgpass" in refused.stderr and "holds a password" in refused.stderr, refused.stderr


def test_a_watcher_stops_once_a_newer_lifededup_upgrades_the_store_under_it(tmp_path: Path, store_url: str) -> None:
    """A watcher left running through `pip install -U` (or another machine's
    older one) went on writing with its old extractors into the store the
    newer lifededup upgraded -- and what it wrote stayed as it made it, the
    newer revision's "read again" marks already spent.  It now stops at its
    next write with EX_TEMPFAIL (75: its unit restarts it, as the newer
    lifededup if installed in place); started again older than the store,
    it is refused with EX_CONFIG (78: not restarted)."""
    root = tmp_path / "archive"
    write_text(root / "a.txt", seed=1)
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "LIFEDEDUP_DB": store_url}
    open_store(store_url).close()
    watcher = subprocess.Popen([sys.executable, "-m", "lifededup", "watch", "--delay", "0.3", str(root)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        with open_store(store_url, readonly=True) as reader:
            eventually(lambda: set(stored_files(reader)) == files_on_disk(root), "the watcher catches up")
        with open_store(store_url) as store:  # what a newer lifededup's upgrade leaves
            store.execute("UPDATE alembic_version SET version_num = '9999_from_the_future'")
        write_text(root / "b.txt", seed=2)
        _, err = watcher.communicate(timeout=60)
    finally:
        if watcher.poll() is None:
            watcher.kill()
            watcher.wait()
    assert watcher.returncode == 75, err
    assert "upgraded to schema revision 9999_from_the_future by another lifededup" in err and "Traceback" not in err
    engine = make_engine(resolve(store_url), readonly=True)  # the store as it is, at a revision no code here knows
    with engine.connect() as conn:
        paths = {str(r[0]) for r in conn.exec_driver_sql("SELECT path FROM items")}
    engine.dispose()
    assert paths == {str((root / "a.txt").resolve())}, f"the old watcher wrote on: {paths}"
    status = lifededup(env, "daemon", "status")  # says why it stopped, not "stopped" as if asked to
    assert "state: stopped: a newer lifededup upgraded the store" in status.stdout, status.stdout
    again = lifededup(env, "watch", str(root))
    assert again.returncode == 78 and "made by a newer lifededup" in again.stderr, again.stderr
    unit = (Path(watch_package.__file__).parent / "lifededup.service").read_text()
    assert unit_lines(unit, "RestartPreventExitStatus") == ["78"] and unit_lines(unit, "Restart") == ["on-failure"]
