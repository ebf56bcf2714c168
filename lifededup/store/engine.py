"""The one conservative clustering engine (seeds/000 section 3.2), over a
candidate lookup.

Whatever holds the items -- the store's tables, a detector's in-memory index,
a report's experiment -- implements :class:`Representatives`: where an exact
copy already sits, which representatives may be near an item (best first),
whether one of them admits it, and how to record the choice.  The engine
decides the same way for all of them:

* an exact copy (same SHA-1) joins the copy's cluster;
* otherwise the item joins the first candidate representative that admits it;
* otherwise it represents a new cluster, and the members of its candidates'
  clusters that were admitted far from their representative (``far_members``)
  and that it admits at most half as far move to it (``gather``).

Members never act as representatives, so every member is as close to the
document it is shown under as the lookup's admission test demands.

Why members move: the paper's engine never reconsiders a member, so a chain
of drafts splits by arrival order.  On the held-out real archive
(benchmarks/README.md, "Session 27"), SQLAlchemy 2.0.20's ``intro.rst`` joined
1.4's at 26.8% of words apart; its own ``intro.html``, 8.6% from it but too far
from 1.4's, came next and stood alone, and 2.0.35's copies joined the
``.html`` -- the two 2.0 ``.rst`` files, 0.1% apart, in different clusters.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Protocol, TypeVar

from lifededup.store.similarity import EXACT, Similarity

__all__ = ["Representatives", "cluster_in_order", "gather", "place", "repair"]

Item = TypeVar("Item", bound=Hashable)


class Representatives(Protocol[Item]):
    """The candidate lookup the engine clusters over."""

    def copy_of(self, item: Item) -> tuple[Item, Similarity] | None:
        """The cluster of an already placed exact copy of ``item`` and the
        copy's similarity to its representative, if there is such a copy."""

    def candidates(self, item: Item) -> Sequence[Item]:
        """Representatives that may be near ``item``, best first (the order
        decides ties, so it must not depend on when items arrived)."""

    def admit(self, item: Item, representative: Item, within: float | None = None) -> Similarity | None:
        """The item's similarity to ``representative`` if it may join it
        (and, given ``within``, is at most that share of words apart)."""

    def join(self, item: Item, cluster: Item, similarity: Similarity) -> None:
        """Record the choice (``cluster == item``: a new representative)."""

    def far_members(self, representatives: Sequence[Item]) -> Sequence[tuple[Item, Similarity]]:
        """The members of these representatives' clusters admitted far from
        theirs (more than half the rule's word distance apart), with their
        similarity to it; none where the lookup measures no distance."""

    def move(self, member: Item, cluster: Item, similarity: Similarity) -> None:
        """Record that a placed member now belongs to ``cluster``."""


def place(item: Item, representatives: Representatives[Item]) -> Item:
    """Put one unplaced item in its cluster and return the cluster."""
    copy = representatives.copy_of(item)
    if copy is not None:
        representatives.join(item, *copy)
        return copy[0]
    candidates = representatives.candidates(item)
    for candidate in candidates:
        similarity = representatives.admit(item, candidate)
        if similarity is not None:
            representatives.join(item, candidate, similarity)
            return candidate
    representatives.join(item, item, EXACT)
    gather(item, candidates, representatives)
    return item


def gather(new: Item, passed_over: Sequence[Item], representatives: Representatives[Item]) -> None:
    """Move to the new representative ``new`` the far members of the
    clusters that did not admit it (``passed_over``, its candidates) that it
    admits at most half as far as their own representative does: the draft
    a chain has drifted from its representative toward, where the next
    drafts will come.  A member near its representative stays; a member
    that ``new`` cannot find through its representative is not looked for."""
    if not passed_over:
        return
    for member, similarity in representatives.far_members(passed_over):
        nearer = representatives.admit(member, new, within=similarity.word_distance / 2)
        if nearer is not None and nearer.word_distance < similarity.word_distance / 2:
            representatives.move(member, new, nearer)


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
