"""The verified clusters on real texts in real stores: every member within
the rule's bound of its representative through inserts, changes and deletes
(hypothesis stateful test), and clusters that do not depend on the order the
files arrived in once ``recluster`` has run."""

from __future__ import annotations

import random
import shutil
import tempfile
from pathlib import Path

import hypothesis.strategies as st
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule
from store_samples import fp, prose, revised

from lifededup.fingerprint.compare import word_edit_distance
from lifededup.model import shared_features
from lifededup.normalize import word_stream
from lifededup.store import ClusterMember, ItemRecord, Store, check_store, open_store


def drifted(seed: int, base: int, share: float, words: int = 160) -> str:
    """Base text ``base`` with ``share`` of its words replaced at random
    places (new words, so that they change the shingles too)."""
    out = prose(base, words).split()
    rng = random.Random(seed)
    for position in rng.sample(range(len(out)), int(share * len(out))):
        out[position] = f"w{seed}x{position}"
    return " ".join(out)


# three families of drafts, from identical to far apart (40% of words
# replaced is beyond the default bound of 30%)
DRAFTS = [drifted(seed, base, share) for base in (1, 2, 3)
          for seed, share in enumerate((0.0, 0.02, 0.08, 0.15, 0.25, 0.4), start=10 * base)]


def partition(store: Store) -> set[frozenset[str]]:
    _, rows = store.execute("SELECT i.path, c.cluster_id FROM clusters c JOIN items i ON i.id = c.item_id")
    groups: dict[int, set[str]] = {}
    for path, cluster in rows:
        groups.setdefault(int(str(cluster)), set()).add(str(path))
    return {frozenset(g) for g in groups.values()}


def index(db: Path | str, order: list[int]) -> Store:
    store = open_store(db)
    with store.transaction():
        for n in order:
            store.upsert_item(ItemRecord(f"/drafts/{n:02}.txt", text=DRAFTS[n]), fp(DRAFTS[n]))
    return store


def test_recluster_gives_the_same_clusters_whatever_the_order(tmp_path: Path) -> None:
    forward = list(range(len(DRAFTS)))
    seen = []
    for attempt, order in enumerate([forward, forward[::-1], random.Random(7).sample(forward, len(forward))]):
        with index(tmp_path / f"{attempt}.db", order) as store:
            store.recluster()
            seen.append(partition(store))
            assert check_store(store) == [], check_store(store)
    assert seen[0] == seen[1] == seen[2], f"clusters depend on arrival order:\n{seen}"
    # and they are the clusters people mean: each family's drafts within 15%
    # of its base are together (the 25% draft may be over 30% from the
    # representative chosen), the 40% draft is alone
    for base in range(3):
        family = {f"/drafts/{6 * base + k:02}.txt" for k in range(4)}
        assert any(family <= group for group in seen[0]), (base, seen[0])
        far = f"/drafts/{6 * base + 5:02}.txt"
        assert frozenset({far}) in seen[0], (base, seen[0])


def measured(store: Store) -> dict[str, tuple[str, float | None, float | None]]:
    """Each item's representative and its stored similarity to it, by path."""
    _, rows = store.execute("SELECT i.path, r.path, c.resemblance, c.word_distance FROM clusters c"
                            " JOIN items i ON i.id = c.item_id JOIN items r ON r.id = c.cluster_id")
    return {str(p): (str(r), None if s is None else float(str(s)), None if d is None else float(str(d)))
            for p, r, s, d in rows}


@pytest.mark.parametrize("rule", ["verified", "verified:20", "features"])
def test_recluster_on_postgresql_gives_the_clusters_of_sqlite(tmp_path: Path, pg_url: str, rule: str) -> None:
    forward = list(range(len(DRAFTS)))
    with index(tmp_path / "s.db", forward) as lite, index(pg_url, forward[::-1]) as server:
        lite.recluster(rule=rule)
        server.recluster(rule=rule)
        assert measured(server) == measured(lite), f"recluster --rule {rule} differs between the backends"
        assert check_store(server) == [] and check_store(lite) == []
        lite.recluster("transitive")
        server.recluster("transitive")
        assert partition(server) == partition(lite), "transitive clusters differ between the backends"


def test_drafts_sharing_no_feature_are_verified_into_one_cluster(store_url: str) -> None:
    a, b = DRAFTS[0], DRAFTS[3]  # 15% of words apart
    assert shared_features(fp(a).features, fp(b).features) == 0, "the six-feature rule would find this pair"
    with open_store(store_url) as store:
        ia = store.upsert_item(ItemRecord("/a.txt", text=a), fp(a))
        ib = store.upsert_item(ItemRecord("/b.txt", text=b), fp(b))
        _, rows = store.execute("SELECT cluster_id, resemblance, word_distance FROM clusters WHERE item_id = ?",
                                [ib])  # type: ignore[arg-type]
        cluster_id, resemblance, distance = rows[0]
        assert cluster_id == ia, f"verified near copy not joined: {rows}"
        want = word_edit_distance(word_stream(a), word_stream(b))
        assert distance == pytest.approx(want), (distance, want)
        assert 0.0 < float(str(resemblance)) < 1.0, resemblance
        store.recluster(rule="features")
        _, rows = store.execute("SELECT cluster_id FROM clusters WHERE item_id = ?", [ib])  # type: ignore[arg-type]
        assert rows[0][0] == ib, "the features rule alone should not find this pair"


PATHS = [f"/archive/{name}.txt" for name in "abcdef"]


class VerifiedMachine(RuleBasedStateMachine):
    """Inserts, changes (an item gets another draft) and deletes, on real
    texts; after each step every member is within the rule's bound of its
    representative, measured again from the texts."""

    rule_spec = "verified"

    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="lifededup-verified-"))
        self.store = open_store(self.folder / "store.db")
        self.store.recluster(rule=self.rule_spec)
        self.model: dict[str, int] = {}

    def teardown(self) -> None:
        self.store.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    @rule(path=st.sampled_from(PATHS), draft=st.integers(0, len(DRAFTS) - 1))
    def upsert(self, path: str, draft: int) -> None:
        self.store.upsert_item(ItemRecord(path, text=DRAFTS[draft]), fp(DRAFTS[draft]))
        self.model[path] = draft

    @rule(path=st.sampled_from(PATHS))
    def delete(self, path: str) -> None:
        self.store.remove_items([path])
        self.model.pop(path, None)

    @invariant()
    def members_within_bound(self) -> None:
        _, rows = self.store.execute("SELECT i.path, r.path, c.word_distance FROM clusters c"
                                     " JOIN items i ON i.id = c.item_id JOIN items r ON r.id = c.cluster_id")
        assert len(rows) == len(self.model), (rows, self.model)
        for member, representative, stored in rows:
            a, b = DRAFTS[self.model[str(member)]], DRAFTS[self.model[str(representative)]]
            if self.rule_spec == "features":
                assert a == b or shared_features(fp(a).features, fp(b).features) >= 2, (member, representative)
                continue
            distance = word_edit_distance(word_stream(a), word_stream(b))
            assert distance <= 0.30, f"{member} is {distance:.0%} from its representative {representative}"
            assert stored == pytest.approx(distance), (member, stored, distance)
        problems = check_store(self.store)
        assert problems == [], problems


class FeaturesMachine(VerifiedMachine):
    rule_spec = "features"


TestVerifiedBounds = VerifiedMachine.TestCase
# no shrinking: each step fingerprints and measures real texts, and a
# failing sequence is short enough to read as it is
QUICK = [Phase.explicit, Phase.reuse, Phase.generate]
TestVerifiedBounds.settings = settings(max_examples=12, stateful_step_count=12, deadline=None, phases=QUICK,
                                       suppress_health_check=[HealthCheck.too_slow])
TestFeaturesBounds = FeaturesMachine.TestCase
TestFeaturesBounds.settings = settings(max_examples=8, stateful_step_count=12, deadline=None, phases=QUICK,
                                       suppress_health_check=[HealthCheck.too_slow])


def test_one_manual_in_four_formats_is_one_cluster(tmp_path: Path) -> None:
    """TXT (with a contents list and a licence), single-page HTML (with a
    menu and a footer), EPUB (a chapter a file) and a paged PDF (running
    header, page numbers, hyphenated line ends, a dotted table of contents),
    made here: indexed, they are one cluster, each member measured."""
    from manual_formats import write_manual

    from lifededup.index import IndexConfig, run

    made = write_manual(tmp_path / "manuals")
    with open_store(tmp_path / "s.db") as store:
        summary = run(store, [tmp_path / "manuals"], IndexConfig(workers=1))
        assert summary.failed == 0, summary
        _, rows = store.execute("SELECT i.path, c.cluster_id, c.word_distance FROM clusters c"
                                " JOIN items i ON i.id = c.item_id ORDER BY i.path")
        assert len(rows) == len(made), rows
        assert len({r[1] for r in rows}) == 1, f"the renderings of one manual are apart: {rows}"
        assert all(float(str(r[2])) <= 0.30 for r in rows), rows
        assert check_store(store) == []


def test_boilerplate_sketch_values_are_left_out_of_the_candidate_lookup(
        store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Five letters carrying one long signature, far apart otherwise, and a
    near copy of the first: with the boilerplate bound at 3 holders the
    signature's sketch values lead the lookup to none of the other letters
    (without it they do), the copy still joins its letter, and the store's
    lookup and the in-memory engine agree."""

    from lifededup.store import clustering
    from lifededup.store.clustering import StoreRepresentatives, cluster_members, load_member
    from lifededup.store.similarity import sketch_values

    signature = prose(99, 120)
    letters = [prose(200 + n, 150) + " " + signature for n in range(5)]
    copy = revised(letters[0], seed=5, changes=3)
    texts = [*letters, copy]

    def minima_holders(store: Store, item: int) -> set[int]:
        with store.transaction() as conn:
            settings = store._clustering(conn)
            lookup = StoreRepresentatives(conn, settings)
            member = load_member(conn, item)
            assert member is not None
            return set(lookup._sharing_minima(member, 1, 100)) - {item}

    with open_store(store_url) as store:
        ids = [store.upsert_item(ItemRecord(f"/letters/{n}.txt", text=t), fp(t)) for n, t in enumerate(texts)]
        assert len({c for c in partition(store)}) == 5, f"the letters are not near copies: {partition(store)}"
        # who holds each of the copy's sketch values, from the sketches themselves
        values = {i: set(sketch_values(fp(t).sketch or b"").tolist()) for i, t in zip(ids, texts)}
        holders = {v: {i for i in ids[:5] if v in values[i]} for v in values[ids[5]]}

        def expected(bound: int) -> set[int]:
            return {i for v, held in holders.items() if len(held) <= bound for i in held}

        assert minima_holders(store, ids[5]) == expected(5) > {ids[0]}, "the signature's values lead to other letters"
        monkeypatch.setattr(clustering, "BOILERPLATE_HOLDERS", 2)
        assert expected(2) < expected(5), "the signature must give values held by three letters or more"
        assert minima_holders(store, ids[5]) == expected(2), "values held by more than 2 letters are boilerplate"
        store.recluster()
        got = partition(store)
        assert frozenset({"/letters/0.txt", "/letters/5.txt"}) in got, got
        assert check_store(store) == [], check_store(store)
        _, rows = store.execute("SELECT item_id FROM fingerprints ORDER BY item_id")
        with store.transaction() as conn:
            members = [load_member(conn, int(str(r[0]))) for r in rows]
            settings = store._clustering(conn)
        in_memory = cluster_members([m for m in members if m is not None], settings,
                                    {i: t for i, t in zip(ids, texts)})
        groups: dict[int, set[str]] = {}
        for item, cluster in in_memory.items():
            groups.setdefault(cluster, set()).add(f"/letters/{ids.index(item)}.txt")
        assert {frozenset(g) for g in groups.values()} == got, "the store's lookup and the engine's differ"


# -- clustering apart, in memory: the same clusters as the store's --------------


def archive_of_drafts() -> list[str]:
    """Texts as an archive holds them: the draft families, letters sharing a
    long signature, exact copies, and notes too short to sample."""
    signature = prose(99, 120)
    letters = [prose(200 + n, 150) + " " + signature for n in range(6)]
    notes = ["see you at noon", "call back", "see you at noon"]
    revisions = [revised(DRAFTS[6], seed=3), revised(letters[0], seed=4, changes=2)]
    return [*DRAFTS, *letters, drifted(77, 200, 0.05, 150) + " " + signature, *revisions, DRAFTS[2], letters[3],
            *notes]


@pytest.mark.parametrize("by_hand", [64, 0])
@pytest.mark.parametrize("rule", ["verified", "features"])
def test_clustering_apart_forms_the_stores_own_clusters(tmp_path: Path, rule: str, by_hand: int,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The in-memory lookup (reports' experiments) indexes only the keys two
    members share and places a member sharing nothing without the engine:
    still the clusters, and representatives, that the store's SQL lookup
    forms on recluster -- with the signature's sketch values counted as
    boilerplate (bound 3) and without; the holders of a member's values
    counted by a Counter where few, by numpy past ``by_hand`` (0: always)."""
    from lifededup.store import clustering, engine
    from lifededup.store.clustering import MemoryRepresentatives, canonical_order, cluster_members, load_member

    monkeypatch.setattr(clustering, "_COUNTED_BY_HAND", by_hand)
    texts = archive_of_drafts()
    for bound in (clustering.BOILERPLATE_HOLDERS, 3):
        monkeypatch.setattr(clustering, "BOILERPLATE_HOLDERS", bound)
        with open_store(tmp_path / f"{rule}-{bound}.db") as store:
            with store.transaction():
                ids = [store.upsert_item(ItemRecord(f"/a/{n:02}.txt", text=t), fp(t)) for n, t in enumerate(texts)]
            store.recluster(rule=rule)
            _, rows = store.execute("SELECT item_id, cluster_id FROM clusters")
            want = {int(str(a)): int(str(b)) for a, b in rows}
            with store.transaction() as conn:
                members = [load_member(conn, i) for i in ids]
                settings = store._clustering(conn)
        placed = [m for m in members if m is not None]
        got = cluster_members(placed, settings, dict(zip(ids, texts)))
        assert got == want, f"rule {rule}, boilerplate bound {bound}: in memory {got}, the store {want}"
        every_key = MemoryRepresentatives(settings, dict(zip(ids, texts)))  # no SharedKeys: all indexed
        for member in placed:
            every_key.remember(member)
        engine.cluster_in_order([m.item_id for m in canonical_order(placed)], every_key)
        assert every_key.cluster_of == want, f"rule {rule}, bound {bound}: every key indexed, {every_key.cluster_of}"
        text_of = dict(zip(ids, texts))
        near = {c for i, c in want.items() if text_of[i] != text_of[c]}
        assert len(near) >= 2, f"fewer than two clusters of near copies: the test shows little ({want})"


def components(members: list[ClusterMember], threshold: int) -> dict[int, int]:
    """Transitive clusters by brute force: link every pair with the same
    SHA-1 or ``threshold`` shared features, name each component after its
    smallest item id."""
    name = {m.item_id: m.item_id for m in members}
    changed = True
    while changed:
        changed = False
        for a in members:
            for b in members:
                linked = a.sha1 == b.sha1 or shared_features(a.features, b.features) >= threshold
                if linked and name[a.item_id] != name[b.item_id]:
                    low = min(name[a.item_id], name[b.item_id])
                    name[a.item_id] = name[b.item_id] = low
                    changed = True
    return name


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(1, 40), min_size=1, max_size=12), max_size=20), st.integers(1, 4),
       st.integers(1, 30))
def test_holders_counted_by_numpy_are_counted_as_by_a_counter(found: list[list[int]], least: int, most: int) -> None:
    """``_most_common``: the representatives holding a member's values, by
    count, ties in the order they first appear, the first ``most`` of those
    held ``least`` times or more -- what ``Counter.most_common`` gives, the
    order included (it decides which of equal counts make the ``most``)."""
    from array import array
    from collections import Counter
    from itertools import chain

    from lifededup.store.clustering import _most_common

    want = {rep: n for rep, n in Counter(chain.from_iterable(found)).most_common(most) if n >= least}
    got = _most_common([array("q", f) for f in found], sum(map(len, found)), least, most)
    assert list(got.items()) == list(want.items())


PRINTS = st.lists(st.tuples(st.integers(0, 5), st.none() | st.tuples(*[st.integers(0, 3)] * 6)), max_size=30)


@settings(max_examples=60, deadline=None)
@given(PRINTS, st.integers(1, 3))
def test_transitive_clusters_are_the_components_of_near_pairs(drawn: list[tuple[int, tuple[int, ...] | None]],
                                                              threshold: int) -> None:
    from lifededup.store.clustering import Settings, cluster_members

    members = [ClusterMember(100 - n, f"text {text}", features) for n, (text, features) in enumerate(drawn)]
    got = cluster_members(members, Settings(threshold, 6, "transitive"))
    want = components(members, threshold)
    assert list(got.items()) == [(m.item_id, want[m.item_id]) for m in members], f"got {got}, want {want}"


def centrality_by_hand(members: list[ClusterMember]) -> list[ClusterMember]:
    """canonical_order's definition, counted one value at a time."""
    from collections import Counter

    from lifededup.store.similarity import sketch_values

    held = Counter(v for m in members if m.sketch is not None for v in sketch_values(m.sketch).tolist())
    score = {m.item_id: sum(min(held[v], 40) - 1 for v in sketch_values(m.sketch).tolist())
             for m in members if m.sketch is not None}
    return sorted(members, key=lambda m: (-score.get(m.item_id, 0), -m.words, m.sha1, m.item_id))


# a few values, the int64 extremes among them, so that sketches share some
# (a value may repeat within a sketch too) and one is held more than 40 times
VALUES = st.sampled_from([-(1 << 63), -5, 0, 1, 7, (1 << 63) - 1]) | st.integers(-(1 << 63), (1 << 63) - 1)
SKETCHED = st.lists(st.tuples(st.none() | st.lists(VALUES, min_size=4, max_size=4), st.integers(0, 3),
                              st.sampled_from(["", "a", "a0", "b", "ab"])), max_size=60)


@settings(max_examples=60, deadline=None)
@given(SKETCHED)
def test_canonical_order_is_its_definition(drawn: list[tuple[list[int] | None, int, str]]) -> None:
    import numpy as np

    from lifededup.store.clustering import canonical_order

    members = [ClusterMember(n * 7 % 61, sha1, None,
                             None if values is None else np.array(values, dtype=">i8").tobytes(), words)
               for n, (values, words, sha1) in enumerate(drawn)]
    got = [m.item_id for m in canonical_order(members)]
    want = [m.item_id for m in centrality_by_hand(members)]
    assert got == want, f"canonical order {got}, by its definition {want}"


@pytest.mark.parametrize("shared_share", [0.02, 0.5])
def test_canonical_order_is_its_definition_whether_few_or_many_values_repeat(shared_share: float) -> None:
    """canonical_order counts repeated values one way when they are few (most
    texts unique) and another when they are many: both are its definition."""
    import numpy as np

    rng = np.random.default_rng(3)
    common = rng.integers(-(1 << 63), (1 << 63) - 1, size=30, dtype=np.int64)
    members = []
    for n in range(300):
        values = rng.integers(-(1 << 63), (1 << 63) - 1, size=84, dtype=np.int64)
        shared = rng.random(84) < shared_share
        values[shared] = rng.choice(common, size=int(shared.sum()))
        members.append(ClusterMember(n, f"{rng.integers(3)}", None, values.astype(">i8").tobytes(), int(rng.integers(3))))
    from lifededup.store.clustering import canonical_order

    got = [m.item_id for m in canonical_order(members)]
    assert got == [m.item_id for m in centrality_by_hand(members)], f"shared share {shared_share}: {got[:20]}..."


# -- recluster in memory, written at once: the rows of the per-item path --------


def stored_clustering(store: Store) -> dict[str, list[tuple[object, ...]]]:
    """Everything a recluster writes, row for row (flags as booleans, so
    that both backends read alike)."""
    _, clusters = store.execute("SELECT item_id, sha1, cluster_id, resemblance, word_distance FROM clusters"
                                " ORDER BY item_id")
    _, flags = store.execute("SELECT item_id, is_representative FROM fingerprints ORDER BY item_id")
    _, keys = store.execute("SELECT value, item_id FROM sketch_keys ORDER BY value, item_id")
    return {"clusters": clusters, "flags": [(i, bool(f)) for i, f in flags], "sketch_keys": keys}


def recluster_item_by_item(store: Store) -> None:
    """What recluster did before it formed clusters in memory: every item
    placed through the store's own lookup (conservative, in canonical order),
    or the components found by the store's feature lookups (transitive)."""
    from lifededup.store import clustering, engine
    from lifededup.store.clustering import Member, StoreRepresentatives, canonical_order

    with store.transaction() as conn:
        settings = store._clustering(conn)
        conn.exec_driver_sql("DELETE FROM clusters")
        conn.exec_driver_sql("DELETE FROM sketch_keys")
        conn.exec_driver_sql("UPDATE fingerprints SET is_representative = FALSE")
        rows = conn.exec_driver_sql(f"SELECT {clustering._MEMBER_COLUMNS} FROM fingerprints ORDER BY item_id")
        members = [Member.from_row(r) for r in rows.all()]
        if settings.method == "transitive":
            sets = clustering._components(conn, members, settings.threshold, None)
            clustering._write_components(conn, members, sets)
            return
        tables = StoreRepresentatives(conn, settings)
        for member in members:
            tables.remember(member)
        engine.cluster_in_order([m.item_id for m in canonical_order(members)], tables)


def test_recluster_writes_the_rows_of_placing_item_by_item(store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """An archive of drafts, letters sharing a signature, copies and short
    notes, reclustered every way in turn (each from what the one before left,
    so flags and keys change): the bulk write leaves exactly the clusters
    rows, representative flags and sketch keys the per-item path leaves --
    with the signature's sketch values counted as boilerplate and without."""
    from lifededup.store import clustering

    texts = archive_of_drafts()
    with open_store(store_url) as store:
        with store.transaction():
            for n, text in enumerate(texts):
                store.upsert_item(ItemRecord(f"/a/{n:02}.txt", text=text), fp(text))
        for bound in (clustering.BOILERPLATE_HOLDERS, 3):
            monkeypatch.setattr(clustering, "BOILERPLATE_HOLDERS", bound)
            for method, rule in [("conservative", "verified"), ("transitive", "verified"),
                                 ("conservative", "features"), ("conservative", "verified:20")]:
                store.recluster(method, rule)  # type: ignore[arg-type]
                bulk = stored_clustering(store)
                assert check_store(store) == [], check_store(store)
                recluster_item_by_item(store)
                one_by_one = stored_clustering(store)
                for table, want in one_by_one.items():
                    assert bulk[table] == want, (f"{method} {rule}, boilerplate bound {bound}: {table} differs\n"
                                                 f"bulk       {bulk[table]}\nitem by item {want}")
                near = {r[2] for r in bulk["clusters"] if r[3] is not None and float(str(r[3])) < 1.0}
                assert method == "transitive" or len(near) >= 2, f"{method} {rule}: few near clusters {bulk}"
                assert method == "transitive" or bulk["sketch_keys"], f"{rule}: no sketch keys written"
