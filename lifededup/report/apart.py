"""Clustering fingerprints without touching the user's store: the store's own
engine and rule (:func:`lifededup.store.cluster_members`) over the items held
in memory, in recluster's canonical order -- so an experiment and the real
store cannot disagree on how."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from lifededup.config import FingerprintParams
from lifededup.store import FEATURE_COLUMNS, ClusterMember, ClusterSettings, Method, Rule, Store, cluster_members

# What clustering reads of an item: its SHA-1, features and (for the verified
# rule) its sketch and word count -- the engine's own member, so that a report
# hands its items over as they are, not copied into another class.
Fingerprinted = ClusterMember


def cluster_apart(items: Sequence[Fingerprinted], params: FingerprintParams, methods: Sequence[Method],
                  rule: Rule | None = None, texts: Mapping[int, str] | None = None) -> dict[Method, dict[int, int]]:
    """For each method, every item's cluster (named by its representative's
    item id), as ``recluster`` forms them.  ``rule`` defaults to the design
    card's features rule, which needs no texts; the verified rule reads
    ``texts`` (item id -> text)."""
    chosen = rule or Rule(kind="features")
    return {
        method: cluster_members(items, ClusterSettings(params.threshold, params.features, method, chosen), texts)
        for method in methods
    }


# {text}: the items' texts, read only for a conservative clustering (its rule measures them)
_PRINTS = ("SELECT f.item_id, f.sha1, " + ", ".join(f"f.{c}" for c in FEATURE_COLUMNS)
           + ", f.sketch, f.words, {text} FROM fingerprints f JOIN items i ON i.id = f.item_id ORDER BY f.item_id")


def cluster_store_apart(store: Store, methods: Sequence[Method]) -> dict[Method, dict[int, int]]:
    """The store's fingerprints clustered afresh, by its own rule, without
    changing it."""
    rule = store.cluster_rule
    # transitive clustering joins by shared features alone: 100,000 texts not read
    text = "i.text" if "conservative" in methods else "NULL"
    with store.transaction() as conn:
        rows = conn.exec_driver_sql(_PRINTS.format(text=text)).all()
    prints = [Fingerprinted(int(r[0]), str(r[1]), None if r[2] is None else tuple(int(v) for v in r[2:8]),
                            None if r[8] is None else bytes(r[8]), int(r[9] or 0)) for r in rows]
    texts = {int(r[0]): str(r[10] or "") for r in rows}
    return cluster_apart(prints, store.params or FingerprintParams(), methods, rule, texts)
