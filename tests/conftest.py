"""Suite-wide settings.

Under CI (the CI environment variable, set by .ci/run's runner) hypothesis
draws the same examples every run, so a submission's CI is reproducible and a
new failure is found by a developer's run (random each time, with the
failing example saved in .hypothesis/) rather than by chance in CI.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

import pg_server
from corpus_store import CorpusStore, corpus_store

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(autouse=True, scope="session")
def _own_data_and_state_folders(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No test touches the user's own store or the daemon's state: the default
    store (XDG data folder) and the status/pid/log files (XDG state folder) of
    every command a test runs, in this process or a child, live under the
    session's temporary folder.  A test that needs its own sets them itself."""
    home = tmp_path_factory.mktemp("xdg")
    saved = {name: os.environ.get(name) for name in ("XDG_DATA_HOME", "XDG_STATE_HOME")}
    os.environ.update(XDG_DATA_HOME=str(home / "data"), XDG_STATE_HOME=str(home / "state"))
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(scope="session")
def postgres() -> Iterator[pg_server.Server]:
    """A real PostgreSQL server for the session (tests/pg_server.py).  Where
    none can start the test is skipped with the reason -- except under CI,
    whose command installs the server: there it fails."""
    reason = pg_server.missing()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL is needed under CI: {reason}")
        pytest.skip(reason)
    server = pg_server.Server.start()
    yield server
    server.stop()


@pytest.fixture
def pg_url(postgres: pg_server.Server) -> Iterator[str]:
    """An empty database of the session's server, for this test alone."""
    url = postgres.new_database()
    yield url
    postgres.drop_database(url)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: object) -> str:
    """Where a test's store lives, once for each backend: an SQLite file
    under the test's folder, then an empty PostgreSQL database."""
    if request.param == "sqlite":
        from pathlib import Path

        assert isinstance(tmp_path, Path)
        return str(tmp_path / "store.db")
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def module_stores(request: pytest.FixtureRequest,
                  tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[], str]]:
    """Empty stores for a module whose tests only read them, once for each backend: each call gives
    a new one (an SQLite file, an empty PostgreSQL database), indexed once for the module's tests
    where a function's ``store_url`` indexed the same files again for each."""
    server = request.getfixturevalue("postgres") if request.param == "postgresql" else None
    made: list[str] = []

    def new() -> str:
        made.append(server.new_database() if server is not None
                    else str(tmp_path_factory.mktemp("module-store") / "store.db"))
        return made[-1]

    yield new
    for url in made if server is not None else ():
        server.drop_database(url)


@pytest.fixture(scope="session", params=["sqlite", "postgresql"])
def corpus(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> CorpusStore:
    """The sample corpus's store (tests/corpus_store.py), once on each backend."""
    server = request.getfixturevalue("postgres") if request.param == "postgresql" else None
    return corpus_store(tmp_path_factory, server)


@pytest.fixture(scope="session")
def sqlite_corpus(tmp_path_factory: pytest.TempPathFactory) -> CorpusStore:
    """The SQLite store alone: for what only SQLite has (FTS5's query syntax,
    the sqlite3 Reader) or what does not depend on the backend."""
    return corpus_store(tmp_path_factory)


@pytest.fixture(scope="session")
def pg_corpus(tmp_path_factory: pytest.TempPathFactory, postgres: pg_server.Server) -> CorpusStore:
    """The PostgreSQL store alone."""
    return corpus_store(tmp_path_factory, postgres)


@pytest.fixture
def language_db(postgres: pg_server.Server) -> Iterator[str]:
    """An empty database that compares text by a language (ICU's en-US),
    as one made by an initdb under en_US.UTF-8, the usual default, does
    (the suite's server's are so too where it was built with ICU:
    pg_server.py), whatever the suite's server was made with."""
    try:
        postgres.admin("CREATE DATABASE icu_en TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' "
                       "LOCALE 'C.UTF-8'")
    except Exception as error:  # a server older than 15, or built without ICU
        pytest.skip(f"no ICU collation here: {error}")
    url = postgres.url("icu_en")
    yield url
    postgres.drop_database(url)


# the sample corpus's deck, which the ppt fixture saves as PowerPoint 97-2003
SLIDES = Path(__file__).resolve().parent.parent / "sample_corpus/Documents/kitchen-quotes/kitchen-plan-slides.pptx"


@pytest.fixture(scope="session")
def ppt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample corpus's slides saved as PowerPoint 97-2003 by LibreOffice Impress."""
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        pytest.skip("LibreOffice is not installed (libreoffice-impress-nogui)")
    out = tmp_path_factory.mktemp("ppt")
    subprocess.run([soffice, f"-env:UserInstallation=file://{out}/profile", "--headless", "--convert-to", "ppt",
                    "--outdir", str(out), str(SLIDES)],
                   check=True, capture_output=True, timeout=120)
    return out / "kitchen-plan-slides.ppt"
