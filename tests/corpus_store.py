"""A store of sample_corpus/, built once per test session, and its ground
truth in the store's terms (item ids), for the search and report tests; the
same store on PostgreSQL (``corpus_store(factory, postgres)``), built once
too, for the tests that run on both backends."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from pg_server import Server

from lifededup.eval import SAMPLE_TRUTH, Truth, load_truth
from lifededup.index import IndexConfig, Summary, run
from lifededup.store import open_store

CORPUS = Path(__file__).resolve().parent.parent / "sample_corpus"


@dataclass(frozen=True)
class CorpusStore:
    db: Path | str  # an SQLite file, or a PostgreSQL URL
    truth: Truth
    ids: dict[str, int]  # truth item name ("file [part]") -> item id, items with text
    summary: Summary | None = None  # what indexing the corpus reported

    def name(self, item_id: int) -> str:
        return {v: k for k, v in self.ids.items()}[item_id]

    def true_cluster(self, name: str) -> frozenset[str]:
        """The truth's cluster of an item (itself alone if the truth lists it in none)."""
        for cluster in self.truth.clusters:
            if name in cluster:
                return frozenset(cluster)
        return frozenset([name])


def _populate(db: Path | str) -> tuple[dict[str, int], Summary]:
    """Index the corpus with the indexer (``lifededup index``), and name
    each item with text as the truth does."""
    config = IndexConfig(workers=2)
    with open_store(db) as store:
        summary = run(store, [CORPUS], config)
        _, rows = store.execute("SELECT id, path, part FROM items WHERE text IS NOT NULL ORDER BY id")
    ids: dict[str, int] = {}
    for item_id, path, part in rows:
        name = Path(str(path)).relative_to(CORPUS).as_posix()
        ids[f"{name} [{part}]" if part else name] = int(str(item_id))
    return ids, summary


_BUILT: dict[str, CorpusStore] = {}


def corpus_store(factory: pytest.TempPathFactory, postgres: Server | None = None) -> CorpusStore:
    """The sample corpus's store, built on first use in this test session:
    an SQLite file, or a database of the session's PostgreSQL server."""
    key = "store" if postgres is None else "postgresql"
    if key not in _BUILT:
        db = factory.mktemp("corpus") / "corpus.db" if postgres is None else postgres.new_database("corpus")
        _BUILT[key] = CorpusStore(db, load_truth(SAMPLE_TRUTH, CORPUS), *_populate(db))
    return _BUILT[key]
