"""kill -9 of ``lifededup index`` in the middle of a run: the store stays
consistent and a second run indexes every file exactly once (on SQLite and
on PostgreSQL, whose server rolls back the dead client's transaction and
frees its write lock)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner
from index_samples import assert_matches, write_text

from lifededup.cli import main
from lifededup.store import open_store

FILES = 800
MESSAGES = 120


def mailbox(path: Path) -> None:
    path.write_text("".join(
        f"From a@b Mon Jan  1 00:00:00 2024\nFrom: a@b\nSubject: note {n}\nMessage-ID: <{n}@b>\n\n"
        f"message {n} says hello to number {n * 7} in the crash test mailbox\n\n"
        for n in range(MESSAGES)
    ))


def count(db: str) -> int:
    if "://" not in db and not Path(db).exists():
        return 0
    try:
        with open_store(db, readonly=True) as store:
            _, [(n,)] = store.execute("SELECT count(*) FROM items")
            return int(n)  # type: ignore[call-overload]
    except Exception:  # the store is being created by the indexer
        return 0


def test_kill_9_mid_run_then_a_second_run_finishes(tmp_path: Path, store_url: str) -> None:
    root = tmp_path / "archive"
    mailbox(write_text(root / "a" / "box.mbox", seed=0))
    for i in range(FILES):
        (root / f"d{i % 10}").mkdir(exist_ok=True)
        (root / f"d{i % 10}" / f"f{i:04d}.txt").write_text(f"file {i} of the crash test, word{i} and more words\n")
    write_text(root / "z" / "long.txt", seed=3)
    db = store_url
    total = FILES + 2 + MESSAGES  # the files, the mailbox's messages
    indexer = subprocess.Popen([sys.executable, "-m", "lifededup", "index", "--db", str(db), "--batch", "5",
                                "-j", "2", str(root)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while count(db) < 30 and indexer.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert indexer.poll() is None, "the indexer finished before it could be killed: make the folder bigger"
        os.kill(indexer.pid, signal.SIGKILL)
    finally:
        indexer.wait(30)
    partial = count(db)
    assert 0 < partial < total, f"killed mid-run, the store should be partly filled: {partial} of {total}"

    result = CliRunner().invoke(main, ["index", "--db", str(db), "-j", "2", str(root)])
    assert result.exit_code == 0, result.output
    checked = CliRunner().invoke(main, ["check", "--db", str(db)])
    assert checked.exit_code == 0 and "all invariants hold" in checked.output, checked.output
    with open_store(db) as store:
        assert_matches(store, root)  # every file once, nothing extra, invariants
        _, rows = store.execute("SELECT count(*) FROM items WHERE path LIKE '%box.mbox' AND part != ''")
        assert rows == [(MESSAGES,)], f"the mailbox's messages, once each: {rows}"
        _, rows = store.execute("SELECT count(*) FROM items")
        assert rows == [(total,)], rows
        _, rows = store.execute("SELECT count(*) FROM items WHERE part = '' AND mtime IS NULL")
        assert rows == [(0,)], "no file is left half-written"
    third = CliRunner().invoke(main, ["index", "--db", str(db), str(root)])
    assert "new 0, updated 0, unchanged" in third.output, third.output


def test_ctrl_c_commits_the_batch_in_flight_and_says_so(tmp_path: Path) -> None:
    root = tmp_path / "archive"
    for i in range(FILES):
        write_text(root / f"d{i % 10}" / f"f{i:04d}.txt", seed=i, words=20)
    db = tmp_path / "store.db"
    indexer = subprocess.Popen([sys.executable, "-m", "lifededup", "index", "--db", str(db), "--batch", "5",
                                "-j", "2", str(root)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while count(str(db)) < 30 and indexer.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert indexer.poll() is None, "the indexer finished before Ctrl-C: make the folder bigger"
    indexer.send_signal(signal.SIGINT)
    out, err = indexer.communicate(timeout=60)
    assert indexer.returncode == 0, err
    assert "finishing the current batch" in err and "interrupted: the store is consistent" in out, (out, err)
    with open_store(db) as store:
        _, [(stored,)] = store.execute("SELECT count(*) FROM items")
    assert 0 < stored < FILES, stored  # type: ignore[operator]
    again = CliRunner().invoke(main, ["index", "--db", str(db), str(root)])
    assert again.exit_code == 0 and f"new {FILES - stored}, updated 0" in again.output, again.output
    with open_store(db) as store:
        assert_matches(store, root)
