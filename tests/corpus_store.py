"""A store of sample_corpus/, built once per test session, and its ground
truth in the store's terms (item ids), for the search and report tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from lifededup.eval import Truth, load_truth
from lifededup.index import FolderRules, IndexConfig, run
from lifededup.store import open_store

CORPUS = Path(__file__).resolve().parent.parent / "sample_corpus"


@dataclass(frozen=True)
class CorpusStore:
    db: Path
    truth: Truth
    ids: dict[str, int]  # truth item name ("file [part]") -> item id, items with text

    def name(self, item_id: int) -> str:
        return {v: k for k, v in self.ids.items()}[item_id]

    def true_cluster(self, name: str) -> frozenset[str]:
        """The truth's cluster of an item (itself alone if the truth lists it in none)."""
        for cluster in self.truth.clusters:
            if name in cluster:
                return frozenset(cluster)
        return frozenset([name])


def _populate(db: Path) -> dict[str, int]:
    """Index the corpus with the indexer (``lifededup index``), its ground
    truth file left out, and name each item with text as the truth does."""
    config = IndexConfig(workers=2, rules=FolderRules(exclude=("truth.json",)))
    with open_store(db) as store:
        run(store, [CORPUS], config)
        _, rows = store.execute("SELECT id, path, part FROM items WHERE text IS NOT NULL ORDER BY id")
    ids: dict[str, int] = {}
    for item_id, path, part in rows:
        name = Path(str(path)).relative_to(CORPUS).as_posix()
        ids[f"{name} [{part}]" if part else name] = int(str(item_id))
    return ids


_BUILT: dict[str, CorpusStore] = {}


def corpus_store(factory: pytest.TempPathFactory) -> CorpusStore:
    """The sample corpus's store, built on first use in this test session."""
    if "store" not in _BUILT:
        db = factory.mktemp("corpus") / "corpus.db"
        _BUILT["store"] = CorpusStore(db, load_truth(CORPUS / "truth.json"), _populate(db))
    return _BUILT["store"]
