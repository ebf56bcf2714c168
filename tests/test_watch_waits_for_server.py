"""A watcher started while its store's server is down -- a laptop that
boots before the NAS -- exited at once with "cannot use the store"; once
running it already waited for a server that went away.  Now it says once
that the server cannot be reached, tries again every --retry seconds and
starts watching once it answers; a URL that waiting cannot mend still ends
it at once.  Real PostgreSQL servers stopped and started again, real
`lifededup watch` and daemon processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from pg_server import Server
from store_samples import prose
from test_daemon import lifededup
from test_watch import eventually

from lifededup.store import open_store


@pytest.fixture
def stopped_server(postgres: Server) -> Iterator[tuple[Server, str]]:
    """A server of its own (``postgres`` only skips the test where none can
    run) and its store's URL, with a password (the server's trust
    authentication takes it without asking: never to be shown), stopped."""
    server = Server.start()
    try:
        url = server.new_database().replace("postgres@", "postgres:s3cret@")
        server.stop(keep=True)
        yield server, url
    finally:
        Server(root=server.root, socket_dir=server.socket_dir).stop()  # the one started again, if it was


def environment(tmp_path: Path, url: str) -> dict[str, str]:
    return {**os.environ, "LIFEDEDUP_DB": url, "LIFEDEDUP_MACHINE": "laptop", "XDG_STATE_HOME": str(tmp_path / "state")}


def indexed(url: str) -> list[str]:
    with open_store(url, readonly=True) as reader:
        return [str(row[0]) for row in reader.execute("SELECT path FROM items")[1]]


def test_a_daemon_started_before_its_server_waits_for_it_then_indexes(stopped_server: tuple[Server, str],
                                                                      tmp_path: Path) -> None:
    server, url = stopped_server
    folder = tmp_path / "laptop"
    folder.mkdir()
    (folder / "report.txt").write_text(prose(3))
    env = environment(tmp_path, url)
    server = Server.start(root=server.root)
    assert lifededup(env, "folders", "add", str(folder)).returncode == 0
    server.stop(keep=True)  # the laptop boots; the NAS does not yet

    started = lifededup(env, "daemon", "start", "--retry", "0.3", "--delay", "0.3", "-j", "1")
    assert started.returncode == 0, started.stdout + started.stderr
    assert "the store's server cannot be reached now: postgresql://postgres:***@/t_" in started.stderr, started.stderr
    assert "the daemon waits for it" in started.stderr and "s3cret" not in started.stderr, started.stderr
    try:
        eventually(lambda: "cannot be reached" in lifededup(env, "daemon", "status").stdout,
                   "daemon status says what the daemon waits for")
        time.sleep(1.0)  # three tries more
        status = lifededup(env, "daemon", "status")
        assert status.returncode == 0, f"the daemon still runs, waiting:\n{status.stdout}"
        assert "state: waiting for the store's server" in status.stdout, status.stdout
        assert "watching: the store's folders, once it is reached" in status.stdout, status.stdout
        assert "The watcher waits for it (tries every 0.3 s)" in status.stdout, status.stdout
        log = Path(json.loads(lifededup(env, "daemon", "status", "--json").stdout)["log"]).read_text()
        assert log.count("cannot be reached") == 1, f"said once, not at every try:\n{log}"
        assert "postgresql://postgres:***@/t_" in log and "s3cret" not in log, log

        server = Server.start(root=server.root)
        eventually(lambda: indexed(url) == [str(folder / "report.txt")], "the file is indexed once the server answers",
                   timeout=30)
        eventually(lambda: "state: watching" in lifededup(env, "daemon", "status").stdout, "the daemon watches")
        (folder / "later.txt").write_text(prose(4))
        eventually(lambda: len(indexed(url)) == 2, "a file written afterwards is indexed: it watches", timeout=30)
    finally:
        stopped = lifededup(env, "daemon", "stop")
        assert stopped.returncode == 0, stopped.stderr


def test_a_watcher_waiting_for_its_server_stops_at_once_on_sigterm(stopped_server: tuple[Server, str],
                                                                    tmp_path: Path) -> None:
    _, url = stopped_server
    folder = tmp_path / "laptop"
    folder.mkdir()
    env = environment(tmp_path, url)
    with (tmp_path / "watch.log").open("w") as log:
        watcher = subprocess.Popen([sys.executable, "-m", "lifededup", "watch", "--retry", "0.3", str(folder)],
                                   env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        eventually(lambda: "cannot be reached" in (tmp_path / "watch.log").read_text(), "the watcher says it waits")
        assert watcher.poll() is None, "it waits, not exits"
        assert lifededup(env, "daemon", "status").returncode == 0, "daemon status sees it run"
        asked = time.monotonic()
        watcher.send_signal(signal.SIGTERM)
        code = watcher.wait(timeout=10)
        said = (tmp_path / "watch.log").read_text()
        assert (code, said.splitlines()[-1]) == (0, "stopped"), said
        assert time.monotonic() - asked < 3, "SIGTERM stops a waiting watcher at once"
        assert lifededup(env, "daemon", "status").returncode == 3, "its pid file is released: not running"
    finally:
        if watcher.poll() is None:
            watcher.kill()
            watcher.wait()


def _no_database(server: Server) -> tuple[str, str]:
    return server.url("no_such_store"), 'database "no_such_store" does not exist'


def _no_role(server: Server) -> tuple[str, str]:
    return server.url().replace("postgres@", "nobody_here@"), 'role "nobody_here" does not exist'


def _not_a_store(server: Server) -> tuple[str, str]:
    url = server.new_database()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE invoices (id integer)")
    return url, "invoices"


@pytest.mark.parametrize("wrong", [_no_database, _no_role, _not_a_store], ids=["database", "role", "not-a-store"])
def test_a_store_url_waiting_cannot_mend_still_ends_the_watcher_at_once(postgres: Server, tmp_path: Path,
                                                                        wrong: object) -> None:
    assert callable(wrong)
    url, words = wrong(postgres)
    try:
        ran = subprocess.run([sys.executable, "-m", "lifededup", "watch", "--retry", "0.3", str(tmp_path)],
                             env=environment(tmp_path, url), capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the watcher waited for a server that answered: {words}")
    assert ran.returncode == 1, ran.stderr
    assert words in ran.stderr and "waits for it" not in ran.stderr, ran.stderr
