"""Start-up: a command imports what it uses and no more (lazy command
loading, heavy libraries imported where they are used), and a store at head
opens without Alembic -- and a search, `show`, `dups`, `failures` or a read-only `sql`, on either backend,
without SQLAlchemy.  Times are in benchmarks/README.md; these tests check
what is imported, which is what the times follow from."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from store_samples import fp, prose

from lifededup.store import ItemRecord, open_store
from lifededup.store.opening import _written_head, alembic_config


def imported_after(args: list[str], env: dict[str, str] | None = None, exit_code: int = 0) -> set[str]:
    """The modules a real `lifededup ARGS` process has imported when it ends
    (with ``exit_code``)."""
    program = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('\\n' + ' '.join(sorted(sys.modules)), file=sys.stderr))\n"
        "from lifededup.cli import main\n"
        f"main({args!r})\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60,
                          env={**os.environ, **(env or {})})
    assert done.returncode == exit_code, done.stderr
    return set(done.stderr.strip().splitlines()[-1].split())


def test_help_loads_no_command() -> None:
    modules = imported_after(["--help"])
    loaded = {m for m in modules if m.startswith("lifededup.") and m != "lifededup.cli"}
    heavy = modules & {"numpy", "sqlalchemy", "alembic", "rapidfuzz", "importlib.metadata"}
    assert not loaded and not heavy, f"`lifededup --help` imported {sorted(loaded | heavy)}"


# what no --help needs: the store's engine, the fingerprints' arrays, the
# file watcher, the text comparison
HEAVY = {"sqlalchemy", "alembic", "numpy", "watchdog", "rapidfuzz"}


@pytest.mark.parametrize("command", [["index"], ["watch"], ["folders", "add"], ["daemon", "start"], ["stats"],
                                     ["verify"], ["check"], ["recluster"], ["show"], ["machines", "claim"], ["eval"]])
def test_the_help_of_index_watch_and_reports_loads_no_engine(command: list[str]) -> None:
    modules = imported_after([*command, "--help"])
    heavy = {m for m in modules if m.split(".")[0] in HEAVY}
    engine = modules & {"lifededup.index.run", "lifededup.watch.watcher", "lifededup.store.store",
                        "lifededup.report.stats", "lifededup.report.verify"}
    assert not heavy and not engine, f"`lifededup {' '.join(command)} --help` imported {sorted(heavy | engine)[:8]}"


# what reads one format alone: asked to sniff a file, every format's module is imported
FORMAT_LIBRARIES = {"bs4", "soupsieve", "docx", "pypdfium2"}


def test_reading_a_text_file_imports_no_other_formats_library(tmp_path: Path) -> None:
    """Sniffing a file imports every format's module; each imports its
    library (BeautifulSoup, python-docx, PDFium: 0.45 s together) where a
    file of its format is read, so a folder of text loads none -- in each of
    the fingerprint command's workers, and in `index`."""
    (tmp_path / "notes.txt").write_text("the roof leaks over the shed\n" * 40)
    (tmp_path / "page.html").write_text("<html><title>Roof</title><body><p>the roof leaks</p></body></html>")
    text = imported_after(["fingerprint", str(tmp_path / "notes.txt")])
    page = imported_after(["fingerprint", str(tmp_path / "page.html")])
    assert "lifededup.extract.html" in text, "the text's format was not sniffed among the others: what ran?"
    assert not {m.split(".")[0] for m in text} & FORMAT_LIBRARIES, sorted(text & FORMAT_LIBRARIES)
    assert "bs4" in page, "a web page was read without BeautifulSoup's encoding guesses"


def test_daemon_status_reads_its_files_alone(tmp_path: Path) -> None:
    """`daemon status` reads the pid and status files: no store, no watcher
    (it exits 3: no daemon runs in this state folder)."""
    modules = imported_after(["daemon", "status"], env={"XDG_STATE_HOME": str(tmp_path)}, exit_code=3)
    heavy = {m for m in modules if m.split(".")[0] in HEAVY}
    engine = modules & {"lifededup.index.run", "lifededup.watch.watcher", "lifededup.store.store"}
    assert "lifededup.watch.daemon" in modules, "`daemon status` never read the daemon's files: what did it do?"
    assert not heavy and not engine, f"`lifededup daemon status` imported {sorted(heavy | engine)[:8]}"


def test_a_lazy_faces_names_are_what_they_name_whichever_is_imported_first() -> None:
    """``lifededup.index.run`` is a function and a module of the same name:
    importing the module first (as code reaching for one of its other names
    does) must not leave the module where the face's function belongs."""
    program = (
        "import types\n"
        "import lifededup.index.run, lifededup.report.stats, lifededup.report.verify, lifededup.watch.watcher\n"
        "from lifededup.index import run\n"
        "from lifededup.report import stats, verify\n"
        "from lifededup.watch import Watcher\n"
        "print(*[type(x).__name__ for x in (run, stats, verify, Watcher)])\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["function", "function", "function", "type"], done.stdout


def test_version_is_the_installed_packages() -> None:
    done = subprocess.run([sys.executable, "-m", "lifededup", "--version"], capture_output=True, text=True,
                          timeout=60)
    want = f"lifededup, version {version('lifededup')}"
    assert done.returncode == 0 and done.stdout.strip() == want, f"{done.stdout!r} {done.stderr!r}, want {want!r}"


def test_search_loads_neither_the_fingerprinting_engine_nor_the_detectors(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    open_store(db).close()
    modules = imported_after(["search", "--db", str(db), "river"])
    heavy = modules & {"numpy", "rapidfuzz", "alembic", "lifededup.fingerprint", "lifededup.detect",
                       "lifededup.extract"}
    assert not heavy, f"`lifededup search` imported {sorted(heavy)}, which it never uses"


def test_search_on_a_store_at_head_runs_on_sqlite3_alone(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    open_store(db).close()
    modules = imported_after(["search", "--db", str(db), "river"])
    heavy = {m for m in modules if m.split(".")[0] in {"sqlalchemy", "alembic"}}
    engine = modules & {"lifededup.store.clustering", "lifededup.store.models", "lifededup.store.store"}
    assert not heavy and not engine, f"`lifededup search` imported {sorted(heavy | engine)[:8]}..."


def test_search_on_a_postgresql_store_at_head_runs_on_psycopg_alone(pg_url: str) -> None:
    open_store(pg_url).close()
    modules = imported_after(["search", "--db", pg_url, "river"])
    heavy = {m for m in modules if m.split(".")[0] in {"sqlalchemy", "alembic", "numpy"}}
    engine = modules & {"lifededup.store.clustering", "lifededup.store.models", "lifededup.store.store"}
    assert "psycopg" in modules, "`lifededup search` on PostgreSQL never loaded its driver: what did it read?"
    assert not heavy and not engine, f"`lifededup search` on PostgreSQL imported {sorted(heavy | engine)[:8]}..."


@pytest.mark.parametrize("command", [["sql", "SELECT count(*) FROM items"], ["dups", "--limit", "5"], ["failures"],
                                     ["folders", "list"], ["machines", "list"]])
def test_reading_commands_on_a_store_at_head_run_on_the_driver_alone(store_url: str, command: list[str]) -> None:
    """`lifededup sql` (read-only, the default), `dups`, `failures`,
    `folders list` and `machines list` read on the driver: no SQLAlchemy,
    no clustering engine."""
    open_store(store_url).close()
    modules = imported_after([*command, "--db", str(store_url)])
    heavy = {m for m in modules if m.split(".")[0] in {"sqlalchemy", "alembic", "numpy"}}
    engine = modules & {"lifededup.store.clustering", "lifededup.store.models", "lifededup.store.store"}
    assert not heavy and not engine, f"`lifededup {command[0]}` imported {sorted(heavy | engine)[:8]}..."


def test_show_on_a_store_at_head_runs_on_the_driver_alone(store_url: str) -> None:
    """`lifededup show`, the step from a search to a row's copies, reads on
    the driver too; only measuring each member against the representative
    brings in the fingerprinting engine's numpy and rapidfuzz."""
    text = prose(1)
    with open_store(store_url) as store:
        report = store.upsert_item(ItemRecord("/home/me/report.txt", text=text), fp(text))
        store.upsert_item(ItemRecord("/home/me/report copy.txt", text=text), fp(text))
    done = subprocess.run([sys.executable, "-m", "lifededup", "show", str(report), "--db", str(store_url)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "exact copy" in done.stdout and "report copy.txt" in done.stdout, done.stderr
    modules = imported_after(["show", str(report), "--db", str(store_url)])
    heavy = {m for m in modules if m.split(".")[0] in {"sqlalchemy", "alembic"}}
    engine = modules & {"lifededup.store.clustering", "lifededup.store.models", "lifededup.store.store"}
    assert not heavy and not engine, f"`lifededup show` imported {sorted(heavy | engine)[:8]}..."


def test_the_head_the_revision_files_write_is_alembics() -> None:
    want = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert _written_head() == want, f"read without Alembic: {_written_head()}, Alembic says {want}"
