"""The watcher's walls (issue 13): a hostile folder built at test time, run
through ``lifededup index`` and ``lifededup watch`` (real processes, real
watchdog events): no crash, no hang, every case recorded with its status,
nothing from outside the folders in the store.  Then a damaged store, an
older store under ``sql``, numbers past their bounds, a daemon killed -9."""

from __future__ import annotations

import hashlib
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hostile_corpus
from corpus_store import CORPUS
from hostile_corpus import SECRET, XXE_AFTER, build, restore, swapping, without_read_override
from in_process import lifededup_here
from lifededup.cli.index import summary_lines
from lifededup.index import IndexConfig, Quiet, run
from lifededup.model import fs_path, stored_path
from lifededup.store import open_store

PRIVILEGES = without_read_override()
TEXT_MB = 1  # the text limit the runs below use, so the one-line HTML is cut


def lifededup(*args: str, env: dict[str, str], prefix: list[str] | None = None,
              timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*(prefix or []), sys.executable, "-m", "lifededup", *args], env=env, text=True,
                          capture_output=True, timeout=timeout, errors="replace")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "LIFEDEDUP_DB": str(tmp_path / "s.db")}


@pytest.fixture
def folders(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    folder, outside = tmp_path / "d", tmp_path / "outside"
    yield folder, outside
    restore(folder)


def stored(db: Path) -> dict[str, tuple[str, str | None, str | None, int | None]]:
    """path -> (status, error, text, text_cut) of every file item, read with plain sqlite3, read-only."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT path, status, error, text, text_cut FROM items WHERE part = ''").fetchall()
    finally:
        conn.close()
    return {r[0]: (r[1], r[2], r[3], r[4]) for r in rows}


def check_recorded(db: Path, folder: Path, expected: dict[str, str]) -> None:
    items = stored(db)
    root = stored_path(str(folder))
    outside = [p for p in items if not p.startswith(root + "/")]
    assert not outside, f"items from outside the folder: {outside}"
    assert not [p for p, row in items.items() if SECRET in (row[2] or "") or SECRET in (row[1] or "")], \
        "the secret outside the walls reached the store"
    got = {p[len(root) + 1:]: row[0] for p, row in items.items()}
    wrong = {k: (got.get(k), want) for k, want in expected.items() if got.get(k) != want}
    assert not wrong, f"cases recorded wrongly (got, want): {wrong}; all: {got}"
    assert "inlink" not in got, "a link inside the folder is followed to its real path, never stored as itself"
    assert not [p for p in got if p.startswith(("outdir/", "sub/up/"))], f"read through a link: {sorted(got)}"
    _, _, text, cut = items[root + "/big.html"]
    assert cut is not None and cut > TEXT_MB * 2**20 and text is not None and len(text) <= TEXT_MB * 2**20, \
        f"the one-line HTML's text must be cut at the limit and the cut recorded: cut={cut}"
    assert XXE_AFTER in (items[root + "/xxe.docx"][2] or ""), "the DOCX text after the external entity was lost"
    drawing = items[root + "/xxe.svg"][2] or ""
    assert XXE_AFTER in drawing and "lol" not in drawing, f"the SVG's entities must stay unread: {drawing[:200]!r}"


def test_index_on_the_hostile_folder(folders: tuple[Path, Path], env: dict[str, str], tmp_path: Path) -> None:
    folder, outside = folders
    # the 200 MB one-line page (under the 256 MiB size limit, so it is read); the
    # watcher's test below uses a 20 MB one, and benchmarks/bench_memory.py measures the memory
    expected = build(folder, outside, html_mb=200, unreadable=PRIVILEGES is not None)
    args = ("index", str(folder), "-j", "2", "--max-text-mb", str(TEXT_MB))
    first = lifededup(*args, env=env, prefix=PRIVILEGES)
    assert first.returncode == 0 and "Traceback" not in first.stderr, first.stderr
    check_recorded(tmp_path / "s.db", folder, expected)
    failed = sum(1 for s in expected.values() if s != "ok")
    assert f"failed {failed} " in first.stdout, f"every skipped path counts as failed: {first.stdout}"
    again = lifededup(*args, env=env, prefix=PRIVILEGES)
    assert again.returncode == 0, again.stderr
    assert "new 0, updated 0" in again.stdout and "removed 0, failed 0 " in again.stdout, \
        f"a second run must find nothing new and record nothing again: {again.stdout}"
    check_recorded(tmp_path / "s.db", folder, expected)
    if PRIVILEGES is None:
        pytest.skip("running as root without setpriv: unreadable files cannot be made here (the rest passed)")


def wait_for(condition: Callable[[], object], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    last: object = None
    while time.monotonic() < deadline:
        try:
            last = condition()
            if last is True:
                return
        except (sqlite3.Error, KeyError, AssertionError) as exc:
            last = exc
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}: {last}")


def test_watch_on_the_hostile_folder_with_real_events(folders: tuple[Path, Path], env: dict[str, str],
                                                      tmp_path: Path) -> None:
    folder, outside = folders
    folder.mkdir()
    db = tmp_path / "s.db"
    log = (tmp_path / "watch.log").open("w+")
    command = [*(PRIVILEGES or []), sys.executable, "-m", "lifededup", "watch", str(folder), "--delay", "0.3",
               "-j", "2", "--max-text-mb", str(TEXT_MB)]
    watcher = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
    try:
        wait_for(lambda: "watching" in Path(log.name).read_text(errors="replace") and db.exists(), 60,
                 "the watcher to start")
        time.sleep(0.5)
        expected = build(folder, outside, unreadable=PRIVILEGES is not None)
        (folder / "gone.txt").write_text("here for a moment")
        (folder / "gone.txt").unlink()   # vanished before the watcher settles on it
        wait_for(lambda: check_recorded(db, folder, expected) is None, 180, "every case recorded")
        # the link goes: its record goes with it, and nothing is left of it
        (folder / "outdir").unlink()
        wait_for(lambda: stored_path(str(folder / "outdir")) not in stored(db), 60, "the link's record removed")
        assert watcher.poll() is None, "the watcher died"
    finally:
        watcher.send_signal(signal.SIGTERM)
        code = watcher.wait(60)
        restore(folder)
    text = Path(log.name).read_text(errors="replace")
    assert code == 0 and "Traceback" not in text, f"exit {code}; log:\n{text[-3000:]}"
    assert not [p for p in stored(db) if p.endswith("/gone.txt")], "a vanished file must leave nothing"


class _DeleteOnStart(Quiet):
    """Deletes a file when reading starts: after the scan found it, before a worker opens it."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def start(self, total: int) -> None:
        self.path.unlink()


def test_a_file_that_vanishes_mid_run_is_recorded_as_vanished(tmp_path: Path) -> None:
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "stays.txt").write_text(hostile_corpus.prose(1))
    (folder / "goes.txt").write_text(hostile_corpus.prose(2))
    with open_store(tmp_path / "s.db") as store:
        summary = run(store, [folder], IndexConfig(workers=1), progress=_DeleteOnStart(folder / "goes.txt"))
        _, rows = store.execute("SELECT path, status FROM items ORDER BY path")
    assert rows == [(str(folder / "goes.txt"), "vanished"), (str(folder / "stays.txt"), "ok")], rows
    # not a failure: a watched folder renamed while read logged "failed 391" for files that were fine
    assert (summary.new, summary.failed, summary.vanished) == (1, 0, 1), summary
    assert "failed 0, vanished 1 (deleted or moved while read)" in summary_lines(summary)[0], summary_lines(summary)


class _MoveOnStart(Quiet):
    """Progress that moves a file (a byte path) once the plan is made, before it is read."""

    def __init__(self, source: bytes, target: bytes) -> None:
        self.source, self.target = source, target

    def start(self, total: int) -> None:
        os.rename(self.source, self.target)


def test_a_file_moved_to_another_folder_before_it_was_read_is_read_there(tmp_path: Path) -> None:
    """Issue 13's ``vanished`` meets issue 14's moves: a new file (its name not
    UTF-8) moved from one watched folder to another between the scan and the
    read is recorded as vanished; the next run must read it at its new place,
    not follow the failure there as a move of the same bytes (which left it
    ``vanished`` for good: unchanged size and mtime are never read again)."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    name = b"caf\xe9 notes.txt"
    with open(os.fsencode(a) + b"/" + name, "wb") as out:
        out.write(hostile_corpus.prose(3).encode())
    with open_store(tmp_path / "s.db") as store:
        run(store, [a, b], IndexConfig(workers=1),
            progress=_MoveOnStart(os.fsencode(a) + b"/" + name, os.fsencode(b) + b"/" + name))
        _, first = store.execute("SELECT path, status FROM items")
        assert first == [(stored_path(os.fsdecode(os.fsencode(a) + b"/" + name)), "vanished")], first
        run(store, [a, b], IndexConfig(workers=1))
        _, rows = store.execute("SELECT path, status FROM items")
    assert rows == [(stored_path(os.fsdecode(os.fsencode(b) + b"/" + name)), "ok")], \
        f"the moved file was not read at its new place: {rows}"


def test_a_fifo_named_on_the_command_line_is_recorded(tmp_path: Path, env: dict[str, str]) -> None:
    os.mkfifo(tmp_path / "pipe")
    done = lifededup("index", str(tmp_path / "pipe"), env=env, timeout=60)
    assert done.returncode == 0 and "failed 1 " in done.stdout, done.stdout + done.stderr
    assert stored(tmp_path / "s.db")[str(tmp_path / "pipe")][0] == "not-a-file"
    printed = lifededup("fingerprint", str(tmp_path / "pipe"), env=env, timeout=60)  # the same word, not "empty"
    assert printed.returncode == 1 and "[not-a-file]" in printed.stderr, printed.stdout + printed.stderr


def test_a_link_loop_named_on_the_command_line_does_not_crash(tmp_path: Path, env: dict[str, str]) -> None:
    os.symlink("b", tmp_path / "a")
    os.symlink("a", tmp_path / "b")
    done = lifededup("index", str(tmp_path / "a"), env=env, timeout=60)
    assert "Traceback" not in done.stderr, done.stderr


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=1, max_size=40).filter(lambda b: b"/" not in b and b"\x00" not in b))
def test_any_file_name_stores_as_valid_utf8_and_maps_back(name: bytes) -> None:
    path = "/home/x/" + os.fsdecode(name)
    kept = stored_path(path)
    kept.encode("utf-8")  # SQLite's text: must not raise
    assert fs_path(kept) == path, (name, kept)
    assert os.fsencode(fs_path(kept)) == b"/home/x/" + name


def test_distinct_names_never_share_a_stored_path() -> None:
    names = [b"a\\xff", b"a\xff", b"a\\\\xff", b"a\\\xff", b"plain", b"a\\", b"a\\\\"]
    kept = [stored_path(os.fsdecode(n)) for n in names]
    assert len(set(kept)) == len(names), dict(zip(names, kept))
    assert stored_path("plain") == "plain" and stored_path("zoë/naïve.txt") == "zoë/naïve.txt"


# -- a damaged store -----------------------------------------------------------

def damaged_store(tmp_path: Path, env: dict[str, str]) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(60):
        (folder / f"{n}.txt").write_text(hostile_corpus.prose(n, 400))
    done = lifededup("index", str(folder), "-j", "1", env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    db = tmp_path / "s.db"
    with open_store(db) as store:  # everything into the main file, as after a clean close
        store.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = db.stat().st_size
    rng = random.Random(7)
    with db.open("r+b") as handle:  # random bytes over every page but the first, as a bad disk would
        for offset in range(4096, size, 4096):
            handle.seek(offset)
            handle.write(bytes(rng.randrange(256) for _ in range(4096)))
    return folder


def test_a_damaged_store_is_reported_in_words_and_refused(tmp_path: Path, env: dict[str, str]) -> None:
    folder = damaged_store(tmp_path, env)
    check = lifededup("check", env=env, timeout=60)
    assert check.returncode != 0, check.stdout
    message = check.stderr
    assert "damaged" in message and "lifededup index" in message and "mv " in message, message
    assert "Traceback" not in message, message
    for args in (("index", str(folder)), ("search", "river"), ("watch", str(folder))):
        done = lifededup(*args, env=env, timeout=60)
        assert done.returncode != 0, f"{args[0]} must refuse a damaged store: {done.stdout}"
        assert "damaged" in done.stderr and "Traceback" not in done.stderr, f"{args[0]}: {done.stderr}"


def test_odd_names_print_on_one_line_and_paste_back(tmp_path: Path, env: dict[str, str]) -> None:
    """A name with a newline, a byte that is not UTF-8 or a backslash: every
    command prints it on one line in the store's escapes (a newline broke
    search's and dups' tables and failures' tab-separated rows), and that
    printed name, pasted into `show`, finds the item."""
    folder = tmp_path / "docs"
    folder.mkdir()
    names = {b"new\nline.txt": "heron", b"bad\xffname.txt": "kingfisher", b"back\\slash.txt": "otter"}
    for name, word in names.items():
        with open(os.fsencode(folder) + b"/" + name, "w") as handle:
            handle.write(f"a note about the {word} by the weir, kept as a copy too")
        with open(os.fsencode(folder) + b"/copy of " + name, "w") as handle:  # a cluster, for dups
            handle.write(f"a note about the {word} by the weir, kept as a copy too")
        with open(os.fsencode(folder) + b"/empty " + name, "w"):  # a failure, for failures
            pass
    assert lifededup("index", str(folder), env=env, timeout=120).returncode == 0
    printed = {"heron": "new\\x0aline.txt", "kingfisher": "bad\\xffname.txt", "otter": "back\\\\slash.txt"}
    for word, name in printed.items():
        found = lifededup("search", word, env=env)
        assert name in found.stdout.splitlines()[0], found.stdout
        shown = lifededup("show", str(folder / name), env=env)
        assert shown.returncode == 0 and shown.stdout.startswith("item ") and name in shown.stdout.splitlines()[0], \
            f"show {name}: {shown.stdout} {shown.stderr}"
    dups = lifededup("dups", env=env).stdout
    assert len([line for line in dups.splitlines() if line.startswith("cluster ")]) == 3, dups
    assert len(dups.splitlines()) == 3 * 3, f"a name broke the lines of dups: {dups}"
    failures = lifededup("failures", env=env).stdout.splitlines()
    assert len(failures) == 3 and all(line.count("\t") == 2 for line in failures), failures


def test_a_name_that_reverses_its_end_prints_as_it_is(tmp_path: Path, env: dict[str, str]) -> None:
    """A right-to-left override in a name ("photo<U+202E>gnp.txt") printed
    as "phototxt.png" on a terminal: search, failures and the index's
    progress print it escaped, `\\u202e`, and that, pasted into `show`,
    finds the item."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "photo\u202egnp.txt").write_text("a note about the egret by the weir")
    (folder / "empty \u2067name\u2069.txt").write_text("")
    indexed = lifededup("index", str(folder), env=env, timeout=120)
    assert indexed.returncode == 0, indexed.stderr
    found = lifededup("search", "egret", env=env).stdout
    assert "photo\\u202egnp.txt" in found and "\u202e" not in found, found
    failed = lifededup("failures", env=env).stdout
    assert "empty \\u2067name\\u2069.txt" in failed and "\u2067" not in failed, failed
    shown = lifededup("show", str(folder) + "/photo\\u202egnp.txt", env=env)
    assert shown.returncode == 0 and "photo\\u202egnp.txt" in shown.stdout.splitlines()[0], shown.stderr
    # a plain right-to-left mark, as Hebrew or Arabic text holds it, is not escaped
    (folder / "\u05d3\u05d5\u05d7\u200f.txt").write_text("a report on the heron")
    assert lifededup("index", str(folder), env=env, timeout=120).returncode == 0
    assert "\u05d3\u05d5\u05d7\u200f.txt" in lifededup("search", "heron", env=env).stdout


# -- another program's database given as the store ------------------------------

@pytest.mark.parametrize("alembic", [False, True], ids=["plain", "alembic"])
def test_another_programs_database_is_refused_and_left_as_it_was(store_url: str, tmp_path: Path,
                                                                  alembic: bool) -> None:
    """A browser's places.sqlite (or a server database of another program's
    tables) given as --db: every command refuses it in words and writes
    nothing -- before, each one, a search too, created lifededup's tables
    beside the program's own (and set the file to WAL).  Another program's
    Alembic history (a Flask app's database) is not "a store made by a newer
    lifededup" either."""
    history = ["CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)",
               "INSERT INTO alembic_version VALUES ('3f2a9c1b7d')"] if alembic else []
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "note.txt").write_text(hostile_corpus.prose(1, 200))
    server = store_url.startswith("postgresql://")
    if server:
        import psycopg

        def tables() -> list[str]:
            with psycopg.connect(store_url) as conn:
                return sorted(str(r[0]) for r in conn.execute(
                    "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"))

        with psycopg.connect(store_url, autocommit=True) as conn:
            for statement in ["CREATE TABLE invoices (id integer PRIMARY KEY, total numeric)", *history]:
                conn.execute(statement)
        state: Callable[[], object] = tables
    else:
        db = Path(store_url)
        with sqlite3.connect(db) as conn:
            conn.execute("CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)")
            conn.execute("INSERT INTO moz_places (url) VALUES ('https://example.org/')")
            for statement in history:
                conn.execute(statement)
        conn.close()
        state = lambda: (digest(db), sorted(p.name for p in tmp_path.iterdir()))  # noqa: E731
    before = state()
    env = {"XDG_STATE_HOME": str(tmp_path / "state"), "LIFEDEDUP_DB": store_url}
    for args in (("search", "river"), ("index", str(folder)), ("dups",), ("stats",), ("check",), ("show", "1"),
                 ("failures",), ("folders", "list"), ("export", str(tmp_path / "copy.db"))):
        done = lifededup_here(*args, env=env)  # in process: nine processes took most of the test's time
        assert done.returncode == 1, f"{args[0]} did not refuse: {done.stdout} {done.stderr}"
        assert "is not a lifededup store" in done.stderr and "Traceback" not in done.stderr, done.stderr
        assert ("invoices" if server else "moz_places") in done.stderr, done.stderr
        assert state() == before, f"{args[0]} changed another program's database"


# -- sql without --write never changes the file ---------------------------------

def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_sql_reads_an_older_store_without_migrating_it(tmp_path: Path, env: dict[str, str]) -> None:
    from test_migrations import upgrade_to

    db = tmp_path / "s.db"
    upgrade_to(db, "0005")
    before = digest(db)
    done = lifededup("sql", "SELECT version_num FROM alembic_version", env=env)
    assert done.returncode == 0 and "0005" in done.stdout, done.stdout + done.stderr
    assert digest(db) == before, "sql without --write changed an older store"
    for pragma in ("PRAGMA journal_mode=DELETE", "PRAGMA user_version=7", "PRAGMA wal_checkpoint(TRUNCATE)"):
        refused = lifededup("sql", pragma, env=env)
        assert refused.returncode != 0 and "read-only" in refused.stderr, f"{pragma}: {refused.stderr}"
        assert digest(db) == before, f"{pragma} changed the file"
    reads = lifededup("sql", "PRAGMA table_info(items)", env=env)
    assert reads.returncode == 0 and "path" in reads.stdout, reads.stderr


# -- numbers past their bounds ---------------------------------------------------

@pytest.mark.parametrize("args", [
    ("search", "--limit", "99999999999999999999", "x"),
    ("search", "--cluster", "99999999999999999999"),
    ("dups", "--limit", "99999999999999999999"),
    ("failures", "--limit", "-1"),
    ("index", "-j", "100000", "."),
    ("index", "--timeout", "nan", "."),
    ("index", "--memory-mb", "99999999999999999999", "."),
    ("watch", "--delay", "inf", "."),
    ("verify", "--threshold", "nan"),
    ("stats", "--idf", "nan"),
])
def test_numbers_past_their_bounds_are_usage_errors(args: tuple[str, ...], env: dict[str, str]) -> None:
    done = lifededup(*args, env=env, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr, f"{args}: {done.returncode} {done.stderr}"


def test_an_id_past_sqlite_is_no_such_item(tmp_path: Path, env: dict[str, str]) -> None:
    with open_store(tmp_path / "s.db"):
        pass
    for item in ("99999999999999999999999", "9" * 5000):
        done = lifededup("show", item, env=env, timeout=60)
        assert done.returncode == 1 and "no item" in done.stderr and "Traceback" not in done.stderr, done.stderr


# -- the daemon after kill -9 ----------------------------------------------------

def test_status_after_kill_9_is_honest_and_orphaned_workers_are_quiet(tmp_path: Path, env: dict[str, str]) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(4):  # large enough that both workers are mid-parse when their parent dies
        hostile_corpus.one_line_html(folder / f"{n}.html", 12)
    log = (tmp_path / "watch.log").open("w+")
    watcher = subprocess.Popen([sys.executable, "-m", "lifededup", "watch", str(folder), "-j", "2"], env=env,
                               stdout=log, stderr=subprocess.STDOUT)
    status = tmp_path / "state" / "lifededup" / "watch-status.json"
    wait_for(lambda: status.exists() and '"indexing"' in status.read_text(), 60, "the watcher to index")
    watcher.send_signal(signal.SIGKILL)
    watcher.wait(30)
    done = lifededup("daemon", "status", env=env, timeout=60)
    assert done.returncode == 3 and "not running" in done.stdout, done.stdout
    assert "died while indexing" in done.stdout, f"status must not claim it is still indexing: {done.stdout}"
    time.sleep(8)  # the orphaned workers finish their file, then find their parent gone
    text = Path(log.name).read_text(errors="replace")
    assert "Traceback" not in text and "EOFError" not in text and "BrokenPipe" not in text, text[-3000:]


def test_one_bad_path_does_not_stop_the_rest(tmp_path: Path) -> None:
    folder = tmp_path / "d"
    folder.mkdir()
    names = [b"ok-1.txt", b"\xff\xfe.txt", b"ok-2.txt"]
    for n, name in enumerate(names):
        with open(os.path.join(os.fsencode(folder), name), "w") as handle:
            handle.write(hostile_corpus.prose(n))
    stop = threading.Event()
    with open_store(tmp_path / "s.db") as store:
        summary = run(store, [folder], IndexConfig(workers=1), stop=stop)
        _, rows = store.execute("SELECT path, status FROM items ORDER BY path")
    assert summary.new == 3, summary
    assert [r[1] for r in rows] == ["ok", "ok", "ok"], rows


def test_items_that_came_in_through_a_link_go_when_it_leads_out_or_goes(tmp_path: Path) -> None:
    """A store from before the link rule holds files read through a link out of
    the folder (the watcher once indexed /etc that way): the next scan forgets
    them and records the link; once the link is gone, its record goes too."""
    folder, outside = tmp_path / "d", tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    folder.mkdir()
    (folder / "mine.txt").write_text(hostile_corpus.prose(1))
    os.symlink(outside, folder / "etcdir")
    with open_store(tmp_path / "s.db") as store:
        from lifededup.fingerprint import fingerprint
        from lifededup.store import ItemRecord

        text = f"{SECRET} " + hostile_corpus.prose(2)
        store.upsert_item(ItemRecord(str(folder / "etcdir" / "secret.txt"), text=text), fingerprint(text))
        run(store, [folder], IndexConfig(workers=1))
        _, rows = store.execute("SELECT path, status FROM items ORDER BY path")
        assert rows == [(str(folder / "etcdir"), "link-outside"), (str(folder / "mine.txt"), "ok")], rows
        (folder / "etcdir").unlink()
        run(store, [folder], IndexConfig(workers=1))
        _, rows = store.execute("SELECT path, status FROM items ORDER BY path")
        assert rows == [(str(folder / "mine.txt"), "ok")], rows


def test_a_file_named_alone_is_judged_by_its_name(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text(hostile_corpus.prose(1))
    (tmp_path / "download.tmp").write_text(hostile_corpus.prose(2))
    with open_store(tmp_path / "s.db") as store:
        run(store, [tmp_path / "notes.txt", tmp_path / "download.tmp"], IndexConfig(workers=1))
        _, rows = store.execute("SELECT path FROM items")
    assert rows == [(str(tmp_path / "notes.txt"),)], f"a junk file named alone must stay out: {rows}"


@pytest.fixture
def deep_tree() -> Iterator[Path]:
    """``d/d/d/...`` 1,500 folders deep (more than Python's recursion limit)
    with ``bottom.txt`` at the bottom; removed level by level afterwards
    (os.makedirs and shutil.rmtree would themselves recurse once a level).
    Made outside pytest's tmp_path, whose clean-up (shutil.rmtree) would crash on it."""
    top = tempfile.mkdtemp(prefix="lifededup-deep-")
    levels = [os.path.join(top, "d")]
    for _ in range(1500):
        levels.append(levels[-1] + "/d")
    try:
        for level in levels:
            os.mkdir(level)
        with open(os.path.join(levels[-1], "bottom.txt"), "w") as handle:
            handle.write(hostile_corpus.prose(1))
        yield Path(levels[0])
    finally:
        for level in reversed(levels):
            if os.path.isdir(level):
                for name in os.listdir(level):
                    if name != "d":
                        os.unlink(os.path.join(level, name))
                os.rmdir(level)
        os.rmdir(top)


def test_a_folder_tree_deeper_than_pythons_stack_is_scanned(tmp_path: Path, deep_tree: Path) -> None:
    (deep_tree / "top.txt").write_text(hostile_corpus.prose(2))
    with open_store(tmp_path / "s.db") as store:
        summary = run(store, [deep_tree], IndexConfig(workers=1))
    assert summary.new == 2, f"both files, whatever their depth: {summary}"


def test_the_watcher_survives_a_tree_too_deep_to_watch(tmp_path: Path, env: dict[str, str],
                                                       deep_tree: Path) -> None:
    log = (tmp_path / "watch.log").open("w+")
    watcher = subprocess.Popen([sys.executable, "-m", "lifededup", "watch", str(deep_tree), "-j", "1"],
                               env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: (tmp_path / "s.db").exists() and len(stored(tmp_path / "s.db")) == 1, 60,
                 "the catch-up scan to index the bottom file")
        assert watcher.poll() is None, "the watcher died"
    finally:
        watcher.send_signal(signal.SIGTERM)
        code = watcher.wait(60)
    text = Path(log.name).read_text(errors="replace")
    assert code == 0 and "Traceback" not in text and "nest too deep" in text, text[-2000:]


def test_a_file_or_folder_made_a_link_between_the_scan_and_the_read_is_not_read(tmp_path: Path) -> None:
    """The link rule was applied by the scan alone: a file replaced by a link
    to /etc/passwd, or a folder by a link out of the walls (moved to another
    disk, a link left behind), after the scan found them and before the
    workers read them, was read through the link -- the outside text
    stored and searchable under the inside names.  Now such a path is
    'vanished' for this run, and the next one records the link."""
    folder, outside = tmp_path / "d", tmp_path / "outside"
    (outside / "zz").mkdir(parents=True)
    (outside / "passwd.txt").write_text(SECRET)
    (outside / "zz" / "kept.txt").write_text(SECRET + " " + hostile_corpus.prose(7))
    (folder / "a").mkdir(parents=True)
    (folder / "zz").mkdir()
    (folder / "a" / "f.txt").write_text(hostile_corpus.prose(1))
    (folder / "zz" / "kept.txt").write_text(hostile_corpus.prose(2))
    (folder / "mine.txt").write_text(hostile_corpus.prose(3))

    class SwapWhenReadingStarts(Quiet):
        """What a user does while the indexer runs, at the worst moment: the
        scan is over, nothing is read yet."""

        def start(self, total: int) -> None:
            (folder / "a" / "f.txt").unlink()
            os.symlink(outside / "passwd.txt", folder / "a" / "f.txt")
            (folder / "zz").rename(tmp_path / "zz moved away")
            os.symlink(outside / "zz", folder / "zz")

    with open_store(tmp_path / "s.db") as store:
        first = run(store, [folder], IndexConfig(workers=1), progress=SwapWhenReadingStarts())
        assert (first.new, first.failed_files, first.vanished) == (1, 0, 2), first
        _, rows = store.execute("SELECT path, status, error, text FROM items ORDER BY path")
        assert all(SECRET.split()[0] not in str(r[3]) for r in rows), f"read through a link: {rows}"
        status = {Path(str(r[0])).relative_to(folder).as_posix(): (r[1], str(r[2])) for r in rows}
        assert status["mine.txt"][0] == "ok", status
        for swapped in ("a/f.txt", "zz/kept.txt"):
            assert status[swapped][0] == "vanished" and "replaced by a symbolic link" in status[swapped][1], status
        run(store, [folder], IndexConfig(workers=1))
        _, rows = store.execute("SELECT path, status FROM items ORDER BY path")
        assert {Path(str(r[0])).relative_to(folder).as_posix(): r[1] for r in rows} == {
            "a/f.txt": "link-outside", "mine.txt": "ok", "zz": "link-outside"}, rows


def test_a_man_page_cannot_pull_in_a_file_from_outside(tmp_path: Path, env: dict[str, str]) -> None:
    """groff follows `.so FILE` and `.nx FILE` (its safer mode stops neither):
    a hostile page -- or a mail's attachment shaped like one -- stored the
    text of any file its path named. groff now reads only the system's files
    and its input (extract/sandbox.py)."""
    from lifededup.extract.sandbox import available

    if not available():
        pytest.skip("this kernel has no Landlock to confine the tools with")
    folder, outside = tmp_path / "d", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET + "\n")
    (folder / "evil.1").write_text(f".TH EVIL 1\n.SH NAME\nevil \\- page\n.SH DESCRIPTION\nbefore\n"
                                   f".so {outside / 'secret.txt'}\nafter\n")
    (folder / "next.1").write_text(f".TH NEXT 1\n.SH NAME\nnext \\- page\n.SH DESCRIPTION\nwords\n"
                                   f".nx {outside / 'secret.txt'}\n")
    done = lifededup("index", str(folder), env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    texts = {Path(p).name: (row[0], row[2]) for p, row in stored(tmp_path / "s.db").items()}
    assert texts["evil.1"][0] == "ok" and "before" in str(texts["evil.1"][1]), texts
    assert not any(SECRET in str(t) for _, t in texts.values()), f"read through .so or .nx: {texts}"


def test_a_text_file_posing_as_an_image_cannot_make_ocr_read_another(tmp_path: Path, env: dict[str, str]) -> None:
    """Tesseract reads a text file given as its image as a list of images to
    read: `holiday.png` holding the path of a scan outside the folder stored
    that scan's words. Tesseract now reads only the system's files and the
    file it is given."""
    import shutil

    from PIL import Image, ImageDraw, ImageFont

    from lifededup.extract.sandbox import available

    if shutil.which("tesseract") is None or not available():
        pytest.skip("needs tesseract (scripts/install-system-deps.sh) and a kernel with Landlock")
    folder, outside = tmp_path / "d", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    image = Image.new("L", (1400, 300), 255)
    ImageDraw.Draw(image).text((40, 100), "PASSPORT NUMBER 98765", fill=0, font=ImageFont.load_default(size=64))
    image.save(outside / "passport.png")
    (folder / "holiday.png").write_text(f"{outside / 'passport.png'}\n")
    done = lifededup("index", "--ocr", str(folder), env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = stored(tmp_path / "s.db")
    assert not any("PASSPORT" in str(row[2]).upper() for row in rows.values()), f"OCR read the outside scan: {rows}"


def test_a_file_replaced_by_a_fifo_before_it_is_hashed_does_not_hang_the_run(tmp_path: Path) -> None:
    """The plan hashes a new file's bytes in the main process, by its path:
    a file replaced by a FIFO after the scan (a tester's swap while a large
    file was hashed) blocked the open for ever, waiting for a writer. Now
    the FIFO is seen for what it is and the worker records it."""
    from lifededup.index.scan import raw_sha1

    fifo = tmp_path / "z.txt"
    os.mkfifo(fifo)
    answer: list[str | None] = []
    hashing = threading.Thread(target=lambda: answer.append(raw_sha1(stored_path(str(fifo)))), daemon=True)
    hashing.start()
    hashing.join(10)
    if hashing.is_alive():
        with open(fifo, "wb"):  # let the hung open go, so the thread ends with the test
            pass
        raise AssertionError("hashing a FIFO blocked")
    assert answer == [None], answer


def test_a_folder_deeper_than_the_systems_path_limit_is_recorded(tmp_path: Path, env: dict[str, str]) -> None:
    """Past 4,096 bytes of path the system names no file: the deep folder's
    files got no item and no failure -- dropped without a word."""
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "a.txt").write_text(hostile_corpus.prose(1))
    here = os.open(folder, os.O_RDONLY)
    try:
        for _ in range(20):  # 20 x 251 bytes, made a step at a time from the folder above
            os.mkdir("d" * 250, dir_fd=here)
            deeper = os.open("d" * 250, os.O_RDONLY, dir_fd=here)
            os.close(here)
            here = deeper
        deep = os.open("deep.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=here)
        os.write(deep, hostile_corpus.prose(2).encode())
        os.close(deep)
    finally:
        os.close(here)
    done = lifededup("index", str(folder), env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = stored(tmp_path / "s.db")
    deep_rows = [(row[0], row[1]) for path, row in rows.items() if len(path) > 4096]
    assert deep_rows and all(s == "unreadable" and "too long" in str(e) for s, e in deep_rows), rows.keys()
    assert rows[str(folder / "a.txt")][0] == "ok"


def test_a_folder_swapped_for_a_link_in_a_loop_while_read_leaks_nothing(tmp_path: Path) -> None:
    """The worker checks that a file is still at its real path, then its
    parser opens it by name: a folder swapped for a link to outside between
    the two (a tester's swap in a loop) stored outside text under inside
    names, 8 items in 5 runs. The workers now read nothing outside the
    folders being indexed (Landlock): such a read is refused."""
    from lifededup.extract.sandbox import available

    if not available():
        pytest.skip("this kernel has no Landlock to confine the workers with")
    inside, outside = tmp_path / "watched", tmp_path / "outside"
    (inside / "D").mkdir(parents=True)
    (outside / "D").mkdir(parents=True)
    for n in range(100):
        (inside / "D" / f"f{n:03}.txt").write_text(f"inside file {n} apple banana cherry\n")
        (outside / "D" / f"f{n:03}.txt").write_text(f"{SECRET} file {n} never to be read\n")
    (inside / "Dl").symlink_to(outside / "D")
    with swapping(inside / "D", inside / "Dl"), open_store(tmp_path / "s.db") as store:
        for _ in range(3):
            run(store, [inside], IndexConfig(workers=2, reread=True))
        _, rows = store.execute("SELECT path, status FROM items WHERE text LIKE :secret", {"secret": f"%{SECRET}%"})
        # a refused read says what happened, not "permission denied" (the files are everyone's to read)
        _, denied = store.execute("SELECT path, error FROM items WHERE error LIKE 'permission denied%'")
    assert rows == [], f"read outside the folders: {rows}"
    assert denied == [], f"a swap called a permission: {denied[:3]}"


def _confined() -> None:
    from lifededup.extract.sandbox import available

    if not available():
        pytest.skip("this kernel has no Landlock to confine the workers with")


def test_tesseract_models_outside_the_system_are_read_under_confinement(tmp_path: Path, env: dict[str, str]) -> None:
    """With TESSDATA_PREFIX outside /usr (better models in a home folder)
    every scan was 'corrupt: Could not initialize tesseract': the workers'
    confinement allowed the models to Tesseract but not to its worker."""
    import glob
    import shutil

    from PIL import Image, ImageDraw, ImageFont

    _confined()
    models = glob.glob("/usr/share/tesseract-ocr/*/tessdata/eng.traineddata")
    if shutil.which("tesseract") is None or not models:
        pytest.skip("needs tesseract and its English model (scripts/install-system-deps.sh)")
    (tmp_path / "tessdata").mkdir()
    shutil.copy(models[0], tmp_path / "tessdata")
    folder = tmp_path / "d"
    folder.mkdir()
    image = Image.new("L", (1400, 300), 255)
    ImageDraw.Draw(image).text((40, 100), "HARBOUR TIDE TABLES", fill=0, font=ImageFont.load_default(size=64))
    image.save(folder / "scan.png")
    done = lifededup("index", "--ocr", str(folder), env={**env, "TESSDATA_PREFIX": str(tmp_path / "tessdata")})
    assert done.returncode == 0, done.stdout + done.stderr
    status, error, text, _ = stored(tmp_path / "s.db")[str(folder / "scan.png")]
    assert status == "ok" and "HARBOUR" in str(text).upper(), (status, error, text)


def test_a_library_on_pythonpath_is_loaded_under_confinement(tmp_path: Path, env: dict[str, str]) -> None:
    """A package installed with `pip install --target DIR` and found through
    PYTHONPATH (PDFium's, loaded when the first PDF is read) was refused to
    the workers: the PDF was 'unreadable: permission denied', for good."""
    import shutil

    import pypdfium2
    import pypdfium2_raw

    _confined()
    libraries = tmp_path / "pylibs"
    for package in (pypdfium2, pypdfium2_raw):
        shutil.copytree(Path(str(package.__file__)).parent, libraries / package.__name__)
    folder = tmp_path / "d"
    folder.mkdir()
    shutil.copy(CORPUS / "Documents" / "mill-history" / "PDF" / "mill-history.pdf", folder)
    done = lifededup("index", str(folder), env={**env, "PYTHONPATH": str(libraries)})
    assert done.returncode == 0, done.stdout + done.stderr
    status, error, text, _ = stored(tmp_path / "s.db")[str(folder / "mill-history.pdf")]
    assert status == "ok" and text, (status, error)
    # refused before (an install the confinement did not allow): read again by the next run, not left failed
    from lifededup.extract.sandbox import REFUSED

    with sqlite3.connect(tmp_path / "s.db") as conn:
        conn.execute("UPDATE items SET status = 'unreadable', error = ?, text = NULL", (f"{REFUSED}: /opt/x.so",))
    again = lifededup("index", str(folder), env={**env, "PYTHONPATH": str(libraries)})
    assert "updated 1," in again.stdout, again.stdout + again.stderr
    assert stored(tmp_path / "s.db")[str(folder / "mill-history.pdf")][0] == "ok"


def test_files_that_vanished_while_read_are_not_counted_or_listed_as_failed(tmp_path: Path) -> None:
    """A tester's summary said 'failed 24 ..., vanished 2436', then 'store:
    2460 failed item(s)', and `failures` listed the 2,436 files renamed away
    as failures."""
    from lifededup.index import failed_in_store, failures

    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "stays.txt").write_text(hostile_corpus.prose(1))
    (folder / "goes.txt").write_text(hostile_corpus.prose(2))
    (folder / "empty.txt").write_bytes(b"")
    with open_store(tmp_path / "s.db") as store:
        summary = run(store, [folder], IndexConfig(workers=1), progress=_DeleteOnStart(folder / "goes.txt"))
        assert (summary.failed, summary.vanished, summary.failed_in_store) == (1, 1, 1), summary
        assert failed_in_store(store) == 1
        assert [Path(f.path).name for f in failures(store)] == ["empty.txt"]


def test_reading_leaves_access_times_as_they_were(tmp_path: Path) -> None:
    """Every file read got a new access time (a tester's 4,314 of 4,314):
    a mail reader tells new mail in an mbox by an access time older than its
    last write, so indexing a spool made mutt say there was none."""
    folder = tmp_path / "d"
    folder.mkdir()
    box = folder / "inbox"
    box.write_bytes(b"From a@b Mon Jan  1 00:00:00 2024\nFrom: a@b\nSubject: new\n\n" + hostile_corpus.prose(1).encode()
                    + b"\n")
    note = folder / "note.txt"
    note.write_text(hostile_corpus.prose(2))
    for path in (box, note):
        os.utime(path, (1_000_000_000, 1_700_000_000))  # read long before its last write: "new mail"
    with open_store(tmp_path / "s.db") as store:
        summary = run(store, [folder], IndexConfig(workers=1))
    assert summary.new == 2, summary
    assert [os.stat(p).st_atime for p in (box, note)] == [1_000_000_000, 1_000_000_000]


def test_a_killed_indexers_worker_folders_are_swept_by_the_next_run(tmp_path: Path) -> None:
    """After `kill -9` the workers' temporary folders stayed in TMPDIR for
    good: no later run removed them."""
    import tempfile

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    left = Path(tempfile.gettempdir()) / f"lifededup-worker-{int(dead.stdout)}-abc123"
    left.mkdir()
    (left / "page-0.pgm").write_bytes(b"P5 1 1 255\n\x00")
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "a.txt").write_text(hostile_corpus.prose(1))
    with open_store(tmp_path / "s.db") as store:
        run(store, [folder], IndexConfig(workers=1))
    assert not left.exists(), "a dead indexer's worker folder is left behind"
    assert not list(Path(tempfile.gettempdir()).glob(f"lifededup-worker-{os.getpid()}-*")), "this run's own are gone"
