"""Query-biased de-duplication (Pi et al., seeds/004): instead of clustering
the whole archive, de-duplicate only the results of one query.  The result set
is small, so any detector is affordable there, and its ``k`` can be chosen per
query.  Results keep their rank: the first of each group of near-duplicates is
kept (where seeds/004 keeps the one with the best PageRank)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from lifededup.detect.index import conservative_clusters
from lifededup.detect.spec import make_detector, needs_statistics
from lifededup.detect.terms import collection_statistics

__all__ = ["Deduplicated", "dedup_results"]

Item = TypeVar("Item", bound=Hashable)


@dataclass(frozen=True)
class Deduplicated(Generic[Item]):
    """``kept`` in rank order; ``hidden`` maps each hidden item to the kept
    item it is a near-duplicate of."""

    kept: list[Item]
    hidden: dict[Item, Item] = field(default_factory=dict)


def dedup_results(items_with_text: Sequence[tuple[Item, str]], detector_spec: str) -> Deduplicated[Item]:
    """De-duplicate one result set, best-ranked first, e.g. with ``"simhash:3"``.

    Raises ``ValueError`` for a bad spec.  Collection statistics, for the
    detectors that want them, come from the result set itself.
    """
    statistics = None
    if needs_statistics(detector_spec):
        statistics = collection_statistics(text for _, text in items_with_text)
    detector = make_detector(detector_spec, statistics)
    cluster_of = conservative_clusters(
        detector, ((item, detector.signature(text)) for item, text in items_with_text)
    )
    kept = [item for item, _ in items_with_text if cluster_of[item] == item]
    hidden = {item: rep for item, rep in cluster_of.items() if rep != item}
    return Deduplicated(kept=kept, hidden=hidden)
