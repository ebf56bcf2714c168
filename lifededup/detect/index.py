"""The in-memory candidate index, and the store's conservative clustering
engine over it.

:class:`CandidateIndex` is the lookup a store table does with an index on
``(slot, value)``: file each signature under its detector's keys, and for a new
signature fetch every item sharing a key, then let the detector decide.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from typing import Generic, TypeVar

from lifededup.detect.base import Body, Detector, IndexKey, Signature
from lifededup.store.engine import place
from lifededup.store.similarity import UNMEASURED, Similarity

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


class _Indexed(Generic[Item, Body]):
    """The store's clustering engine over a :class:`CandidateIndex` of
    representatives: candidates in the order they became representatives
    (a query's best-ranked result first), admitted by the detector."""

    def __init__(self, detector: Detector[Body]) -> None:
        self.detector = detector
        self.representatives: CandidateIndex[Item, Body] = CandidateIndex(detector)
        self.signatures: dict[Item, Signature[Body]] = {}
        self.cluster_of: dict[Item, Item] = {}
        self._first_of_sha1: dict[str, Item] = {}

    def copy_of(self, item: Item) -> tuple[Item, Similarity] | None:
        first = self._first_of_sha1.get(self.signatures[item].sha1)
        return None if first is None else (self.cluster_of[first], UNMEASURED)

    def candidates(self, item: Item) -> list[Item]:
        return self.representatives.candidates(self.signatures[item])

    def admit(self, item: Item, representative: Item, within: float | None = None) -> Similarity | None:
        accepted = self.detector.is_near_duplicate(self.signatures[item], self.signatures[representative])
        return UNMEASURED if accepted else None

    def far_members(self, representatives: Sequence[Item]) -> list[tuple[Item, Similarity]]:
        return []  # a detector measures no distance: its members never move (engine.gather)

    def move(self, member: Item, cluster: Item, similarity: Similarity) -> None:
        raise AssertionError("a detector's members never move: far_members gives none")

    def join(self, item: Item, cluster: Item, similarity: Similarity) -> None:
        self.cluster_of[item] = cluster
        self._first_of_sha1.setdefault(self.signatures[item].sha1, item)
        if cluster == item:
            self.representatives.add(item, self.signatures[item])


def conservative_clusters(
    detector: Detector[Body], signed: Iterable[tuple[Item, Signature[Body]]]
) -> dict[Item, Item]:
    """Each item's cluster representative, by the store's own engine
    (:mod:`lifededup.store.engine`, seeds/000 section 3.2): items arrive in
    order; an exact copy joins its copy's cluster, an item the detector finds
    near an existing representative joins the earliest such, otherwise it
    becomes a representative itself.  Only representatives are indexed, so
    every member is near its representative.
    """
    lookup: _Indexed[Item, Body] = _Indexed(detector)
    for item, signature in signed:
        if item in lookup.signatures:
            raise ValueError(f"item {item!r} given twice")
        lookup.signatures[item] = signature
        place(item, lookup)
    return lookup.cluster_of
