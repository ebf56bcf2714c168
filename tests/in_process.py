"""A command run in the test's own process, ended as a process would have
ended it: for tests about what a command does to a store and says, not
about the process (a process each cost most of a module's time: python's
start and lifededup's imports, 34 times in one module).  A crash is raised,
where a process would have printed its traceback and exited 1."""

from __future__ import annotations

import os
import subprocess

from click.testing import CliRunner

from lifededup.cli import main


def lifededup_here(*args: str, env: dict[str, str] | None = None,
                   whole: bool = False) -> subprocess.CompletedProcess[str]:
    """``lifededup ARGS`` with ``env`` over this process's environment (only for the command's run); with
    ``whole``, ``env`` is all of it, as for a process given it: what it leaves out is unset."""
    unset: dict[str, str | None] = {name: None for name in os.environ if whole and env is not None and name not in env}
    done = CliRunner().invoke(main, list(args), env=None if env is None else {**unset, **env})
    if done.exception is not None and not isinstance(done.exception, SystemExit):
        raise done.exception
    return subprocess.CompletedProcess(list(args), done.exit_code, done.stdout, done.stderr)
