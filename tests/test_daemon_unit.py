"""The systemd user unit (`daemon unit`, `daemon install`, `daemon uninstall`),
`daemon stop` waiting for the whole process, and `daemon status --json`:
real processes, a real store, the state and config folders under tmp_path."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from index_samples import files_on_disk, stored_files, write_text
from test_daemon import lifededup

from lifededup.store import open_store
from lifededup.watch.daemon import alive, group_alive


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    root = tmp_path / "archive"
    write_text(root / "a.txt", seed=1)
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "LIFEDEDUP_DB": str(tmp_path / "chosen.db")}
    added = lifededup(env, "folders", "add", str(root))
    assert added.returncode == 0, added.stderr
    return env


def unit_lines(text: str, key: str) -> list[str]:
    return [line[len(key) + 1:] for line in text.splitlines() if line.startswith(key + "=")]


def test_the_unit_names_the_chosen_store_its_folders_and_environment(tmp_path: Path, env: dict[str, str]) -> None:
    result = lifededup(env, "daemon", "unit")
    assert result.returncode == 0, result.stderr
    [exec_start] = unit_lines(result.stdout, "ExecStart")
    words = shlex.split(exec_start)
    assert words[-3:] == ["watch", "--db", str((tmp_path / "chosen.db").resolve())], \
        f"the unit must watch the store LIFEDEDUP_DB chose: {exec_start}"
    assert words[:3] == [sys.executable, "-m", "lifededup"], f"and run this lifededup: {exec_start}"
    # not from the home folder, where `python -m` would import an email.py or zipfile.py kept there
    assert unit_lines(result.stdout, "WorkingDirectory") == ["/"], result.stdout
    environment = dict(shlex.split(e)[0].split("=", 1) for e in unit_lines(result.stdout, "Environment"))
    assert environment.get("XDG_STATE_HOME") == env["XDG_STATE_HOME"], environment
    assert environment.get("PATH") == env["PATH"], "the format tools are found on the same PATH"
    assert str((tmp_path / "archive").resolve()) in result.stdout, "the unit says which folders it watches"
    assert unit_lines(result.stdout, "Documentation") == [], "no link that leads nowhere"
    with_option = lifededup({k: v for k, v in env.items() if k != "LIFEDEDUP_DB"}, "daemon", "unit",
                            "--db", str(tmp_path / "chosen.db"))
    assert with_option.stdout == result.stdout, "--db and LIFEDEDUP_DB give the same unit"


def test_the_unit_verifies_with_systemd(tmp_path: Path, env: dict[str, str]) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    unit = tmp_path / "lifededup.service"
    unit.write_text(lifededup(env, "daemon", "unit").stdout)
    verified = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True, timeout=60)
    complaints = [line for line in verified.stderr.splitlines() if "lifededup.service" in line]
    assert complaints == [], f"systemd-analyze verify complains:\n{verified.stderr}"


def test_the_units_command_runs_the_watcher_on_the_chosen_store(tmp_path: Path, env: dict[str, str]) -> None:
    text = lifededup(env, "daemon", "unit").stdout
    [exec_start] = unit_lines(text, "ExecStart")
    environment = dict(shlex.split(e)[0].split("=", 1) for e in unit_lines(text, "Environment"))
    # as systemd starts it: the unit's environment only, from the home folder
    process = subprocess.Popen(shlex.split(exec_start), env={"HOME": str(tmp_path), **environment},
                               cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        root = tmp_path / "archive"
        with open_store(tmp_path / "chosen.db", readonly=True) as store:
            deadline = time.monotonic() + 60
            while set(stored_files(store)) != files_on_disk(root) and time.monotonic() < deadline:
                assert process.poll() is None, f"the service exited: {process.stdout.read()}"  # type: ignore[union-attr]
                time.sleep(0.1)
            assert set(stored_files(store)) == files_on_disk(root), "the unit's watcher indexes the chosen store"
    finally:
        process.send_signal(signal.SIGTERM)
        output = process.communicate(timeout=60)[0]
    assert process.returncode == 0, output
    assert "Context impl" not in output and "Running upgrade" not in output, f"Alembic's log leaked:\n{output}"


def test_a_unit_that_cannot_work_is_refused(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "LIFEDEDUP_DB": str(tmp_path / "empty.db")}
    result = lifededup(env, "daemon", "unit")
    assert result.returncode == 1 and result.stdout == "", result.stdout
    assert "no watched folders" in result.stderr and "lifededup folders add PATH --db" in result.stderr, \
        result.stderr


def test_install_writes_the_unit_and_says_what_systemctl_could_not_do(tmp_path: Path, env: dict[str, str]) -> None:
    target = tmp_path / "config" / "systemd" / "user" / "lifededup.service"
    written = lifededup(env, "daemon", "install", "--no-enable")
    assert written.returncode == 0, written.stderr
    assert target.is_file() and f"installed {target}" in written.stdout, written.stdout
    as_json = lifededup(env, "daemon", "install", "--no-enable", "--json")
    assert json.loads(as_json.stdout) == {"unit": str(target), "enabled": False}, as_json.stdout + as_json.stderr
    assert target.read_text() == lifededup(env, "daemon", "unit").stdout
    enabled = lifededup(env, "daemon", "install")
    user_systemd = subprocess.run(["systemctl", "--user", "is-system-running"], capture_output=True, text=True,
                                  timeout=60) if shutil.which("systemctl") else None
    if user_systemd is not None and user_systemd.returncode == 0:
        assert enabled.returncode == 0, enabled.stderr  # a real user session: it was enabled
        removed = lifededup(env, "daemon", "uninstall")
        assert removed.returncode == 0, removed.stderr
    else:  # no user systemd here (a container, CI): say so, and what to run by hand
        assert enabled.returncode == 1, enabled.stdout
        assert "systemctl --user" in enabled.stderr and "enable --now lifededup" in enabled.stderr, enabled.stderr
        removed = lifededup(env, "daemon", "uninstall")
        assert f"removed {target}" in removed.stdout + removed.stderr, removed.stdout + removed.stderr
    assert not target.exists(), "uninstall removes the unit file"
    again = lifededup(env, "daemon", "uninstall", "--json")
    assert again.returncode == 0 and json.loads(again.stdout) == {"unit": str(target), "removed": False}, again.stdout


def test_stop_returns_once_the_daemon_and_its_workers_are_gone(tmp_path: Path, env: dict[str, str]) -> None:
    started = lifededup(env, "daemon", "start", "--delay", "0.3", "--json")
    assert started.returncode == 0, started.stdout + started.stderr
    pid = int((tmp_path / "state" / "lifededup" / "watch.pid").read_text())
    assert json.loads(started.stdout) == {"pid": pid, "log": str(tmp_path / "state" / "lifededup" / "watch.log")}
    try:
        root = tmp_path / "archive"
        for i in range(5):
            write_text(root / f"n{i}.txt", seed=10 + i)  # so that extraction workers start
        with open_store(tmp_path / "chosen.db", readonly=True) as store:
            deadline = time.monotonic() + 60
            while set(stored_files(store)) != files_on_disk(root) and time.monotonic() < deadline:
                time.sleep(0.1)
        status = lifededup(env, "daemon", "status", "--json")
        assert status.returncode == 0, status.stderr
        report = json.loads(status.stdout)
        assert report["running"] is True and report["pid"] == pid, report
        assert report["report"]["watching"] == [str(root.resolve())], report
        assert report["report"]["store"].endswith("chosen.db"), report
    finally:
        stopped = lifededup(env, "daemon", "stop", "--json")
    assert stopped.returncode == 0 and json.loads(stopped.stdout) == {"stopped": pid}, stopped.stdout
    assert not alive(pid) and not group_alive(pid), "stop returned while the daemon or a worker still ran"
    gone = lifededup(env, "daemon", "status", "--json")
    assert gone.returncode == 3 and json.loads(gone.stdout)["running"] is False, gone.stdout


def test_a_unit_with_ocr_runs_a_watcher_that_reads_scans(tmp_path: Path, env: dict[str, str]) -> None:
    """Issue 12's `watch --ocr` through issue 14's unit: `daemon unit --ocr`
    (and `daemon install --ocr`) runs the watcher with --ocr, so a service
    reads scans as `daemon start --ocr` does."""
    if shutil.which("tesseract") is None:
        pytest.skip("no tesseract here: scripts/install-system-deps.sh installs tesseract-ocr")
    scan = tmp_path / "archive" / "scanned letter.pdf"
    shutil.copyfile(Path(__file__).parent.parent / "sample_corpus" / "Bad files" / "scanned letter.pdf", scan)
    result = lifededup(env, "daemon", "unit", "--ocr")
    assert result.returncode == 0, result.stderr
    [exec_start] = unit_lines(result.stdout, "ExecStart")
    assert shlex.split(exec_start)[3:] == ["watch", "--db", str((tmp_path / "chosen.db").resolve()), "--ocr"], \
        exec_start
    environment = dict(shlex.split(e)[0].split("=", 1) for e in unit_lines(result.stdout, "Environment"))
    process = subprocess.Popen(shlex.split(exec_start), env={"HOME": str(tmp_path), **environment},
                               cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        rows: list[object] = []
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not rows:
            assert process.poll() is None, f"the service exited: {process.stdout.read()}"  # type: ignore[union-attr]
            time.sleep(0.2)
            if (tmp_path / "chosen.db").exists():
                with open_store(tmp_path / "chosen.db", readonly=True) as store:
                    _, rows = store.execute("SELECT status, text FROM items WHERE path = :p", {"p": str(scan)})
        assert rows, "the unit's watcher never stored the scan"
        [(status, text)] = rows  # type: ignore[misc]
        assert status == "ok" and "Scanned letter" in str(text), f"the scan was not OCR'd: {status} {text!r}"
    finally:
        process.send_signal(signal.SIGTERM)
        output = process.communicate(timeout=60)[0]
    assert process.returncode == 0, output
