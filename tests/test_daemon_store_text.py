"""A daemon says which store it watches in its status file, as the store's
text (``Location``); `folders add` compares it with its own store's to say
whether the daemon follows the change.  That text now shows a PostgreSQL
socket folder with its slashes (``host=/run/postgresql``): a daemon
started before (``host=%2Frun%2Fpostgresql``) watches the same store, and
`folders add` must say so, not "watches another store", until it restarts.
The status file is written as such a daemon writes it, for this very
process (a daemon's pid file names a running watcher)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from lifededup.cli import main
from lifededup.store import open_store
from lifededup.store.opening import _password_hidden
from lifededup.watch import daemon as daemons
from lifededup.watch.status import WatchStatus


def test_a_daemon_that_wrote_its_store_with_escaped_slashes_follows_the_change(
        pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    paths = daemons.DaemonPaths.default()
    paths.folder.mkdir(parents=True)
    with open_store(pg_url) as store:
        shown, machine = str(store.location), store.machine
    before = _password_hidden(pg_url)  # the store's text before its slashes were shown
    assert "%2F" in before and "%2F" not in shown, (before, shown)
    daemons.claim(paths)
    try:
        daemons.write_status(paths, WatchStatus(watching=[]), before, machine)
        folder = tmp_path / "letters"
        folder.mkdir()
        done = CliRunner().invoke(main, ["folders", "add", "--db", pg_url, str(folder)])
    finally:
        daemons.release(paths)
    assert done.exit_code == 0, done.output
    assert "follows this change" in done.output and "another store" not in done.output, done.output
