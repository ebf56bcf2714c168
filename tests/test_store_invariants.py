"""Random sequences of inserts, updates, failures, moves and deletes
(representatives included) keep every cluster invariant (hypothesis stateful
test on a real SQLite file, and on a real PostgreSQL database)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import hypothesis.strategies as st
from hypothesis import HealthCheck, settings
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from store_samples import synthetic

from lifededup.store import ItemRecord, Store, check_store, open_store

PATHS = [f"/archive/{name}" for name in "abcdefgh"]
DOCUMENTS = 10

# A small alphabet per feature position makes shared features common, so
# representatives, ties and repairs happen in nearly every run.
feature_table = st.lists(
    st.one_of(st.none(), st.tuples(*[st.integers(0, 2)] * 6)), min_size=DOCUMENTS, max_size=DOCUMENTS
)


class StoreMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="lifededup-state-"))
        self.store: Store = self.open()
        self.features: list[tuple[int, ...] | None] = []
        # what the store should hold: path -> document number (None: no text)
        self.model: dict[str, int | None] = {}

    def open(self) -> Store:
        return open_store(self.folder / "store.db")

    @initialize(table=feature_table)
    def documents(self, table: list[tuple[int, ...] | None]) -> None:
        # one feature vector per document: equal SHA-1, equal features, as
        # the fingerprint engine guarantees
        self.features = table

    def teardown(self) -> None:
        self.store.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def _upsert(self, path: str, doc: int | None) -> None:
        if doc is None:
            self.store.upsert_item(ItemRecord(path, kind="image"), None)
        else:
            record = ItemRecord(path, text=f"document {doc}")
            self.store.upsert_item(record, synthetic(doc, self.features[doc]))
        self.model[path] = doc

    @rule(path=st.sampled_from(PATHS), doc=st.one_of(st.none(), st.integers(0, DOCUMENTS - 1)))
    def upsert(self, path: str, doc: int | None) -> None:
        self._upsert(path, doc)

    @rule(items=st.lists(st.tuples(st.sampled_from(PATHS), st.integers(0, DOCUMENTS - 1)), max_size=4))
    def batch(self, items: list[tuple[str, int]]) -> None:
        with self.store.transaction():
            for path, doc in items:
                self._upsert(path, doc)

    @rule(path=st.sampled_from(PATHS))
    def fail(self, path: str) -> None:
        self.store.record_failure(path, "cannot read it")
        self.model[path] = None

    @rule(paths=st.lists(st.sampled_from(PATHS), max_size=3))
    def remove(self, paths: list[str]) -> None:
        self.store.remove_items(paths)
        for path in paths:
            self.model.pop(path, None)

    def _representatives(self) -> list[str]:
        _, rows = self.store.execute(
            "SELECT i.path FROM clusters c JOIN items i ON i.id = c.item_id WHERE c.item_id = c.cluster_id"
        )
        return sorted(str(r[0]) for r in rows)

    @precondition(lambda self: bool(self._representatives()))
    @rule(data=st.data(), doc=st.one_of(st.none(), st.integers(0, DOCUMENTS - 1)), delete=st.booleans())
    def change_a_representative(self, data: st.DataObject, doc: int | None, delete: bool) -> None:
        path = data.draw(st.sampled_from(self._representatives()))
        if delete:
            self.remove([path])
        else:
            self._upsert(path, doc)

    @rule(old=st.sampled_from(PATHS), new=st.sampled_from(PATHS))
    def move(self, old: str, new: str) -> None:
        self.store.move_item(old, new)
        if old != new and old in self.model:
            self.model[new] = self.model.pop(old)
        elif old != new:
            self.model.pop(new, None)

    @rule(method=st.sampled_from(["conservative", "transitive"]))
    def recluster(self, method: str) -> None:
        self.store.recluster(method)  # type: ignore[arg-type]

    @invariant()
    def invariants_hold(self) -> None:
        # the fingerprints are synthetic, chosen apart from the texts: `check` rightly finds them stale
        problems = [p for p in check_store(self.store) if p.check != "fingerprint-stale"]
        assert problems == [], "\n".join(map(str, problems))

    @invariant()
    def store_holds_what_was_written(self) -> None:
        _, rows = self.store.execute("SELECT path, text FROM items")
        got = {str(p): (None if t is None else int(str(t).split()[1])) for p, t in rows}
        assert got == self.model, f"store {got} != model {self.model}"

    @invariant()
    def transitive_clusters_are_the_components(self) -> None:
        if self.store.cluster_method != "transitive":
            return
        _, before = self.store.execute("SELECT item_id, cluster_id FROM clusters ORDER BY item_id")
        self.store.recluster("transitive")
        _, after = self.store.execute("SELECT item_id, cluster_id FROM clusters ORDER BY item_id")
        assert before == after, f"incremental transitive clusters {before} != rebuilt {after}"


StoreMachine.TestCase.settings = settings(
    max_examples=60,
    stateful_step_count=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestStoreInvariants = StoreMachine.TestCase


def test_the_invariants_hold_on_postgresql(pg_url: str) -> None:
    """The same machine on one database of the server, emptied before each
    example (a database per example would cost more than the example)."""

    class OnServer(StoreMachine):
        def open(self) -> Store:
            store = open_store(pg_url)
            with store.transaction() as conn:
                conn.exec_driver_sql("TRUNCATE items, fingerprints, clusters, sketch_keys, params CASCADE")
            return store

    run_state_machine_as_test(OnServer, settings=settings(max_examples=15, stateful_step_count=20, deadline=None,
                                                          suppress_health_check=[HealthCheck.too_slow]))
