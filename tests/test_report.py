"""stats (seeds/000 Tables 2 and 1) and verify (word edit distances, Figures 2
and 4): on sample_corpus/ against its ground truth and against brute force,
and on built stores whose answers are known."""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest
from click.testing import CliRunner
from corpus_store import CorpusStore, corpus_store
from hypothesis import given, settings
from hypothesis import strategies as st
from store_samples import fp, prose, revised, synthetic

from lifededup.cli import main
from lifededup.fingerprint.compare import word_edit_distance
from lifededup.normalize import word_stream
from lifededup.report import (
    ALL_PAIRS_MAX,
    Fingerprinted,
    PlotUnavailable,
    cluster_apart,
    plot_verify,
    stats,
    verify,
)
from lifededup.report.counts import paper_kind
from lifededup.store import ItemRecord, open_store


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> CorpusStore:
    return corpus_store(tmp_path_factory)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sql(db: Path, query: str) -> list[tuple[object, ...]]:
    with open_store(db, readonly=True) as store:
        return store.execute(query)[1]


# -- stats -------------------------------------------------------------------


def test_table2_matches_the_ground_truth_where_the_engine_finds_every_pair(corpus: CorpusStore) -> None:
    with open_store(corpus.db, readonly=True) as store:
        report = stats(store)
    table = report.columns[0].table2
    kind = {int(str(r[0])): paper_kind(str(r[1])) for r in sql(corpus.db, "SELECT id, kind FROM items")}
    expected_shown: Counter[str] = Counter()
    items: Counter[str] = Counter()
    for name, item_id in corpus.ids.items():
        items[kind[item_id]] += 1
        cluster = sorted(corpus.true_cluster(name), key=lambda n: corpus.ids[n])
        if cluster[0] == name:  # the truth's cluster, shown once, under its earliest item
            expected_shown[kind[item_id]] += 1
    for row in ("email", "web page"):
        got = table[row]
        assert (got.items, got.shown) == (items[row], expected_shown[row]), f"{row}: {got.to_dict()}"
    # the two document histories the engine splits (README: recall 0.83) show twice
    assert table["document"].items == items["document"]
    assert 0 <= table["document"].shown - expected_shown["document"] <= 2, table["document"].to_dict()


def test_table2_adds_up_and_agrees_with_the_store_tables(corpus: CorpusStore) -> None:
    with open_store(corpus.db, readonly=True) as store:
        column = stats(store).columns[0]
    [(objects, unique, clusters)] = sql(
        corpus.db, "SELECT count(*), count(DISTINCT f.sha1), count(DISTINCT c.cluster_id) "
        "FROM fingerprints f JOIN clusters c ON c.item_id = f.item_id")
    total = column.table2["total"]
    assert (total.items, total.unique, total.shown) == (objects, unique, clusters), total.to_dict()
    parts = [column.table2[k] for k in ("document", "email", "web page")]
    assert sum(p.items for p in parts) == total.items and sum(p.exact for p in parts) == total.exact
    assert sum(p.near for p in parts) == total.near
    assert total.reduction == pytest.approx(1 - (1 - total.exact_share) * (1 - total.near_share))
    assert (column.table1.objects, column.table1.unique, column.table1.conservative) == (objects, unique, clusters)
    assert column.table1.transitive <= column.table1.conservative, "transitive clusters are unions of conservative ones"


def test_the_idf_experiment_leaves_the_store_alone_and_behaves_at_its_extremes(corpus: CorpusStore) -> None:
    before = digest(corpus.db)
    with open_store(corpus.db, readonly=True) as store:
        # log(N/df) <= log N < 50: every term goes, so only exact copies remain;
        # 1e-9 drops only words in every text (none, stop words aside)
        report = stats(store, idf=(50.0, 1e-9))
    assert digest(corpus.db) == before, "stats --idf changed the store file"
    plain, none_left, all_kept = report.columns
    assert [c.label for c in report.columns] == ["no IDF", "IDF 50", "IDF 1e-09"]
    total = none_left.table2["total"]
    assert total.near == 0 and total.exact == plain.table2["total"].exact, total.to_dict()
    assert none_left.table1.conservative == none_left.table1.transitive == none_left.table1.unique
    assert all_kept.table2 == plain.table2 and all_kept.table1 == plain.table1


def test_stats_cli_prints_both_tables(corpus: CorpusStore) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["stats", "--db", str(corpus.db)])
    assert result.exit_code == 0, result.output
    with open_store(corpus.db, readonly=True) as store:
        column = stats(store).columns[0]
    web = column.table2["web page"]
    line = next(x for x in result.output.splitlines() if x.strip().startswith("web page"))
    assert f"{web.exact_share:.1%}" in line and f"{web.reduction:.1%}" in line, line
    assert "Table 1" in result.output and f"{column.table1.transitive:,}" in result.output
    assert "(transitive: every two items sharing 2 of 6 features linked" in result.output, "the two rules unsaid"
    data = json.loads(runner.invoke(main, ["stats", "--json", "--idf", "4.0,5.0", "--db", str(corpus.db)]).output)
    assert [c["label"] for c in data["columns"]] == ["no IDF", "IDF 4", "IDF 5"]
    bad = runner.invoke(main, ["stats", "--idf", "four", "--db", str(corpus.db)])
    assert bad.exit_code == 2 and "4.0,5.0" in bad.output, bad.output


def drafts_archive(seed: int = 5) -> list[tuple[str, str]]:
    """(kind, text) of a small archive: families of drafts drifting apart
    (a quarter of them mail, a quarter web pages), a third of them signed with
    one long signature, exact copies, and notes too short to sample."""
    rng = random.Random(seed)
    signature = prose(99, 80)
    items: list[tuple[str, str]] = []
    for family in range(12):
        kind = ("document", "email", "web page", "spreadsheet")[family % 4]
        words = prose(500 + family, rng.randint(60, 300)).split()
        for _ in range(rng.choice([1, 2, 3, 5])):
            for _ in range(rng.randint(0, len(words) // 8)):
                words[rng.randrange(len(words))] = f"d{family}x{rng.randrange(40)}"
            items.append((kind, " ".join(words) + (" " + signature if family % 3 == 0 else "")))
    items += [rng.choice(items) for _ in range(6)]
    items += [("email", "see you at noon"), ("email", "call back"), ("email", "see you at noon")]
    return items


# stats(store, idf=[0.5, 2.0]) of drafts_archive() as the code before the
# in-memory clustering was made fast printed it, the store's clusters
# conservative, then transitive: per column, Table 1 (objects, unique,
# transitive and conservative clusters), the same for both, and Table 2's
# (items, exact, near) per kind, under the store's method.  The same
# fingerprints through the same engine must give the same.
KNOWN_TABLE1 = {"no IDF": (43, 35, 34, 14), "IDF 0.5": (43, 35, 34, 25), "IDF 2": (43, 35, 35, 29)}
KNOWN_TABLE2 = {
    "conservative": {
        "no IDF": {"document": (21, 4, 11), "email": (15, 3, 7), "web page": (7, 1, 3), "total": (43, 8, 21)},
        "IDF 0.5": {"document": (21, 4, 6), "email": (15, 3, 4), "web page": (7, 1, 0), "total": (43, 8, 10)},
        "IDF 2": {"document": (21, 4, 2), "email": (15, 3, 4), "web page": (7, 1, 0), "total": (43, 8, 6)},
    },
    "transitive": {
        "no IDF": {"document": (21, 4, 1), "email": (15, 3, 0), "web page": (7, 1, 0), "total": (43, 8, 1)},
        "IDF 0.5": {"document": (21, 4, 0), "email": (15, 3, 1), "web page": (7, 1, 0), "total": (43, 8, 1)},
        "IDF 2": {"document": (21, 4, 0), "email": (15, 3, 0), "web page": (7, 1, 0), "total": (43, 8, 0)},
    },
}


def test_stats_of_an_archive_are_the_known_ones_whichever_clustering_the_store_keeps(tmp_path: Path) -> None:
    db = tmp_path / "archive.db"
    with open_store(db) as store:
        with store.transaction():
            for n, (kind, text) in enumerate(drafts_archive()):
                store.upsert_item(ItemRecord(f"/a/{n:03}.txt", kind=kind, text=text), fp(text))
        store.recluster()
        for method in ("conservative", "transitive"):  # the other one is formed apart
            store.recluster(method)
            report = stats(store, idf=[0.5, 2.0])
            table1 = {c.label: (c.table1.objects, c.table1.unique, c.table1.transitive, c.table1.conservative)
                      for c in report.columns}
            assert table1 == KNOWN_TABLE1, f"Table 1 of a {method} store: {table1}"
            table2 = {c.label: {kind: (n.items, n.exact, n.near) for kind, n in c.table2.items()}
                      for c in report.columns}
            assert table2 == KNOWN_TABLE2[method], f"Table 2 of a {method} store: {table2}"


# -- clustering apart from the store -------------------------------------------

FEATURE_POOL = st.lists(st.integers(0, 5), min_size=6, max_size=6).map(tuple)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), FEATURE_POOL), min_size=1, max_size=25))
def test_scratch_clusters_are_the_stores_own(tmp_path_factory: pytest.TempPathFactory,
                                            drawn: list[tuple[int, tuple[int, ...]]]) -> None:
    """Law: clustering apart gives the clusters the store forms when the
    same fingerprints are indexed one by one, and every conservative cluster
    lies inside one transitive cluster."""
    db = tmp_path_factory.mktemp("scratch") / "s.db"
    prints = []
    with open_store(db) as store:
        store.recluster(rule="features")  # synthetic features: the features rule alone
        for n, (text_id, small) in enumerate(drawn):
            # few distinct values, so that features collide and clusters form
            features = tuple(v * 7 + i for i, v in enumerate(small))
            fingerprint = synthetic(("text", text_id, features), features)
            item_id = store.upsert_item(ItemRecord(f"/f/{n}", text="x"), fingerprint)
            prints.append(Fingerprinted(item_id, fingerprint.sha1, fingerprint.features))
        store.recluster()  # the canonical clusters, which clustering apart forms
        _, rows = store.execute("SELECT item_id, cluster_id FROM clusters")
        params = store.params
    assert params is not None
    apart = cluster_apart(prints, params, ["conservative", "transitive"])
    assert apart["conservative"] == {int(str(a)): int(str(b)) for a, b in rows}
    inside: dict[int, set[int]] = {}
    for item, cluster in apart["conservative"].items():
        inside.setdefault(cluster, set()).add(apart["transitive"][item])
    assert all(len(t) == 1 for t in inside.values()), inside


# -- verify ------------------------------------------------------------------


def test_verify_matches_brute_force_on_the_corpus(corpus: CorpusStore) -> None:
    with open_store(corpus.db, readonly=True) as store:
        report = verify(store)
    rows = sql(corpus.db, "SELECT c.item_id, c.cluster_id, i.text FROM clusters c JOIN items i ON i.id = c.item_id")
    members: dict[int, list[tuple[int, str]]] = {}
    for item_id, cluster_id, text in rows:
        members.setdefault(int(str(cluster_id)), []).append((int(str(item_id)), word_stream(str(text))))
    want_to_rep, want_farthest = [], 0.0
    for cluster_id, items in members.items():
        rep = dict(items)[cluster_id]
        want_to_rep += [word_edit_distance(rep, words) for item, words in items if item != cluster_id]
        want_farthest = max([want_farthest] + [word_edit_distance(a[1], b[1]) for a, b in combinations(items, 2)])
    assert sorted(report.to_representative) == pytest.approx(sorted(want_to_rep))
    assert report.max_farthest == pytest.approx(want_farthest)
    assert report.clusters == sum(1 for m in members.values() if len(m) > 1)
    # the paper's bound for conservative clustering (seeds/000 Figure 4)
    assert report.max_farthest < 0.30 and report.over == [], [c.to_dict() for c in report.over]
    assert sum(n for _, _, n in report.histogram()) == len(want_to_rep)


def chain(length: int, seed: int = 3) -> list[str]:
    """Versions of one text, each one word away from the one before, at a
    random place: neighbours are near copies, the ends are not."""
    words = prose(seed, 300).split()
    rng = random.Random(seed)
    versions = [" ".join(words)]
    for step in range(length):
        words[rng.randrange(len(words))] = f"edit{step}"
        versions.append(" ".join(words))
    return versions


def store_of(db: Path, texts: list[str]) -> None:
    with open_store(db) as store, store.transaction():
        for n, text in enumerate(texts):
            store.upsert_item(ItemRecord(f"/v/{n:03}.txt", text=text), fp(text))


def test_transitive_chains_reach_further_than_conservative_clusters(tmp_path: Path) -> None:
    db = tmp_path / "chain.db"
    store_of(db, chain(40))
    with open_store(db) as store:
        # the paper's comparison (its Figures 2 and 4): both over features
        store.recluster(rule="features")
    before = digest(db)
    with open_store(db, readonly=True) as store:
        kept = verify(store)
        chained = verify(store, clustering="transitive", threshold=0.05)
    assert digest(db) == before, "verify --clustering changed the store"
    assert chained.clusters < kept.clusters, (chained.clusters, kept.clusters)
    assert chained.max_farthest > kept.max_farthest, (chained.max_farthest, kept.max_farthest)
    assert chained.over and all(c.farthest > 0.05 for c in chained.over)


def test_large_clusters_get_an_honest_bound(tmp_path: Path) -> None:
    base = prose(11, 400)
    texts = [base] + [revised(base, seed, changes=1 + seed % 3) for seed in range(ALL_PAIRS_MAX + 10)]
    db = tmp_path / "large.db"
    store_of(db, texts)
    with open_store(db, readonly=True) as store:
        report = verify(store)
    big = max(report.checks, key=lambda c: c.texts)
    assert big.texts > ALL_PAIRS_MAX and not big.exact, big
    streams = list({word_stream(t) for t in texts})
    true_farthest = max(word_edit_distance(a, b) for a, b in combinations(streams, 2))
    assert big.farthest <= true_farthest + 1e-12 <= big.upper_bound + 1e-12, (big, true_farthest)


def test_verify_cli_histogram_and_json(corpus: CorpusStore) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["verify", "--db", str(corpus.db)])
    assert result.exit_code == 0, result.output
    assert "clusters over 30%: none" in result.output and "0%-5%" in result.output, result.output
    data = json.loads(runner.invoke(main, ["verify", "--json", "--threshold", "1", "--db", str(corpus.db)]).output)
    assert data["threshold"] == 0.01 and all(c["farthest"] > 0.01 for c in data["over"]), data["over"]


def test_verify_names_another_machines_file_as_search_does(store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pair listed over the threshold on a shared store: the other
    machine's file is MACHINE:PATH, as dups, search and show print it (a
    path both machines hold was otherwise ambiguous)."""
    text = prose(7, 400)
    with open_store(store_url, machine="laptop") as store:
        store.upsert_item(ItemRecord("/home/me/report.txt", text=text), fp(text))
    near = revised(text, 1, changes=20)
    with open_store(store_url, machine="nas") as store:
        store.upsert_item(ItemRecord("/srv/share/report.txt", text=near), fp(near))
    monkeypatch.setenv("LIFEDEDUP_MACHINE", "laptop")
    out = CliRunner().invoke(main, ["verify", "--threshold", "0", "--db", store_url]).output
    assert "\n    /home/me/report.txt\n" in out and "\n    nas:/srv/share/report.txt" in out, out


def reports(db: str) -> dict[str, object]:
    """What stats, verify and eval --store say of a store (its name aside)."""
    found: dict[str, object] = {}
    for args in (["stats", "--idf", "4.0"], ["verify"], ["verify", "--clustering", "transitive"],
                 ["eval", "--store", "--sample", "200"]):
        result = CliRunner().invoke(main, [*args, "--json", "--db", db])
        assert result.exit_code == 0, f"{args} on {db}: {result.output}"
        lines = result.output.splitlines() if args[0] == "eval" else [result.output]  # eval: an object a line
        found[" ".join(args)] = [{k: v for k, v in json.loads(line).items() if k != "store"} for line in lines]
    return found


def test_the_reports_are_the_same_on_postgresql(corpus: CorpusStore, pg_url: str) -> None:
    # the corpus's store moved to the server as it is (lifededup export)
    moved = CliRunner().invoke(main, ["export", "--db", str(corpus.db), pg_url])
    assert moved.exit_code == 0, moved.output
    want, got = reports(str(corpus.db)), reports(pg_url)
    for name in want:
        assert got[name] == want[name], f"lifededup {name} differs on PostgreSQL"


def test_plots_are_png_files(corpus: CorpusStore, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason='the plot extra: pip install "lifededup[plot]"')
    runner = CliRunner()
    for command in ("stats", "verify"):
        out = tmp_path / f"{command}.png"
        result = runner.invoke(main, [command, "--plot", str(out), "--db", str(corpus.db)])
        assert result.exit_code == 0, result.output
        assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"{command} --plot did not write a PNG"


def test_without_matplotlib_the_message_says_what_to_install(corpus: CorpusStore, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises ImportError
    with open_store(corpus.db, readonly=True) as store:
        report = verify(store)
    with pytest.raises(PlotUnavailable, match=r'pip install "lifededup\[plot\]"'):
        plot_verify(report, tmp_path / "x.png")
    result = CliRunner().invoke(main, ["verify", "--plot", str(tmp_path / "x.png"), "--db", str(corpus.db)])
    assert result.exit_code == 1 and 'pip install "lifededup[plot]"' in result.output, result.output


def test_a_member_exactly_at_the_bound_counts_in_the_bar_that_ends_there(tmp_path: Path) -> None:
    """A member 30% of its words from its representative is within the 30%
    bound: the histogram counts it in the 25%-30% bar, not 30%-35% (which
    read as over the bound beside "largest distance: 30.0%")."""
    words = prose(7, 100).split()
    member = list(words)
    for place in range(0, 100, 10):  # 30 of the 100 words replaced, three in every ten
        member[place : place + 3] = ["changedword"] * 3
    rep_text, member_text = " ".join(words), " ".join(member)
    assert word_edit_distance(word_stream(rep_text), word_stream(member_text)) == pytest.approx(0.30)
    db = str(tmp_path / "bound.db")
    with open_store(db) as store:
        rep = store.upsert_item(ItemRecord("/a/report.txt", text=rep_text), fp(rep_text))
        near = store.upsert_item(ItemRecord("/a/report v2.txt", text=member_text), fp(member_text))
        with store.transaction():  # placed by hand beside the representative, as a looser rule might have
            store.execute("UPDATE clusters SET cluster_id = :rep WHERE item_id = :near", {"rep": rep, "near": near})
        report = verify(store)
    assert report.to_representative == [pytest.approx(0.30)], report.to_representative
    assert [n for _, _, n in report.histogram()][5:7] == [1, 0], report.histogram()
    shown = CliRunner().invoke(main, ["verify", "--db", db])
    assert shown.exit_code == 0 and "25%-30%  | " in shown.output and "30%-35%" not in shown.output, shown.output
