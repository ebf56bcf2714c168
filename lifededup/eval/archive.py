"""Every detector on the user's own archive, without a truth file.

Nobody has labelled a personal archive, but the paper's own check can label a
sample of it (seeds/000 section 3.1): two texts within 30% word edit distance
are near copies.  The pool of pairs worth labelling is every pair some
detector puts in one cluster, and every pair sharing at least 5% of its
shingles (an inverted index over all shingles; a shingle in more than 40
texts is boilerplate and left out) -- the sensitive net that finds what the
detectors miss.  A seeded sample of the pool is measured; each detector's
precision is the share of its sampled pairs that are near copies, its recall
the share of the sampled near copies it puts together.  Pairs outside the
pool (under 5% of shingles shared) are taken as distinct: a pair 30% apart in
words still shares about a fifth of its shingles.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Any

import numpy as np

from lifededup.detect import (
    PreparedText,
    collection_statistics,
    conservative_clusters,
    make_detector,
    needs_statistics,
)
from lifededup.eval.table import render
from lifededup.fingerprint import shingle
from lifededup.store import Store
from lifededup.store.similarity import bounded_word_distance

__all__ = ["ArchiveScore", "evaluate_archive", "format_archive_table"]

# a shingle in more texts than this is a licence, a signature or a template
BOILERPLATE_TEXTS = 40
# the share of the smaller text's shingles a pair shares to be worth measuring
MIN_SHARED = 0.05


@dataclass(frozen=True)
class ArchiveScore:
    detector: str
    precision: float  # estimated, on the sampled pairs the detector accepts
    recall: float  # estimated, on the sampled near copies
    f1: float
    accepted: int  # sampled pairs the detector puts in one cluster
    near: int  # sampled pairs within the bound
    clusters: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _texts(store: Store, items: int, seed: int) -> dict[int, str]:
    _, rows = store.execute("SELECT i.id, i.text FROM items i JOIN fingerprints f ON f.item_id = i.id ORDER BY i.id")
    found = {int(str(r[0])): str(r[1] or "") for r in rows}
    if len(found) > items:
        kept = sorted(random.Random(seed).sample(sorted(found), items))
        found = {i: found[i] for i in kept}
    return found


def sharing_pairs(texts: dict[int, str]) -> set[tuple[int, int]]:
    """Pairs sharing at least MIN_SHARED of the smaller text's shingles."""
    shingles = {i: np.unique(shingle(t).values[:, 0]) for i, t in texts.items()}
    postings: defaultdict[int, list[int]] = defaultdict(list)
    for item, values in shingles.items():
        for value in values.tolist():
            postings[value].append(item)
    shared: Counter[tuple[int, int]] = Counter()
    for holders in postings.values():
        if 1 < len(holders) <= BOILERPLATE_TEXTS:
            shared.update(combinations(holders, 2))
    return {p for p, n in shared.items() if n >= MIN_SHARED * max(1, min(shingles[p[0]].size, shingles[p[1]].size))}


def _clusters(spec: str, texts: dict[int, PreparedText]) -> dict[int, int]:
    statistics = collection_statistics(texts.values()) if needs_statistics(spec) else None
    detector = make_detector(spec, statistics)
    detector.prepare(list(texts.values()))
    return conservative_clusters(detector, ((i, detector.signature(t)) for i, t in sorted(texts.items())))


def _together(cluster_of: dict[int, int]) -> set[tuple[int, int]]:
    members: defaultdict[int, list[int]] = defaultdict(list)
    for item, cluster in cluster_of.items():
        members[cluster].append(item)
    return {pair for group in members.values() for pair in combinations(sorted(group), 2)}


def evaluate_archive(store: Store, specs: Sequence[str], *, items: int = 2000, pairs: int = 1000,
                     bound: float = 0.30, seed: int = 1) -> list[ArchiveScore]:
    """Each detector's estimated precision and recall on (a sample of) the
    store's own texts; see the module's docs for how pairs are labelled."""
    for spec in specs:
        make_detector(spec)  # a bad spec fails before any work is done
    texts = _texts(store, items, seed)
    # each text normalized, fingerprinted and counted once for every detector
    # (the sample is at most `items` texts, so all of it is kept at once)
    made = {i: PreparedText(t) for i, t in texts.items()}
    clusters = {spec: _clusters(spec, made) for spec in specs}
    accepted = {spec: _together(c) for spec, c in clusters.items()}
    pool = sorted(sharing_pairs(texts).union(*accepted.values()))
    sample = pool if len(pool) <= pairs else random.Random(seed).sample(pool, pairs)
    words = {i: made[i].word_stream().split() for i in texts}
    near = {p for p in sample if bounded_word_distance(words[p[0]], words[p[1]], bound) is not None}
    scores = []
    for spec in specs:
        mine = accepted[spec].intersection(sample)
        right = len(mine & near)
        precision = right / len(mine) if mine else 1.0
        recall = right / len(near) if near else 1.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        scores.append(ArchiveScore(make_detector(spec).spec, precision, recall, f1, len(mine), len(near),
                                   len(set(clusters[spec].values()))))
    return scores


_HEADERS = ("detector", "est. precision", "est. recall", "F1", "sampled accepted", "sampled near", "clusters")


def format_archive_table(rows: Sequence[ArchiveScore], markdown: bool = False) -> str:
    body = [(r.detector, f"{r.precision:.3f}", f"{r.recall:.3f}", f"{r.f1:.3f}", f"{r.accepted:,}", f"{r.near:,}",
             f"{r.clusters:,}") for r in rows]
    return render(_HEADERS, body, markdown)
