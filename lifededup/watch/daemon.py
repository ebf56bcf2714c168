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
import threading
import time
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import platformdirs

from lifededup.watch.status import WatchStatus

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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def writes_no_log(self) -> bool:
        """A running watcher whose output is its terminal's or systemd's
        journal: the log file, if any, is an earlier daemon's."""
        return self.running and self.report is not None and self.report.get("log", "") is None


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")  # a thread of its own each
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
    return pid if alive(pid) and _is_watcher(pid) else None


def _is_watcher(pid: int) -> bool:
    """Whether ``pid`` is a lifededup watcher, not another process that got
    the number of one killed before it could remove its pid file (kill -9, a
    power cut: the file outlives a reboot) -- which ``daemon stop`` would
    otherwise kill, and ``status`` call the daemon.  Read from
    /proc/PID/cmdline; where there is none (not Linux), any live pid is."""
    if pid == os.getpid():
        return True
    try:
        words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except FileNotFoundError:
        return not Path("/proc/self").exists()
    except OSError:
        return True  # another user's process we may not read: as before
    # `lifededup watch ...`, `python -m lifededup watch ...`, or the script run by its interpreter
    return any(w.rsplit(b"/", 1)[-1] == b"lifededup" for w in words) and b"watch" in words


def claim(paths: DaemonPaths) -> None:
    """Called by the watcher itself: record this process, or refuse if another watcher runs."""
    other = running_pid(paths)
    if other is not None and other != os.getpid():
        raise DaemonError(f"a watcher already runs (pid {other}); stop it first: lifededup daemon stop")
    _write_atomically(paths.pid, f"{os.getpid()}\n")


def release(paths: DaemonPaths) -> None:
    if running_pid(paths) in (os.getpid(), None):
        paths.pid.unlink(missing_ok=True)


def writes_log(paths: DaemonPaths) -> bool:
    """Whether this process's output goes to the daemon's log file: a
    watcher `daemon start` started does, one in a terminal or under systemd
    (its journal) does not."""
    try:
        output, log = os.fstat(2), paths.log.stat()
    except OSError:
        return False
    return (output.st_dev, output.st_ino) == (log.st_dev, log.st_ino)


def write_status(paths: DaemonPaths, status: WatchStatus, store: str, machine: str | None = None, *,
                 log: bool = True, follows: bool = True) -> None:
    """``log``: whether this watcher writes the daemon's log file
    (``writes_log``); ``follows``: whether it follows the store's folders
    (without PATHS), or watches the folders it was given."""
    report = {**asdict(status), "store": store, "machine": machine, "pid": os.getpid(), "updated_at": time.time(),
              "log": str(paths.log) if log else None, "follows": follows}
    _write_atomically(paths.status, json.dumps(report, indent=1))


def read_status(paths: DaemonPaths) -> DaemonStatus:
    pid = running_pid(paths)
    try:
        report = json.loads(paths.status.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        report = None
    if pid is None and isinstance(report, dict) and not str(report.get("state", "")).startswith("stopped"):
        # it did not stop itself (kill -9, a crash, a power cut): say so, not what it was doing
        report["state"] = f"died while {report.get('state')} (killed or crashed; see the log)"
    return DaemonStatus(running=pid is not None, pid=pid, report=report)


def start(argv: list[str], paths: DaemonPaths, wait_s: float = 30.0, env: dict[str, str] | None = None) -> int:
    """Start ``argv`` (a ``lifededup watch`` command line) detached, with
    ``env`` added to this environment (what should not show in its command
    line: a database URL's password); return its pid once it has claimed the
    pid file."""
    other = running_pid(paths)
    if other is not None:
        raise DaemonError(f"the daemon already runs (pid {other})")
    paths.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    with paths.log.open("ab") as log:
        # from /: `python -m` puts its working folder first on the module path, so an
        # `email.py` or `zipfile.py` where `daemon start` was typed broke the daemon
        # (and a folder kept as its working one keeps its disk busy)
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd="/",
                                   start_new_session=True, close_fds=True, env={**os.environ, **(env or {})})
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
    """SIGTERM the daemon and wait for it to finish its batch and exit -- it
    and, when it leads its own process group (``start`` makes it so), its
    extraction workers; return its pid, or None if none ran."""
    pid = running_pid(paths)
    if pid is None:
        paths.pid.unlink(missing_ok=True)
        return None
    try:
        group = os.getpgid(pid) == pid
    except OSError:
        group = False
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if not alive(pid) and not (group and group_alive(pid)):
            paths.pid.unlink(missing_ok=True)
            return pid
        time.sleep(0.05)
    raise DaemonError(f"the daemon (pid {pid}) is still finishing after {wait_s:g} s; "
                      f"see {paths.log}, or kill it (the store stays consistent): kill {pid}")


def group_alive(pgid: int) -> bool:
    """A live process (not a zombie) in this process group (read from /proc)."""
    try:
        entries = [e for e in os.listdir("/proc") if e.isdigit()]
    except OSError:
        return False
    for entry in entries:
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[-1].split()
        except OSError:
            continue  # gone meanwhile
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


@dataclass(frozen=True)
class Unit:
    """What the systemd unit runs: ``command`` (the lifededup program, as
    argv), the store (an SQLite file, or a PostgreSQL URL without a
    password: libpq reads it from ~/.pgpass or $PGPASSFILE), its watched
    folders (shown in the unit) and the environment the watcher needs (PATH
    for the format tools, the XDG folders so that ``daemon status`` finds its
    status file, the machine's name if pinned)."""

    command: list[str]
    store: Path | str
    folders: list[str]
    environment: dict[str, str]
    ocr: bool = False  # the watcher reads scans with Tesseract (watch --ocr)

    def check(self) -> None:
        """Refuse a unit that cannot work, saying why."""
        program = Path(self.command[0])
        if not program.is_absolute() or not os.access(program, os.X_OK):
            raise DaemonError(f"{program} is not an executable absolute path: the unit could not start it")
        if isinstance(self.store, str):
            _check_server(self.store)
        elif not self.store.is_absolute() or not self.store.is_file():
            raise DaemonError(f"the store {self.store} is not a file: index into it first "
                              "(lifededup index PATH --db STORE)")
        if not self.folders:
            raise DaemonError(f"the store {self.store} has no watched folders, so the service would exit at "
                              "once and be restarted every 10 s; add some first: "
                              f"lifededup folders add PATH --db {self.store}")
        env = {"HOME": os.environ.get("HOME", "/"), **self.environment}
        try:
            probe = subprocess.run([*self.command, "--version"], env=env, cwd=env["HOME"], capture_output=True,
                                   text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise DaemonError(f"{' '.join(self.command)} --version did not run: {exc}") from exc
        if probe.returncode != 0:
            raise DaemonError(f"{' '.join(self.command)} does not run outside this shell (in the unit's "
                              f"environment it said: {(probe.stderr or probe.stdout).strip()[-300:]})")


def _check_server(url: str) -> None:
    """A server's URL goes into the unit file as it is: refuse one holding a password."""
    from urllib.parse import urlsplit

    if urlsplit(url).password is not None or "password=" in url:
        raise DaemonError(
            "the store's URL holds a password, which the unit file would keep in clear: give the URL without it "
            "(postgresql://USER@HOST/DATABASE) and put the password in ~/.pgpass, one line "
            "HOST:PORT:DATABASE:USER:PASSWORD, mode 600 (chmod 600 ~/.pgpass), or in the file $PGPASSFILE names; "
            "PostgreSQL's driver reads it from there")


def _quote(word: str, *, command: bool = True) -> str:
    """A word of a unit file's command line (where ``$`` expands) or of an
    ``Environment=`` (where it does not), quoted for systemd; ``%`` is a
    specifier in both."""
    escaped = word.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%")
    escaped = escaped.replace("$", "$$") if command else escaped
    return f'"{escaped}"' if any(c in escaped for c in ' "\'\\\t') or escaped != word else escaped


def systemd_unit(unit: Unit) -> str:
    """The shipped user unit for ``unit``, after :meth:`Unit.check`."""
    unit.check()
    text = resources.files("lifededup.watch").joinpath(UNIT_NAME).read_text(encoding="utf-8")
    exec_start = " ".join(_quote(w) for w in [*unit.command, "watch", "--db", str(unit.store),
                                                     *(["--ocr"] if unit.ocr else [])])
    environment = "\n".join(f"Environment={_quote(f'{k}={v}', command=False)}"
                            for k, v in sorted(unit.environment.items()))
    folders = "\n".join(f"#   {f}" for f in unit.folders)
    return (text.replace("@EXEC_START@", exec_start).replace("@ENVIRONMENT@", environment)
            .replace("@FOLDERS@", f"# Watched when this unit was written:\n{folders}"))


def user_unit_path() -> Path:
    """Where systemd looks for the user's own units."""
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "systemd" / "user" / UNIT_NAME


SYSTEMCTL_ENABLE = ("systemctl --user daemon-reload && systemctl --user enable --now lifededup")


def install(unit: Unit, path: Path, paths: DaemonPaths, *, enable: bool = True) -> None:
    """Write the unit to ``path`` and, with ``enable``, have the user's
    systemd start it now and at every login.  Refused while another watcher
    runs (the service would find it and exit); systemctl's failures are
    raised with the commands to run by hand."""
    text = systemd_unit(unit)
    other = running_pid(paths)
    if enable and other is not None:
        raise DaemonError(f"a watcher already runs (pid {other}); stop it first (lifededup daemon stop), "
                          "or install with --no-enable")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if enable:
        _systemctl(["daemon-reload"], f"the unit is written to {path}; enable it by hand: {SYSTEMCTL_ENABLE}")
        _systemctl(["enable", "--now", UNIT_NAME],
                   f"the unit is written to {path}; enable it by hand: {SYSTEMCTL_ENABLE}")


def uninstall(path: Path) -> bool:
    """Stop and disable the user unit and remove its file; False if it was
    not installed.  The file goes even when systemctl fails (no user
    session): the error then says what to check."""
    if not path.exists():
        return False
    problems = []
    for args in (["disable", "--now", UNIT_NAME], None, ["daemon-reload"]):
        if args is None:
            path.unlink()
            continue
        try:
            _systemctl(args, "")
        except DaemonError as exc:
            problems.append(str(exc).rstrip("; "))
    if problems:
        raise DaemonError(f"removed {path}, but {problems[0]}; if the service still runs: "
                          "systemctl --user disable --now lifededup")
    return True


def _systemctl(args: list[str], otherwise: str) -> None:
    try:
        done = subprocess.run(["systemctl", "--user", *args], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise DaemonError(f"systemctl --user {' '.join(args)} could not run ({exc}); {otherwise}") from exc
    if done.returncode != 0:
        raise DaemonError(f"systemctl --user {' '.join(args)} failed: {(done.stderr or done.stdout).strip()}; "
                          f"{otherwise}")
