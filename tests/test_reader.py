"""``open_reader`` on PostgreSQL: a store at head is read through psycopg
alone (``ServerReader``), connected as a read-only engine connects; any
other opens as before; and a ``postgresql://`` URL read without SQLAlchemy
is read exactly as SQLAlchemy reads it (``store/pg_url.py``)."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from pg_server import Server
from sqlalchemy.dialects.postgresql.psycopg import PGDialect_psycopg
from sqlalchemy.engine import make_url
from test_migrations import head, upgrade_to

from lifededup.cli import main
from lifededup.store import Store, UnsupportedStore, open_reader, open_store, pg_url
from lifededup.store.opening import Location, resolve
from lifededup.store.reader import ServerReader

# Forms a user writes; each must be read without SQLAlchemy.
FAST = [
    "postgresql://u@h/d", "postgresql://u:p@h/d", "postgresql://u:p%40s%3As%2Fw@h/d", "postgresql://u:p:q@h/d",
    "postgresql://u:p/q@h/d", "postgresql://u:@h/d", "postgresql://@h/d", "postgresql://h/d", "postgresql:///d",
    "postgresql://h:5432/d", "postgresql://h:05432/d", "postgresql://h:0/d", "postgresql://[::1]/d",
    "postgresql://u@[::1]:5433/d", "postgresql://[fe80::1%25eth0]/d", "postgresql://u@/d?host=/tmp/sock",
    "postgresql://u@/d?host=/tmp/sock&port=5433", "postgresql://u@/d?host=%2Ftmp%2Fsock", "postgresql://u@/d?port=5433",
    "postgresql://u@h/d?sslmode=require&application_name=x", "postgresql://u@h/d?options=-c%20search_path%3Dx",
    "postgresql://u@h/d%20x", "postgresql://u@h/d/x", "postgresql://u@h/d%2Fx", "postgresql://u@h/d?",
    "postgresql://u@h/d?a=", "postgresql://us%20er@h/d", "postgresql://u+x@h/d", "postgresql://u@h/d?a=b+c",
    "postgresql://u@h/d?a=%2B&b=%26", "postgresql://u@h/d#frag", "postgresql+psycopg://u:pw@h:1/d?port=2",
    "postgresql://u@h/d?host=/a&port=0", "postgresql://u@h:5/d?host=/s", "postgresql://u:p@[::1]:5/d?host=/s&port=7",
    "postgresql://u@h/d?a=1&a=2", "postgresql://u@h/d?host=/a&host=/b", "postgresql://u@/d?host=a,b&port=1,2",
    "postgresql://u@/d?host=h:5", "postgresql://u@h/%25", "postgresql://u:p w@h/d x?a=b c", "postgresql://u@h/d?sslmode=verify-full&sslrootcert=%7E/c",
]
# Left to SQLAlchemy, which accepts them or says what is wrong, as before.
OTHER = [
    "postgresql://h:/d", "postgresql://h:abc/d", "postgresql://u@h", "postgresql://u@h/", "postgresql://ü@h/d",
    "postgresql://u@h/d?a=1\nb", "postgres://u@h/d", "postgresql+psycopg2://u@h/d", "POSTGRESQL://u@h/d",
    "sqlite:///x.db", "mysql://u@h/d", "postgresql://u@h:+5/d",
]


def sqlalchemys_connect_kwargs(url: str) -> dict[str, object]:
    """What the engine's dialect passes psycopg.connect for ``url``, before the engine's connect_args."""
    _, kwargs = PGDialect_psycopg().create_connect_args(make_url(url))
    return {k: v for k, v in kwargs.items() if k != "context"}


def same_as_sqlalchemy(url: str) -> bool:
    """Check what store/pg_url.py reads of ``url`` against SQLAlchemy; False if it left it to SQLAlchemy."""
    fast = pg_url.parse(url)
    if fast is None:
        return False
    sa = make_url(url)  # what resolve() used: whatever pg_url reads, it must read too
    assert (sa.get_backend_name(), sa.get_driver_name(), bool(sa.database)) == ("postgresql", "psycopg", True), \
        f"{url!r} read without SQLAlchemy, which takes it for {sa.drivername} database {sa.database!r}"
    want = sa.set(drivername="postgresql+psycopg").render_as_string(hide_password=False)
    got = resolve(url)
    assert got == Location(url=want), f"{url!r}: resolved to {got.url!r}, SQLAlchemy's reading {want!r}"
    shown = make_url(want).set(drivername="postgresql").render_as_string(hide_password=True)
    # as SQLAlchemy shows it, but a query's slashes as they are (host=/run/postgresql, not %2F)
    head, mark, query = shown.partition("?")
    shown = head + mark + query.replace("%2F", "/")
    assert str(got) == shown, f"{url!r}: shown as {str(got)!r}, SQLAlchemy shows {shown!r}"
    # the reader connects with the parts of the resolved URL, as the engine made of it does
    resolved = pg_url.parse(want)
    assert resolved is not None, f"{url!r} resolves to {want!r}, which is left to SQLAlchemy"
    kwargs = resolved.connect_kwargs()
    if kwargs is not None:
        assert kwargs == sqlalchemys_connect_kwargs(want), \
            f"{url!r}: connects with {kwargs}, the engine with {sqlalchemys_connect_kwargs(want)}"
    return True


@pytest.mark.parametrize("url", FAST)
def test_a_url_a_user_writes_is_read_as_sqlalchemy_reads_it(url: str) -> None:
    assert same_as_sqlalchemy(url), f"{url!r} was left to SQLAlchemy: it is one a user writes"


@pytest.mark.parametrize("url", OTHER)
def test_any_other_url_is_left_to_sqlalchemy(url: str) -> None:
    assert pg_url.parse(url) is None, f"{url!r} was read without SQLAlchemy"


def test_the_reader_connects_as_the_engine_does_to_a_socket_folder() -> None:
    url = resolve("postgresql://me@/db?host=/run/pg&port=5433").url
    assert url is not None
    kwargs = pg_url.parse(url).connect_kwargs()  # type: ignore[union-attr]
    want = {"dbname": "db", "user": "me", "host": "/run/pg", "port": "5433"}
    assert kwargs == want == sqlalchemys_connect_kwargs(url), f"{kwargs} / {sqlalchemys_connect_kwargs(url)}"


PIECES = st.sampled_from(["u", "p", "h", "d", "1", "05", ":", "@", "/", "?", "&", "=", "[", "]", "%", "%2F", "%40",
                          "%3A", "%25", "+", ",", ".", "#", "~", "::1", "host=", "port=", "/tmp", "a=b", "-", " "])


@given(st.sampled_from(pg_url.SCHEMES), st.lists(PIECES, max_size=14))
def test_any_url_read_without_sqlalchemy_is_read_as_sqlalchemy_reads_it(scheme: str, pieces: list[str]) -> None:
    url = scheme + "".join(pieces)
    try:
        same_as_sqlalchemy(url)
    except Exception as exc:  # SQLAlchemy refusing a URL pg_url read is a failure too
        raise AssertionError(f"{url!r}: {exc!r}") from exc


# -- on a real server -------------------------------------------------------------------------------------------

SETTINGS = ("transaction_read_only", "default_transaction_read_only", "plan_cache_mode", "synchronize_seqscans",
            "application_name")


def settings_of(store: ServerReader | Store) -> dict[str, str]:
    with store.reading() as conn:
        return {name: conn.execute(f"SHOW {name}").fetchone()[0] for name in SETTINGS}


def test_a_store_at_head_is_read_on_psycopg_alone_with_the_engines_settings(pg_url: str) -> None:
    open_store(pg_url).close()
    with open_reader(pg_url) as reader:
        assert isinstance(reader, ServerReader), f"a store at head opened as {type(reader).__name__}"
        got = settings_of(reader)
    with open_store(pg_url, readonly=True) as store:
        want = settings_of(store)
    assert got == want, f"the reader's session {got}, a read-only engine's {want}"
    assert got["transaction_read_only"] == "on", f"the reader reads in a transaction that may write: {got}"


def test_the_server_refuses_the_reader_any_change(pg_url: str) -> None:
    open_store(pg_url).close()
    with open_reader(pg_url) as reader:
        assert isinstance(reader, ServerReader), f"a store at head opened as {type(reader).__name__}"
        for sql in ("INSERT INTO params (name, value) VALUES ('x', '1')", "DELETE FROM items",
                    "CREATE TABLE mine (a int)"):
            with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
                with reader.reading() as conn:
                    conn.execute(sql)
        with pytest.raises(psycopg.Error, match="read-write mode must be set before any query"):
            with reader.reading() as conn:
                conn.execute("SELECT 1")
                conn.execute("SET TRANSACTION READ WRITE")
        with reader.reading() as conn:  # a failed read leaves the reader usable
            count = conn.execute("SELECT count(*) FROM params WHERE name = 'x'").fetchone()[0]
    assert count == 0, "a change went through the reader"


def test_an_older_store_opens_through_open_store_and_is_upgraded(pg_url: str) -> None:
    upgrade_to(pg_url, "0010")
    reader = open_reader(pg_url)
    try:
        assert isinstance(reader, Store), f"a store at 0010 opened as {type(reader).__name__}, not upgraded"
        with reader.reading() as conn:
            revision = conn.execute("SELECT version_num FROM alembic_version").fetchone()[0]
    finally:
        reader.close()
    assert revision == head(), f"the store is at {revision} after a read, not {head()}"
    with open_reader(pg_url) as again:
        assert isinstance(again, ServerReader), f"once upgraded it opened as {type(again).__name__}"


def test_search_on_an_older_store_upgrades_it_and_one_from_a_newer_program_is_refused(pg_url: str) -> None:
    upgrade_to(pg_url, "0010")
    done = CliRunner().invoke(main, ["search", "--db", pg_url, "river"])
    assert done.exit_code == 0 and "no matches" in done.output, done.output
    with open_store(pg_url) as store:
        store.execute("UPDATE alembic_version SET version_num = '9999_from_the_future'")
    done = CliRunner().invoke(main, ["search", "--db", pg_url, "river"])
    assert done.exit_code == 1 and "9999_from_the_future, made by a newer lifededup" in done.output, done.output


def test_an_empty_database_becomes_a_store_as_before(pg_url: str) -> None:
    with open_reader(pg_url) as reader:
        assert isinstance(reader, Store), f"an empty database opened as {type(reader).__name__}"
    with open_reader(pg_url) as reader:
        assert isinstance(reader, ServerReader), f"the new store opened as {type(reader).__name__}"


def refusal(opening: object) -> str:
    with pytest.raises(UnsupportedStore) as caught:
        opening()  # type: ignore[operator]
    return str(caught.value)


def test_a_server_that_cannot_be_reached_is_the_same_clear_error(postgres: Server, tmp_path: Path) -> None:
    for url in (f"postgresql://me@/db?host={tmp_path}&port=5432", postgres.url("no_such_database")):
        got, want = refusal(lambda: open_reader(url)), refusal(lambda: open_store(url, readonly=True))
        assert got == want, f"the reader says {got!r}, open_store {want!r}"
        assert got.startswith(f"cannot use the store {resolve(url)}: ") and len(got) > 60, got
    done = CliRunner().invoke(main, ["search", "--db", postgres.url("no_such_database"), "river"])
    assert done.exit_code == 1 and 'database "no_such_database" does not exist' in done.output, done.output
    assert "Traceback" not in done.output, done.output


def test_a_server_asking_for_a_password_none_gave_says_where_it_goes(postgres: Server, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """"fe_sendauth: no password supplied" named no remedy (helper V); the
    wrong password, host and database each did.  It names ~/.pgpass."""
    hba = postgres.root / "data" / "pg_hba.conf"
    before = hba.read_text()
    postgres.admin("DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'asker')"
                   " THEN CREATE ROLE asker LOGIN PASSWORD 'secret'; END IF; END$$")
    try:
        hba.write_text("local all asker scram-sha-256\n" + before)  # this role alone must give a password
        postgres.admin("SELECT pg_reload_conf()")
        monkeypatch.setenv("PGPASSFILE", str(tmp_path / "no-pgpass"))
        monkeypatch.delenv("PGPASSWORD", raising=False)
        url = postgres.url("postgres").replace("postgresql://postgres@", "postgresql://asker@")
        for command in (["search", "river"], ["check"]):
            done = CliRunner().invoke(main, [*command, "--db", url])
            assert done.exit_code == 1 and "no password supplied" in done.output, done.output
            assert "~/.pgpass" in done.output and "HOST:PORT:DATABASE:USER:PASSWORD" in done.output, done.output
    finally:
        hba.write_text(before)
        postgres.admin("SELECT pg_reload_conf()")


@pytest.mark.parametrize("url", [
    "postgresql://me@/db?host=/run/pg&password=hunter2&port=5432",  # read without SQLAlchemy
    "postgresql://me@h/db?sslpassword=hunter2&host=a&host=b",  # left to SQLAlchemy (a key given twice)
    "postgresql://me:hunter2@h/db",
])
def test_a_password_in_the_url_is_never_shown(url: str, tmp_path: Path) -> None:
    """A password given as ``?password=`` (libpq's keyword) was shown in
    clear wherever the store is named (check, stats, daemon status, errors);
    it is hidden as one given before the host is."""
    assert "hunter2" not in str(resolve(url)) and "***" in str(resolve(url)), str(resolve(url))
    if "/run/pg" in url:  # a server that is not there: the error names the store
        done = CliRunner().invoke(main, ["check", "--db", url.replace("/run/pg", str(tmp_path))])
        assert done.exit_code == 1 and "cannot use the store" in done.output, done.output
        assert "hunter2" not in done.output and "password=***" in done.output, done.output
