"""Detectors' tables in a real store: revision 0003 upgrades a populated
store, the tables agree with ``lifededup.detect.table``, and the store-backed
lookup finds exactly what the in-memory index finds."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from detect_texts import document, substitute, vocabulary
from store_samples import fp
from test_migrations import upgrade_to

from lifededup.detect import DETECTOR_NAMES, CandidateIndex, collection_statistics, make_detector
from lifededup.detect.table import TABLES, SpecMismatch, TableIndex, metadata, table_stem
from lifededup.normalize import word_stream
from lifededup.store import ItemRecord, open_store
from lifededup.store.opening import Location, make_engine

VOCAB = vocabulary(2000, seed=41)


def _texts(seed: int) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for _ in range(6):
        original = document(rng, VOCAB)
        texts += [" ".join(original), " ".join(substitute(rng, original, VOCAB, 2)), " ".join(original).upper()]
    rng.shuffle(texts)
    return texts


def _raw(detector: Any, body: Any) -> bytes | None:
    return None if body is None else bytes(detector.encode(body))


def _detector_tables(conn: Any) -> set[str]:
    names = conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'table'").scalars()
    return {n for n in names if n.startswith("detect")}


def test_populated_store_at_0002_upgrades_to_detector_tables(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    upgrade_to(path, "0002")
    engine = make_engine(Location(path), readonly=False)
    text = "quarterly zebra budget " * 40
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO items (id, path, part, kind, status, indexed_at, text) VALUES"
            " (1, '/home/zoë/budget.txt', '', 'document', 'ok', '2026-01-01 00:00:00', :text),"
            " (2, '/home/zoë/budget copy.txt', '', 'document', 'ok', '2026-01-01 00:00:00', :text),"
            " (3, '/bad.pdf', '', 'document', 'failed', '2026-01-01 00:00:00', NULL)",
            {"text": text},
        )
        assert _detector_tables(conn) == set(), "detector tables before their revision"
    engine.dispose()

    with open_store(path) as store, store.transaction() as conn:
        want = {table_stem(n) for n in DETECTOR_NAMES} | {table_stem(n) + "_keys" for n in DETECTOR_NAMES}
        assert _detector_tables(conn) == want | {"detectors"}, f"tables after 0003: {_detector_tables(conn)}"
        rows = conn.exec_driver_sql("SELECT id, path, status FROM items ORDER BY id").all()
        assert [tuple(r) for r in rows] == [
            (1, "/home/zoë/budget.txt", "ok"), (2, "/home/zoë/budget copy.txt", "ok"), (3, "/bad.pdf", "failed")
        ], f"items changed by the upgrade: {rows}"
        detector = make_detector("simhash:3")
        index: TableIndex[Any] = TableIndex(detector, conn)
        index.add(1, detector.signature(text))
        assert index.matches(detector.signature(text)) == [1], "the upgraded store does not find its item"
    with open_store(path) as store:
        store.remove_ids([1])
        _, rows = store.execute("SELECT count(*) FROM detect_simhash_keys")
        assert rows == [(0,)], f"keys of a removed item were kept: {rows}"
        _, rows = store.execute("SELECT count(*) FROM detect_simhash")
        assert rows == [(0,)], f"the sketch of a removed item was kept: {rows}"


def _table_of(diff: Any) -> str | None:
    """The table an Alembic autogenerate diff is about."""
    if isinstance(diff, list):  # modify_* diffs: [(op, schema, table, column, ...)]
        return str(diff[0][2])
    subject = diff[1]
    if hasattr(subject, "columns") and hasattr(subject, "schema") and hasattr(subject, "c"):
        return str(subject.name)  # a Table
    for owner in ("table", "parent"):  # an Index, a constraint
        if getattr(subject, owner, None) is not None:
            return str(getattr(subject, owner).name)
    return str(diff[2]) if len(diff) > 2 else None


def test_detector_tables_agree_with_the_revision(tmp_path: Path) -> None:
    with open_store(tmp_path / "s.db") as store, store.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
    # the revision's foreign keys to items are not in lifededup.detect.table
    # (it has no items table); the cascade is tested above instead
    ours = [d for d in diff if _table_of(d) in metadata.tables and not (isinstance(d, tuple) and d[0] == "remove_fk")]
    assert ours == [], f"lifededup.detect.table and revision 0003 disagree: {ours}"


@pytest.mark.parametrize("name", DETECTOR_NAMES)
def test_store_lookup_finds_what_the_memory_index_finds(tmp_path: Path, name: str) -> None:
    texts = _texts(42)
    detector = make_detector(name, collection_statistics(word_stream(t) for t in texts))
    memory: CandidateIndex[int, Any] = CandidateIndex(detector)
    with open_store(tmp_path / "s.db") as store, store.transaction() as conn:
        table: TableIndex[Any] = TableIndex(detector, conn)
        for number, text in enumerate(texts):
            item_id = store.upsert_item(ItemRecord(f"/doc{number}.txt", text=text), fp(text))
            signature = detector.signature(text)
            got, want = table.matches(signature), memory.matches(signature)
            assert got == want, f"{name}: doc {number}: store found {got}, memory {want}"
            table.add(item_id, signature)
            memory.add(item_id, signature)
            stored = table.signature(item_id)
            assert stored.sha1 == signature.sha1 and _raw(detector, stored.body) == _raw(detector, signature.body), (
                f"{name}: the sketch came back changed from the store"
            )
        assert len(table) == len(texts), f"{name}: {len(table)} sketches stored for {len(texts)} items"


def test_a_table_built_with_another_spec_is_refused_until_rebuilt(tmp_path: Path) -> None:
    text = " ".join(document(random.Random(3), VOCAB))
    with open_store(tmp_path / "s.db") as store, store.transaction() as conn:
        item_id = store.upsert_item(ItemRecord("/a.txt", text=text), fp(text))
        three = make_detector("simhash:3")
        TableIndex(three, conn).add(item_id, three.signature(text))
        six = make_detector("simhash:6")
        with pytest.raises(SpecMismatch, match="built with simhash:3, not simhash:6"):
            TableIndex(six, conn)
        rebuilt: TableIndex[Any] = TableIndex(six, conn, rebuild=True)
        assert len(rebuilt) == 0, "a rebuilt table kept sketches of the old spec"
        other = make_detector("minhash")
        TableIndex(other, conn).add(item_id, other.signature(text))
        assert len(TableIndex(make_detector("simhash:6"), conn)) == 0, "detectors share a table"


def test_every_detector_has_its_tables() -> None:
    assert set(TABLES) == set(DETECTOR_NAMES), "a detector without tables, or tables without a detector"
