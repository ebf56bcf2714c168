"""A real PostgreSQL server for the tests and benchmarks, started from
Debian's ``postgresql`` package (scripts/install-system-deps.sh installs it):
``initdb`` and ``pg_ctl`` in a temporary folder, listening on a Unix socket in
that folder only (no TCP port to collide with), as an unprivileged user --
PostgreSQL refuses to run as root, so under root (CI) the server runs as the
package's ``postgres`` user.

``Server.start()`` -> a running server; ``server.new_database()`` -> the URL of
an empty database of its own (one per test); ``server.stop()``.  The tests'
server trades durability for speed (``TEST_SETTINGS``: no fsync); a benchmark
passes ``settings={}`` for PostgreSQL's own defaults, and ``root`` to keep the
data folder and start it again later (``stop(keep=True)``).
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

# what the test suite runs with: nothing it writes must survive a crash of the machine; and
# its write-ahead log kept small (the default lets it grow to a GB between checkpoints, on a
# disk CI shares)
TEST_SETTINGS = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off",
                 "shared_buffers": "128MB", "min_wal_size": "32MB", "max_wal_size": "96MB"}
_BINARIES = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), reverse=True)


def binaries() -> Path | None:
    """The folder of the newest installed server's programs, or None."""
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    return _BINARIES[0].parent if _BINARIES else None


def missing() -> str | None:
    """Why no server can be started here (None: one can)."""
    if binaries() is None:
        return "PostgreSQL's server programs are not installed (scripts/install-system-deps.sh installs them)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no 'postgres' user to run the server as"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "the psycopg driver is missing: pip install -e '.[test]'"
    return None


@dataclass
class Server:
    root: Path
    socket_dir: Path
    port: int = 5432
    user: str = "postgres"
    _names: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    @classmethod
    def start(cls, *, root: Path | None = None, settings: dict[str, str] | None = None) -> Server:
        """Start a server in ``root`` (a new temporary folder by default),
        initialized there unless it already holds a data folder, with
        ``settings`` (``-c name=value``; default ``TEST_SETTINGS``)."""
        reason = missing()
        if reason is not None:
            raise RuntimeError(reason)
        bin_dir = binaries()
        assert bin_dir is not None
        root = root or Path(tempfile.mkdtemp(prefix="lifededup-pg-"))
        root.mkdir(parents=True, exist_ok=True)
        os.chmod(root, 0o755)
        data, sockets = root / "data", root / "run"
        sockets.mkdir(exist_ok=True)
        as_user: list[str] = []
        if os.geteuid() == 0:
            entry = pwd.getpwnam("postgres")
            os.chown(root, entry.pw_uid, entry.pw_gid)
            os.chown(sockets, entry.pw_uid, entry.pw_gid)
            as_user = ["setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--init-groups"]
        env = {**os.environ, "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}
        if not data.exists():
            initdb = [*as_user, str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust",
                      "-E", "UTF8", "--no-sync"]
            # Its databases compare text as most servers' do, by a language (ICU's en-US; initdb under
            # en_US.UTF-8 is the usual default), not by bytes: under C.UTF-8 the suite never saw a scan
            # of /a delete the items of /A and /á (revision 0026).  A server built without ICU: bytes.
            made = subprocess.run([*initdb, "--locale-provider=icu", "--icu-locale=en-US"], capture_output=True,
                                  env=env)
            if made.returncode != 0:
                shutil.rmtree(data, ignore_errors=True)
                subprocess.run(initdb, check=True, capture_output=True, env=env)
        chosen = TEST_SETTINGS if settings is None else settings
        options = (f"-c listen_addresses='' -c unix_socket_directories={sockets} -c max_connections=60 "
                   + " ".join(f"-c {name}={value}" for name, value in chosen.items()))
        subprocess.run([*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(root / "log"), "-w",
                        "-t", "60", "-o", options, "start"],
                       check=True, capture_output=True, env=env, cwd=root)
        return cls(root=root, socket_dir=sockets)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{self.user}@/{database}?host={self.socket_dir}&port={self.port}"

    def admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(sql)

    def new_database(self, stem: str = "t") -> str:
        name = f"{stem}_{os.getpid()}_{next(self._names)}"
        self.admin(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def drop_database(self, url: str) -> None:
        name = url.split("?")[0].rsplit("/", 1)[1]
        self.admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self, *, keep: bool = False) -> None:
        """Stop the server; remove its folder unless ``keep`` (then a clean
        shutdown, so ``start(root=...)`` finds it whole)."""
        bin_dir = binaries()
        assert bin_dir is not None
        as_user = (["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups"]
                   if os.geteuid() == 0 else [])
        subprocess.run([*as_user, str(bin_dir / "pg_ctl"), "-D", str(self.root / "data"), "-m",
                        "fast" if keep else "immediate", "-w", "stop"], capture_output=True, cwd=self.root)
        if not keep:
            shutil.rmtree(self.root, ignore_errors=True)


if __name__ == "__main__":  # a server for a developer's session: python tests/pg_server.py
    server = Server.start()
    print(server.url())
