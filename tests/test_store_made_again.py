"""A process's second new store is made by the statements its first one's
revisions sent (store/opening.py, ``_new_store``): the same tables, indexes,
triggers, views, functions and rows, on both backends, as a store the
revisions made."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from pg_server import binaries

from lifededup.search import search
from lifededup.store import ItemRecord, Store, open_store, opening
from store_samples import fp, prose
from test_store import sound


def definitions(store: Store, url: str) -> list[str]:
    """Everything a store's catalog defines, and every row of its tables, as text."""
    if store.location.url is None:
        _, found = store.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
        tables = [str(r[1]) for r in found if r[0] == "table"]
        said = [repr(r) for r in found]
    else:
        server = binaries()
        assert server is not None
        pg_dump = Path(os.path.realpath(server / "initdb")).parent / "pg_dump"  # the server's own version's
        dumped = subprocess.run([str(pg_dump), "--schema-only", "--no-owner", url],
                                capture_output=True, text=True, check=True)
        # pg_dump's \restrict line carries a key of its own each run
        said = [line for line in dumped.stdout.splitlines() if not line.startswith(("\\restrict", "\\unrestrict"))]
        _, found = store.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")
        tables = [str(r[0]) for r in found]
    for table in tables:
        _, rows = store.execute(f'SELECT * FROM "{table}" ORDER BY 1')
        said += [f"{table}: {row!r}" for row in rows]
    return said


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_store_made_again_is_the_store_its_revisions_make(backend: str, tmp_path: Path,
                                                            request: pytest.FixtureRequest,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    def new() -> str:
        return (request.getfixturevalue("postgres").new_database() if backend == "postgresql"
                else str(tmp_path / f"{len(list(tmp_path.iterdir()))}.db"))

    monkeypatch.setattr(opening, "_MADE", {})  # this process has made no store yet
    url = new()
    with open_store(url) as first:
        by_revisions = definitions(first, url)
    assert len(opening._MADE) == 1, "the first store's statements are kept"

    def ran() -> None:
        raise AssertionError("the revisions ran again for a second new store")

    monkeypatch.setattr(ScriptDirectory, "run_env", ran)
    url = new()
    with open_store(url) as second:
        again = definitions(second, url)
        assert again == by_revisions
        joined = "\n".join(again)
        assert "items_ai" in joined and "collapsed_items" in joined, "a catalog, not two empty lists"
        # and it is a store: an item written is found by its words, and check finds it sound
        second.upsert_item(ItemRecord("/a.txt", text=prose(1), title="a"), fp(prose(1)))
        assert [hit.path for hit in search(second, prose(1).split()[3]).hits] == ["/a.txt"]
        sound(second)
