"""The planner looks up the new files of a run among the files stored
elsewhere (moved from another folder, by their bytes or their identity) a
few hundred at a time: a first index of 4,001 files asked the store 4,001
times, a round trip each to a PostgreSQL server.  The lookups answer as the
one-file statement does, and a destination indexed alone still follows its
moves, on both backends, with real files moved on disk."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from lifededup.index import IndexConfig, run_in_folders
from lifededup.index.plan import StoredElsewhere, identity_of
from lifededup.index.scan import raw_sha1
from lifededup.model import stored_path
from lifededup.store import Store, add_folder, check_store, list_folders, open_store

COPIES = 70  # of one text: more than the 64 a key's lookup reads
NOTES = 530  # texts of their own: past a statement's 500 keys


@contextmanager
def statements(store: Store) -> Iterator[list[str]]:
    """Every statement the store's ``execute`` was given meanwhile (its reads
    go to the driver's own connection, which SQLAlchemy's events do not see)."""
    sent: list[str] = []
    real = store.execute

    def execute(sql: str, params: dict[str, object] | None = None) -> tuple[list[str], list[tuple[object, ...]]]:
        sent.append(sql)
        return real(sql, params)

    store.execute = execute  # type: ignore[method-assign]
    try:
        yield sent
    finally:
        del store.execute


def archive(root: Path) -> None:
    for n in range(NOTES):
        (root / "notes" / f"{n // 100}").mkdir(parents=True, exist_ok=True)
        (root / "notes" / f"{n // 100}" / f"note {n}.txt").write_text(f"note {n}: the shed roof, the rota\n")
    (root / "copies").mkdir()
    for n in range(COPIES):
        (root / "copies" / f"copy {n:02}.txt").write_text("the same text in every copy\n")
    os.link(root / "notes" / "0" / "note 1.txt", root / "notes" / "0" / "linked.txt")  # one identity, two paths


def test_new_files_are_looked_up_elsewhere_a_few_hundred_at_a_time_as_one_at_a_time(
        store_url: str, tmp_path: Path) -> None:
    a, b = (tmp_path / "A").resolve(), (tmp_path / "B").resolve()
    archive(a)
    b.mkdir()
    with open_store(store_url) as store:
        for folder in (a, b):
            add_folder(store, str(folder))
        with statements(store) as sent:
            summary = run_in_folders(store, [a], list_folders(store), IndexConfig(workers=1))
        assert summary.new == NOTES + COPIES + 1, summary
        lookups = [s for s in sent if "raw_sha1 IN" in s or "inode IN" in s or "AS by_identity" in s]
        # by bytes: 2 statements of 500 keys at most (531 texts of their own, 1 of the copies); by identity: 2
        assert len(lookups) <= 4, f"{len(lookups)} lookups for {summary.new} new files"

        # half the notes and all the copies moved to B, one note changed as it went (its inode still its own)
        moved = sorted(a.glob("notes/[0-2]/*")) + sorted(a.glob("copies/*"))
        for path in moved:
            (b / path.relative_to(a)).parent.mkdir(parents=True, exist_ok=True)
            shutil.move(path, b / path.relative_to(a))
        changed = b / "notes" / "0" / "note 3.txt"
        changed.write_text(changed.read_text() + "and the hedge\n")
        keys = [(raw_sha1(stored_path(str(p))), identity_of(stored_path(str(p))))
                for p in sorted(b.rglob("*.txt"))]
        homes = [str(a), str(b)]
        fetched = StoredElsewhere(store, homes)
        with statements(store) as sent:
            fetched.prefetch(keys)
        assert len(sent) <= 4, len(sent)
        for key in keys:
            assert fetched(*key) == StoredElsewhere(store, homes)(*key), key

        ids = {str(path): int(str(i)) for path, i in store.execute("SELECT path, id FROM items WHERE part = ''")[1]}
        summary = run_in_folders(store, [b], list_folders(store), IndexConfig(workers=1))
        # each moved file keeps its item: the copies too, each by its identity (their bytes' lookup reads 64)
        assert (summary.moved, summary.new, summary.updated) == (len(moved), 0, 1), summary
        after = {str(path): int(str(i)) for path, i in store.execute("SELECT path, id FROM items WHERE part = ''")[1]}
        assert [after.get(str(b / p.relative_to(a))) for p in moved] == [ids[str(p)] for p in moved]
        assert check_store(store) == []
