"""Reading the store: the paper's collapse of a result set (seeds/000 section
2.2 step 9), and why each member of a cluster is where it is -- read through
``reading()``, so on the driver alone (``store.reader``: ``lifededup show``
without SQLAlchemy) as well as through a ``Store``."""

from __future__ import annotations

import itertools
import os
import re
import struct
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

from lifededup.config import FingerprintParams
from lifededup.model import from_shown, name_forms, shared_features, shown, stored_path
from lifededup.store.dialect import Driver
from lifededup.store.errors import ItemNotFound, StoreError
from lifededup.store.listing import _COLUMNS, _SUMMARY, ItemSummary, _summary
from lifededup.store.reader import Readable
from lifededup.store.settings import FEATURE_COLUMNS, read_settings

if TYPE_CHECKING:  # numpy and rapidfuzz, where a page measures texts: a search never needs them
    from lifededup.fingerprint.compare import Prepared


def collapse_sql(results: str, *, postgres: bool = False) -> str:
    """Wrap a SELECT that returns ``id`` (an item id) and ``rank`` (lower is
    better, as FTS5's bm25) into the paper's step 9: left-join the result set
    with ``clusters`` and keep one row per cluster -- its best-ranked item --
    with ``hidden``, how many other results of the same cluster it stands for.
    Items without a cluster (no text) are their own group.  Bind the inner
    query's parameters when running the result.  ``postgres``: spelled for
    PostgreSQL, which has no bare columns beside an aggregate."""
    if postgres:
        return _PG_COLLAPSE.format(results=results)
    # MATERIALIZED: FTS5's bm25() may only run in the query over items_fts
    # itself, so the result set is computed first, never flattened into the
    # grouping (SQLite >= 3.35).
    return f"""WITH results AS MATERIALIZED ({results}),
shown AS (
    SELECT r.id AS id, min(r.rank) AS rank,
           coalesce(c.cluster_id, r.id) AS cluster_id, count(*) - 1 AS hidden
    FROM results r LEFT JOIN clusters c ON c.item_id = r.id
    GROUP BY coalesce(c.cluster_id, r.id)
)
SELECT i.id, i.path, i.part, i.kind, i.title, s.rank, s.cluster_id, s.hidden
FROM shown s JOIN items i ON i.id = s.id
ORDER BY s.rank, i.id"""


# the best-ranked item of each group by row_number() (lowest id among equals)
_PG_COLLAPSE = """WITH results AS MATERIALIZED ({results}),
grouped AS (
    SELECT r.id AS id, r.rank AS rank, coalesce(c.cluster_id, r.id) AS cluster_id,
           count(*) OVER (PARTITION BY coalesce(c.cluster_id, r.id)) - 1 AS hidden,
           row_number() OVER (PARTITION BY coalesce(c.cluster_id, r.id) ORDER BY r.rank, r.id) AS place
    FROM results r LEFT JOIN clusters c ON c.item_id = r.id
)
SELECT i.id, i.path, i.part, i.kind, i.title, s.rank, s.cluster_id, s.hidden
FROM grouped s JOIN items i ON i.id = s.id
WHERE s.place = 1
ORDER BY s.rank, i.id"""


@dataclass(frozen=True)
class Reason:
    """Why ``item`` is in its cluster: how it compares with the representative."""

    item: ItemSummary
    representative: bool
    exact: bool
    shared_features: int
    resemblance: float | None  # exact Jaccard of the shingle sets (None without text)
    word_edit_distance: float | None
    # False when it or its representative is too short to sample (no features): only an exact
    # copy joins such a text, and its shared features (0) say nothing -- a short note's show
    # read "representative 0/6", the note against itself
    sampled: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "item": self.item.to_dict()}


@dataclass(frozen=True)
class Nearby:
    """A text like an item's that sits in another cluster: the nearest
    member of that cluster, and how far it is from the item."""

    item: ItemSummary
    cluster_id: int
    shared_features: int
    resemblance: float
    word_edit_distance: float

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "item": self.item.to_dict()}


@dataclass(frozen=True)
class Explanation:
    item: ItemSummary
    cluster_id: int | None
    method: str
    threshold: int
    reasons: list[Reason]  # the representative first
    rule: str = "verified:30"  # the store's admission rule (Rule.spec)
    # the texts like it in other clusters (near_elsewhere), when asked for
    elsewhere: list[Nearby] = field(default_factory=list)

    def admission(self) -> str:
        """What makes a member a near copy in this cluster, in words (``show``, the web view)."""
        if self.rule == "features" or self.method == "transitive":
            return f"shares at least {self.threshold} of its 6 features with the representative"
        return f"within {self.rule.partition(':')[2]}% word edit distance of the representative, verified"

    def features_said(self) -> str:
        """What the shared features column counts, in words: under the
        verified rule a near copy may share none (its sketch found it), and
        a page of 0/6 beside near copies read as "nothing in common"."""
        said = "Shared features are how many of the 6 super-shingle features a member shares with the representative"
        if self.rule == "features" or self.method == "transitive":
            return f"{said}."
        return (f"{said}: a near copy may share none, found through its sketch (the smallest of its shingles) and "
                "admitted by its word edit distance.")

    def why(self, reason: Reason) -> str:
        """Why a member is in the cluster, in words."""
        if reason.representative:
            return "representative"
        if reason.exact:
            return "exact copy"
        return "linked (transitive)" if self.method == "transitive" else "near copy"

    def to_dict(self) -> dict[str, Any]:
        return {
            "item": self.item.to_dict(),
            "cluster_id": self.cluster_id,
            "method": self.method,
            "rule": self.rule,
            "threshold": self.threshold,
            "members": [r.to_dict() for r in self.reasons],
            "elsewhere": [n.to_dict() for n in self.elsewhere],
        }


def find_item(store: Readable, item: int | str) -> ItemSummary:
    """An item by id, or by path (its whole-file item; this machine's first on a shared store)."""
    with store.reading() as db:
        return _find(db, store, item)


def _find(db: Driver, store: Readable, item: int | str) -> ItemSummary:
    if isinstance(item, int) or item.isdecimal():
        if len(str(item)) > 19 or int(item) > 2**63 - 1:  # past SQLite's largest rowid: no such item
            raise ItemNotFound(f"no item with id {item}")
        row = db.execute(_SUMMARY + " WHERE i.id = :v", {"v": int(item)}).fetchone()
    else:
        row = _by_path(db, store, item, "")
        # PATH [PART], as a part inside a file is printed ("inbox.mbox [message 5]"); a name may hold " [" too
        splits = [i for i in range(len(item)) if item.startswith(" [", i)] if item.endswith("]") else []
        for at in splits:
            if row is not None:
                break
            row = _by_path(db, store, item[:at], item[at + 2 : -1])
            if row is None and item[:at] != item[:at].rstrip():  # pasted from aligned columns: "P  [message 4]"
                row = _by_path(db, store, item[:at].rstrip(), item[at + 2 : -1].strip())
    if row is None:
        # as typed, its controls escaped -- not repr(), which doubled every backslash of a name printed as the
        # store escapes it ("a\\" for a file named a\ came back as 'a\\\\')
        raise ItemNotFound(f"no item '{shown(str(item))}' in {store.location} (give an item id, an indexed path, "
                           "or PATH [PART] as commands print a part inside a file)")
    return _summary(row)


def _by_path(db: Driver, store: Readable, item: str, part: str) -> Any:
    """The row of the item at ``item``, a path as typed or printed (``MACHINE:`` before another machine's)."""
    machine, path_of = None, item
    named = _ON_MACHINE.fullmatch(item)
    if named is not None:  # MACHINE:PATH, as another machine's file is printed
        machine, path_of = named.group(1), named.group(2)
    # as stored, then as the absolute path an indexer stores (in its escaped form, README "items")
    real = os.path.realpath(os.path.expanduser(path_of))  # not Path.resolve: it raises on a link loop
    # and as printed (the stored escapes, \xNN for a byte, \\ for a backslash), made absolute
    printed = from_shown(os.path.abspath(os.path.expanduser(path_of)))
    typed = [*_as_typed(path_of), stored_path(path_of), stored_path(real), printed]
    # then with its names composed or decomposed (a Mac's copy typed on a keyboard, or the reverse), and
    # its part's (a zip made on a Mac names its members decomposed)
    paths = dict.fromkeys([*typed, *(form for each in typed for form in name_forms(each))])
    for path, part_form in itertools.product(paths, name_forms(part)):
        # the file or its part, one row a machine holding it (this machine's first)
        found = db.execute(_SUMMARY + " WHERE i.path = :v AND i.part = :part ORDER BY i.machine = :me DESC, i.id",
                           {"v": path, "part": part_form, "me": store.machine}).fetchall()
        if machine is not None:
            found = [r for r in found if str(r[6]) == machine]
        holders = sorted({str(r[6]) for r in found})
        if machine is None and len(holders) > 1 and store.machine not in holders:
            # a third machine asking: which of them is meant is not for it to guess
            raise ItemNotFound(f"'{shown(item)}' is a file of {len(holders)} machines: give one of "
                               + ", ".join(shown(f"{m}:{path}" + (f" [{part_form}]" if part else "")) for m in holders)
                               + " (or an item id)")
        if found:
            return found[0]
    return None


# MACHINE:PATH, the way another machine's file is printed (a machine name
# holds neither ':' nor '/').
_ON_MACHINE = re.compile(r"([^:/]+):(/.*)", re.DOTALL)


def _as_typed(path: str) -> list[str]:
    """The path as typed, if SQLite can take it (it may be a stored form: ``bad\\xff.txt``)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return []
    return [path]


_PRINTS = f"SELECT item_id, sha1, {', '.join(FEATURE_COLUMNS)} FROM fingerprints WHERE item_id IN "


def _listed(ids: list[int]) -> str:
    """``ids`` for ``IN (...)``: integers only, so nothing can be read as SQL."""
    return f"({', '.join(str(int(i)) for i in ids)})"


def _prints(db: Driver, ids: list[int]) -> dict[int, tuple[str, tuple[int, ...] | None]]:
    """The SHA-1 and features of each of ``ids`` (a cluster's members: a
    clusters row implies a fingerprints row, ``check_store``)."""
    rows = db.execute(_PRINTS + _listed(ids)).fetchall()
    return {int(r[0]): (str(r[1]), None if r[2] is None else tuple(int(v) for v in r[2:])) for r in rows}


# members whose texts are read at once: a cluster of thousands (a page
# saved at every visit) is measured a batch at a time, not held whole
_TEXTS_A_READ = 100


def _texts(db: Driver, ids: list[int]) -> dict[int, str | None]:
    rows = db.execute("SELECT id, text FROM items WHERE id IN " + _listed(ids)).fetchall()
    return {int(r[0]): None if r[1] is None else str(r[1]) for r in rows}


def _reason(member: ItemSummary, rep_id: int, prints: dict[int, tuple[str, tuple[int, ...] | None]],
            rep: Prepared | None, member_text: str | None) -> Reason:
    (sha1, features), (rep_sha1, rep_features) = prints[member.id], prints[rep_id]
    exact = sha1 == rep_sha1
    resemblance: float | None
    distance: float | None
    if member_text is None or rep is None:
        resemblance = distance = None
    elif exact:
        # the same normalized text, the representative itself included: what
        # compare() would measure, without shingling both (a cluster of 5,000
        # copies of one notice took 4.8 s to show)
        resemblance, distance = 1.0, 0.0
    else:
        # compare()'s two figures the page shows, and no others; the representative cut once for all
        from lifededup.fingerprint.compare import Prepared, exact_resemblance, moved_word_distance

        measured = Prepared(member_text, rep.params)
        resemblance, distance = exact_resemblance(rep, measured), moved_word_distance(rep, measured)
    return Reason(member, member.id == rep_id, exact, shared_features(features, rep_features), resemblance, distance,
                  features is not None and rep_features is not None)


def explain(store: Readable, item: int | str, *, elsewhere: bool = False) -> Explanation:
    """An item, its cluster, and for every member the features it shares with
    the representative and its exact resemblance to it, in one read: its
    members' fingerprints in one statement, their texts a hundred at a time.
    ``elsewhere``: with the texts like it in other clusters (:func:`near_elsewhere`)."""
    found = _explain(store, item)
    if elsewhere and found.cluster_id is not None:
        return replace(found, elsewhere=near_elsewhere(store, found.item.id))
    return found


def _explain(store: Readable, item: int | str) -> Explanation:
    with store.reading() as db:
        found = _find(db, store, item)
        stored, method, rule = read_settings(db)
        params = stored or FingerprintParams()
        row = db.execute("SELECT cluster_id FROM clusters WHERE item_id = :i", {"i": found.id}).fetchone()
        if row is None:
            return Explanation(found, None, method, params.threshold, [], rule.spec)
        cluster_id = int(row[0])
        members = [_summary(r) for r in db.execute(
            _COLUMNS + " FROM items i JOIN clusters c ON c.item_id = i.id WHERE c.cluster_id = :c"
            " ORDER BY i.id != :c, i.id", {"c": cluster_id}).fetchall()]
        prints = _prints(db, [m.id for m in members])
        unprinted = [m.id for m in members if m.id not in prints]
        if unprinted:  # the invariant check_store checks, broken (by hand, or a bug)
            raise StoreError(f"cluster {cluster_id} holds item(s) {', '.join(map(str, unprinted[:10]))} with no "
                             f"fingerprint: the store's clusters are inconsistent. `lifededup check` says what "
                             "else is; `lifededup recluster` rebuilds them")
        reasons: list[Reason] = []
        for start in range(0, len(members), _TEXTS_A_READ):
            batch = members[start:start + _TEXTS_A_READ]
            texts = _texts(db, [m.id for m in batch])
            if start == 0:  # the representative is the first member
                rep = _prepared(texts[cluster_id], params)
            reasons += [_reason(m, cluster_id, prints, rep, texts[m.id]) for m in batch]
    return Explanation(found, cluster_id, method, params.threshold, reasons, rule.spec)


def _prepared(text: str | None, params: FingerprintParams) -> Prepared | None:
    """``text`` ready to be compared with many (cut into shingles and words when first needed)."""
    if text is None:
        return None
    from lifededup.fingerprint.compare import Prepared  # numpy and rapidfuzz: not on a search's path

    return Prepared(text, params)


# How far a text in another cluster may be and still be listed beside an
# item: half its words, past the rule's 30% (which would have joined it to a
# representative), where drafts that went their own way are found.
NEAR_ELSEWHERE = 0.5
# Clusters looked into for one item, and texts measured in them (each a word
# edit distance), those most alike by their sketches first.
_ELSEWHERE_CLUSTERS = 8
_ELSEWHERE_MEASURED = 24
# members of those clusters whose sketches are read, at most
_ELSEWHERE_READ = 2_000


def near_elsewhere(store: Readable, item: int | str, *, within: float = NEAR_ELSEWHERE,
                   limit: int = 10) -> list[Nearby]:
    """The clusters other than an item's own that hold a text within
    ``within`` word edit distance of it, nearest first, each by its
    nearest member: a draft that went on too far from the first version to
    join its cluster, a re-save kept apart by the order the texts came in
    (conservative clusters admit a member by its representative alone).

    The clusters are found as clustering finds candidates -- items sharing
    one of its six features, representatives sharing a few of its sketch
    values -- then their members are ranked by their sketches' estimate and
    the likeliest measured as ``show`` measures a cluster's members."""
    from lifededup.store.candidates import feature_union, sharing_minima

    with store.reading() as db:
        found = _find(db, store, item)
        row = db.execute(f"SELECT c.cluster_id, f.sha1, {', '.join('f.' + c for c in FEATURE_COLUMNS)}, f.sketch"
                         " FROM clusters c JOIN fingerprints f ON f.item_id = c.item_id WHERE c.item_id = :i",
                         {"i": found.id}).fetchone()
        if row is None or row[2] is None:
            return []  # no text, or too short to sample: exact copies only, all in its own cluster
        own, sha1, sketch = int(row[0]), str(row[1]), None if row[8] is None else bytes(row[8])
        stored, _, rule = read_settings(db)
        params = stored or FingerprintParams()
        # item -> [features shared, sketch values shared]
        shared: dict[int, list[int]] = {}
        for r in db.execute(f"SELECT item_id, count(*) FROM ({feature_union(False)}) AS sharing GROUP BY item_id"
                            f" ORDER BY count(*) DESC, item_id LIMIT {_ELSEWHERE_READ}",
                            dict(zip(FEATURE_COLUMNS, (int(v) for v in row[2:8])))).fetchall():
            shared[int(r[0])] = [int(r[1]), 0]
        if sketch is not None:
            values = struct.unpack(f">{len(sketch) // 8}q", sketch)
            for rep, count in sharing_minima(db, store.location.url is not None, values, rule.min_shared_minima,
                                             4 * _ELSEWHERE_CLUSTERS).items():
                shared.setdefault(rep, [0, 0])[1] = count
        shared.pop(found.id, None)
        if not shared:
            return []
        # the other clusters they are in, most shared first
        cluster_of = {int(r[0]): int(r[1]) for r in db.execute(
            "SELECT item_id, cluster_id FROM clusters WHERE item_id IN " + _listed(list(shared))).fetchall()}
        ranked = sorted((c for c in cluster_of if cluster_of[c] != own), key=lambda c: (-shared[c][0], -shared[c][1], c))
        clusters = list(dict.fromkeys(cluster_of[c] for c in ranked))[:_ELSEWHERE_CLUSTERS]
        if not clusters:
            return []
        # their members, one of each text, the likeliest by the sketches' estimate (sharing features first)
        members: dict[tuple[int, str], tuple[int, bytes | None]] = {}
        for r in db.execute("SELECT c.item_id, c.cluster_id, c.sha1, f.sketch FROM clusters c"
                            " JOIN fingerprints f ON f.item_id = c.item_id WHERE c.cluster_id IN " + _listed(clusters)
                            + f" ORDER BY c.item_id LIMIT {_ELSEWHERE_READ}").fetchall():
            members.setdefault((int(r[1]), str(r[2])), (int(r[0]), None if r[3] is None else bytes(r[3])))
        likeliest = _likeliest(sketch, members, shared, params.features)[:_ELSEWHERE_MEASURED]
        placed = {item_id: cluster for (cluster, _), (item_id, _) in members.items()}
        texts = _texts(db, [found.id, *likeliest])
        summaries = {int(r[0]): _summary(r) for r in db.execute(
            _SUMMARY + " WHERE i.id IN " + _listed(likeliest)).fetchall()}
    nearest: dict[int, Nearby] = {}
    item_text = _prepared(texts.get(found.id), params)
    for candidate in likeliest:
        best = nearest.get(placed[candidate])
        # a cluster is listed by its nearest member: another of it is measured only as far as it may be nearer
        bound = within if best is None else min(within, best.word_edit_distance)
        near = None if candidate not in summaries else _near(item_text, _prepared(texts.get(candidate), params),
                                                              bound)
        if near is None:
            continue
        shared_now, resemblance, distance = near
        if best is None or (distance, candidate) < (best.word_edit_distance, best.item.id):
            nearest[placed[candidate]] = Nearby(summaries[candidate], placed[candidate], shared_now, resemblance,
                                                distance)
    return sorted(nearest.values(), key=lambda n: (n.word_edit_distance, n.item.id))[:limit]


def _near(item: Prepared | None, other: Prepared | None, within: float) -> tuple[int, float, float] | None:
    """What ``compare`` says of the two that the page shows (shared features, resemblance, word edit
    distance), or None when they are more than ``within`` apart: the distance first, cut off past
    ``within``, and the shingles cut only for a text kept."""
    if item is None or other is None:
        return None
    from lifededup.fingerprint.compare import exact_resemblance, moved_word_distance

    distance = moved_word_distance(item, other, within)
    if distance is None:
        return None
    return shared_features(item.features, other.features), exact_resemblance(item, other), distance


def _likeliest(sketch: bytes | None, members: dict[tuple[int, str], tuple[int, bytes | None]],
               shared: dict[int, list[int]], features: int) -> list[int]:
    """The members' ids, those sharing most features first, then by the
    resemblance their sketches estimate to ``sketch`` (a text sampled
    without a sketch, as a table of numbers is, by its features alone)."""
    ids = [item_id for item_id, _ in members.values()]
    estimate = dict.fromkeys(ids, 0.0)
    sketched = [(item_id, other) for item_id, other in members.values() if other is not None]
    if sketch is not None and sketched:
        from lifededup.store.similarity import estimate_resemblances

        width = {len(other) for _, other in sketched}
        if width == {len(sketch)}:  # a store's sketches are all of one size
            for (item_id, _), value in zip(sketched, estimate_resemblances(sketch, [o for _, o in sketched],
                                                                             features)):
                estimate[item_id] = value
    return sorted(ids, key=lambda i: (-shared.get(i, [0])[0], -estimate[i], i))
