"""The watcher as a background daemon: a pid file, a log file and a status
file in the user's state folder ($XDG_STATE_HOME/lifededup on Linux), and a
systemd user unit shipped with the package.

The daemon is ``lifededup watch`` started detached (a new session, output to
the log file); the watch command itself writes the pid and status files, so
a watcher started by systemd or in a terminal is seen by ``daemon status``
and refused a twin by ``daemon start`` just the same.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import platformdirs

from lifededup.watch.watcher import WatchStatus

UNIT_NAME = "lifededup.service"


class DaemonError(Exception):
    """The daemon could not be started or stopped; the message says why."""


@dataclass(frozen=True)
class DaemonPaths:
    folder: Path

    @classmethod
    def default(cls) -> DaemonPaths:
        return cls(platformdirs.user_state_path("lifededup"))

    @property
    def pid(self) -> Path:
        return self.folder / "watch.pid"

    @property
    def log(self) -> Path:
        return self.folder / "watch.log"

    @property
    def status(self) -> Path:
        return self.folder / "watch-status.json"


@dataclass(frozen=True)
class DaemonStatus:
    running: bool
    pid: int | None
    # the watcher's last WatchStatus as written, with "store" and "updated_at"
    report: dict[str, Any] | None


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def alive(pid: int) -> bool:
    """A live process (a zombie awaiting its parent's wait() is not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def running_pid(paths: DaemonPaths) -> int | None:
    try:
        pid = int(paths.pid.read_text().strip())
    except (OSError, ValueError):
        return None
    return pid if alive(pid) else None


def claim(paths: DaemonPaths) -> None:
    """Called by the watcher itself: record this process, or refuse if another watcher runs."""
    other = running_pid(paths)
    if other is not None and other != os.getpid():
        raise DaemonError(f"a watcher already runs (pid {other}); stop it first: lifededup daemon stop")
    _write_atomically(paths.pid, f"{os.getpid()}\n")


def release(paths: DaemonPaths) -> None:
    if running_pid(paths) in (os.getpid(), None):
        paths.pid.unlink(missing_ok=True)


def write_status(paths: DaemonPaths, status: WatchStatus, store: str) -> None:
    report = {**asdict(status), "store": store, "pid": os.getpid(), "updated_at": time.time()}
    _write_atomically(paths.status, json.dumps(report, indent=1))


def read_status(paths: DaemonPaths) -> DaemonStatus:
    pid = running_pid(paths)
    try:
        report = json.loads(paths.status.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        report = None
    if pid is None and isinstance(report, dict) and report.get("state") != "stopped":
        # it did not stop itself (kill -9, a crash, a power cut): say so, not what it was doing
        report["state"] = f"died while {report.get('state')} (killed or crashed; see the log)"
    return DaemonStatus(running=pid is not None, pid=pid, report=report)


def start(argv: list[str], paths: DaemonPaths, wait_s: float = 30.0) -> int:
    """Start ``argv`` (a ``lifededup watch`` command line) detached; return its
    pid once it has claimed the pid file."""
    other = running_pid(paths)
    if other is not None:
        raise DaemonError(f"the daemon already runs (pid {other})")
    paths.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    with paths.log.open("ab") as log:
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True, close_fds=True)
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if running_pid(paths) == process.pid:
            return process.pid
        if process.poll() is not None:
            raise DaemonError(f"the daemon exited at once (code {process.returncode}); "
                              f"its log {paths.log} says:\n{_tail(paths.log)}")
        time.sleep(0.05)
    raise DaemonError(f"the daemon (pid {process.pid}) did not start within {wait_s:g} s; see {paths.log}")


def stop(paths: DaemonPaths, wait_s: float = 60.0) -> int | None:
    """SIGTERM the daemon and wait for it to finish its batch and exit; return
    its pid, or None if none ran."""
    pid = running_pid(paths)
    if pid is None:
        paths.pid.unlink(missing_ok=True)
        return None
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if not alive(pid):
            paths.pid.unlink(missing_ok=True)
            return pid
        time.sleep(0.05)
    raise DaemonError(f"the daemon (pid {pid}) is still finishing after {wait_s:g} s; "
                      f"see {paths.log}, or kill it (the store stays consistent): kill {pid}")


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def systemd_unit(executable: str) -> str:
    """The shipped user unit, with ``ExecStart`` pointing at ``executable``."""
    text = resources.files("lifededup.watch").joinpath(UNIT_NAME).read_text(encoding="utf-8")
    return text.replace("%h/.local/bin/lifededup", executable)
