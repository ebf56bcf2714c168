"""A running watcher whose store's server starts turning it away -- the
NAS's role renamed, its database renamed -- was reported as "the store
cannot be reached" and its user looked for a network problem.  Now the log,
`daemon status` and the web view's status page say the server refuses it
and why, in the server's words; it tries again every --retry seconds, and
once the server's admin puts it right it indexes what waited, with no
restart.  Real PostgreSQL roles and databases renamed under a real daemon
(the test server trusts every local connection: a password refused cannot
be made here, a role or database gone can)."""

from __future__ import annotations

import html
import json
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from pg_server import Server
from store_samples import prose
from test_daemon import lifededup
from test_shared_store_failures import a_laptop_and_its_nas
from test_watch import eventually
from test_watch_status import daemon

from lifededup.store import open_store


def _terminate(server: Server, where: str) -> None:
    server.admin(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE {where} AND pid <> pg_backend_pid()")


def _rename_role(server: Server, role: str, database: str) -> tuple[str, Callable[[], None]]:
    server.admin(f'ALTER ROLE "{role}" RENAME TO "{role}_gone"')
    _terminate(server, f"usesysid = (SELECT oid FROM pg_roles WHERE rolname = '{role}_gone')")
    return f'role "{role}" does not exist', lambda: server.admin(f'ALTER ROLE "{role}_gone" RENAME TO "{role}"')


def _rename_database(server: Server, role: str, database: str) -> tuple[str, Callable[[], None]]:
    server.admin(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS false')  # (renamed only with no one in it)
    _terminate(server, f"datname = '{database}'")
    server.admin(f'ALTER DATABASE "{database}" RENAME TO "{database}_gone"')

    def put_back() -> None:
        server.admin(f'ALTER DATABASE "{database}_gone" RENAME TO "{database}"')
        server.admin(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS true')

    return f'database "{database}" does not exist', put_back


@contextmanager
def web_view(url: str, tmp_path: Path) -> Iterator[Any]:
    """The web view of the store ``url`` (`lifededup serve`, started while
    its server answers), with the daemon's status file as the daemon of
    ``tmp_path`` writes it; yields its test client."""
    pytest.importorskip("starlette", reason="the web view needs its extra: pip install '.[web]'")
    from starlette.testclient import TestClient

    from lifededup.watch import daemon as daemons
    from lifededup.web import create_app

    paths = daemons.DaemonPaths(tmp_path / "state" / "lifededup")
    with TestClient(create_app(url, daemon_paths=paths), base_url="http://127.0.0.1:8765") as client:
        yield client


def web_status(client: Any) -> tuple[str, dict[str, Any]]:
    """The status page as read (its quotes unescaped) and its JSON."""
    return html.unescape(client.get("/status").text), client.get("/status.json").json()


def indexed(url: str) -> list[str]:
    with open_store(url, readonly=True) as reader:
        return sorted(str(row[0]) for row in reader.execute("SELECT path FROM items")[1])


@pytest.mark.parametrize("turn_away", [_rename_role, _rename_database], ids=["role", "database"])
def test_a_running_watcher_the_server_turns_away_says_so_and_goes_on_once_put_right(
        postgres: Server, tmp_path: Path, turn_away: Callable[[Server, str, str], tuple[str, Callable[[], None]]]
) -> None:
    role = f"watcher_{os.getpid()}_{time.monotonic_ns() % 10**9}"
    postgres.admin(f'CREATE ROLE "{role}" LOGIN')
    admin_url = postgres.new_database()
    database = admin_url.split("?")[0].rsplit("/", 1)[1]
    postgres.admin(f'ALTER DATABASE "{database}" OWNER TO "{role}"')
    # a password in the URL (the server's trust authentication takes it without asking): never shown
    url = admin_url.replace("postgres@", f"{role}:s3cret@")
    folder = tmp_path / "laptop"
    folder.mkdir()
    (folder / "report.txt").write_text(prose(3))
    env = {**os.environ, "LIFEDEDUP_DB": url, "LIFEDEDUP_MACHINE": "laptop"}
    try:
        with daemon(tmp_path, folder, "--delay", "0.3", "--retry", "0.5", env=env) as env, \
                web_view(url, tmp_path) as web:
            eventually(lambda: indexed(admin_url) == [str(folder / "report.txt")], "the daemon indexes")
            reason, put_back = turn_away(postgres, role, database)
            (folder / "written while refused.txt").write_text(prose(4))
            eventually(lambda: reason in lifededup(env, "daemon", "status").stdout,
                       "daemon status says the server refuses the watcher, and why", timeout=30)
            said = lifededup(env, "daemon", "status")
            assert said.returncode == 0, f"the daemon still runs, trying again:\n{said.stdout}"
            assert f"the store's server refuses this watcher since " in said.stdout, said.stdout
            assert f": {reason}. The server, postgresql://{role}:***@/{database}" in said.stdout, said.stdout
            assert "the watcher tries again every 0.5 s: once the server's admin puts it right" in said.stdout, \
                said.stdout
            assert "cannot be reached" not in said.stdout and "s3cret" not in said.stdout, said.stdout
            report = json.loads(lifededup(env, "daemon", "status", "--json").stdout)["report"]
            assert (report["refused"], report["unreachable"]) == (reason, None), report
            assert report["refused_since"], report
            page, listed = web_status(web)  # the view on the same URL, refused too
            assert f"The store's server refuses this watcher since " in page, page
            assert f": {reason}. The server answers but turns it away; the watcher tries again every 0.5 s" in page, \
                page
            assert f"The store's server refuses this connection: {reason}: its folders cannot be read now" in page, \
                page
            assert "cannot be reached" not in page and "s3cret" not in page, page
            assert listed["daemon"]["report"]["refused"] == reason, listed
            assert listed["server"] == f"refuses this connection: {reason}", listed
            said = web.get("/failures.json").json()["error"]  # another page: the server's words, no network problem
            assert reason in said and "cannot be reached" not in said, said
            log = Path(json.loads(lifededup(env, "daemon", "status", "--json").stdout)["log"]).read_text()
            assert log.count(f"the store's server refuses this watcher: {reason}; it tries again every 0.5 s") \
                == 1, f"said once, not at every try:\n{log}"
            assert "s3cret" not in log, log

            put_back()
            eventually(lambda: len(indexed(admin_url)) == 2, "put right on the server, the file written "
                       "meanwhile is indexed, with no restart", timeout=30)
            eventually(lambda: "refuses" not in lifededup(env, "daemon", "status").stdout,
                       "daemon status no longer says the server refuses it")
            (folder / "later.txt").write_text(prose(5))
            eventually(lambda: len(indexed(admin_url)) == 3, "a file written afterwards is indexed: it watches")
    finally:
        for name in (database, f"{database}_gone"):  # (put back or not: a test that failed)
            postgres.admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        for name in (role, f"{role}_gone"):
            postgres.admin(f'DROP ROLE IF EXISTS "{name}"')


def test_the_web_status_page_says_the_daemon_waits_for_a_server_that_cannot_be_reached(
        postgres: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A daemon waiting for its store's server as it starts: the status page
    said "watching: nothing" and nothing of the server -- or, the view's own
    reads failing, was a bare error page."""
    with a_laptop_and_its_nas(tmp_path) as nas:
        server, url, folder = nas.server, nas.url, nas.folder
        env = {**nas.env, "XDG_STATE_HOME": str(tmp_path / "state")}
        assert lifededup(env, "folders", "add", str(folder)).returncode == 0
        monkeypatch.setenv("LIFEDEDUP_MACHINE", "laptop")  # the view's machine: its watched folders
        with web_view(url, tmp_path) as web:  # served while the NAS was on
            server.stop(keep=True)  # the NAS goes off; the laptop boots, its daemon starts
            started = lifededup(env, "daemon", "start", "--retry", "0.3", "--delay", "0.3", "-j", "1")
            assert started.returncode == 0, started.stderr
            try:
                eventually(lambda: "waiting for the store's server" in web_status(web)[0], "the page says it waits")
                page, listed = web_status(web)
                assert "The store cannot be reached since " in page, page
                assert "The watcher waits for it (tries every 0.3 s): the changes waiting are indexed once the " \
                       "server is back." in page, page
                assert "<dt>watching</dt><dd>the store's folders, once it is reached</dd>" in page, page
                assert "The store's server cannot be reached (" in page, "the page, not an error: " + page
                assert "s3cret" not in page, page
                assert listed["daemon"]["report"]["unreachable"], listed
                assert listed["server"].startswith("cannot be reached ("), listed

                nas.restart()
                eventually(lambda: "state: watching" in lifededup(env, "daemon", "status").stdout, "it watches")
                eventually(lambda: "The store cannot be reached" not in web_status(web)[0], "the page no longer "
                           "says so (its log's tail still does)")
                page, listed = web_status(web)
                assert "The store's server cannot be reached" not in page, page
                assert f"<dt>watching</dt><dd>{folder}</dd>" in page, page
                assert [f["path"] for f in listed["folders"]] == [str(folder)] and listed["server"] is None, listed
            finally:
                assert lifededup(env, "daemon", "stop").returncode == 0
