"""The one conservative clustering engine (seeds/000 section 3.2), over a
candidate lookup.

Whatever holds the items -- the store's tables, a detector's in-memory index,
a report's experiment -- implements :class:`Representatives`: where an exact
copy already sits, which representatives may be near an item (best first),
whether one of them admits it, and how to record the choice.  The engine
decides the same way for all of them:

* an exact copy (same SHA-1) joins the copy's cluster;
* otherwise the item joins the first candidate representative that admits it;
* otherwise it represents a new cluster.

Members never act as representatives, so every member is as close to the
document it is shown under as the lookup's admission test demands.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Protocol, TypeVar

from lifededup.store.similarity import EXACT, Similarity

__all__ = ["Representatives", "cluster_in_order", "place", "repair"]

Item = TypeVar("Item", bound=Hashable)


class Representatives(Protocol[Item]):
    """The candidate lookup the engine clusters over."""

    def copy_of(self, item: Item) -> tuple[Item, Similarity] | None:
        """The cluster of an already placed exact copy of ``item`` and the
        copy's similarity to its representative, if there is such a copy."""

    def candidates(self, item: Item) -> Sequence[Item]:
        """Representatives that may be near ``item``, best first (the order
        decides ties, so it must not depend on when items arrived)."""

    def admit(self, item: Item, representative: Item) -> Similarity | None:
        """The item's similarity to ``representative`` if it may join it."""

    def join(self, item: Item, cluster: Item, similarity: Similarity) -> None:
        """Record the choice (``cluster == item``: a new representative)."""


def place(item: Item, representatives: Representatives[Item]) -> Item:
    """Put one unplaced item in its cluster and return the cluster."""
    copy = representatives.copy_of(item)
    if copy is not None:
        representatives.join(item, *copy)
        return copy[0]
    for candidate in representatives.candidates(item):
        similarity = representatives.admit(item, candidate)
        if similarity is not None:
            representatives.join(item, candidate, similarity)
            return candidate
    representatives.join(item, item, EXACT)
    return item


def cluster_in_order(items: Iterable[Item], representatives: Representatives[Item]) -> None:
    """Place items one by one, in the order given."""
    for item in items:
        place(item, representatives)


def repair(members: Sequence[Item], representatives: Representatives[Item]) -> None:
    """Mend a cluster that lost its representative: ``members`` (already
    taken out, in the caller's order) elect the first, those it admits stay
    with it, the others are placed anew."""
    if not members:
        return
    elected = members[0]
    representatives.join(elected, elected, EXACT)
    for member in members[1:]:
        similarity = representatives.admit(member, elected)
        if similarity is not None:
            representatives.join(member, elected, similarity)
        else:
            place(member, representatives)
