"""``lifededup daemon start|status|stop`` as a user runs them: real processes,
a real store and folder, the state folder under tmp_path (XDG_STATE_HOME)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from in_process import lifededup_here
from index_samples import files_on_disk, stored_files, write_text
from store_samples import prose
from test_watch import eventually

from lifededup.store import open_store
from lifededup.watch import FOLLOW_S
from lifededup.watch.daemon import alive


# Asked in the test's own process (tests/in_process.py): the daemon's state and the folders, which the tests
# poll for hundreds of times, and `folders add`, which makes a new store.  A process each cost python's start,
# lifededup's imports and, for a new store, its revisions: a third of a second to a second, each time.
ASKED_HERE = {("daemon", "status"), ("folders", "add"), ("folders", "list")}


def lifededup(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``lifededup ARGS`` run as a user runs it, in a process with ``env``; the questions of ``ASKED_HERE``
    in this one."""
    if tuple(args[:2]) in ASKED_HERE:
        return lifededup_here(*args, env=env, whole=True)
    return subprocess.run([sys.executable, "-m", "lifededup", *args], env=env, capture_output=True, text=True,
                          timeout=120)


def archive_and_state(tmp_path: Path) -> tuple[Path, Path, Path, dict[str, str]]:
    """A folder of one file to watch, and the daemon's state folder, store and environment, all under ``tmp_path``."""
    root = tmp_path / "archive"
    write_text(root / "a.txt", seed=1)
    state, db = tmp_path / "state", tmp_path / "store.db"
    return root, state, db, {**os.environ, "XDG_STATE_HOME": str(state), "LIFEDEDUP_DB": str(db)}


def test_daemon_start_status_stop(tmp_path: Path) -> None:
    root, state, db, env = archive_and_state(tmp_path)

    added = lifededup(env, "folders", "add", str(root))
    assert added.returncode == 0, added.stderr
    before = lifededup(env, "daemon", "status")
    assert before.returncode == 3 and "not running" in before.stdout, (before.stdout, before.stderr)

    started = lifededup(env, "daemon", "start", "--delay", "0.3", "--rescan", "900", "-j", "1", "--max-text-mb", "4")
    assert started.returncode == 0, started.stdout + started.stderr
    pid = int((state / "lifededup" / "watch.pid").read_text())
    try:
        assert alive(pid) and f"pid {pid}" in started.stdout, started.stdout
        # watch's options are passed on to it (daemon start took --delay and --ocr alone)
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        for option, value in ((b"--delay", b"0.3"), (b"--rescan", b"900.0"), (b"-j", b"1"), (b"--max-text-mb", b"4.0")):
            assert argv[argv.index(option) + 1] == value, argv
        # it runs from /: `python -m` imported a zipfile.py of the folder `daemon start` was typed in
        assert os.readlink(f"/proc/{pid}/cwd") == "/", os.readlink(f"/proc/{pid}/cwd")
        twin = lifededup(env, "daemon", "start")
        assert twin.returncode != 0 and "already runs" in twin.stderr, twin.stderr

        write_text(root / "b.txt", seed=2)
        with open_store(db, readonly=True) as store:
            deadline = time.monotonic() + 60
            while set(stored_files(store)) != files_on_disk(root) and time.monotonic() < deadline:
                query = lifededup(env, "sql", "SELECT count(*) FROM items")  # reads while the daemon writes
                assert query.returncode == 0, query.stderr
                time.sleep(0.1)
            assert set(stored_files(store)) == files_on_disk(root), "the daemon indexes a new file"

        # the watcher says it is watching again once it has written the file and its report: a moment after
        status = lifededup(env, "daemon", "status")
        deadline = time.monotonic() + 30
        while "state: watching since " not in status.stdout and time.monotonic() < deadline:
            time.sleep(0.2)
            status = lifededup(env, "daemon", "status")
        assert status.returncode == 0, status.stdout + status.stderr
        for want in (f"running (pid {pid})", f"watching: {root.resolve()}", "state: watching since ", "waiting: ",
                     "last indexed: 20",
                     "failed items in store: 0", str(state / "lifededup" / "watch.log")):
            assert want in status.stdout, f"{want!r} missing from:\n{status.stdout}"
        # the last file it read: what `status` names while a long scan runs
        report = json.loads(lifededup(env, "daemon", "status", "--json").stdout)["report"]
        assert report["last_read"] in files_on_disk(root), report
        # every key of the report is one --help names (batches, machine, pid, updated_at were not);
        # log and follows repeat the outer log and say whether it follows folders add, for status itself
        helped = set(re.findall(r"\w+", lifededup(env, "daemon", "status", "--help").stdout))
        assert set(report) - {"log", "follows"} <= helped, set(report) - {"log", "follows"} - helped
        # a folder added while the daemon runs is followed without a restart
        # (it read its folders once, when it started, and had to be restarted)
        other = tmp_path / "other"
        write_text(other / "before.txt", seed=3)
        changed = lifededup(env, "folders", "add", str(other))
        assert changed.returncode == 0 and f"the daemon (pid {pid}) follows this change within 5 s" \
            in changed.stdout, changed.stdout
        write_text(other / "after.txt", seed=4)
        with open_store(db, readonly=True) as store:
            eventually(lambda: files_on_disk(other) <= set(stored_files(store)),
                       "the daemon scans a folder added while it runs, and follows it")
        followed = lifededup(env, "daemon", "status")
        assert f"watching: {root.resolve()}, {other.resolve()}" in followed.stdout, followed.stdout
        removed = lifededup(env, "folders", "remove", "--keep", str(other))
        assert f"the daemon (pid {pid}) follows this change" in removed.stderr, removed.stderr
        eventually(lambda: f"watching: {root.resolve()}\n" in lifededup(env, "daemon", "status").stdout,
                   "the daemon no longer watches a folder removed")
        elsewhere = lifededup({**env, "LIFEDEDUP_DB": str(tmp_path / "elsewhere.db")}, "folders", "add", str(other))
        assert f"the daemon (pid {pid}) watches another store ({db.resolve()}" in elsewhere.stdout, elsewhere.stdout
        root.rename(tmp_path / "unplugged")  # status said "watching" it, as if it were there
        gone = lifededup(env, "daemon", "status")
        assert f"watching: {root.resolve()} (not there: its items kept until it returns)" in gone.stdout, gone.stdout
        (tmp_path / "unplugged").rename(root)
    finally:
        stopped = lifededup(env, "daemon", "stop")
    assert stopped.returncode == 0 and f"stopped (pid {pid})" in stopped.stdout, stopped.stdout + stopped.stderr
    assert not alive(pid), "the daemon's process is gone"
    assert not (state / "lifededup" / "watch.pid").exists(), "the pid file is removed"
    after = lifededup(env, "daemon", "status")
    assert after.returncode == 3 and "not running" in after.stdout, after.stdout
    log = (state / "lifededup" / "watch.log").read_text()
    assert "watching" in log and "stopped" in log, log
    again = lifededup(env, "daemon", "stop")
    assert again.returncode == 0 and "not running" in again.stdout, again.stdout


def test_daemon_start_without_folders_says_what_to_do(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "LIFEDEDUP_DB": str(tmp_path / "s.db")}
    result = lifededup(env, "daemon", "start")
    assert result.returncode != 0 and "lifededup folders add PATH" in result.stderr, result.stderr


def test_without_folders_the_command_said_names_the_store_given(tmp_path: Path) -> None:
    """Given --db, `daemon start` and `watch` say `folders add PATH --db STORE`: the bare command
    they said before put the folder into the default store, and the same error came again."""
    root, state, db, env = archive_and_state(tmp_path)
    env.pop("LIFEDEDUP_DB")
    env["XDG_DATA_HOME"] = str(tmp_path / "data")  # the default store, which must stay unmade
    for command in (["daemon", "start"], ["watch"]):
        result = lifededup(env, *command, "--db", str(db))
        assert result.returncode == 1, result.stderr
        assert f"`lifededup folders add PATH --db {db}`" in result.stderr, result.stderr
    said = re.search(r"`(lifededup folders add PATH --db \S+)`", result.stderr)
    assert said is not None
    added = lifededup(env, *said.group(1).replace("PATH", str(root)).split()[1:])
    assert added.returncode == 0, added.stderr
    assert lifededup(env, "folders", "list", "--db", str(db)).stdout.startswith(str(root))
    assert not (tmp_path / "data").exists()


def test_a_pid_file_naming_another_process_is_no_daemon_and_that_process_is_not_stopped(tmp_path: Path) -> None:
    """The daemon killed with -9 leaves its pid file (it outlives a reboot);
    its number may be another process's by then.  status, start and stop
    took that process for the daemon -- and stop killed it."""
    state = tmp_path / "state"
    env = {**os.environ, "XDG_STATE_HOME": str(state), "LIFEDEDUP_DB": str(tmp_path / "store.db")}
    (state / "lifededup").mkdir(parents=True)
    stranger = subprocess.Popen(["sleep", "60"])
    try:
        (state / "lifededup" / "watch.pid").write_text(f"{stranger.pid}\n")
        status = lifededup(env, "daemon", "status")
        assert status.returncode == 3 and "not running" in status.stdout, status.stdout
        stopped = lifededup(env, "daemon", "stop")
        assert stopped.returncode == 0 and "not running" in stopped.stdout, stopped.stdout
        assert stranger.poll() is None, "daemon stop killed a process that is not the daemon"
    finally:
        stranger.kill()
        stranger.wait()


def test_status_of_a_watcher_in_a_terminal_names_no_log_file(tmp_path: Path) -> None:
    """`daemon status` named watch.log for a watcher run in the foreground,
    whose output goes to its terminal (or systemd's journal): a file it
    never writes."""
    root = tmp_path / "archive"
    write_text(root / "a.txt", seed=1)
    state = tmp_path / "state"
    env = {**os.environ, "XDG_STATE_HOME": str(state), "LIFEDEDUP_DB": str(tmp_path / "store.db")}
    watcher = subprocess.Popen([sys.executable, "-m", "lifededup", "watch", str(root)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        eventually(lambda: "state: watching" in lifededup(env, "daemon", "status").stdout, "the watcher runs")
        status = lifededup(env, "daemon", "status")
        assert f"running (pid {watcher.pid})" in status.stdout, status.stdout
        assert "log: none: this watcher was not started by `daemon start`" in status.stdout, status.stdout
        assert not (state / "lifededup" / "watch.log").exists()
        as_json = json.loads(lifededup(env, "daemon", "status", "--json").stdout)
        assert as_json["log"] is None and as_json["report"]["log"] is None, as_json
        # given its folders, it does not follow the store's list: `folders add` said it did
        (tmp_path / "other").mkdir()
        added = lifededup(env, "folders", "add", str(tmp_path / "other"))
        assert f"the watcher (pid {watcher.pid}) watches the folders it was given" in added.stdout, added.stdout
    finally:
        watcher.terminate()
        _, err = watcher.communicate(timeout=60)
    assert "watching" in err, err


def test_an_idle_watcher_leaves_its_status_file_alone_and_writes_what_changes(tmp_path: Path) -> None:
    """An idle watcher rewrote its status file every second for as long as it
    ran (a write to ~/.local/state that kept a laptop's disk awake) -- at
    each look at the store's folders, every 5 s, for the watcher `daemon
    start` runs: it now writes it when something in it changes, and once a
    minute else."""
    root, state, _, env = archive_and_state(tmp_path)
    assert lifededup(env, "folders", "add", str(root)).returncode == 0
    status_file = state / "lifededup" / "watch-status.json"
    # `watch` without folders, as `daemon start` runs it: it follows the store's folders
    watcher = subprocess.Popen([sys.executable, "-m", "lifededup", "watch", "--delay", "0.3"], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        eventually(lambda: status_file.exists() and json.loads(status_file.read_text())["state"] == "watching"
                   and json.loads(status_file.read_text())["indexed"] == 1, "the watcher indexes its folder")
        written = status_file.stat().st_mtime_ns
        time.sleep(FOLLOW_S + 2)  # a look at the store's folders among it
        assert status_file.stat().st_mtime_ns == written, "an idle watcher wrote its unchanged status again"
        write_text(root / "b.txt", seed=2)
        eventually(lambda: json.loads(status_file.read_text())["indexed"] == 2, "its status says the new file")
        assert "running" in lifededup(env, "daemon", "status").stdout
    finally:
        watcher.terminate()
        _, err = watcher.communicate(timeout=60)
    assert "watching" in err, err


def test_status_of_a_killed_watcher_says_what_it_left_unread(tmp_path: Path) -> None:
    """Killed (kill -9, a crash) with changes not yet read, `daemon status`
    said "state: died while watching (...), waiting: 3 files", as though
    something still waited on them; it says they were left unread, and that
    the next start reads them -- which it does."""
    root, state, db, env = archive_and_state(tmp_path)
    assert lifededup(env, "folders", "add", str(root)).returncode == 0
    started = lifededup(env, "daemon", "start", "--delay", "3600", "-j", "1")  # changes wait an hour
    assert started.returncode == 0, started.stdout + started.stderr
    pid = int((state / "lifededup" / "watch.pid").read_text())
    try:
        eventually(lambda: "state: watching" in lifededup(env, "daemon", "status").stdout, "it caught up")
        for n in range(2, 5):
            write_text(root / f"{n}.txt", seed=n)
        eventually(lambda: "waiting: 3 files" in lifededup(env, "daemon", "status").stdout, "three files wait")
    finally:
        os.kill(pid, 9)
    eventually(lambda: not alive(pid), "the watcher is gone")
    status = lifededup(env, "daemon", "status")
    assert status.returncode == 3, status.stdout
    assert ("state: died while watching (killed or crashed; see the log), left unread: 3 files (the next "
            "`lifededup daemon start` reads them)\n") in status.stdout, status.stdout
    assert lifededup(env, "daemon", "start", "-j", "1").returncode == 0
    try:
        with open_store(db, readonly=True) as store:
            eventually(lambda: set(stored_files(store)) == files_on_disk(root), "the next start reads them")
    finally:
        stopped = lifededup(env, "daemon", "stop")
        assert stopped.returncode == 0, stopped.stderr
    status = lifededup(env, "daemon", "status")
    assert "state: stopped, nothing left unread\n" in status.stdout, status.stdout
    # `daemon stop`'s SIGTERM, in the log as its other news: timed, and no Ctrl-C to press
    said = (state / "lifededup" / "watch.log").read_text()
    assert re.search(r"\n\d{4}-\d\d-\d\d [\d:,]+ INFO SIGTERM: finishing the current batch, then stopping "
                     r"\(a second SIGINT or SIGTERM stops at once\)\n", said) and "Ctrl-C" not in said, said


def test_status_of_a_killed_watcher_of_a_store_given_names_it_in_the_start_it_says(tmp_path: Path) -> None:
    """A watcher started with --db, killed with files unread: status said "the next `lifededup daemon
    start` reads them", which, run as said, watched the default store's folders (or none)."""
    root, state, db, env = archive_and_state(tmp_path)
    env.pop("LIFEDEDUP_DB")
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    assert lifededup(env, "folders", "add", str(root), "--db", str(db)).returncode == 0
    started = lifededup(env, "daemon", "start", "--delay", "3600", "-j", "1", "--db", str(db))
    assert started.returncode == 0, started.stdout + started.stderr
    pid = int((state / "lifededup" / "watch.pid").read_text())
    try:
        eventually(lambda: "state: watching" in lifededup(env, "daemon", "status").stdout, "it caught up")
        write_text(root / "2.txt", seed=2)
        eventually(lambda: "waiting: 1 file" in lifededup(env, "daemon", "status").stdout, "a file waits")
    finally:
        os.kill(pid, 9)
    eventually(lambda: not alive(pid), "the watcher is gone")
    said = re.search(r"left unread: 1 file \(the next `lifededup (daemon start --db \S+)` reads them\)\n",
                     lifededup(env, "daemon", "status").stdout)
    assert said is not None and said.group(1) == f"daemon start --db {db}"
    assert lifededup(env, *said.group(1).split(), "-j", "1").returncode == 0
    try:
        with open_store(db, readonly=True) as store:
            eventually(lambda: set(stored_files(store)) == files_on_disk(root), "the start said reads them")
    finally:
        assert lifededup(env, "daemon", "stop").returncode == 0
    assert not (tmp_path / "data").exists(), "the default store was made"


def test_stopped_mid_tar_x_it_counts_only_the_files_it_left_unread(tmp_path: Path) -> None:
    """Stopped while it read a folder being unpacked, `daemon status` said
    "waiting: 963 files" of a `tar x` whose every file it had read (the
    events of files its scan had listed were still waiting), and "waiting:
    0 files" of one whose last 800 files it had not read (its run's count
    was cleared as the run ended).  It counts the files the store does not
    hold as they are."""
    root, state, db, env = archive_and_state(tmp_path)
    assert lifededup(env, "folders", "add", str(root)).returncode == 0
    assert lifededup(env, "daemon", "start", "--delay", "0.3", "-j", "1").returncode == 0
    eventually(lambda: "state: watching" in lifededup(env, "daemon", "status").stdout, "it caught up")
    unpacked = root / "unpacked"
    unpacked.mkdir()
    pages = [prose(n, 2000) for n in range(20)]  # 13 kB a page, as the real archive's: the read takes seconds
    for n in range(1500):  # as tar writes them: one after another, while the folder is scanned
        (unpacked / f"{n:04d}.txt").write_text(f"page {n} of the parish newsletter {pages[n % 20]}\n")
    time.sleep(1.5)  # every file's events delivered: what the count leaves out is the files it read
    stopped = lifededup(env, "daemon", "stop")
    assert stopped.returncode == 0, stopped.stderr
    report = json.loads(lifededup(env, "daemon", "status", "--json").stdout)["report"]
    with open_store(db, readonly=True) as store:
        _, rows = store.execute("SELECT path, size, mtime FROM items WHERE part = ''")
    held = {str(path): (size, mtime) for path, size, mtime in rows}
    unread = [path for path in files_on_disk(root)
              if held.get(path) != (os.stat(path).st_size, os.stat(path).st_mtime)]
    assert report["waiting_files"] == len(unread), (report["waiting_files"], len(unread))
