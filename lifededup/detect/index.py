"""The in-memory candidate index and the paper's conservative clustering.

:class:`CandidateIndex` is the lookup a store table does with an index on
``(slot, value)``: file each signature under its detector's keys, and for a new
signature fetch every item sharing a key, then let the detector decide.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable
from typing import Generic, TypeVar

from lifededup.detect.base import Body, Detector, IndexKey, Signature

__all__ = ["CandidateIndex", "conservative_clusters"]

Item = TypeVar("Item", bound=Hashable)


class CandidateIndex(Generic[Item, Body]):
    def __init__(self, detector: Detector[Body]) -> None:
        self.detector = detector
        self._postings: defaultdict[IndexKey, list[Item]] = defaultdict(list)
        self._signatures: dict[Item, Signature[Body]] = {}
        self._order: dict[Item, int] = {}

    def __len__(self) -> int:
        return len(self._signatures)

    def add(self, item: Item, signature: Signature[Body]) -> None:
        if item in self._signatures:
            raise ValueError(f"item {item!r} is already in the index")
        self._signatures[item] = signature
        self._order[item] = len(self._order)
        for key in dict.fromkeys(self.detector.keys(signature)):
            self._postings[key].append(item)

    def candidates(self, signature: Signature[Body]) -> list[Item]:
        """Items sharing at least one key with ``signature``, in insertion order."""
        found: dict[Item, None] = {}
        for key in self.detector.keys(signature):
            found.update(dict.fromkeys(self._postings.get(key, ())))
        return sorted(found, key=self._order.__getitem__)

    def matches(self, signature: Signature[Body]) -> list[Item]:
        """Candidates the detector accepts as near-duplicates, in insertion order."""
        return [
            item
            for item in self.candidates(signature)
            if self.detector.is_near_duplicate(signature, self._signatures[item])
        ]


def conservative_clusters(
    detector: Detector[Body], signed: Iterable[tuple[Item, Signature[Body]]]
) -> dict[Item, Item]:
    """Each item's cluster representative, in the paper's conservative way
    (seeds/000 section 3.2): items arrive in order; an item that is a
    near-duplicate of an existing representative joins the earliest such
    cluster, otherwise it becomes a representative itself.  Only
    representatives are indexed, so every member is near its representative.
    """
    representatives: CandidateIndex[Item, Body] = CandidateIndex(detector)
    cluster_of: dict[Item, Item] = {}
    for item, signature in signed:
        if item in cluster_of:
            raise ValueError(f"item {item!r} given twice")
        found = representatives.matches(signature)
        if found:
            cluster_of[item] = found[0]
        else:
            representatives.add(item, signature)
            cluster_of[item] = item
    return cluster_of
