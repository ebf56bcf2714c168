"""A store shared by several machines, as a household runs it (explorer's
findings): `failures --machine` lists the files one computer could not read,
`daemon status` counts its own failures apart from the store's and says when
the store's server cannot be reached.  Real stores on both backends, real
processes, a real server stopped under a running daemon."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from pg_server import Server
from store_samples import prose
from test_daemon import lifededup
from test_watch import eventually
from test_watch_status import daemon

from lifededup.index import IndexConfig, run
from lifededup.store import open_store


def two_machines_failing(tmp_path: Path, store_url: str, broken: dict[str, int]) -> dict[str, str]:
    """``broken[machine]`` broken PDFs indexed by each machine, beside a good
    report (in folders of their own: an SQLite store cannot hold one path
    twice); the environment of a command run on the laptop."""
    for machine, count in broken.items():
        folder = tmp_path / machine
        folder.mkdir()
        (folder / "report.txt").write_text(prose(3))
        for n in range(count):
            (folder / f"broken{n}.pdf").write_bytes(b"%PDF-1.4 cut short")
        with open_store(store_url, machine=machine) as store:
            run(store, [folder], IndexConfig(workers=1))
    return {**os.environ, "LIFEDEDUP_DB": store_url, "LIFEDEDUP_MACHINE": "laptop"}


def test_failures_of_one_machine(tmp_path: Path, store_url: str) -> None:
    env = two_machines_failing(tmp_path, store_url, {"laptop": 1, "nas": 2})
    everyone = lifededup(env, "failures")
    assert everyone.returncode == 0, everyone.stderr
    assert len(everyone.stdout.splitlines()) == 3, f"by default every machine's failures:\n{everyone.stdout}"

    here = lifededup(env, "failures", "--machine", "laptop")
    assert here.returncode == 0, here.stderr
    assert here.stdout.splitlines() == [f"corrupt\t{tmp_path / 'laptop' / 'broken0.pdf'}\t" +
                                        everyone.stdout.splitlines()[0].split("\t")[2]], here.stdout
    nas = lifededup(env, "failures", "--machine", "nas", "--json")
    assert nas.returncode == 0, nas.stderr
    listed = json.loads(nas.stdout)
    assert [(f["machine"], f["path"]) for f in listed] == [("nas", str(tmp_path / "nas" / f"broken{n}.pdf"))
                                                           for n in range(2)], listed
    theirs = lifededup(env, "failures", "--machine", "nas").stdout
    assert all(line.split("\t")[1].startswith(f"nas:{tmp_path}") for line in theirs.splitlines()), theirs


def test_failures_of_a_machine_with_none_or_not_in_the_store(tmp_path: Path, store_url: str) -> None:
    env = two_machines_failing(tmp_path, store_url, {"laptop": 0, "nas": 1})
    none = lifededup(env, "failures", "--machine", "laptop")
    assert (none.returncode, none.stdout) == (0, "no failures of the machine laptop\n"), none.stdout + none.stderr
    typo = lifededup(env, "failures", "--machine", "lapotp")
    assert typo.returncode == 1, typo.stdout
    assert "no machine 'lapotp' in" in typo.stderr and "lifededup machines list" in typo.stderr, typo.stderr


def test_daemon_status_counts_this_machines_failures_apart_from_the_stores(tmp_path: Path, store_url: str) -> None:
    """It said "failed items in store: 3" on the laptop, 2 of them the nas's, for the laptop's daemon."""
    env = two_machines_failing(tmp_path, store_url, {"laptop": 1, "nas": 2})
    with daemon(tmp_path, tmp_path / "laptop", "--delay", "0.3", env=env) as env:
        (tmp_path / "laptop" / "broken1.pdf").write_bytes(b"%PDF-1.4 cut short too")
        eventually(lambda: "failed items: 2 of this machine's, 4 in the store" in
                   lifededup(env, "daemon", "status").stdout, "the laptop's new failure is counted as its own")
        said = lifededup(env, "daemon", "status").stdout
        assert "`lifededup failures --machine laptop` lists this machine's" in said, said
        report = json.loads(lifededup(env, "daemon", "status", "--json").stdout)["report"]
        assert (report["failed"], report["failed_here"]) == (4, 2), report


def test_daemon_status_of_a_store_with_this_machines_failures_alone_says_them_as_before(tmp_path: Path,
                                                                                        store_url: str) -> None:
    env = two_machines_failing(tmp_path, store_url, {"laptop": 2})
    with daemon(tmp_path, tmp_path / "laptop", "--delay", "0.3", env=env) as env:
        said = lifededup(env, "daemon", "status").stdout
    assert "failed items in store: 2\n" in said, said


@dataclass
class Nas:
    """A store on a server of its own, which a test stops and starts again
    (``restart``), and the laptop's folder that feeds it."""

    server: Server
    url: str
    folder: Path
    env: dict[str, str]

    def restart(self) -> None:
        self.server = Server.start(root=self.server.root)


@contextmanager
def a_laptop_and_its_nas(tmp_path: Path) -> Iterator[Nas]:
    """A store on a server of its own (``postgres`` only skips a test where
    none can run), its URL holding a password (the server's trust
    authentication takes it without asking: never shown), and the laptop's
    folder of one file, the laptop's environment pointing at them."""
    nas = Nas(Server.start(), "", tmp_path / "laptop", {})
    try:
        nas.url = nas.server.new_database().replace("postgres@", "postgres:s3cret@")
        nas.folder.mkdir()
        (nas.folder / "report.txt").write_text(prose(3))
        nas.env = {**os.environ, "LIFEDEDUP_DB": nas.url, "LIFEDEDUP_MACHINE": "laptop"}
        yield nas
    finally:
        nas.server.stop()


def test_daemon_status_says_the_stores_server_cannot_be_reached_and_the_daemon_waits(
        postgres: Server, tmp_path: Path) -> None:
    """The NAS is off: `daemon status` said "state: watching, waiting: 1
    file", nothing of the server."""
    with a_laptop_and_its_nas(tmp_path) as nas:
        server, url, folder = nas.server, nas.url, nas.folder
        with daemon(tmp_path, folder, "--delay", "0.3", env=nas.env) as env:
            assert "cannot be reached" not in lifededup(env, "daemon", "status").stdout
            server.stop(keep=True)
            (folder / "written while the server was down.txt").write_text(prose(4))
            eventually(lambda: "cannot be reached" in lifededup(env, "daemon", "status").stdout,
                       "daemon status says the server is not reached")
            down = lifededup(env, "daemon", "status")
            assert down.returncode == 0, "the daemon still runs: it waits for its server"
            store = down.stdout.splitlines()[1].removeprefix("store: ").removesuffix(", machine laptop")
            assert store.startswith("postgresql://postgres:***@/t_"), store
            assert "the store cannot be reached since " in down.stdout, down.stdout
            assert f"its server, {store}, does not answer (" in down.stdout, down.stdout
            assert "The watcher waits for it (tries every 30 s): the changes waiting are indexed once the server " \
                   "is back" in down.stdout, down.stdout
            assert "s3cret" not in down.stdout, down.stdout
            report = json.loads(lifededup(env, "daemon", "status", "--json").stdout)["report"]
            assert report["unreachable"] and report["unreachable_since"], report
            nas.restart()
            eventually(lambda: "cannot be reached" not in lifededup(env, "daemon", "status").stdout,
                       "the server back, daemon status no longer says it is away")
            with open_store(url, readonly=True) as reader:
                eventually(lambda: len(reader.execute("SELECT path FROM items")[1]) == 2,
                           "the file written meanwhile is indexed, not 30 s after the server is back")


def test_index_summary_counts_this_machines_failures_apart_from_other_machines(tmp_path: Path,
                                                                              store_url: str) -> None:
    """After indexing on the laptop the summary said "3 failed item(s)" and
    `lifededup failures`: 2 of them the NAS's, files no one at the laptop can fix."""
    env = two_machines_failing(tmp_path, store_url, {"laptop": 1, "nas": 2})
    ran = lifededup(env, "index", "-j", "1", str(tmp_path / "laptop"))
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines()[1].endswith(", 1 failed item(s) of this machine's, and 2 on other machines"), \
        ran.stdout
    assert ran.stdout.splitlines()[2] == "why they failed: lifededup failures --machine laptop", ran.stdout
    summary = json.loads(lifededup(env, "index", "--json", "-j", "1", str(tmp_path / "laptop")).stdout)
    assert (summary["failed_in_store"], summary["failed_here"]) == (3, 1), "failed_in_store keeps its meaning"

    clean = {**env, "LIFEDEDUP_MACHINE": "desk"}  # a machine none of whose files failed
    (tmp_path / "desk").mkdir()
    (tmp_path / "desk" / "notes.txt").write_text(prose(5))
    desk = lifededup(clean, "index", "-j", "1", str(tmp_path / "desk")).stdout.splitlines()
    assert desk[1].endswith(", 0 failed item(s) of this machine's, and 3 on other machines"), desk
    assert len(desk) == 2, f"no failures here to look up: {desk}"


def test_index_summary_of_one_machines_store_says_its_failures_as_before(tmp_path: Path, store_url: str) -> None:
    env = two_machines_failing(tmp_path, store_url, {"laptop": 2})
    ran = lifededup(env, "index", "-j", "1", str(tmp_path / "laptop"))
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines()[1:] == ["store: 0 exact duplicate(s), 0 near-duplicate(s), 2 failed item(s)",
                                           "why they failed: lifededup failures"], ran.stdout
    summary = json.loads(lifededup(env, "index", "--json", "-j", "1", str(tmp_path / "laptop")).stdout)
    assert (summary["failed_in_store"], summary["failed_here"]) == (2, 2), summary


def test_web_status_counts_this_machines_failures_apart_and_links_to_them(tmp_path: Path, store_url: str) -> None:
    """The status page said "failed items: 3 (why)" of the laptop's watcher, 2
    of them the NAS's, and its link listed every machine's."""
    pytest.importorskip("starlette", reason="the web view needs its extra: pip install '.[web]'")
    from starlette.testclient import TestClient

    from lifededup.store import resolve
    from lifededup.watch import WatchStatus
    from lifededup.watch import daemon as daemons
    from lifededup.web import create_app

    env = two_machines_failing(tmp_path, store_url, {"laptop": 1, "nas": 2})
    paths = daemons.DaemonPaths(tmp_path / "state")
    report = WatchStatus(watching=[str(tmp_path / "laptop")], state="watching", failed=3, failed_here=1)
    daemons.write_status(paths, report, str(resolve(store_url)), "laptop")
    with TestClient(create_app(store_url, daemon_paths=paths), base_url="http://127.0.0.1:8765") as client:
        status = client.get("/status").text
        assert "1 of this machine's (laptop), and 2 on other machines" in status, status
        assert 'href="/failures?machine=laptop">why' in status, status
        page = client.get("/failures?machine=laptop").text
        assert "1 item of the machine laptop" in page and "broken0.pdf" in page, page
        assert "nas:" not in page, "the NAS's failures are not this machine's"
        listed = client.get("/failures.json?machine=laptop").json()
        assert listed == json.loads(lifededup(env, "failures", "--machine", "laptop", "--json").stdout), listed
        assert len(client.get("/failures.json").json()) == 3, "without ?machine every machine's, as before"
