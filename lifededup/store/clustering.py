"""Conservative clusters (seeds/000 section 3.2), kept true through every
write, and the fully transitive alternative for comparison.

Conservative: a new document with the SHA-1 of an indexed one joins that one's
cluster; otherwise it joins the representative it shares the most features
with (at least ``threshold``; ties go to the earliest representative);
otherwise it represents a new cluster.  Members never act as representatives,
which is what keeps every member close to the document it is shown under.

Transitive: any two near-duplicates are linked and clusters are the connected
components (union-find), named after their earliest item.  The paper found
such chains join documents more than 50% apart (its Figure 2), so it is only
offered for comparison, never by default.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from sqlalchemy import Connection

from lifededup.model import shared_features
from lifededup.store.models import FEATURE_COLUMNS

Method = Literal["conservative", "transitive"]
METHODS: tuple[Method, ...] = ("conservative", "transitive")

# SQLite accepts 32766 bound variables a statement; stay far below.
CHUNK = 500


def _feature_union(only_representatives: bool) -> str:
    rep = " AND is_representative = 1" if only_representatives else ""
    return " UNION ALL ".join(
        f"SELECT item_id FROM fingerprints WHERE {f} = :{f}{rep}" for f in FEATURE_COLUMNS
    )


# One index seek per feature column, then count matches per item: shared
# features are positional (feature i against feature i), so a match in column
# fi is exactly one shared feature.
# Plain SQL run with exec_driver_sql: no statement is compiled per call, and
# these run for every insert.
_BEST_REPRESENTATIVE = (
    f"SELECT item_id, count(*) AS shared FROM ({_feature_union(True)}) "
    "GROUP BY item_id HAVING count(*) >= :threshold "
    "ORDER BY shared DESC, item_id LIMIT 1"
)
_NEIGHBOURS = (
    f"SELECT item_id FROM ({_feature_union(False)}) "
    "GROUP BY item_id HAVING count(*) >= :threshold"
)
_SAME_SHA1 = "SELECT cluster_id FROM clusters WHERE sha1 = :sha1 LIMIT 1"
_ADD = "INSERT INTO clusters (item_id, sha1, cluster_id) VALUES (:item_id, :sha1, :cluster_id)"
_FLAG = "UPDATE fingerprints SET is_representative = :flag WHERE item_id = :item_id"
_FINGERPRINT = "SELECT item_id, sha1, " + ", ".join(FEATURE_COLUMNS) + " FROM fingerprints WHERE item_id = :item_id"
_FINGERPRINT_COLUMNS = ("item_id", "sha1", *FEATURE_COLUMNS, "words", "shingles", "is_representative")
INSERT_FINGERPRINT = (f"INSERT INTO fingerprints ({', '.join(_FINGERPRINT_COLUMNS)}) "
                      f"VALUES ({', '.join(':' + c for c in _FINGERPRINT_COLUMNS)})")
_MEMBERS = (
    "SELECT f.item_id, f.sha1, " + ", ".join(f"f.{f}" for f in FEATURE_COLUMNS)
    + " FROM clusters c JOIN fingerprints f ON f.item_id = c.item_id"
    " WHERE c.cluster_id = :cluster_id ORDER BY f.item_id"
)


@dataclass(frozen=True)
class Member:
    """What clustering needs to know of a fingerprinted item."""

    item_id: int
    sha1: str
    features: tuple[int, ...] | None

    @classmethod
    def from_row(cls, row: Sequence[object]) -> Member:
        values = row[2:8]
        features = None if values[0] is None else tuple(int(v) for v in values)  # type: ignore[call-overload]
        return cls(item_id=int(row[0]), sha1=str(row[1]), features=features)  # type: ignore[call-overload]


def qualifies(member: Member, representative: Member, threshold: int) -> bool:
    """An exact copy, or a near-duplicate (seeds/000 section 2.2 step 7)."""
    if member.sha1 == representative.sha1:
        return True
    return shared_features(member.features, representative.features) >= threshold


def _feature_params(features: tuple[int, ...]) -> dict[str, int]:
    return dict(zip(FEATURE_COLUMNS, features))


def _join(conn: Connection, item: Member, cluster_id: int) -> None:
    conn.exec_driver_sql(_ADD, {"item_id": item.item_id, "sha1": item.sha1, "cluster_id": cluster_id})
    if cluster_id == item.item_id:
        conn.exec_driver_sql(_FLAG, {"flag": 1, "item_id": item.item_id})


def choose_conservative(conn: Connection, item: Member, threshold: int) -> int:
    """The cluster a fingerprinted item without a clusters row belongs in
    (reads only: the item's own rows are not needed to find it)."""
    exact = conn.exec_driver_sql(_SAME_SHA1, {"sha1": item.sha1}).scalar()
    if exact is not None:
        return int(exact)
    if item.features is not None:
        best = conn.exec_driver_sql(
            _BEST_REPRESENTATIVE, {**_feature_params(item.features), "threshold": threshold}
        ).first()
        if best is not None:
            return int(best[0])
    return item.item_id


def place_conservative(conn: Connection, item: Member, threshold: int) -> int:
    """Give a fingerprinted item without a clusters row its cluster; return it."""
    cluster_id = choose_conservative(conn, item, threshold)
    _join(conn, item, cluster_id)
    return cluster_id


def add_new(conn: Connection, item: Member, fingerprint_row: dict[str, object], threshold: int,
            method: Method) -> int:
    """Store a new fingerprints row and place the item; return its cluster.
    Conservatively the cluster is chosen first, so the row is written once
    with its representative flag (the flag is in all six feature indexes)."""
    if method == "transitive":
        conn.exec_driver_sql(INSERT_FINGERPRINT, {**fingerprint_row, "is_representative": 0})
        return place_transitive(conn, item, threshold)
    cluster_id = choose_conservative(conn, item, threshold)
    flag = int(cluster_id == item.item_id)
    conn.exec_driver_sql(INSERT_FINGERPRINT, {**fingerprint_row, "is_representative": flag})
    conn.exec_driver_sql(_ADD, {"item_id": item.item_id, "sha1": item.sha1, "cluster_id": cluster_id})
    return cluster_id


def load_member(conn: Connection, item_id: int) -> Member | None:
    row = conn.exec_driver_sql(_FINGERPRINT, {"item_id": item_id}).first()
    return None if row is None else Member.from_row(row)


def id_lists(ids: Sequence[int]) -> Iterable[str]:
    """``ids`` as SQL lists of at most CHUNK integers, for ``IN (...)``
    (integers only, so nothing a caller passes can be read as SQL)."""
    for start in range(0, len(ids), CHUNK):
        yield ", ".join(str(int(i)) for i in ids[start : start + CHUNK])


def detach(conn: Connection, item_ids: Iterable[int]) -> set[int]:
    """Drop the fingerprints and clusters rows of these items; return the
    clusters they were in (which need :func:`repair`)."""
    ids = sorted(set(item_ids))
    affected: set[int] = set()
    for marks in id_lists(ids):
        affected.update(
            int(r[0]) for r in conn.exec_driver_sql(f"SELECT cluster_id FROM clusters WHERE item_id IN ({marks})")
        )
        conn.exec_driver_sql(f"DELETE FROM clusters WHERE item_id IN ({marks})")
        conn.exec_driver_sql(f"DELETE FROM fingerprints WHERE item_id IN ({marks})")
    return affected


def _members_of(conn: Connection, cluster_id: int) -> list[Member]:
    rows = conn.exec_driver_sql(_MEMBERS, {"cluster_id": cluster_id})
    return [Member.from_row(r) for r in rows]


def repair_conservative(conn: Connection, cluster_ids: Iterable[int], threshold: int) -> None:
    """Mend clusters whose representative changed or disappeared: the earliest
    remaining member is elected, and members that are not exact or near
    copies of it are clustered again, in the order they were first indexed."""
    for cluster_id in sorted(set(cluster_ids)):
        still_there = conn.exec_driver_sql(
            "SELECT 1 FROM clusters WHERE item_id = :c AND cluster_id = :c", {"c": cluster_id}
        ).first()
        if still_there is not None:
            continue
        members = _members_of(conn, cluster_id)
        if not members:
            continue
        # Take them all out first, so no lookup below can land in the
        # half-mended cluster through a member not yet placed again.
        detach_clusters_only(conn, [m.item_id for m in members])
        elected = members[0]
        _join(conn, elected, elected.item_id)
        for member in members[1:]:
            if qualifies(member, elected, threshold):
                _join(conn, member, elected.item_id)
            else:
                place_conservative(conn, member, threshold)


def detach_clusters_only(conn: Connection, item_ids: Sequence[int]) -> None:
    for marks in id_lists(list(item_ids)):
        conn.exec_driver_sql(f"DELETE FROM clusters WHERE item_id IN ({marks})")
        conn.exec_driver_sql(f"UPDATE fingerprints SET is_representative = 0 WHERE item_id IN ({marks})")


# -- transitive ---------------------------------------------------------------


class UnionFind:
    """Disjoint sets whose name is their smallest element (the earliest item)."""

    def __init__(self) -> None:
        self.parent: dict[int, int] = {}

    def find(self, x: int) -> int:
        root = self.parent.setdefault(x, x)
        while root != self.parent[root]:
            root = self.parent[root]
        while x != root:
            self.parent[x], x = root, self.parent[x]
        return root

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def near_by_features(conn: Connection, item: Member, threshold: int) -> list[int]:
    """Every other item sharing at least ``threshold`` features (index seeks)."""
    if item.features is None:
        return []
    params = {**_feature_params(item.features), "threshold": threshold}
    return [int(r[0]) for r in conn.exec_driver_sql(_NEIGHBOURS, params) if int(r[0]) != item.item_id]


def _components(conn: Connection, members: list[Member], threshold: int, inside: set[int] | None) -> UnionFind:
    """Union-find over exact copies (equal SHA-1) and near copies among
    ``members`` (all items when ``inside`` is None)."""
    sets = UnionFind()
    first_of_sha1: dict[str, int] = {}
    for member in members:
        sets.union(member.item_id, first_of_sha1.setdefault(member.sha1, member.item_id))
        for other in near_by_features(conn, member, threshold):
            if inside is None or other in inside:
                sets.union(member.item_id, other)
    return sets


def _write_components(conn: Connection, members: Iterable[Member], sets: UnionFind) -> None:
    for member in members:
        _join(conn, member, sets.find(member.item_id))


def repair_transitive(conn: Connection, cluster_ids: Iterable[int], threshold: int) -> None:
    """Recompute the components of clusters that lost or changed an item: a
    removal may split a component in two."""
    for cluster_id in sorted(set(cluster_ids)):
        members = _members_of(conn, cluster_id)
        if not members:
            continue
        detach_clusters_only(conn, [m.item_id for m in members])
        sets = _components(conn, members, threshold, {m.item_id for m in members})
        _write_components(conn, members, sets)


def place_transitive(conn: Connection, item: Member, threshold: int) -> int:
    """Link a new item to every near copy, merging their clusters."""
    clusters = {item.item_id}
    exact = conn.exec_driver_sql(_SAME_SHA1, {"sha1": item.sha1}).scalar()
    if exact is not None:
        clusters.add(int(exact))
    for other in near_by_features(conn, item, threshold):
        row = conn.exec_driver_sql("SELECT cluster_id FROM clusters WHERE item_id = :i", {"i": other}).first()
        if row is not None:
            clusters.add(int(row[0]))
    target = min(clusters)
    merged = sorted(clusters - {item.item_id, target})
    for marks in id_lists(merged):
        conn.exec_driver_sql(f"UPDATE fingerprints SET is_representative = 0 WHERE item_id IN ({marks})")
        conn.exec_driver_sql(f"UPDATE clusters SET cluster_id = {int(target)} WHERE cluster_id IN ({marks})")
    _join(conn, item, target)
    return target


def repair(conn: Connection, cluster_ids: Iterable[int], threshold: int, method: Method) -> None:
    if method == "transitive":
        repair_transitive(conn, cluster_ids, threshold)
    else:
        repair_conservative(conn, cluster_ids, threshold)


def recluster(conn: Connection, threshold: int, method: Method) -> None:
    """Rebuild the clusters table from the fingerprints, in indexing order."""
    conn.exec_driver_sql("DELETE FROM clusters")
    conn.exec_driver_sql("UPDATE fingerprints SET is_representative = 0")
    rows = conn.exec_driver_sql(
        "SELECT item_id, sha1, " + ", ".join(FEATURE_COLUMNS) + " FROM fingerprints ORDER BY item_id"
    ).all()
    members = [Member.from_row(r) for r in rows]
    if method == "conservative":
        for member in members:
            place_conservative(conn, member, threshold)
        return
    _write_components(conn, members, _components(conn, members, threshold, None))
