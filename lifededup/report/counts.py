"""The paper's counts of a clustering: Table 1 (objects, unique objects,
clusters) and Table 2 (exact duplicates, near-duplicates among the rest, and
what is left to look at), per kind of item (seeds/000 sections 3.2 and 4)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

# Table 2's rows.  Everything that is neither mail nor a saved web page (text
# files, spreadsheets, slides) counts with the documents, as in the paper's
# three types.
PAPER_KINDS = ("document", "email", "web page")
TOTAL = "total"


def paper_kind(kind: str) -> str:
    return kind if kind in PAPER_KINDS else "document"


@dataclass(frozen=True)
class Member:
    """An item with a fingerprint, as the counts need it."""

    item_id: int
    kind: str
    sha1: str


@dataclass(frozen=True)
class Counts:
    """One row of Table 2 under one clustering.

    ``exact``: items whose text is already there (an earlier item of their
    cluster, or its representative, has the same SHA-1); ``near``: the rest
    that are hidden behind a different text of their cluster; ``shown``: the
    representatives, what a user must look at.  ``items = exact + near + shown``.
    """

    items: int = 0
    exact: int = 0
    near: int = 0

    @property
    def unique(self) -> int:
        return self.items - self.exact

    @property
    def shown(self) -> int:
        return self.unique - self.near

    @property
    def exact_share(self) -> float:
        return self.exact / self.items if self.items else 0.0

    @property
    def near_share(self) -> float:
        # "We exclude the exact duplicates when counting for the near
        # duplicates" (seeds/000 section 4): a share of the unique items.
        return self.near / self.unique if self.unique else 0.0

    @property
    def reduction(self) -> float:
        # 13% exact and 9% near give the paper's 21%: 1 - 0.87 * 0.91
        return 1 - self.shown / self.items if self.items else 0.0

    def __add__(self, other: Counts) -> Counts:
        return Counts(self.items + other.items, self.exact + other.exact, self.near + other.near)

    def to_dict(self) -> dict[str, float | int]:
        return {"items": self.items, "exact": self.exact, "near": self.near, "shown": self.shown,
                "exact_share": self.exact_share, "near_share": self.near_share, "reduction": self.reduction}


def roles(members: Iterable[Member], cluster_of: Mapping[int, int]) -> dict[int, str]:
    """Each item's part in its cluster: ``shown`` (the representative),
    ``exact`` (its text is already in the cluster) or ``near``.

    The representative is the item the cluster is named after; within each
    text (SHA-1) of a cluster the representative, else the earliest item,
    holds it first."""
    ordered = sorted(members, key=lambda m: (cluster_of[m.item_id] != m.item_id, m.item_id))
    holder: dict[tuple[int, str], int] = {}
    out: dict[int, str] = {}
    for member in ordered:
        cluster = cluster_of[member.item_id]
        if member.item_id == cluster:
            out[member.item_id] = "shown"
        elif (cluster, member.sha1) in holder:
            out[member.item_id] = "exact"
        else:
            out[member.item_id] = "near"
        holder.setdefault((cluster, member.sha1), member.item_id)
    return out


def table2(members: Iterable[Member], cluster_of: Mapping[int, int]) -> dict[str, Counts]:
    """Counts per paper kind and in total (the last key)."""
    listed = list(members)
    role = roles(listed, cluster_of)
    tally = Counter((paper_kind(m.kind), role[m.item_id]) for m in listed)
    rows = {kind: Counts(tally[kind, "shown"] + tally[kind, "exact"] + tally[kind, "near"], tally[kind, "exact"],
                         tally[kind, "near"]) for kind in PAPER_KINDS}
    total = Counts()
    for counts in rows.values():
        total += counts
    return {**rows, TOTAL: total}


@dataclass(frozen=True)
class Table1:
    """seeds/000 Table 1 for one set of fingerprints: its clusters under the
    two extremes of clustering."""

    objects: int
    unique: int
    transitive: int
    conservative: int

    def to_dict(self) -> dict[str, int]:
        return {"objects": self.objects, "unique": self.unique, "transitive_clusters": self.transitive,
                "conservative_clusters": self.conservative}


def table1(members: Iterable[Member], transitive: Mapping[int, int], conservative: Mapping[int, int]) -> Table1:
    listed = list(members)
    return Table1(
        objects=len(listed),
        unique=len({m.sha1 for m in listed}),
        transitive=len({transitive[m.item_id] for m in listed}),
        conservative=len({conservative[m.item_id] for m in listed}),
    )
