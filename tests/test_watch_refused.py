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

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from pg_server import Server
from store_samples import prose
from test_daemon import lifededup
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
        with daemon(tmp_path, folder, "--delay", "0.3", "--retry", "0.5", env=env) as env:
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
        postgres.drop_database(admin_url)
        postgres.admin(f'DROP ROLE IF EXISTS "{role}"')
