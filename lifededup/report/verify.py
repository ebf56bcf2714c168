"""``verify``: the paper's check for false positives (seeds/000 section 3.1):
the word edit distance between the documents of each cluster.

What is compared, and what is not:

* each member with its representative -- the pairs a collapsed search
  actually hides behind one another;
* the farthest pair of each cluster: every pair of its distinct texts when a
  cluster has at most ``ALL_PAIRS_MAX`` of them (exact); above that, only the
  two members farthest from the representative, which gives a *lower* bound
  on the farthest pair and, by the triangle inequality of edit distance, an
  upper bound (their two distances to the representative, in words, added);
* exact copies (same SHA-1 of the word stream, hence the same words) are not
  compared at all: their distance is 0, and one text stands for them all.

Distances are word edit distances as a fraction of the longer document, the
paper's measure; 30% is its bound for conservative clustering (Figure 4).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Literal

from lifededup.fingerprint.compare import word_edit_distance
from lifededup.normalize import word_stream
from lifededup.report.apart import cluster_store_apart
from lifededup.store import Store

Clustering = Literal["store", "conservative", "transitive"]

# seeds/000 Figure 4: under conservative clustering "the largest word edit
# distance between two documents within the cluster is smaller than 30%".
DEFAULT_THRESHOLD = 0.30
# Distinct texts in a cluster up to which every pair is measured (435 pairs).
ALL_PAIRS_MAX = 30
# Clusters whose texts are read and compared at a time: bounds the memory.
CLUSTERS_PER_BATCH = 500


@dataclass(frozen=True)
class Text:
    """One distinct text of a cluster: the item that holds it first, its
    words, and how many items share it."""

    item_id: int
    words: str
    count: int

    @property
    def length(self) -> int:
        return len(self.words.split())


@dataclass(frozen=True)
class ClusterCheck:
    """One cluster with at least two distinct texts."""

    cluster_id: int
    size: int
    texts: int
    farthest: float  # the farthest pair measured
    pair: tuple[int, int]  # its item ids
    exact: bool  # every pair measured; otherwise ``farthest`` is a lower bound
    upper_bound: float  # of the farthest pair (== farthest when exact)

    def to_dict(self) -> dict[str, Any]:
        return {"cluster_id": self.cluster_id, "size": self.size, "texts": self.texts, "farthest": self.farthest,
                "pair": list(self.pair), "exact": self.exact, "upper_bound": self.upper_bound}


def histogram_bin(share: float, bins: int) -> int:
    """The bin of ``bins`` equal ones over 0..1 that holds ``share``: the
    one whose high it is at most (a share a hair over a boundary by the
    float's rounding, 0.35 * 20, still counts at the boundary)."""
    return min(max(math.ceil(share * bins - 1e-9) - 1, 0), bins - 1)


@dataclass(frozen=True)
class VerifyReport:
    clustering: str
    threshold: float
    clusters: int  # with at least two members
    exact_copies: int  # members repeating a text already in their cluster: not compared
    to_representative: list[float] = field(default_factory=list)  # one per member but the representative
    checks: list[ClusterCheck] = field(default_factory=list)

    @property
    def max_to_representative(self) -> float:
        return max(self.to_representative, default=0.0)

    @property
    def max_farthest(self) -> float:
        return max((c.farthest for c in self.checks), default=0.0)

    @property
    def over(self) -> list[ClusterCheck]:
        """Clusters whose farthest pair is over the threshold, farthest first."""
        return sorted((c for c in self.checks if c.farthest > self.threshold), key=lambda c: -c.farthest)

    @property
    def maybe_over(self) -> list[ClusterCheck]:
        """Large clusters not measured pair by pair whose bound allows it."""
        return [c for c in self.checks if c.farthest <= self.threshold < c.upper_bound]

    def histogram(self, bins: int = 20) -> list[tuple[float, float, int]]:
        """``(low, high, count)`` of the member-to-representative distances,
        ``bins`` equal bins over 0..100%, each holding the distances above its
        low up to its high (the first from 0): a member exactly at the 30%
        bound counts in the bar that ends there, as the bound admits it."""
        counts = [0] * bins
        for d in self.to_representative:
            counts[histogram_bin(d, bins)] += 1
        return [(i / bins, (i + 1) / bins, n) for i, n in enumerate(counts)]

    def to_dict(self) -> dict[str, Any]:
        return {"clustering": self.clustering, "threshold": self.threshold, "clusters": self.clusters,
                "exact_copies": self.exact_copies, "max_to_representative": self.max_to_representative,
                "max_farthest": self.max_farthest, "to_representative": self.to_representative,
                "histogram": [list(b) for b in self.histogram()],
                "over": [c.to_dict() for c in self.over], "maybe_over": [c.to_dict() for c in self.maybe_over],
                "checks": [c.to_dict() for c in self.checks]}


# -- which clusters ----------------------------------------------------------



def _cluster_of(store: Store, clustering: Clustering) -> dict[int, int]:
    if clustering != "store":
        return cluster_store_apart(store, [clustering])[clustering]
    with store.transaction() as conn:
        return {int(r[0]): int(r[1]) for r in conn.exec_driver_sql("SELECT item_id, cluster_id FROM clusters")}


def _sha1s(store: Store) -> dict[int, str]:
    with store.transaction() as conn:
        return {int(r[0]): str(r[1]) for r in conn.exec_driver_sql("SELECT item_id, sha1 FROM fingerprints")}


def _groups(cluster_of: dict[int, int], sha1: dict[int, str]) -> dict[int, dict[str, list[int]]]:
    """Clusters of two or more members: their item ids by text (SHA-1), the
    representative's text first and the representative first within it."""
    members: dict[int, list[int]] = {}
    for item, cluster in cluster_of.items():
        members.setdefault(cluster, []).append(item)
    groups: dict[int, dict[str, list[int]]] = {}
    for cluster, items in members.items():
        if len(items) < 2:
            continue
        ordered = sorted(items, key=lambda i: (i != cluster, i))
        by_text: dict[str, list[int]] = {}
        for item in ordered:
            by_text.setdefault(sha1[item], []).append(item)
        groups[cluster] = by_text
    return groups


# -- measuring ---------------------------------------------------------------


def _texts(store: Store, groups: dict[int, dict[str, list[int]]]) -> Iterator[tuple[int, list[Text]]]:
    """Each cluster's distinct texts (the representative's first), read a
    batch of clusters at a time."""
    clusters = sorted(cid for cid, by_text in groups.items() if len(by_text) > 1)
    for start in range(0, len(clusters), CLUSTERS_PER_BATCH):
        batch = clusters[start : start + CLUSTERS_PER_BATCH]
        holders = [items[0] for cid in batch for items in groups[cid].values()]
        with store.transaction() as conn:
            marks = ", ".join(str(i) for i in holders)
            text = {int(r[0]): str(r[1] or "") for r in conn.exec_driver_sql(
                f"SELECT id, text FROM items WHERE id IN ({marks})")}
        for cid in batch:
            yield cid, [Text(items[0], word_stream(text[items[0]]), len(items)) for items in groups[cid].values()]


def _farthest_pair(texts: list[Text], to_rep: list[float]) -> tuple[float, tuple[int, int], bool, float]:
    """(farthest, pair, exact, upper bound) of a cluster's texts; ``to_rep[i]``
    is the distance of ``texts[i + 1]`` to the representative's ``texts[0]``."""
    rep = texts[0]
    if len(texts) <= ALL_PAIRS_MAX:
        def distance(i: int, j: int) -> float:
            return to_rep[j - 1] if i == 0 else word_edit_distance(texts[i].words, texts[j].words)
        d, i, j = max((distance(i, j), i, j) for i, j in combinations(range(len(texts)), 2))
        return d, (texts[i].item_id, texts[j].item_id), True, d
    first, second = sorted(range(len(to_rep)), key=lambda i: -to_rep[i])[:2]
    a, b = texts[first + 1], texts[second + 1]
    measured = word_edit_distance(a.words, b.words)
    # edits a -> rep -> b, in words, over the longer of a and b
    edits = to_rep[first] * max(a.length, rep.length) + to_rep[second] * max(b.length, rep.length)
    upper = min(1.0, edits / max(a.length, b.length, 1))
    if to_rep[first] >= measured:
        return to_rep[first], (rep.item_id, a.item_id), False, max(upper, to_rep[first])
    return measured, (a.item_id, b.item_id), False, max(upper, measured)


def _check(cluster_id: int, texts: list[Text]) -> tuple[ClusterCheck, list[float]]:
    """The cluster's check, and the distance to the representative of each
    member but the representative (copies of a text share its distance)."""
    rep = texts[0]
    to_rep = [word_edit_distance(rep.words, t.words) for t in texts[1:]]
    farthest, pair, exact, upper = _farthest_pair(texts, to_rep)
    per_member = [0.0] * (rep.count - 1) + [d for d, t in zip(to_rep, texts[1:]) for _ in range(t.count)]
    size = sum(t.count for t in texts)
    return ClusterCheck(cluster_id, size, len(texts), farthest, pair, exact, upper), per_member


def verify(store: Store, *, threshold: float = DEFAULT_THRESHOLD, clustering: Clustering = "store") -> VerifyReport:
    """Measure every cluster of the store (``"store"``), or of the store's
    fingerprints clustered afresh by its rule, in memory (``"conservative"``,
    ``"transitive"``: the paper's Figures 4 and 2) without changing it."""
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"the threshold is a fraction of the longer document, 0..1, not {threshold}")
    groups = _groups(_cluster_of(store, clustering), _sha1s(store))
    repeats = sum(len(items) - 1 for by_text in groups.values() for items in by_text.values())
    label = (f"{store.cluster_method} clusters, as stored" if clustering == "store"
             else f"{clustering} clusters, formed afresh from the stored fingerprints")
    report = VerifyReport(label, threshold, len(groups), repeats)
    for by_text in groups.values():
        if len(by_text) == 1:  # exact copies only: all at distance 0
            report.to_representative.extend([0.0] * (len(next(iter(by_text.values()))) - 1))
    for cluster_id, texts in _texts(store, groups):
        check, to_rep = _check(cluster_id, texts)
        report.checks.append(check)
        report.to_representative.extend(to_rep)
    return report

