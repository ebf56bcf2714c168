"""The clusters of copies, largest first (``lifededup dups``, the web
view's clusters page): read through ``reading()``, so on the driver alone
(``store.reader``) as well as through a ``Store``, and a few statements
whatever the number of clusters -- their members are read a thousand
clusters at a time, not one cluster a statement (all 12,000 clusters of
100,000 items, whole process: 1.6 -> 0.85 s)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from lifededup.store.reader import Readable
from lifededup.store.similarity import Similarity

# cluster ids per statement reading their members
_CLUSTERS_A_READ = 1000


@dataclass(frozen=True)
class ItemSummary:
    id: int
    path: str
    part: str
    kind: str
    title: str | None
    status: str
    machine: str = ""  # the machine whose file it is (revision 0009)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_COLUMNS = "SELECT i.id, i.path, i.part, i.kind, i.title, i.status, i.machine"
_SUMMARY = _COLUMNS + " FROM items i"


# The kinds the items hold, read by skipping from one kind to the next
# through ix_items_kind (revision 0026): 0.02 ms where DISTINCT read every
# item, 87 ms at 200,000 items.
KINDS_HELD = ("WITH RECURSIVE k(kind) AS (SELECT min(kind) FROM items UNION ALL "
              "SELECT (SELECT min(kind) FROM items WHERE kind > k.kind) FROM k WHERE k.kind IS NOT NULL) "
              "SELECT kind FROM k WHERE kind IS NOT NULL")


def kinds_held(store: Readable) -> list[str]:
    """The kinds of the store's items, in order."""
    with store.reading() as db:
        return sorted(str(r[0]) for r in db.execute(KINDS_HELD).fetchall())


def _summary(row: Any) -> ItemSummary:
    return ItemSummary(int(row[0]), str(row[1]), str(row[2]), str(row[3]), row[4], str(row[5]), str(row[6]))


@dataclass(frozen=True)
class Cluster:
    cluster_id: int
    members: list[ItemSummary]  # the representative first, then by id
    # each member's similarity to the representative, as stored (None: not
    # measured -- transitive clusters, or kept from before revision 0006)
    similarity: list[Similarity | None] = field(default_factory=list)

    @property
    def representative(self) -> ItemSummary:
        return self.members[0]

    def to_dict(self) -> dict[str, Any]:
        measured = self.similarity or [None] * len(self.members)
        return {
            "cluster_id": self.cluster_id,
            "size": len(self.members),
            "representative": self.representative.to_dict(),
            "members": [{**m.to_dict(), **_similarity_dict(s)} for m, s in zip(self.members[1:], measured[1:])],
        }


def _similarity_dict(similarity: Similarity | None) -> dict[str, float | None]:
    if similarity is None:
        return {"resemblance": None, "word_distance": None}
    return {"resemblance": similarity.resemblance, "word_distance": similarity.word_distance}


def clusters(store: Readable, *, min_size: int = 2, limit: int | None = None) -> list[Cluster]:
    """Clusters with at least ``min_size`` items, largest first (then
    oldest), each with its representative first, then its members by id."""
    # no LIMIT without a limit: SQLite's LIMIT -1 is an error on PostgreSQL
    bounded = "" if limit is None else " LIMIT :limit"
    with store.reading() as db:
        ids = [int(r[0]) for r in db.execute(
            "SELECT cluster_id FROM cluster_sizes WHERE members >= :min"
            f" ORDER BY members DESC, cluster_id{bounded}", {"min": min_size, "limit": limit})]
        rows: dict[int, list[Any]] = {}
        for start in range(0, len(ids), _CLUSTERS_A_READ):
            listed = ", ".join(str(i) for i in ids[start:start + _CLUSTERS_A_READ])
            for row in db.execute(
                    _COLUMNS + ", c.resemblance, c.word_distance, c.cluster_id FROM items i"
                    f" JOIN clusters c ON c.item_id = i.id WHERE c.cluster_id IN ({listed})"
                    " ORDER BY c.cluster_id, i.id != c.cluster_id, i.id"):
                rows.setdefault(int(row[9]), []).append(row)
    return [_cluster(cluster_id, rows[cluster_id]) for cluster_id in ids if cluster_id in rows]


def _cluster(cluster_id: int, rows: list[Any]) -> Cluster:
    similarity = [None if r[8] is None else Similarity(float(r[7]), float(r[8])) for r in rows]
    return Cluster(cluster_id, [_summary(r) for r in rows], similarity)
