"""The store's clusters (seeds/000 section 3.2), kept true through every
write: the engine of :mod:`lifededup.store.engine` over the store's tables,
and the fully transitive alternative for comparison.

Conservative (the default): a new document with the SHA-1 of an indexed one
joins that one's cluster; otherwise it joins the first candidate
representative its :class:`~lifededup.store.similarity.Rule` admits --
``verified`` (default): representatives sharing a feature or at least a few of
the 84 sketch values, admitted within the word-distance and resemblance
bounds; ``features``: the design card's rule, at least ``threshold`` shared
features.  Candidates are tried most shared first; ties go to the longer text,
then the smaller SHA-1 -- never to arrival order, so that ``recluster``, which
places the texts in :func:`canonical_order` (most central first), gives the
same clusters whatever order the files were indexed in.  Members never act as
representatives.

Transitive: any two near-duplicates (by features) are linked and clusters are
the connected components (union-find), named after their earliest item.  The
paper found such chains join documents more than 50% apart (its Figure 2), so
it is only offered for comparison, never by default.

``sketch_keys`` holds the sketch values of every conservative representative
(none under transitive clustering): the candidate lookup of the verified rule.
"""

from __future__ import annotations

import math
import threading
from array import array
from collections import Counter, OrderedDict, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain, islice
from typing import TYPE_CHECKING

from sqlalchemy import Connection

from lifededup.model import shared_features
from lifededup.store import engine
from lifededup.store.candidates import BOILERPLATE_HOLDERS, feature_union, sharing_minima
from lifededup.store.dialect import Driver, driver, is_postgres
from lifededup.store.settings import FEATURE_COLUMNS
from lifededup.store.similarity import (
    EXACT,
    Method,
    Rule,
    Similarity,
    estimate_resemblance,
    estimate_resemblances,
    measure,
    measure_any,
    sketch_values,
)

if TYPE_CHECKING:  # numpy is imported where used: a search never needs it
    import numpy as np
    import numpy.typing as npt


# SQLite accepts 32766 bound variables a statement; stay far below.
CHUNK = 500


class _WordCache:
    """Texts split into words, kept across write calls (a representative is
    verified against item after item), least recently used first out.  The
    key is the SHA-1 of the normalized word stream the words are split from,
    so an entry can never be stale; the bound is in words, not texts."""

    def __init__(self, most_words: int) -> None:
        self.most_words = most_words
        self._lists: OrderedDict[str, array[int]] = OrderedDict()
        self._held = 0
        self._lock = threading.Lock()

    def get(self, sha1: str) -> array[int] | None:
        with self._lock:
            found = self._lists.get(sha1)
            if found is not None:
                self._lists.move_to_end(sha1)
            return found

    def put(self, sha1: str, words: array[int]) -> None:
        if len(words) > self.most_words:
            return
        with self._lock:
            if sha1 in self._lists:
                return
            self._lists[sha1] = words
            self._held += len(words)
            while self._held > self.most_words:
                self._held -= len(self._lists.popitem(last=False)[1])


# 32 MB of words, 8 bytes each (a hash, see _words_of): a few hundred long
# manuals, or tens of thousands of letters.  As lists of str the same
# memory held 400,000 words, and recluster over 100,000 real texts read and
# split each text again four times over: 52 s, against 35 s with ten
# times the words kept.
_WORDS = _WordCache(4_000_000)


# One index seek per feature column, then count matches per item: shared
# features are positional (feature i against feature i), so a match in column
# fi is exactly one shared feature.
# Plain SQL run with exec_driver_sql: no statement is compiled per call, and
# these run for every insert.
_REPRESENTATIVES_SHARING = (
    f"SELECT item_id, count(*) AS shared FROM ({feature_union(True)}) AS sharing "
    "GROUP BY item_id HAVING count(*) >= :threshold"
)
_NEIGHBOURS = (
    f"SELECT item_id FROM ({feature_union(False)}) AS sharing "
    "GROUP BY item_id HAVING count(*) >= :threshold"
)
_SAME_SHA1 = "SELECT cluster_id FROM clusters WHERE sha1 = :sha1 LIMIT 1"
_COPY = "SELECT cluster_id, resemblance, word_distance FROM clusters WHERE sha1 = :sha1 LIMIT 1"
# the clusters columns, with their PostgreSQL types (for a bulk write's arrays)
_CLUSTER_COLUMNS = {"item_id": "bigint", "sha1": "text", "cluster_id": "bigint", "resemblance": "float8",
                    "word_distance": "float8"}
_KEY_COLUMNS = {"value": "bigint", "item_id": "bigint"}
_ADD = (f"INSERT INTO clusters ({', '.join(_CLUSTER_COLUMNS)})"
        f" VALUES ({', '.join(':' + c for c in _CLUSTER_COLUMNS)})")
_FLAG = "UPDATE fingerprints SET is_representative = :flag WHERE item_id = :item_id"
# clusters' members admitted far from their representative (engine.gather): one statement for a new
# representative's candidates (at most Rule.candidates of them), through the cluster_id index
_FAR_MEMBERS = ("SELECT item_id, resemblance, word_distance FROM clusters WHERE cluster_id IN ({representatives})"
                " AND item_id <> cluster_id AND word_distance > :far")
_MOVE = ("UPDATE clusters SET cluster_id = :cluster_id, resemblance = :resemblance, word_distance = :word_distance"
         " WHERE item_id = :item_id")
_MEMBER_COLUMNS = "item_id, sha1, " + ", ".join(FEATURE_COLUMNS) + ", sketch, words"
_FINGERPRINT = f"SELECT {_MEMBER_COLUMNS} FROM fingerprints WHERE item_id = :item_id"
_FINGERPRINT_COLUMNS = ("item_id", "sha1", *FEATURE_COLUMNS, "sketch", "words", "shingles", "is_representative")
INSERT_FINGERPRINT = (f"INSERT INTO fingerprints ({', '.join(_FINGERPRINT_COLUMNS)}) "
                      f"VALUES ({', '.join(':' + c for c in _FINGERPRINT_COLUMNS)})")
# longest text first, then by SHA-1: an order that depends on the texts
# alone (the election of a new representative when one goes)
CANONICAL_ORDER = "words DESC, sha1, item_id"
_MEMBERS = (
    f"SELECT {', '.join('f.' + c for c in _MEMBER_COLUMNS.split(', '))}"
    " FROM clusters c JOIN fingerprints f ON f.item_id = c.item_id"
    " WHERE c.cluster_id = :cluster_id ORDER BY " + ", ".join("f." + c for c in CANONICAL_ORDER.split(", "))
)
_ADD_KEYS = "INSERT INTO sketch_keys (value, item_id) VALUES (?, ?) ON CONFLICT DO NOTHING"
_DROP_KEYS = "DELETE FROM sketch_keys WHERE value = ? AND item_id = ?"
# rows one INSERT of a bulk write carries on SQLite: 2,500 parameters at most
# (it takes 32,766).  On PostgreSQL each column goes as one array parameter:
# psycopg parses a query of more than 50 parameters anew every time, and a
# statement a row, even pipelined by executemany, cost most of a minute for
# 100,000 sketched representatives.
_ROWS_PER_INSERT = 500
_ROWS_PER_ARRAY = 50_000


@dataclass(frozen=True)
class Member:
    """What clustering needs to know of a fingerprinted item."""

    item_id: int
    sha1: str
    features: tuple[int, ...] | None
    sketch: bytes | None = field(default=None, compare=False)
    words: int = field(default=0, compare=False)

    @classmethod
    def from_row(cls, row: Sequence[object]) -> Member:
        values = row[2:8]
        features = None if values[0] is None else tuple(int(v) for v in values)  # type: ignore[call-overload]
        sketch = row[8] if len(row) > 8 else None
        words = row[9] if len(row) > 9 else 0
        return cls(item_id=int(row[0]), sha1=str(row[1]), features=features,  # type: ignore[call-overload]
                   sketch=None if sketch is None else bytes(sketch),  # type: ignore[call-overload]
                   words=int(words or 0))  # type: ignore[call-overload]


@dataclass(frozen=True)
class Settings:
    """Everything a write needs to place items: the features threshold (the
    FingerprintParams'), how many features a document has, the method and the
    admission rule."""

    threshold: int
    features: int
    method: Method = "conservative"
    rule: Rule = field(default_factory=Rule)


def _feature_params(features: tuple[int, ...]) -> dict[str, int]:
    return dict(zip(FEATURE_COLUMNS, features))


def _similarity_row(similarity: Similarity | None) -> dict[str, float | None]:
    """The clusters columns; NaN (not measured) is stored as NULL."""
    if similarity is None:
        return {"resemblance": None, "word_distance": None}
    return {name: None if math.isnan(value) else value
            for name, value in (("resemblance", similarity.resemblance),
                                ("word_distance", similarity.word_distance))}


def _cluster_row(member: Member, cluster: int, similarity: Similarity | None) -> dict[str, object]:
    """The clusters row of a placed member (``similarity`` None: a chain's, unmeasured)."""
    return {"item_id": member.item_id, "sha1": member.sha1, "cluster_id": cluster, **_similarity_row(similarity)}


def _keys_of(representatives: Sequence[Member]) -> Iterator[tuple[int, int]]:
    """The ``sketch_keys`` rows ``(value, item_id)`` of these representatives:
    each value of a sketch with its holder, each pair once, in key order (a
    bulk write appends to the primary key rather than inserting all over it)."""
    import numpy as np

    sketched = [m for m in representatives if m.sketch is not None]
    if not sketched:
        return
    values = np.concatenate([sketch_values(m.sketch or b"") for m in sketched])
    sizes = [len(m.sketch or b"") // 8 for m in sketched]
    holders = np.repeat(np.fromiter((m.item_id for m in sketched), dtype=np.int64, count=len(sketched)), sizes)
    order = np.lexsort((holders, values))
    values, holders = values[order], holders[order]
    first = np.concatenate(([True], (values[1:] != values[:-1]) | (holders[1:] != holders[:-1])))
    values, holders = values[first], holders[first]
    # as Python integers a slice at a time: 84 a representative, all at once they weigh more than the sketches
    for start in range(0, values.size, _ROWS_PER_ARRAY):
        end = start + _ROWS_PER_ARRAY
        yield from zip(values[start:end].tolist(), holders[start:end].tolist())


def _set_keys(conn: Connection, member: Member, present: bool) -> None:
    rows = list(_keys_of([member]))
    if rows:
        driver(conn).executemany(_ADD_KEYS if present else _DROP_KEYS, rows)


def _insert_many(conn: Connection, table: str, columns: Mapping[str, str], rows: Iterable[Sequence[object]]) -> None:
    """Insert ``rows`` (values in the order of ``columns``, which map to
    their PostgreSQL types), many to a statement."""
    db, batches, head = driver(conn), iter(rows), f"INSERT INTO {table} ({', '.join(columns)})"
    if is_postgres(conn):
        arrays = head + f" SELECT * FROM unnest({', '.join(f'?::{kind}[]' for kind in columns.values())})"
        while batch := list(islice(batches, _ROWS_PER_ARRAY)):
            db.execute(arrays, [list(column) for column in zip(*batch)])
        return
    marks = f"({', '.join('?' * len(columns))})"
    while batch := list(islice(batches, _ROWS_PER_INSERT)):
        db.execute(f"{head} VALUES {', '.join([marks] * len(batch))}", list(chain.from_iterable(batch)))


class _Admission:
    """What both lookups share: the ranking of candidates and the admission
    test of the rule.  A subclass says how members and their words are read,
    and which representatives share features or sketch values."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._members: dict[int, Member] = {}
        # the resemblance of the last item's candidates to it, estimated
        # together: by the two sketches (the very objects) it was estimated of
        self._estimated: dict[tuple[bytes, bytes], float] = {}

    def remember(self, member: Member) -> None:
        self._members[member.item_id] = member

    def member(self, item_id: int) -> Member:
        found = self._members.get(item_id)
        if found is None:
            found = self._load(item_id)
            self._members[item_id] = found
        return found

    def _load(self, item_id: int) -> Member:
        raise LookupError(f"item {item_id} has no fingerprint")

    def _prefetch(self, item_ids: list[int]) -> None:
        """Read these members at once (a lookup that reads one at a time
        need not)."""

    def words(self, item_id: int) -> array[int]:
        raise NotImplementedError

    def _sharing_features(self, member: Member, least: int) -> dict[int, int]:
        raise NotImplementedError

    def _sharing_minima(self, member: Member, least: int, most: int) -> dict[int, int]:
        raise NotImplementedError

    def candidates(self, item: int) -> list[int]:
        member, rule = self.member(item), self.settings.rule
        shared: dict[int, list[int]] = {}
        if member.features is not None:
            # the verified rule verifies anything sharing one feature; the
            # features rule needs `threshold` of them and nothing else
            least = 1 if rule.kind == "verified" else self.settings.threshold
            for rep, count in self._sharing_features(member, least).items():
                shared[rep] = [count, 0]
        if rule.kind == "verified" and member.sketch is not None:
            for rep, count in self._sharing_minima(member, rule.min_shared_minima, 4 * rule.candidates).items():
                shared.setdefault(rep, [0, 0])[1] = count
        shared.pop(item, None)
        self._prefetch([c for c in shared if c not in self._members])
        # a representative whose fingerprint is gone -- its item deleted by hand (sql --write), its
        # sketch_keys rows left behind: `check` names them, `recluster` mends them -- is no candidate
        for gone in [c for c in shared if not self._known(c)]:
            del shared[gone]
        ranked = sorted(shared, key=lambda c: (-shared[c][0], -shared[c][1], *self._canonical(c)))
        if rule.kind != "verified":
            return ranked
        ranked = ranked[: rule.candidates]
        if member.sketch is not None and member.features is not None:  # what admit will measure
            sketches = [s for s in (self.member(c).sketch for c in ranked) if s is not None]
            estimates = estimate_resemblances(member.sketch, sketches, self.settings.features)
            self._estimated = {(member.sketch, s): e for s, e in zip(sketches, estimates)}
        return ranked

    def _known(self, item_id: int) -> bool:
        try:
            self.member(item_id)
        except LookupError:
            return False
        return True

    def _canonical(self, item_id: int) -> tuple[int, str, int]:
        found = self.member(item_id)
        return (-found.words, found.sha1, item_id)

    def admit(self, item: int, representative: int, within: float | None = None) -> Similarity | None:
        a, b = self.member(item), self.member(representative)
        if a.sha1 == b.sha1:
            return EXACT
        if self.settings.rule.kind == "features":
            if shared_features(a.features, b.features) < self.settings.threshold:
                return None
            return measure_any(a.sketch, b.sketch, self.words(item), self.words(representative),
                               self.settings.features, self.settings.rule.max_word_distance)
        if a.features is None or b.features is None:
            return None  # short texts are exact-only (seeds/002)
        estimated = None if a.sketch is None or b.sketch is None else self._estimated.get((a.sketch, b.sketch))
        rule = self.settings.rule
        if within is not None and within < rule.max_word_distance:
            rule = replace(rule, max_word_distance=within)
            if a.sketch is not None and b.sketch is not None and estimated is None:
                # refused by the sketches before either text is read (engine.gather asks of many)
                estimated = estimate_resemblance(a.sketch, b.sketch, self.settings.features)
                if estimated < rule.min_resemblance:
                    return None
        return measure(a.sketch, b.sketch, self.words(item), self.words(representative),
                       self.settings.features, rule, estimated)

    def far_distance(self) -> float | None:
        """How far apart a member is far from its representative (``engine.gather``):
        more than half the rule's word distance; None under a rule that does not measure it."""
        rule = self.settings.rule
        return rule.max_word_distance / 2 if rule.kind == "verified" else None



def _number(value: object) -> float:
    return float("nan") if value is None else float(str(value))


class StoreRepresentatives(_Admission):
    """The engine's candidate lookup over the store's tables (one write call).

    ``pending`` holds the fingerprints rows of new items: each is written by
    :meth:`join` once its cluster is known, with its representative flag (the
    flag is in all six feature indexes, so it is written once)."""

    def __init__(self, conn: Connection, settings: Settings) -> None:
        super().__init__(settings)
        self.conn = conn
        self.db = driver(conn)
        self.pending: dict[int, dict[str, object]] = {}

    def _load(self, item_id: int) -> Member:
        found = load_member(self.conn, item_id)
        if found is None:
            raise LookupError(f"item {item_id} has no fingerprint")
        return found

    def _prefetch(self, item_ids: list[int]) -> None:
        for marks in id_lists(item_ids):
            for row in self.db.execute(f"SELECT {_MEMBER_COLUMNS} FROM fingerprints WHERE item_id IN ({marks})"):
                self.remember(Member.from_row(row))

    def words(self, item_id: int) -> array[int]:
        return _stored_words(self.db, item_id, self.member(item_id).sha1)

    def _sharing_features(self, member: Member, least: int) -> dict[int, int]:
        assert member.features is not None
        params = {**_feature_params(member.features), "threshold": least}
        return {int(r[0]): int(r[1]) for r in self.db.execute(_REPRESENTATIVES_SHARING, params)}

    def _sharing_minima(self, member: Member, least: int, most: int) -> dict[int, int]:
        assert member.sketch is not None
        values = sketch_values(member.sketch).tolist()
        return sharing_minima(self.db, is_postgres(self.conn), values, least, most, BOILERPLATE_HOLDERS)

    def copy_of(self, item: int) -> tuple[int, Similarity] | None:
        row = self.db.execute(_COPY, {"sha1": self.member(item).sha1}).fetchone()
        if row is None:
            return None
        # a copy is as close to the representative as the text it copies
        similarity = Similarity(_number(row[1]), _number(row[2]))
        return int(row[0]), similarity

    def join(self, item: int, cluster: int, similarity: Similarity) -> None:
        member = self.member(item)
        is_representative = cluster == item
        row = self.pending.pop(item, None)
        if row is not None:
            self.db.execute(INSERT_FINGERPRINT, {**row, "is_representative": bool(is_representative)})
        elif is_representative:
            self.db.execute(_FLAG, {"flag": True, "item_id": item})
        self.db.execute(_ADD, _cluster_row(member, cluster, similarity))
        if is_representative:
            _set_keys(self.conn, member, True)

    def far_members(self, representatives: Sequence[int]) -> list[tuple[int, Similarity]]:
        far = self.far_distance()
        if far is None:
            return []
        rows = chain.from_iterable(self.db.execute(_FAR_MEMBERS.format(representatives=marks), {"far": far})
                                   for marks in id_lists(representatives))
        return sorted((int(r[0]), Similarity(_number(r[1]), _number(r[2]))) for r in rows)

    def move(self, member: int, cluster: int, similarity: Similarity) -> None:
        self.db.execute(_MOVE, _cluster_row(self.member(member), cluster, similarity))


def _stored_words(db: Driver, item_id: int, sha1: str) -> array[int]:
    """The words of a stored item's text, read once while they stay cached."""
    found = _WORDS.get(sha1)
    if found is None:
        row = db.execute("SELECT text FROM items WHERE id = :i", {"i": item_id}).fetchone()
        found = _words_of(str((None if row is None else row[0]) or ""))
        _WORDS.put(sha1, found)
    return found


@dataclass(frozen=True)
class SharedKeys:
    """Of a fixed set of members, the lookup keys that some other member
    holds too: the only ones an in-memory lookup needs to index, since a key
    no one else holds finds no one.  Per item id, its shared sketch values
    (each once) and its shared ``(position, feature)`` keys; an item that
    shares none is absent."""

    values: dict[int, list[int]]
    features: dict[int, list[tuple[int, int]]]


class MemoryRepresentatives(_Admission):
    """The same lookup over members held in memory (reports' experiments):
    ``texts`` gives each item's text when the rule verifies.  Given the
    ``shared`` keys of a fixed set of members, it indexes only those."""

    def __init__(self, settings: Settings, texts: Mapping[int, str] | None = None,
                 shared: SharedKeys | None = None) -> None:
        super().__init__(settings)
        self.texts = texts or {}
        self.cluster_of: dict[int, int] = {}
        self.similarity: dict[int, Similarity] = {}
        self._first_of_sha1: dict[str, int] = {}
        self._features: defaultdict[tuple[int, int], list[int]] = defaultdict(list)
        # each value's holders as 64-bit integers side by side (array, not a
        # list of int objects): a lookup reads each list in one piece
        self._minima: defaultdict[int, array[int]] = defaultdict(lambda: array("q"))
        self._shared = shared
        self._words = _WordCache(_WORDS.most_words)
        # each cluster's members in the order they came (far_members)
        self._members_of: defaultdict[int, list[int]] = defaultdict(list)

    def words(self, item_id: int) -> array[int]:
        # kept by item id, not by SHA-1 as the store's are: a caller's texts
        # need not be the ones the SHA-1s were computed from
        key = str(item_id)
        found = self._words.get(key)
        if found is None:
            found = _words_of(self.texts.get(item_id, ""))
            self._words.put(key, found)
        return found

    def _sharing_features(self, member: Member, least: int) -> dict[int, int]:
        assert member.features is not None
        if self._shared is not None and member.item_id not in self._shared.features:
            return {}  # no other member holds any of its features
        features = self._features
        # counted in C, in the same order as one by one
        counts = Counter(chain.from_iterable(features.get(key, ()) for key in enumerate(member.features)))
        return {rep: n for rep, n in counts.items() if n >= least}

    def _sharing_minima(self, member: Member, least: int, most: int) -> dict[int, int]:
        assert member.sketch is not None
        if self._shared is not None and member.item_id not in self._shared.values:
            return {}  # no other member holds any of its sketch values
        # in the order of the set of values: the order breaks ties in most_common
        found = [holders for holders in map(self._minima.get, set(sketch_values(member.sketch).tolist()))
                 if holders and len(holders) <= BOILERPLATE_HOLDERS]
        held = sum(map(len, found))
        if held <= _COUNTED_BY_HAND:
            counts = Counter(chain.from_iterable(found))
            return {rep: n for rep, n in counts.most_common(most) if n >= least}
        return _most_common(found, held, least, most)

    def copy_of(self, item: int) -> tuple[int, Similarity] | None:
        first = self._first_of_sha1.get(self.member(item).sha1)
        return None if first is None else (self.cluster_of[first], self.similarity[first])

    def join(self, item: int, cluster: int, similarity: Similarity) -> None:
        member = self.member(item)
        self.cluster_of[item] = cluster
        self.similarity[item] = similarity
        self._first_of_sha1.setdefault(member.sha1, item)
        if cluster != item:
            self._members_of[cluster].append(item)
            return
        for key in self._feature_keys(member):
            self._features[key].append(item)
        for value in self._sketch_keys(member):
            self._minima[value].append(item)

    def far_members(self, representatives: Sequence[int]) -> list[tuple[int, Similarity]]:
        far = self.far_distance()
        if far is None:
            return []
        members = chain.from_iterable(self._members_of.get(r, ()) for r in representatives)
        return [(m, self.similarity[m]) for m in sorted(members) if self.similarity[m].word_distance > far]

    def move(self, member: int, cluster: int, similarity: Similarity) -> None:
        self._members_of[self.cluster_of[member]].remove(member)
        self._members_of[cluster].append(member)
        self.cluster_of[member] = cluster
        self.similarity[member] = similarity

    def _feature_keys(self, member: Member) -> Iterable[tuple[int, int]]:
        if self._shared is not None:
            return self._shared.features.get(member.item_id, ())
        return enumerate(member.features or ())

    def _sketch_keys(self, member: Member) -> Iterable[int]:
        if self._shared is not None:
            return self._shared.values.get(member.item_id, ())
        return () if member.sketch is None else set(sketch_values(member.sketch).tolist())


# Holders of a member's sketch values counted by a Counter up to this many;
# past it by numpy, in the same order (_most_common).  A text of real prose
# at 100,000 items meets about 300 holders in its 46 values held by any
# representative: finding and counting them was a quarter of a recluster.
_COUNTED_BY_HAND = 64


def _most_common(found: list[array[int]], held: int, least: int, most: int) -> dict[int, int]:
    """``Counter(chain(*found)).most_common(most)``, those held ``least``
    times or more, as a dict in that order -- by count, most first, ties in
    the order the holders first appear -- counted in one sort."""
    import numpy as np

    holders = np.frombuffer(b"".join(found), dtype=np.int64, count=held)
    reps, first, counts = np.unique(holders, return_index=True, return_counts=True)
    kept = counts >= least  # a prefix of the order below: filtering first takes the same `most`
    reps, first, counts = reps[kept], first[kept], counts[kept]
    order = np.lexsort((first, -counts))[:most]
    return dict(zip(reps[order].tolist(), counts[order].tolist()))


class StoredTextsRepresentatives(MemoryRepresentatives):
    """The in-memory lookup over a store's members (recluster): keys in
    memory, texts read from the store when the rule verifies a pair -- the
    text of an item about to be placed with those of the next ``CHUNK``
    in ``order`` (one query, not one a text), any other one by one."""

    def __init__(self, conn: Connection, settings: Settings, shared: SharedKeys, order: Sequence[Member]) -> None:
        super().__init__(settings, None, shared)
        self.db = driver(conn)
        self._order = [m.item_id for m in order]
        self._position = {item: n for n, item in enumerate(self._order)}
        self._read_until = 0  # positions before it were read, or needed no text
        self._texts: dict[int, str] = {}

    def words(self, item_id: int) -> array[int]:
        sha1 = self.member(item_id).sha1
        found = _WORDS.get(sha1)
        if found is not None:
            return found
        position = self._position.get(item_id, -1)
        if position >= self._read_until:
            ids = self._order[position : position + CHUNK]
            rows = self.db.execute(f"SELECT id, text FROM items WHERE id IN ({next(iter(id_lists(ids)))})")
            self._texts = {int(r[0]): str(r[1] or "") for r in rows}
            self._read_until = position + len(ids)
        text = self._texts.pop(item_id, None)
        if text is None:
            return _stored_words(self.db, item_id, sha1)
        found = _words_of(text)
        _WORDS.put(sha1, found)
        return found


# a sketch value held by more texts than this is boilerplate: it says
# nothing about which text is central
_CENTRALITY_CAP = 40


def _repeated_sketch_values(sketched: Sequence[Member]) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.int64],
                                                                    npt.NDArray[np.intp]]:
    """Each occurrence of a sketch value that occurs more than once in the
    members' sketches: its owner (index into ``sketched``), its value, and how
    many times the value occurs."""
    import numpy as np

    sizes = np.fromiter((len(m.sketch or b"") // 8 for m in sketched), dtype=np.intp, count=len(sketched))
    values = np.frombuffer(b"".join(m.sketch or b"" for m in sketched), dtype=">i8").astype(np.int64)
    ordered = np.sort(values)
    repeats = ordered[1:] == ordered[:-1]
    if not repeats.any():
        empty = np.zeros(0, dtype=np.intp)
        return empty, np.zeros(0, dtype=np.int64), empty
    if np.count_nonzero(repeats) * 8 < values.size:
        # few values repeat (an archive of mostly unique texts): look every
        # value up among those few -- a plain sort and a search cost far less
        # than sorting the positions of all
        held = ordered[1:][repeats]
        shared = held[np.concatenate(([True], held[1:] != held[:-1]))]
        times = np.searchsorted(ordered, shared, side="right") - np.searchsorted(ordered, shared)
        at = np.minimum(np.searchsorted(shared, values), shared.size - 1)
        positions = np.flatnonzero(shared[at] == values)
        counts = times[at[positions]]
    else:
        order = np.argsort(values)
        starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
        runs = np.diff(np.append(starts, values.size))
        times = np.repeat(runs, runs)
        positions = np.sort(order[times > 1])
        counts = np.empty_like(times)
        counts[order] = times
        counts = counts[positions]
    owner = np.searchsorted(np.cumsum(sizes), positions, side="right")
    return owner, values[positions], counts


def _centrality(sketched: Sequence[Member], owner: npt.NDArray[np.intp], times: npt.NDArray[np.intp]) -> dict[int, int]:
    """Each sketched member's sketch values shared with others, each value
    counted for at most ``_CENTRALITY_CAP`` holders."""
    import numpy as np

    totals = np.bincount(owner, weights=np.minimum(times, _CENTRALITY_CAP) - 1, minlength=len(sketched))
    return {m.item_id: int(t) for m, t in zip(sketched, totals.tolist())}


def _in_canonical_order(members: Sequence[Member], score: Mapping[int, int]) -> list[Member]:
    """Most central first, then the longer, the smaller SHA-1, the smaller
    item id: ``sorted`` by that key, as one numpy sort (strings compare by
    code point in both)."""
    import numpy as np

    count = len(members)
    keys = (np.fromiter((m.item_id for m in members), dtype=np.int64, count=count),
            np.array([m.sha1 for m in members], dtype=str),
            -np.fromiter((m.words for m in members), dtype=np.int64, count=count),
            -np.fromiter((score.get(m.item_id, 0) for m in members), dtype=np.int64, count=count))
    return [members[i] for i in np.lexsort(keys).tolist()]


def canonical_order(members: Sequence[Member]) -> list[Member]:
    """The order recluster places texts in, which depends on the texts alone:
    the most central first -- the text sharing the most sketch values with
    others (each value counted for at most 40 holders), a draft in the middle
    of its series rather than one of its ends -- then the longer, then the
    smaller SHA-1."""
    sketched = [m for m in members if m.sketch is not None]
    owner, _, times = _repeated_sketch_values(sketched)
    return _in_canonical_order(members, _centrality(sketched, owner, times))


def _shared_features(members: Sequence[Member]) -> dict[int, list[tuple[int, int]]]:
    """Per item id, its ``(position, feature)`` keys another member holds too."""
    import numpy as np

    featured = [m for m in members if m.features is not None]
    out: dict[int, list[tuple[int, int]]] = {}
    if not featured:
        return out
    table = np.array([m.features for m in featured], dtype=np.int64)
    ids = np.fromiter((m.item_id for m in featured), dtype=np.int64, count=len(featured))
    for position in range(table.shape[1]):
        column = table[:, position]
        ordered = np.sort(column)
        held = np.isin(column, ordered[1:][ordered[1:] == ordered[:-1]])
        for item, feature in zip(ids[held].tolist(), column[held].tolist()):
            out.setdefault(item, []).append((position, feature))
    return out


def _shared_sketch_values(sketched: Sequence[Member], owner: npt.NDArray[np.intp],
                          values: npt.NDArray[np.int64]) -> dict[int, list[int]]:
    """Per item id, its sketch values another member holds too (from
    :func:`_repeated_sketch_values`), each once."""
    import numpy as np

    if owner.size == 0:
        return {}
    # by owner (already), then value, each pair once: a value may repeat in one sketch
    order = np.lexsort((values, owner))
    owner, values = owner[order], values[order]
    first = np.concatenate(([True], (owner[1:] != owner[:-1]) | (values[1:] != values[:-1])))
    owner, values = owner[first], values[first]
    cuts = np.flatnonzero(owner[1:] != owner[:-1]) + 1
    starts = np.concatenate(([0], cuts)).tolist()
    return {sketched[o].item_id: part.tolist()
            for o, part in zip(owner[starts].tolist(), np.split(values, cuts))}


def _transitive(members: Sequence[Member], threshold: int) -> dict[int, int]:
    """Connected components of exact copies and of pairs sharing at least
    ``threshold`` features, named after their earliest item.  Only members
    sharing a feature with another are looked up."""
    sets = UnionFind()
    first_of_sha1: dict[str, int] = {}
    for member in members:
        first = first_of_sha1.setdefault(member.sha1, member.item_id)
        if first != member.item_id:
            sets.union(member.item_id, first)
    holders: defaultdict[tuple[int, int], list[int]] = defaultdict(list)
    for item, keys in sorted(_shared_features(members).items()):
        counts: dict[int, int] = {}  # few: a plain dict costs less than a Counter
        for key in keys:
            for other in holders.get(key, ()):
                counts[other] = counts.get(other, 0) + 1
        for other, n in counts.items():
            if n >= threshold:
                sets.union(item, other)
        for key in keys:
            holders[key].append(item)
    return {m.item_id: sets.find(m.item_id) for m in members}


PlacedMember = tuple[Member, int, Similarity]


# Members placed between two calls of a recluster's ``progress``.
PROGRESS_EVERY = 1000


def _place_in_memory(members: Sequence[Member],
                     lookup_over: Callable[[SharedKeys, list[Member]], MemoryRepresentatives],
                     progress: Callable[[int, int], None] | None = None) -> list[PlacedMember]:
    """Every member, its cluster and its similarity to the representative,
    placed by the engine over an in-memory lookup (made by ``lookup_over``
    from the keys members share and the order they are placed in) in
    recluster's canonical order; ``progress(placed, of)`` hears how far."""
    sketched = [m for m in members if m.sketch is not None]
    owner, values, times = _repeated_sketch_values(sketched)
    shared = SharedKeys(_shared_sketch_values(sketched, owner, values), _shared_features(members))
    order = _in_canonical_order(members, _centrality(sketched, owner, times))
    lookup = lookup_over(shared, order)
    for member in members:
        lookup.remember(member)
    # A member sharing no SHA-1, feature or sketch value with another has no
    # copy and no candidate: the engine could only make it a representative.
    copies = Counter(m.sha1 for m in members)
    for done, member in enumerate(order):
        item = member.item_id
        if copies[member.sha1] > 1 or item in shared.values or item in shared.features:
            engine.place(item, lookup)
        if progress is not None and done % PROGRESS_EVERY == 0:
            progress(done, len(order))
    if progress is not None:
        progress(len(order), len(order))
    return [(m, lookup.cluster_of.get(m.item_id, m.item_id), lookup.similarity.get(m.item_id, EXACT)) for m in order]


def cluster_members(members: Sequence[Member], settings: Settings,
                    texts: Mapping[int, str] | None = None) -> dict[int, int]:
    """Every member's cluster, formed apart from any store by the store's
    own rule and engine, in recluster's canonical order (most central first)."""
    if settings.method == "transitive":
        return _transitive(members, settings.threshold)
    placed = _place_in_memory(members, lambda shared, _: MemoryRepresentatives(settings, texts, shared))
    return {member.item_id: cluster for member, cluster, _ in placed}


def add_new(conn: Connection, item: Member, fingerprint_row: dict[str, object], settings: Settings) -> int:
    """Store a new fingerprints row and place the item; return its cluster."""
    if settings.method == "transitive":
        conn.exec_driver_sql(INSERT_FINGERPRINT, {**fingerprint_row, "is_representative": False})
        return place_transitive(conn, item, settings.threshold)
    tables = StoreRepresentatives(conn, settings)
    tables.remember(item)
    tables.pending[item.item_id] = fingerprint_row
    return engine.place(item.item_id, tables)


def load_member(conn: Connection, item_id: int) -> Member | None:
    row = conn.exec_driver_sql(_FINGERPRINT, {"item_id": item_id}).first()
    return None if row is None else Member.from_row(row)


def id_lists(ids: Sequence[int]) -> Iterable[str]:
    """``ids`` as SQL lists of at most CHUNK integers, for ``IN (...)``
    (integers only, so nothing a caller passes can be read as SQL)."""
    for start in range(0, len(ids), CHUNK):
        yield ", ".join(str(int(i)) for i in ids[start : start + CHUNK])


def _drop_representatives_keys(conn: Connection, marks: str) -> None:
    rows = conn.exec_driver_sql(
        f"SELECT {_MEMBER_COLUMNS} FROM fingerprints WHERE item_id IN ({marks}) AND is_representative = TRUE"
    )
    for row in rows.all():
        _set_keys(conn, Member.from_row(row), False)


def detach(conn: Connection, item_ids: Iterable[int]) -> set[int]:
    """Drop the fingerprints and clusters rows of these items; return the
    clusters they were in (which need :func:`repair`)."""
    ids = sorted(set(item_ids))
    affected: set[int] = set()
    for marks in id_lists(ids):
        affected.update(
            int(r[0]) for r in conn.exec_driver_sql(f"SELECT cluster_id FROM clusters WHERE item_id IN ({marks})")
        )
        _drop_representatives_keys(conn, marks)
        conn.exec_driver_sql(f"DELETE FROM clusters WHERE item_id IN ({marks})")
        conn.exec_driver_sql(f"DELETE FROM fingerprints WHERE item_id IN ({marks})")
    return affected


def _members_of(conn: Connection, cluster_id: int) -> list[Member]:
    rows = conn.exec_driver_sql(_MEMBERS, {"cluster_id": cluster_id})
    return [Member.from_row(r) for r in rows]


def repair_conservative(conn: Connection, cluster_ids: Iterable[int], settings: Settings) -> None:
    """Mend clusters whose representative changed or disappeared: the first
    remaining member in the canonical order (longest text) is elected, and
    members it does not admit are clustered again."""
    tables = StoreRepresentatives(conn, settings)
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
        for member in members:
            tables.remember(member)
        engine.repair([m.item_id for m in members], tables)


def detach_clusters_only(conn: Connection, item_ids: Sequence[int]) -> None:
    for marks in id_lists(list(item_ids)):
        _drop_representatives_keys(conn, marks)
        conn.exec_driver_sql(f"DELETE FROM clusters WHERE item_id IN ({marks})")
        conn.exec_driver_sql(f"UPDATE fingerprints SET is_representative = FALSE WHERE item_id IN ({marks})")


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


def _write_transitive(conn: Connection, member: Member, cluster_id: int) -> None:
    # members of a chain are not measured against its name: NULL similarity
    conn.exec_driver_sql(_ADD, _cluster_row(member, cluster_id, None))
    if cluster_id == member.item_id:
        conn.exec_driver_sql(_FLAG, {"flag": True, "item_id": member.item_id})


def _write_components(conn: Connection, members: Iterable[Member], sets: UnionFind) -> None:
    for member in members:
        _write_transitive(conn, member, sets.find(member.item_id))


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
        conn.exec_driver_sql(f"UPDATE fingerprints SET is_representative = FALSE WHERE item_id IN ({marks})")
        conn.exec_driver_sql(f"UPDATE clusters SET cluster_id = {int(target)} WHERE cluster_id IN ({marks})")
    _write_transitive(conn, item, target)
    return target


def repair(conn: Connection, cluster_ids: Iterable[int], settings: Settings) -> None:
    if settings.method == "transitive":
        repair_transitive(conn, cluster_ids, settings.threshold)
    else:
        repair_conservative(conn, cluster_ids, settings)


def recluster(conn: Connection, settings: Settings, progress: Callable[[int, int], None] | None = None) -> None:
    """Rebuild the clusters table from the fingerprints.  Conservatively,
    texts are placed in :func:`canonical_order`: the result depends on the
    texts alone, not on the order they were indexed in.  The clusters are
    formed in memory (the engine over :class:`StoredTextsRepresentatives`,
    the store's rule) and written at once: the rows placing one item at a
    time through :class:`StoreRepresentatives` would write, without its
    lookups.  ``progress(placed, of)`` hears how many texts are placed (a
    minute at 100,000 items), now and then."""
    members = [Member.from_row(r) for r in conn.exec_driver_sql(f"SELECT {_MEMBER_COLUMNS} FROM fingerprints")]
    placed: Sequence[tuple[Member, int, Similarity | None]]
    if settings.method == "conservative":
        placed = _place_in_memory(members, lambda shared, order: StoredTextsRepresentatives(conn, settings, shared,
                                                                                         order), progress)
    else:
        cluster_of = _transitive(members, settings.threshold)
        placed = [(m, cluster_of[m.item_id], None) for m in members]
    _write_placed(conn, placed, settings.method == "conservative")


def _write_placed(conn: Connection, placed: Sequence[tuple[Member, int, Similarity | None]], keys: bool) -> None:
    """Replace every clusters row, representative flag and (``keys``: the
    conservative lookup's) sketch key by those of ``placed``.  Only the
    flags that change are written: each is in six feature indexes."""
    db = driver(conn)
    representatives = [m for m, cluster, _ in placed if cluster == m.item_id]
    flagged = {int(r[0]) for r in db.execute("SELECT item_id FROM fingerprints WHERE is_representative = TRUE")}
    chosen = {m.item_id for m in representatives}
    for flag, ids in ((False, sorted(flagged - chosen)), (True, sorted(chosen - flagged))):
        for marks in id_lists(ids):
            db.execute(f"UPDATE fingerprints SET is_representative = {'TRUE' if flag else 'FALSE'}"
                       f" WHERE item_id IN ({marks})")
    db.execute("DELETE FROM clusters")
    rows = (_cluster_row(*row) for row in sorted(placed, key=lambda row: row[0].item_id))
    _insert_many(conn, "clusters", _CLUSTER_COLUMNS, ([row[c] for c in _CLUSTER_COLUMNS] for row in rows))
    db.execute("DELETE FROM sketch_keys")
    if keys:
        _insert_many(conn, "sketch_keys", _KEY_COLUMNS, _keys_of(representatives))


def unmeasured_members(conn: Connection, features: int) -> list[int]:
    """Near members whose stored resemblance is not that of their sketch with
    their representative's: placed by something else than this code (say by
    hand), so their stored word distance says nothing either."""
    rows = conn.exec_driver_sql(
        "SELECT c.item_id, c.resemblance, m.sketch, r.sketch FROM clusters c"
        " JOIN fingerprints m ON m.item_id = c.item_id JOIN fingerprints r ON r.item_id = c.cluster_id"
        " WHERE c.item_id != c.cluster_id AND m.sha1 != r.sha1 AND c.resemblance IS NOT NULL"
        " AND m.sketch IS NOT NULL AND r.sketch IS NOT NULL"
    )
    return [int(row[0]) for row in rows
            if abs(estimate_resemblance(bytes(row[2]), bytes(row[3]), features) - float(row[1])) > 1e-9]


# Keys are compared by how many each holder has and the sum of their values
# modulo this prime (a remainder with the dividend's sign on both backends
# and in numpy): a sum of the values themselves overflows SQLite's integers.
_KEY_CHECKSUM = 1_000_003


def misplaced_keys(conn: Connection) -> list[int]:
    """Items whose ``sketch_keys`` rows are not the values of their sketch:
    a representative missing some (its near copies would go unfound) or
    holding others, and any other item holding keys.  Compared per holder
    by count and checksum, one grouped read of the keys."""
    import numpy as np

    db = driver(conn)
    stored = {int(r[0]): (int(r[1]), int(r[2])) for r in db.execute(
        f"SELECT item_id, count(*), sum(value % {_KEY_CHECKSUM}) FROM sketch_keys GROUP BY item_id")}
    wrong = []
    for item_id, sketch in db.execute(
            "SELECT item_id, sketch FROM fingerprints WHERE is_representative = TRUE AND sketch IS NOT NULL"):
        values = np.unique(sketch_values(bytes(sketch)))
        if stored.pop(int(item_id), (0, 0)) != (values.size, int(np.fmod(values, _KEY_CHECKSUM).sum())):
            wrong.append(int(item_id))
    return sorted(wrong + list(stored))


def _words_of(text: str) -> array[int]:
    """The words verification compares (the fingerprint's word stream), each
    as its 64-bit hash (``hashed_words``), so the word cache holds that many
    more texts."""
    from lifededup.fingerprint.distance import hashed_words
    from lifededup.normalize import word_stream  # numpy: imported when a cluster is formed, not by a search

    return hashed_words(word_stream(text).split())
