"""PostgreSQL's best matches without ranking every match (search/bounded.py,
revision 0025): ``ts_rank`` stays under the bounds the reads rely on, on
real texts and on texts built to reach them; the two reads give the best
rows that ranking every match gives; a search that uses them shows the same
page, and says "more than N matching items" past what it counts."""

from __future__ import annotations

import json
import random
import shlex
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner
from corpus_store import CorpusStore
from store_samples import fp
from test_migrations import catalog, downgrade_to, upgrade_to, write_clustered

from lifededup.cli import main
from lifededup.search import Filters, bounded, results, search
from lifededup.search.query import PG_RANK, pg_query
from lifededup.store import ItemRecord, open_reader, open_store

# queries of every shape the bound reads: a word, words ORed, words that
# must all match, a phrase, a phrase of one word twice, a word left out
QUERIES = ["the", "budget", "minutes", "river", "the OR and", "budget OR minutes", "the meeting", '"of the"',
           '"the the"', "meeting -budget", '"the meeting" OR minutes', "debian.org", "résumé"]


def tsquery_text(conn: object, query: str) -> str:
    tsquery, marked = pg_query(query)
    return str(conn.execute(f"SELECT CAST({tsquery} AS text)", {"query": marked}).fetchone()[0])  # type: ignore[attr-defined]


def test_the_bound_is_read_from_the_tsquery_postgresql_makes(pg_corpus: CorpusStore) -> None:
    with open_reader(pg_corpus.db) as reader, reader.reading() as conn:
        said = {q: tsquery_text(conn, q) for q in QUERIES + ["surv*", "-budget", '"garden plan"*', "it's"]}
    kinds = {q: bounded.rank_bound(t) for q, t in said.items()}
    words = bounded.Bound(bounded._ANY, bounded._TEXT)  # a text whose title matches none: 0.4
    anything = bounded.Bound(bounded._ANY, bounded._ANY)
    phrase = bounded.Bound(bounded._ANY, bounded._ANY, phrase=True)  # its titles sampled (plan)
    assert kinds["the"] == words and kinds["the OR and"] == words, said
    assert kinds["budget OR minutes"] == words and kinds["résumé"] == words, said
    for query in ("the meeting", "meeting -budget"):
        assert kinds[query] == anything, f"{query}: {said[query]}"
    for query in ('"of the"', '"the meeting" OR minutes'):
        assert kinds[query] == phrase, f"{query}: {said[query]}"
    # a phrase of one word twice matches a title holding it once, and ranks as the word: no text bound
    assert kinds['"the the"'] == phrase, said['"the the"']
    assert kinds["debian.org"] == phrase, f"the phrase of its words (revision 0028): {said}"
    for unbounded in ("surv*", '"garden plan"*', "-budget"):
        assert kinds[unbounded] is None, f"{unbounded}: {said[unbounded]} -> {kinds[unbounded]}"
    assert kinds["it's"] is not None, said["it's"]


def worst_cases() -> list[tuple[str, str | None, str]]:
    """(path, title, text) built to reach ts_rank's bounds: a word at every
    position a tsvector keeps, in the text alone and in both the title and
    the text (the heaviest weight first, then later), and a phrase
    repeated, beside real-sized texts of each length."""
    rng = random.Random(15)
    filler = ["harbour", "lantern", "gravel", "orchard", "ledger", "quarry", "willow", "thimble"]
    items = [("/w/river-only.txt", None, " ".join(["river"] * 400)),
             ("/w/river-title.txt", "river", " ".join(["river"] * 400)),
             ("/w/river-late.txt", "gravel river", "gravel " + " ".join(["river"] * 400)),
             ("/w/bank-river.txt", "river bank", " ".join(["river bank"] * 300)),
             ("/w/short.txt", None, "river bank"),
             ("/w/one.txt", "river", "a"),
             ("/w/people.eml", None, " ".join(["river"] * 400)),
             ("/w/title-river.txt", "river " * 600, "x"),
             ("/w/title-river-bank.txt", "river bank " * 300 + "ledger", "x")]
    for n in range(300):
        words = [rng.choice(filler) for _ in range(rng.randrange(1, 400))]
        for _ in range(rng.randrange(0, 20)):
            words.insert(rng.randrange(len(words) + 1), rng.choice(["river", "bank", "river bank"]))
        title = rng.choice([None, "river notes", "bank statement", "river bank survey", "ledger"])
        items.append((f"/w/{n:03}.txt", title, " ".join(words)))
    return items


def store_worst_cases(url: str) -> None:
    with open_store(url) as store, store.transaction():
        for path, title, text in worst_cases():
            people = "Ann River <ann@river.example>" if path.endswith(".eml") else None  # a mail's people weigh as a title
            store.upsert_item(ItemRecord(path, text=text, title=title, people=people), fp(text))


def test_ts_rank_stays_under_its_bound_on_texts_built_to_reach_it(pg_url: str) -> None:
    store_worst_cases(pg_url)
    with open_reader(pg_url) as reader, reader.reading() as conn:
        for query in ("river", "river OR bank", "river bank", '"river bank"', '"river river"', "river -bank",
                      '"river bank" OR ledger'):
            tsquery, marked = pg_query(query)
            bound = bounded.rank_bound(tsquery_text(conn, query))
            assert bound is not None, query
            top, text_only = conn.execute(
                f"SELECT max(ts_rank(f.document, {tsquery})), max(CASE WHEN NOT ts_filter(f.document, '{{a}}') "
                f"@@ {tsquery} THEN ts_rank(f.document, {tsquery}) END) FROM items_fts f "
                f"WHERE f.document @@ {tsquery}", {"query": marked}).fetchone()
            assert top <= bound.value, f"{query}: a match ranks {top} > {bound}"
            if "-" not in query:  # river -bank: calc_rank_and finds no pair of positions, 0
                assert top > 0.8 * bound.value, f"{query}: the worst case should come near {bound}: {top}"
            assert text_only <= bound.text, f"{query}: a match whose title and people do not match ranks {text_only}"
            if bound.text < bound.value:
                assert text_only > 0.9 * bound.text, f"{query}: the worst case should come near {bound}: {text_only}"


def plain_best(conn: object, query: str, k: int) -> list[tuple[int, float]]:
    tsquery, marked = pg_query(query)
    rows = conn.execute(  # type: ignore[attr-defined]
        f"SELECT f.rowid, {PG_RANK.format(tsquery=tsquery)} AS rank FROM items_fts f WHERE f.document @@ {tsquery} "
        "ORDER BY rank, f.rowid LIMIT :k", {"query": marked, "k": k}).fetchall()
    return [(int(r[0]), float(r[1])) for r in rows]


def test_the_two_reads_find_the_best_rows_ranking_every_match_finds(pg_corpus: CorpusStore, pg_url: str) -> None:
    store_worst_cases(pg_url)
    cut = 0
    for url, queries in ((pg_corpus.db, QUERIES), (pg_url, ["river", "bank", "river OR bank", "river bank",
                                                             '"river bank"', "river -bank"])):
        with open_reader(url) as reader, reader.reading() as conn:
            longest_text = int(conn.execute("SELECT max(length(document)) FROM items_fts").fetchone()[0])
            for query in queries:
                tsquery, marked = pg_query(query)
                for k in (1, 2, 5, 10, 40):
                    planned = bounded.plan(conn, tsquery, {"query": marked}, k, 30, results._pipelined)
                    assert planned is not None and planned.bound == bounded.rank_bound(tsquery_text(conn, query))
                    found = bounded.best(conn, planned, {"query": marked}, k,
                                         lambda c, sql, p: c.execute(sql, p).fetchall())
                    if found is None:
                        continue
                    assert [(int(r[0]), float(r[1])) for r in found] == plain_best(conn, query, k), (query, k)
                    longest = bounded.longest_beating(planned.bound.text, -float(found[-1][1]))
                    cut += longest is not None and longest < longest_text
    assert cut >= 10, f"the bound spared texts in only {cut} of the searches: the test shows little"


@pytest.fixture
def every_read_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reads of search.bounded for every search they can serve (whose
    choice by the planner's estimates, made for real archives' sizes, has a
    test of its own), and a count of 30 (PG_COUNTED; the SQL is the same)."""
    monkeypatch.setattr(bounded, "worth", lambda *args: True)
    monkeypatch.setattr(results, "PG_COUNTED", 30)


def test_a_page_found_by_the_bound_is_the_page_ranking_every_match_gives(pg_corpus: CorpusStore,
                                                                        every_read_bounded: None,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[str] = []
    counted = 0
    best = bounded.best
    monkeypatch.setattr(bounded, "best", lambda *a: (lambda found: found and reads.append("best") or found)(best(*a)))
    with open_reader(pg_corpus.db) as reader:
        pages = {(q, collapse, offset): search(reader, q, collapse=collapse, offset=offset, limit=3)
                 for q in ("the", "minutes", '"of the"', "the meeting", "budget OR minutes", "notes", "choir",
                           "concert OR choir", "the choir", "spare key")
                 for collapse in (True, False) for offset in (0, 3)}
        assert reads, "no page was found by the bound"
        monkeypatch.setattr(results, "_bounded", lambda *a: None)
        for (query, collapse, offset), page in pages.items():
            whole = search(reader, query, collapse=collapse, offset=offset, limit=3)
            assert [(h.id, h.rank, h.hidden, [c.id for c in h.copies]) for h in page.hits] == \
                   [(h.id, h.rank, h.hidden, [c.id for c in h.copies]) for h in whole.hits], (query, collapse, offset)
            assert whole.matches_exact
            if page.matches_exact:  # the bound spared too little (fewer heading matches than rows wanted)
                assert page.matches == whole.matches and page.rows == whole.rows, query
                continue
            counted += 1
            assert whole.matches > 30 and page.matches == 31, (query, page.matches, whole.matches)
            assert not page.rows_exact and len(page.hits) + offset <= page.rows <= whole.rows, (query, page.rows)
    assert counted >= 8, f"only {counted} pages were found by the bound"


def test_a_page_found_by_the_bound_holds_the_long_texts_found_by_their_pieces(
        pg_url: str, every_read_bounded: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """A phrase's page found by the bound ranks the items kept in pieces
    (revision 0027) whole beside its reads: every page is the one ranking
    every match gives, the long text whose only mention stands past its
    16,383rd word among them."""
    from test_search_long_texts import _topics

    long_text = _topics() + "\n\nThe minutes of the meeting were read again."
    with open_store(pg_url) as store, store.transaction():
        for n in range(40):  # longer and longer: the long text ranks among them
            words = " ".join(f"word{i}" for i in range(n * 600))
            text = f"Kept by {n} clerks: the minutes of the meeting, {words} in the ledger."
            store.upsert_item(ItemRecord(f"/m/{n}.txt", text=text, title=f"Minutes of the meeting {n}"), fp(text))
        long_id = store.upsert_item(ItemRecord("/m/topics.txt", text=long_text, title="Minutes of the meeting"),
                                    fp(long_text))
    reads: list[str] = []
    best = bounded.best
    monkeypatch.setattr(bounded, "best", lambda *a: (lambda found: found and reads.append("best") or found)(best(*a)))
    shapes = [(collapse, offset) for collapse in (True, False) for offset in range(0, 30, 5)]
    # the second leaves the long text out (a query with ! ranks every match 0: its pages rank them all)
    queries = ['"of the meeting"', 'minutes -"read again"']
    with open_reader(pg_url) as reader:
        pages = {q: [search(reader, q, collapse=c, offset=o, limit=5).hits for c, o in shapes] for q in queries}
        assert reads, "no page was found by the bound"
        monkeypatch.setattr(results, "_bounded", lambda *a: None)
        wholes = {q: [search(reader, q, collapse=c, offset=o, limit=5).hits for c, o in shapes] for q in queries}
    for query in queries:
        for (collapse, offset), page, whole in zip(shapes, pages[query], wholes[query]):
            assert [(h.id, h.rank, h.hidden) for h in page] == [(h.id, h.rank, h.hidden) for h in whole], \
                (query, collapse, offset)
    found = {q: [h.id for page in pages[q][len(shapes) // 2:] for h in page] for q in queries}
    assert long_id in found[queries[0]] and long_id not in found[queries[1]], found
    assert len(reads) >= 5, f"only {len(reads)} pages were found by the bound"


def test_the_footer_says_more_than_the_matches_it_counted(pg_corpus: CorpusStore, sqlite_corpus: CorpusStore,
                                                          every_read_bounded: None) -> None:
    with open_reader(pg_corpus.db) as reader:
        whole = search(reader, "the", limit=2)
    assert whole.matches > 30, "the corpus should hold 'the' in many items"
    out = CliRunner().invoke(main, ["search", "the", "--limit", "2", "--db", pg_corpus.db])
    assert out.exit_code == 0, out.output
    assert "more than 30 matching items, copies collapsed" in out.output, out.output
    listed = CliRunner().invoke(main, ["search", "the", "--all", "--limit", "2", "--db", pg_corpus.db])
    assert "2 of more than 30 matching items (--page N shows more)" in listed.output, listed.output
    data = json.loads(CliRunner().invoke(main, ["search", "the", "--json", "--db", pg_corpus.db]).output)
    assert data["matches_exact"] is False and data["matches"] == 31, {k: data[k] for k in data if k != "hits"}
    # SQLite ranks with FTS5, every match: counted exactly
    on_sqlite = json.loads(CliRunner().invoke(main, ["search", "the", "--json", "--db", str(sqlite_corpus.db)]).output)
    assert on_sqlite["matches_exact"] is True and on_sqlite["matches"] > 30, on_sqlite["matches"]


def test_a_filtered_search_ranks_every_match(pg_corpus: CorpusStore, every_read_bounded: None,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A filter reads the items too: the bound is not used, and the count is exact."""
    with open_reader(pg_corpus.db) as reader:
        found = search(reader, "the", Filters(path="*"), limit=5)
        prefix = search(reader, "th*", limit=5)
    assert found.matches_exact and found.matches > 30, found.matches
    assert prefix.matches_exact and prefix.matches > 30, "a prefix's rank has no bound: every match is ranked"


def write_pages(pg_url: str, pages: list[tuple[str, str]]) -> None:
    """Items of (title, text), each a cluster of its own, written as rows
    (the store's trigger makes their search rows), then analyzed: what the
    planner reads.  A store's own writes, an item at a time, took 20 s for
    1,200 of them, to the same rows."""
    open_store(pg_url).close()
    write_clustered(pg_url, [(n, "m", f"/p/{n}.txt", text) for n, (_, text) in enumerate(pages, 1)],
                    [(n, n) for n in range(1, len(pages) + 1)], {n: title for n, (title, _) in enumerate(pages, 1)})
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("ANALYZE items_fts")


def test_the_planner_says_when_the_reads_are_worth_it(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """On the planner's estimates (an analyzed table): a word in most texts
    and few titles is worth the two reads; a word in few texts, or in the
    title of most of its texts, is ranked whole."""
    rng = random.Random(3)
    words = ["harbour", "lantern", "gravel", "orchard", "ledger", "quarry", "willow", "thimble"]
    pages = []
    for n in range(1200):
        text = " ".join(rng.choice(words) for _ in range(rng.randrange(20, 200)))
        title = "harbour log" if n % 40 == 0 else ("rare note" if n % 100 == 0 else f"page {n}")
        pages.append((title, text + (" rare" if n % 100 == 0 else "")))
    write_pages(pg_url, pages)
    monkeypatch.setattr(bounded, "MIN_MATCHES", 300)
    with open_reader(pg_url) as reader, reader.reading() as conn:
        def worth(query: str, k: int = 10) -> bool:
            tsquery, marked = pg_query(query)
            planned = bounded.plan(conn, tsquery, {"query": marked}, k, 30, results._pipelined)
            return planned is not None and planned.chosen

        assert worth("harbour"), "in most texts, 30 titles: worth it"
        assert not worth("harbour", k=100), "fewer titles than rows wanted"
        assert not worth("rare"), "in 12 texts: ranked whole"
        assert not worth("harbour*"), "a prefix: no bound"


def test_a_phrase_whose_words_fill_the_titles_is_planned_by_its_own_titles(pg_url: str,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The planner estimates a phrase's titles by its words ANDed: here 400
    titles hold both words, 12 the phrase.  Reading the titles by windows of
    length for 20 rows then went through every item of each length (at the
    real-text million, 978 ms against the 314 of ranking every match); the
    titles that hold the phrase are counted instead (every item's, in a
    store this small), and 12 are fewer than 20."""
    rng = random.Random(5)
    words = ["gravel", "orchard", "ledger", "quarry", "willow", "thimble"]
    titles = ["harbour lantern" if n % 100 == 0 else ("lantern by the harbour" if n % 3 == 0 else f"page {n}")
              for n in range(1200)]
    texts = [" ".join(rng.choice(words) for _ in range(rng.randrange(20, 200))) + " harbour lantern" for _ in titles]
    write_pages(pg_url, list(zip(titles, texts)))
    monkeypatch.setattr(bounded, "MIN_MATCHES", 300)
    with open_reader(pg_url) as reader, reader.reading() as conn:
        def worth(query: str, k: int) -> bool:
            tsquery, marked = pg_query(query)
            planned = bounded.plan(conn, tsquery, {"query": marked}, k, 30, results._pipelined)
            return planned is not None and planned.chosen

        assert not worth('"harbour lantern"', 20), "12 titles hold the phrase: fewer than the rows wanted"
        assert worth('"harbour lantern"', 10), "12 titles: enough for 10 rows"
        assert worth("harbour lantern", 20), "the words alone: 400 titles"
    with open_reader(pg_url) as reader:
        paged = search(reader, '"harbour lantern"', limit=10)
    assert paged.matches == 1200 and len(paged.hits) == 10


def test_0025_indexes_the_titles_and_the_lengths_of_a_populated_store(store_url: str) -> None:
    """A store at 0024 holding items: after 0025 PostgreSQL has the two
    indexes the reads go through, and a search finds and ranks as before
    (SQLite: nothing changes); undone, they are gone."""
    upgrade_to(store_url, "0024")
    write_clustered(store_url, [(1, "m", "/a.txt", "the river bank at dawn"), (2, "m", "/b.txt", "river " * 40),
                                (3, "m", "/c.txt", "a ledger of the harbour")], [(1, 1), (2, 2), (3, 3)])
    postgres = "://" in store_url
    with open_store(store_url, readonly=True) as store:
        before = [(h.id, h.rank) for h in search(store, "river").hits]
    upgrade_to(store_url, "0025")
    with open_store(store_url) as store:
        made = {"ix_items_fts_heading", "ix_items_fts_length"} & set(catalog(store, "indexes", "items_fts"))
        assert made == ({"ix_items_fts_heading", "ix_items_fts_length"} if postgres else set()), made
        assert [(h.id, h.rank) for h in search(store, "river").hits] == before == [(2, before[0][1]), (1, before[1][1])]
    downgrade_to(store_url, "0024")
    if postgres:  # read as it is: opening a store upgrades it
        with psycopg.connect(store_url) as conn:
            left = {r[0] for r in conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'items_fts'")}
        assert left == {"items_fts_pkey", "ix_items_fts_document"}, left


def test_check_names_a_dropped_search_index_on_postgresql_and_how_to_make_it_again(pg_url: str) -> None:
    store_worst_cases(pg_url)

    def cli(*args: str) -> str:
        return CliRunner().invoke(main, [*args, "--db", pg_url]).output

    assert cli("check").startswith("ok:")
    for name in ("ix_items_fts_heading", "ix_items_fts_length", "ix_items_fts_document", "ix_items_path_bytes"):
        cli("sql", "--write", f"DROP INDEX {name}")
    out = cli("check")
    statements = [shlex.split(line.split("make it again with: ")[1])[3] for line in out.splitlines()
                  if "make it again with: lifededup sql --write" in line]
    assert len(statements) == 4 and all(n in out for n in ("heading", "length", "document", "path_bytes")), out
    for statement in statements:
        cli("sql", "--write", statement)
    assert cli("check").startswith("ok:")
    with psycopg.connect(pg_url) as conn:  # the index a page's first read goes through, made again as it was
        conn.execute("SET enable_seqscan = off")  # a table this small is read whole otherwise
        plan = "\n".join(str(r[0]) for r in conn.execute(
            "EXPLAIN SELECT 1 FROM items_fts f WHERE ts_filter(f.document, '{a}') @@ to_tsquery('simple', 'river')"))
    assert "ix_items_fts_heading" in plan, plan


def test_the_web_view_says_more_than_the_matches_it_counted(pg_corpus: CorpusStore, every_read_bounded: None,
                                                            tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from lifededup.watch import daemon as daemons
    from lifededup.web import create_app

    with TestClient(create_app(pg_corpus.db, daemon_paths=daemons.DaemonPaths(tmp_path)),
                    base_url="http://127.0.0.1:8765") as client:
        found = client.get("/search.json?q=the&limit=3").json()
        html = client.get("/?q=the&limit=3").text
    assert found["matches_exact"] is False and found["matches"] == 31, {k: found[k] for k in found if k != "hits"}
    assert "more than 30 matching items, copies collapsed" in " ".join(html.split()), html
    with TestClient(create_app(pg_corpus.db, daemon_paths=daemons.DaemonPaths(tmp_path)),
                    base_url="http://127.0.0.1:8765") as client:
        listed = " ".join(client.get("/?q=the&limit=3&all=1").text.split())
    assert "1–3 of more than 30 matching items (" in listed, "every item: the CLI's words"
