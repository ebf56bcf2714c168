"""Read-only SQL that SQLite itself enforces, and a reader beside a writer on
one real file, without "database is locked"."""

from __future__ import annotations

import hashlib
import multiprocessing
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from store_samples import fp, prose, revised

from lifededup.cli import main
from lifededup.store import ItemRecord, collapse_sql, open_store


def populated(path: Path, n: int = 6) -> None:
    with open_store(path) as store, store.transaction():
        for i in range(n):
            text = prose(i % 3) if i < 3 else revised(prose(i % 3), i)
            store.upsert_item(ItemRecord(f"/docs/{i}.txt", text=text, title=f"doc {i}"), fp(text))


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


WRITES = [
    "DROP TABLE items",
    "DELETE FROM items",
    "UPDATE items SET title = 'changed'",
    "INSERT INTO params (name, value) VALUES ('x', '1')",
    "CREATE TABLE sneaky (x)",
    "DELETE FROM items_fts",
    "PRAGMA user_version = 7",
    "VACUUM",
]


@pytest.mark.parametrize("statement", WRITES)
def test_read_only_sql_refuses_writes_and_leaves_the_file_unchanged(tmp_path: Path, statement: str) -> None:
    db = tmp_path / "s.db"
    populated(db)
    before = digest(db)
    result = CliRunner().invoke(main, ["sql", statement, "--db", str(db)])
    assert result.exit_code == 1, f"{statement!r} was not refused: {result.output}"
    assert "read-only" in result.output and "--write" in result.output, result.output
    assert digest(db) == before, f"{statement!r} changed the store file"
    with open_store(db, readonly=True) as store:
        _, [(count,)] = store.execute("SELECT count(*) FROM items")
        assert count == 6


def test_read_only_attach_cannot_create_files(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    populated(db)
    result = CliRunner().invoke(main, ["sql", f"ATTACH '{tmp_path / 'new.db'}' AS other", "--db", str(db)])
    assert result.exit_code == 1, result.output
    assert not (tmp_path / "new.db").exists(), "a read-only connection created a file"


def test_write_flag_changes_deliberately(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    populated(db)
    result = CliRunner().invoke(main, ["sql", "--write", "UPDATE items SET title = 'changed'", "--db", str(db)])
    assert result.exit_code == 0, result.output
    with open_store(db, readonly=True) as store:
        assert store.execute("SELECT DISTINCT title FROM items")[1] == [("changed",)]
        # the triggers kept the search index current
        assert len(store.execute("SELECT rowid FROM items_fts WHERE items_fts MATCH 'changed'")[1]) == 6


def _writer(path: str, worker: int, count: int) -> int:
    with open_store(path) as store:
        for i in range(count):
            # small transactions, as the watcher makes them
            text = revised(prose(worker), i, changes=2)
            store.upsert_item(ItemRecord(f"/w{worker}/{i}.txt", text=text), fp(text))
    return count


def _reader(path: str, seconds: float) -> int:
    queries = 0
    search = collapse_sql(
        "SELECT rowid AS id, bm25(items_fts) AS rank FROM items_fts WHERE items_fts MATCH 'budget'"
    )
    deadline = time.monotonic() + seconds
    with open_store(path, readonly=True) as store:
        while time.monotonic() < deadline:
            store.execute("SELECT count(*) FROM items JOIN clusters ON clusters.item_id = items.id")
            store.execute(search)
            queries += 1
    return queries


def test_readers_and_writers_at_once_never_see_database_is_locked(tmp_path: Path) -> None:
    db = tmp_path / "busy.db"
    populated(db)
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(4) as pool:
        writers = [pool.apply_async(_writer, (str(db), w, 40)) for w in range(2)]
        readers = [pool.apply_async(_reader, (str(db), 3.0)) for _ in range(2)]
        written = [w.get(timeout=120) for w in writers]  # re-raises "database is locked" if it happened
        queried = [r.get(timeout=120) for r in readers]
    assert written == [40, 40]
    assert all(q > 0 for q in queried), queried
    with open_store(db) as store:
        _, [(count,)] = store.execute("SELECT count(*) FROM items")
        assert count == 6 + 80
        from lifededup.store import check_store

        assert check_store(store) == []
