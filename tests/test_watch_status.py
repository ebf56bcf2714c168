"""What `daemon status` tells its user, as explorer E found it in a busy
home: during a `tar x` of 2,000 files it said "waiting: 5 path(s)" (the
folders it made, while their files were read), and a watched folder deleted
and made again, empty, kept its items without a word.  Real watchdog events,
a real daemon process where the command's words are tested."""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

import pytest

from index_samples import write_text
from test_daemon import lifededup
from test_watch import TIMEOUT_S, eventually, watching

from lifededup.watch import WatchStatus


@contextmanager
def reporting(tmp_path: Path, root: Path, delay: float) -> Iterator[list[WatchStatus]]:
    """A watcher on ``root`` in a thread (``test_watch``'s, one worker);
    yields every status it reports (copies), once the catch-up scan is done."""
    reports: list[WatchStatus] = []
    with watching(tmp_path, root, delay=delay, workers=1, reports=reports):
        yield reports


def test_waiting_counts_files_and_folders_not_events_and_the_batch_being_read(tmp_path: Path) -> None:
    """A tree copied in (3 folders of 40 files): each file waits once, not
    once per event, the folders are told apart, and the files of the batch
    being read still wait until they are read -- where `pending` was the
    events queued and the debouncer's paths, the batch in flight not
    counted (a handful while 2,000 files were read)."""
    source, root = tmp_path / "unpacked", tmp_path / "home"
    for folder in range(3):
        for n in range(40):
            write_text(source / f"part {folder}" / f"{n:02d}.txt", seed=100 * folder + n, words=60)
    root.mkdir()
    with reporting(tmp_path, root, delay=2.0) as reports:
        shutil.copytree(source, root / "unpacked")
        eventually(lambda: reports[-1].indexed >= 120 and reports[-1].state == "watching", "the tree is read")
    seen = list(reports)
    reading = [r.pending for r in seen if r.state == "indexing"]
    assert max(reading) >= 40, f"the files of the batch being read were not said to wait: {reading}"
    assert max(r.pending for r in seen) <= 124, f"a file waits once, not once per event: {max(r.pending for r in seen)}"
    assert max(r.waiting_files for r in seen) >= 40, [r.waiting_files for r in seen]
    assert 1 <= max(r.waiting_folders for r in seen) <= 4, [r.waiting_folders for r in seen]
    assert all(r.pending == r.waiting_files + r.waiting_folders for r in seen), "pending is their sum"
    assert seen[-1].pending == 0, seen[-1]


@contextmanager
def daemon(tmp_path: Path, root: Path, *options: str, env: dict[str, str] | None = None) -> Iterator[dict[str, str]]:
    """`daemon start` on ``root`` (a state folder of its own, and a store of its own unless ``env`` names
    one); yields its environment, once it watches, and stops it."""
    base = {**os.environ, "LIFEDEDUP_DB": str(tmp_path / "store.db")} if env is None else env
    env = {**base, "XDG_STATE_HOME": str(tmp_path / "state")}
    added = lifededup(env, "folders", "add", str(root))
    assert added.returncode == 0, added.stderr
    started = lifededup(env, "daemon", "start", "-j", "1", *options)
    assert started.returncode == 0, started.stdout + started.stderr
    try:
        eventually(lambda: "state: watching" in lifededup(env, "daemon", "status").stdout, "the daemon watches")
        yield env
    finally:
        stopped = lifededup(env, "daemon", "stop")
        assert stopped.returncode == 0, stopped.stderr


def status_of(env: dict[str, str]) -> tuple[str, dict[str, object]]:
    text = lifededup(env, "daemon", "status")
    report = json.loads(lifededup(env, "daemon", "status", "--json").stdout)["report"]
    return text.stdout, report


def test_daemon_status_says_files_waiting_and_folders_to_scan(tmp_path: Path) -> None:
    """40 files in 2 new folders, held by a delay of an hour: "waiting: 40
    files, 2 folders to scan", not the events they made."""
    root = tmp_path / "home"
    write_text(root / "a.txt", seed=1)
    with daemon(tmp_path, root, "--delay", "3600") as env:
        for folder in ("letters", "notes"):
            for n in range(20):
                write_text(root / folder / f"{n:02d}.txt", seed=n)
        said: list[tuple[str, dict[str, object]]] = []

        def counted() -> bool:
            said.append(status_of(env))
            return "waiting: 40 files, 2 folders to scan" in said[-1][0]

        try:
            eventually(counted, "status counts the files and the folders")
        except AssertionError:
            raise AssertionError(f"status said:\n{said[-1][0]}") from None
        report = said[-1][1]
        assert (report["waiting_files"], report["waiting_folders"], report["pending"]) == (40, 2, 42), report


def test_daemon_status_names_a_folder_whose_items_are_kept_though_it_is_gone_or_empty(tmp_path: Path) -> None:
    """A watched folder deleted keeps its items (a disk's mount point looks
    the same); made again, empty, it keeps them still (explorer E's
    s4_recreate.sh) -- and status watched it without a word.  It says so
    now, and how to forget them; once a file is back, the folder is
    scanned and no longer named."""
    root = tmp_path / "Notes"
    for n in range(3):
        write_text(root / f"{n}.txt", seed=n)
    with daemon(tmp_path, root, "--delay", "0.3") as env:
        eventually(lambda: status_of(env)[1]["indexed"] == 3, "the notes are read")
        path = str(root.resolve())
        shutil.rmtree(root)
        eventually(lambda: f"{path}: the store keeps its 3 items, but it is not there" in status_of(env)[0],
                   "status names the folder gone, and its items kept")
        root.mkdir()
        said: list[tuple[str, dict[str, object]]] = []

        def named() -> bool:
            said.append(status_of(env))
            return f"{path}: the store keeps its 3 items, but it is empty now" in said[-1][0]

        try:
            eventually(named, "status names the folder made again, empty")
        except AssertionError:
            raise AssertionError(f"status said:\n{said[-1][0]}") from None
        text, report = said[-1]
        assert f"`lifededup folders remove --forget {path}` forgets them" in text, text
        assert report["absent"] == [{"path": path, "now": "empty", "items": 3}], report
        write_text(root / "new.txt", seed=9)
        eventually(lambda: status_of(env)[1]["absent"] == [], "a file back: the folder is scanned")
        text = status_of(env)[0]
        assert "the store keeps" not in text, text
        count = lifededup(env, "sql", "--csv", "SELECT count(*) FROM items")
        assert count.stdout.split() == ["count(*)", "1"], count.stdout + count.stderr


def _said_at(html: str, label: str) -> datetime:
    """The moment the status page says after ``label`` (said_when's local time; its zone dropped)."""
    found = re.search(re.escape(label) + r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)", html)
    assert found is not None, f"the page does not say {label!r}: {html}"
    return datetime.strptime(found.group(1), "%Y-%m-%d %H:%M:%S")


@contextmanager
def _batch_after_watching(tmp_path: Path, pause: float) -> Iterator[tuple[dict[str, str], datetime]]:
    """A daemon watching a folder of one file, and when it began (to the
    second); ``pause`` seconds later a second file, read by a batch of its
    own, after which the daemon watches again."""
    root = tmp_path / "home"
    write_text(root / "a.txt", seed=1)
    with daemon(tmp_path, root, "--delay", "0.3") as env:
        watching = datetime.fromtimestamp(int(time.time()))  # the daemon watches already: to the second
        time.sleep(pause)  # its batch ends seconds later
        write_text(root / "b.txt", seed=2)
        eventually(lambda: status_of(env)[1]["indexed"] == 2 and status_of(env)[1]["state"] == "watching",
                   "the new file is read, and the daemon watches again")
        yield env, watching


def test_the_status_page_says_since_when_the_daemon_watches_not_when_its_last_batch_ended(tmp_path: Path) -> None:
    """The page said "Running, watching since 09:14" of a daemon watching
    since the morning: the state's since, which a batch (a state of its
    own) sets again as it ends.  It says when the daemon began watching,
    and its last batch apart, as "last indexed"."""
    pytest.importorskip("starlette", reason="the web view needs its extra: pip install '.[web]'")
    from starlette.testclient import TestClient

    from lifededup.watch import daemon as daemons
    from lifededup.web import create_app

    with _batch_after_watching(tmp_path, 2.0) as (env, watching):
        with TestClient(create_app(env["LIFEDEDUP_DB"], daemon_paths=daemons.DaemonPaths(tmp_path / "state"
                                                                                           / "lifededup")),
                        base_url="http://127.0.0.1:8765") as client:
            html = client.get("/status").text
    since = _said_at(html, ", watching since ")
    last = _said_at(html, "<dt>last indexed</dt><dd>")
    assert since <= watching < last, f"watching since {since}, last batch {last}: the page says {html}"
    assert _said_at(html, "<dt>started watching</dt><dd>") == since, html


def _seconds(lasting: str) -> int:
    """``42 s``, ``3 min 5 s``, ``2 h 10 min`` (as `daemon status` says how long) in seconds."""
    units = {"h": 3600, "min": 60, "s": 1}
    words = lasting.split()
    return sum(int(n) * units[unit] for n, unit in zip(words[::2], words[1::2]))


def test_daemon_status_says_since_when_the_daemon_watches_and_how_long_ago_its_last_batch_ended(
        tmp_path: Path) -> None:
    """`daemon status` said "state: watching (for 4 s)" of a daemon watching
    for minutes: the state's since, which a batch (a state of its own) sets
    again as it ends.  It says when the daemon began watching and for how
    long, as the status page does, and how long ago its last batch ended."""
    with _batch_after_watching(tmp_path, 3.0) as (env, watching):
        text, report = status_of(env)
    line = next((line for line in text.splitlines() if line.startswith("state: ")), text)
    said = re.fullmatch(r"state: watching since (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) \S+ \(for ([\w ]+)\), "
                        r"last batch or scan ([\w ]+) ago, waiting: 0 files", line)
    assert said is not None, f"the state's line: {line}"
    assert datetime.strptime(said[1], "%Y-%m-%d %H:%M:%S") <= watching, line
    # watching began before the pause, the batch ended after it: the time watching passes its end's by 3 s
    assert _seconds(said[3]) <= _seconds(said[2]) - 3, line
    assert said[1] == datetime.fromtimestamp(float(str(report["watching_since"]))).strftime("%Y-%m-%d %H:%M:%S"), \
        (line, report)


def test_a_file_waits_once_though_its_run_listed_it_and_events_came_after(tmp_path: Path) -> None:
    """`daemon status` during a `tar x` said more files waiting than there
    were: a file its folder's scan had listed that had events after (tar
    sets each file's mode and times once written) was counted twice, by
    the run in flight and by its events.  Waiting counts distinct files."""
    source, root = tmp_path / "unpacked", tmp_path / "home"
    for n in range(300):
        write_text(source / f"{n:03d}.txt", seed=n, words=2000)  # 13 kB each: the read takes a while
    root.mkdir()
    with reporting(tmp_path, root, delay=0.5) as reports:
        caught_up = len(reports)
        source.rename(root / "unpacked")  # a folder moved in: its scan lists all 300
        eventually(lambda: any(r.state == "indexing" for r in reports[caught_up:]), "the folder is being read")
        for path in (root / "unpacked").iterdir():
            os.chmod(path, 0o640)  # as tar does after each file: an event, its bytes unchanged
        eventually(lambda: reports[-1].state == "watching" and reports[-1].pending == 0
                   and reports[-1].indexed >= 300, "every file read, nothing waiting")
    counted = [r.waiting_files for r in reports[caught_up:]]
    assert max(counted) >= 100, f"the files of the run in flight were said to wait: {counted}"
    assert max(counted) <= 300, f"300 files, counted once each: {max(counted)} said to wait"


def test_a_file_read_waits_no_more_though_its_events_came_before_its_read(tmp_path: Path) -> None:
    """Files whose events came while their folder waited to be scanned (tar
    sets each file's mode and times once written) were said to wait after
    the folder's run had read them, until their events settled: during a
    slowed `tar x` of the real archive's projects, "waiting: 628 files" of
    126 not read.  A file read as its events left it waits no more."""
    source, root = tmp_path / "unpacked", tmp_path / "home"
    for n in range(300):
        write_text(source / f"{n:03d}.txt", seed=n, words=2000)
    root.mkdir()
    with reporting(tmp_path, root, delay=1.0) as reports:
        caught_up = len(reports)
        source.rename(root / "unpacked")
        time.sleep(0.6)  # apart from the folder's event: they settle on their own, after it
        for path in (root / "unpacked").iterdir():
            os.chmod(path, 0o640)
        eventually(lambda: reports[-1].state == "watching" and reports[-1].pending == 0
                   and reports[-1].indexed >= 300, "every file read, nothing waiting")
    after = reports[caught_up:]
    read = next(at for at, r in enumerate(after) if r.state == "indexing")
    ended = next(r for r in after[read:] if r.state == "watching")
    assert ended.indexed >= 300 and ended.waiting_files == 0, \
        f"the folder read, {ended.waiting_files} of its files still said to wait ({ended.indexed} read)"
