"""Search latency on a 100,000-item store: ``lifededup search`` collapsed
(the default) and with ``--all``, against a plain FTS5 query, in one run.

The store is filled by ``bench_store.py``'s generator and bulk fill: 40-word
Zipf-distributed texts, 85% originals, 10% near copies, 5% exact copies, with
their clusters known by construction.  Each query runs through the library
call the CLI makes (``lifededup.search.search``: bm25 ranking, the collapse of
seeds/000 step 9, one page of 20 rows with snippets, dates and the copies each
row hides), on the reader the CLI opens (``open_reader``: the driver alone),
and on a ``Store`` as the web view runs it (the same statements inside
SQLAlchemy's connection and transaction), and through the peer.

Peer: the query sqlite-utils' ``Table.search()`` runs for a page of results
-- ``SELECT ... FROM items JOIN items_fts ... WHERE items_fts MATCH ? ORDER BY
rank LIMIT 20`` -- with no collapse, no snippet, no filter.  The ratio is what
showing each document once (and saying where its copies are) costs over plain
full-text search.  Beside it, and not the targets' peer, ``peer+snippets``:
the same query with each row's snippet (FTS5's ``snippet()``; PostgreSQL's
``ts_headline`` of the text's first 20,000 characters) -- what a page shows
that the bare query does not -- for the team's choice of a peer (issue 15).

On PostgreSQL (``--db postgresql://...``, or ``--postgres`` for a throwaway
server started from Debian's package by tests/pg_server.py) the store is
filled with the same items by COPY (the store's own trigger builds each
tsvector), and the peer is the same bare page query in PostgreSQL's terms,
ranked as ``search`` ranks (``PG_RANK``), in its fastest form: the matches'
ids and ranks cut to 20 first (a top-N sort in each parallel worker), their
items after -- ``SELECT ... FROM (SELECT rowid, <rank> FROM items_fts f WHERE
f.document @@ websearch_to_tsquery(...) ORDER BY rank LIMIT 20) JOIN items``.
The join first made PostgreSQL sort every match's row whole, its tsvector
with it, on disk.

On an existing store (``--store PATH|URL``: bench_backends.py's real-text
stores, or anyone's archive) nothing is filled or emptied -- the store is
opened read-only -- and the seven query classes are chosen from that store's
own vocabulary by document frequency, at the synthetic queries' shares of the
items (``store_queries``): the word closest to 29% of the items, to 0.8%, to
0.018%; the medium and the common word together; the phrase of two common
words (each in at least 10% of the items) closest to 5.7%; the 3-4 letter
prefix closest to 5.6%; the OR of the two words closest to 1.25% each.
Words are letters only, at least four letters long (three in the phrase),
ties taken in alphabetical order.  Document
counts come from FTS5's vocabulary (``fts5vocab``, exact) on SQLite, from
``ts_stat`` over a sample of ``items_fts`` on PostgreSQL (``--sample``); where
a count is an estimate (PostgreSQL's words, every store's phrases and
prefixes) the closest few candidates are counted exactly and the closest of
those is taken.  The two backends' tokenizers differ (FTS5's unicode61 splits
``debian/rules`` and ``2.5`` into words, the 'simple' parser keeps paths,
file names and versions whole), so a word's count, and the pick, can differ
between them on the same items; ``--pick-from`` takes the queries from
another store (the SQLite twin of a PostgreSQL store, say) to time the same
queries on both.

    python benchmarks/bench_search.py                  # 100,000 items, 30 runs a query
    python benchmarks/bench_search.py --items 20000 --runs 10
    python benchmarks/bench_search.py --postgres       # the same on a throwaway PostgreSQL server
    python benchmarks/bench_search.py --db postgresql://me@dbhost/bench --items 1000000 --runs 10
    python benchmarks/bench_search.py --store /tmp/lifededup-bench-1m/store.db --runs 10   # as it is, read-only
"""

from __future__ import annotations

import argparse
import math
import os
import random
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from urllib.parse import quote

from bench_store import WORDS_PER_TEXT, Generator, bulk_fill

from lifededup.search import search
from lifededup.search.query import PG_RANK, pg_query
from lifededup.search.results import EXACT_ROWS, PG_COUNTED
from lifededup.search.snippet import HEADLINE_CHARS, SNIPPET_TOKENS
from lifededup.store import Readable, Store, open_reader, open_store
from lifededup.store.opening import needs_upgrade
from lifededup.store.searchable import TS_CONFIG

# From a term most texts hold to one almost none do (Zipf: rank r is in
# about 40 / (r * H) of the texts' words), and the other query forms.
QUERIES = {
    "common word": "w10",
    "medium word": "w500",
    "rare word": "w19990",
    "two words": "w10 w500",
    "phrase": '"w1 w2"',
    "prefix": "w199*",
    "OR": "w300 OR w301",
}
PAGE = 20

# The synthetic classes as shares of the items (their matches at 1,000,000:
# 293,861 / 7,614 / 187 / 2,197 / 57,890 / 55,791 / 25,034), which a store's
# own vocabulary is searched for (``--store``): the targets of each class.
COMMON, MEDIUM, RARE = 0.29, 0.008, 0.00018
PHRASE, PREFIX, OR_EACH = 0.057, 0.056, 0.0125
PHRASE_WORD = 0.10  # each word of the phrase in at least this share of the items
CANDIDATES = 8  # estimates closest to a target, counted exactly before one is chosen
TEXT_SAMPLE = 4_000  # items whose texts are read for adjacent pairs (phrases)


def peer_sql(snippets: bool = False) -> str:
    """The bare page query (``snippets``: with each row's FTS5 snippet, see ``measure``)."""
    snippet = f", snippet(items_fts, -1, '[', ']', '...', {SNIPPET_TOKENS})" if snippets else ""
    return (f"SELECT items.id, items.path, items.title, items_fts.rank{snippet} FROM items "
            "JOIN items_fts ON items_fts.rowid = items.id WHERE items_fts MATCH :query "
            "ORDER BY items_fts.rank LIMIT :limit")


def pg_peer_sql(query: str, snippets: bool = False) -> tuple[str, str]:
    """The same bare page query on PostgreSQL, and the text to bind as ``:query``."""
    tsquery, marked = pg_query(query)
    headline = (f", ts_headline('{TS_CONFIG}', left(items.text, {HEADLINE_CHARS}), {tsquery}, "
                f"'MaxWords={SNIPPET_TOKENS}, MinWords={SNIPPET_TOKENS - 4}')") if snippets else ""
    return (f"SELECT items.id, items.path, items.title, r.rank{headline} FROM (SELECT f.rowid, "
            f"{PG_RANK.format(tsquery=tsquery)} AS rank FROM items_fts f WHERE f.document @@ {tsquery} "
            "ORDER BY rank LIMIT :limit) AS r JOIN items ON items.id = r.rowid ORDER BY r.rank"), marked


def count_items(db: str | Path) -> int:
    """How many items the store at ``db`` holds (0 where there is none yet)."""
    if isinstance(db, Path) and not db.exists():
        return 0
    with open_store(db) as store:
        return int(str(store.execute("SELECT count(*) FROM items")[1][0][0]))


def pg_fill(url: str, gen: Generator, until: int) -> float:
    """Fill a PostgreSQL store to ``until`` items by COPY, as ``bulk_fill``
    fills an SQLite one (the same rows); seconds taken."""
    import psycopg

    from lifededup.store.records import machine_name

    machine = machine_name()  # as the store writes: each item is a machine's (revision 0009)
    start = time.perf_counter()
    with psycopg.connect(url.replace("+psycopg", "")) as conn:
        while len(gen.items) < until:
            chunk = [gen.next() for _ in range(min(50_000, until - len(gen.items)))]
            with conn.cursor() as cursor:
                with cursor.copy("COPY items (id, machine, path, part, kind, mime_type, size, mtime, title, status, "
                                 "indexed_at, text) FROM STDIN") as copy:
                    for i in chunk:
                        copy.write_row((i.item_id, machine, f"/archive/{i.item_id}.txt", "", "document", "text/plain",
                                        len(i.text), 1.7e9, f"document {i.item_id}", "ok", "2026-11-21 00:00:00",
                                        i.text))
                with cursor.copy("COPY fingerprints (item_id, sha1, f1, f2, f3, f4, f5, f6, words, shingles, "
                                 "is_representative) FROM STDIN") as copy:
                    for i in chunk:
                        copy.write_row((i.item_id, i.sha1, *i.features, WORDS_PER_TEXT, WORDS_PER_TEXT - 3,
                                        i.cluster_id == i.item_id))
                with cursor.copy("COPY clusters (item_id, sha1, cluster_id) FROM STDIN") as copy:
                    for i in chunk:
                        copy.write_row((i.item_id, i.sha1, i.cluster_id))
            conn.commit()
            print(f"  filled {len(gen.items):,}", flush=True)
        conn.execute("SELECT setval(pg_get_serial_sequence('items', 'id'), (SELECT max(id) FROM items))")
        conn.commit()
        conn.autocommit = True
        conn.execute("VACUUM ANALYZE")  # the planner's statistics, and the visibility map for index-only scans
    return time.perf_counter() - start


def fill(db: str | Path, items: int) -> None:
    """Make ``db`` a store of ``items`` synthetic items (again, if it holds another number)."""
    if count_items(db) == items:
        return
    if isinstance(db, Path):
        db.unlink(missing_ok=True)
    else:
        with open_store(db) as store:
            store.execute("TRUNCATE items, fingerprints, clusters, sketch_keys CASCADE")
    open_store(db).close()  # the schema
    print(f"filling {db} with {items:,} items")
    seconds = bulk_fill(db, Generator(), items) if isinstance(db, Path) else pg_fill(db, Generator(), items)
    print(f"  filled in {seconds:.0f} s")


@contextmanager
def throwaway_server() -> Iterator[str]:
    """A database on a PostgreSQL server of its own (tests/pg_server.py), stopped at the end."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from pg_server import Server

    server = Server.start()
    try:
        yield server.new_database("bench")
    finally:
        server.stop()


def bench_store_of(args: argparse.Namespace, run: Callable[[str | Path, int, int], None], stem: str) -> None:
    """Run the benchmark on the store the options name: a throwaway server
    (``--postgres``), a ``--db`` URL or path, else ``bench.db`` in ``--dir``
    or a new temporary folder."""
    if args.postgres:
        with throwaway_server() as url:
            run(url, args.items, args.runs)
        return
    run(args.db if args.db and "://" in args.db else
        Path(args.db) if args.db else (args.dir or Path(tempfile.mkdtemp(prefix=stem))) / "bench.db",
        args.items, args.runs)


def timings(run: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median and 95th percentile seconds, after one untimed warm-up run."""
    run()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]


def measure(store: Store, reader: Readable, query: str, runs: int) -> dict[str, tuple[float, float]]:
    """Each way's median and p95 seconds: collapsed and ``--all`` on the
    reader ``lifededup search`` opens (``open_reader``: the driver alone),
    collapsed on a ``Store`` too (SQLAlchemy's connection and transaction
    around the same statements, as the web view runs it), and the peer."""
    postgres = store.location.url is not None
    sql, bound = pg_peer_sql(query) if postgres else (peer_sql(), query)
    # the peer with a snippet of each row's text, as a page shows one: what the bare query does not do of what
    # a page does, beside the collapse, the dates and the copies.  Not the peer: timed for the team's
    # choice of one
    snippeted = pg_peer_sql(query, snippets=True)[0] if postgres else peer_sql(snippets=True)
    return {
        "collapsed": timings(lambda: search(reader, query, limit=PAGE), runs),
        "all": timings(lambda: search(reader, query, limit=PAGE, collapse=False), runs),
        "store": timings(lambda: search(store, query, limit=PAGE), runs),
        "peer": timings(lambda: store.execute(sql, {"query": bound, "limit": PAGE}), runs),
        "snippeted": timings(lambda: store.execute(snippeted, {"query": bound, "limit": PAGE}), runs),
    }


# --- queries from an existing store's own vocabulary (--store) ------------

_TOKEN = re.compile(r"[^\W_]+")  # FTS5 unicode61 and the 'simple' tsvector both split at anything else


def _is_word(term: str, shortest: int = 4) -> bool:
    return len(term) >= shortest and term.isascii() and term.isalpha()


def _closest(estimates: dict[str, float], target: float, count: int) -> list[str]:
    """The ``count`` keys whose estimate is closest to ``target`` (by ratio), ties by name."""
    return sorted((k for k, v in estimates.items() if v > 0),
                  key=lambda k: (abs(math.log(estimates[k] / target)), k))[:count]


def exact_count(store: Store, query: str) -> int:
    """How many items match ``query``: the bare full-text count, no ranking."""
    if store.location.url is not None:
        tsquery, bound = pg_query(query)
        sql = f"SELECT count(*) FROM items_fts f WHERE f.document @@ {tsquery}"
    else:
        sql, bound = "SELECT count(*) FROM items_fts WHERE items_fts MATCH :query", query
    return int(str(store.execute(sql, {"query": bound})[1][0][0]))


def document_counts(store: Store, sample: float) -> tuple[dict[str, float], bool]:
    """Each term's number of items (scaled up from a sample on PostgreSQL),
    and whether the counts are exact."""
    if store.location.url is None:
        # a connection of our own: the store's read-only one may not create
        # even a temporary table; mode=ro leaves the file as it is
        path = quote(str(store.location.file.resolve()))
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
            conn.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, items_fts, row)")
            return {term: float(doc) for term, doc in conn.execute("SELECT term, doc FROM temp.v")}, True
    percent = f"{100 * sample:g}"
    rows = store.execute("SELECT word, ndoc FROM ts_stat("
                         f"'SELECT document FROM items_fts TABLESAMPLE BERNOULLI ({percent}) REPEATABLE (6)')")[1]
    return {str(word): int(str(ndoc)) / sample for word, ndoc in rows}, False


def sample_texts(store: Store, count: int) -> list[str]:
    """The texts of ``count`` items picked at random (the same ones every run)."""
    low, high = (int(str(v)) for v in store.execute("SELECT min(id), max(id) FROM items")[1][0])
    ids = sorted(random.Random(6).sample(range(low, high + 1), min(count, high - low + 1)))
    rows = store.execute(f"SELECT title, text FROM items WHERE id IN ({', '.join(map(str, ids))})")[1]
    return [f"{title or ''} {str(text or '')[:100_000]}" for title, text in rows]


def store_queries(store: Store, items: int, sample: float) -> dict[str, str]:
    """The seven classes' queries, picked from the store's own vocabulary."""
    start = time.perf_counter()
    counts, exact = document_counts(store, sample)
    print(f"  {len(counts):,} terms' document counts in {time.perf_counter() - start:.0f} s "
          + ("(fts5vocab, exact)" if exact else f"(ts_stat over a {sample:.0%} sample, scaled)"), flush=True)
    words = {t: c for t, c in counts.items() if _is_word(t)}
    taken: set[str] = set()

    def pick(estimates: dict[str, float], target: float, query: Callable[[str], str] = str,
             is_exact: bool = False) -> str:
        """The candidate closest to ``target`` share, counted exactly unless ``is_exact``."""
        free = {k: v for k, v in estimates.items() if k not in taken}
        shortlist = _closest(free, target * items, 1 if is_exact else CANDIDATES)
        if not is_exact:
            free = {k: float(exact_count(store, query(k))) for k in shortlist}
            shortlist = _closest(free, target * items, 1)
        taken.add(shortlist[0])
        return shortlist[0]

    common = pick(words, COMMON, is_exact=exact)
    medium = pick(words, MEDIUM, is_exact=exact)
    rare = pick(words, RARE, is_exact=exact)
    either = pick(words, OR_EACH, is_exact=exact)
    other = pick(words, OR_EACH, is_exact=exact)
    # adjacent pairs of common words, by how many of the sampled texts hold them
    frequent = {t for t, c in counts.items() if _is_word(t, 3) and c >= PHRASE_WORD * items}
    pairs: Counter[str] = Counter()
    texts = sample_texts(store, TEXT_SAMPLE)
    for text in texts:
        tokens = _TOKEN.findall(text.lower())
        pairs.update({f"{a} {b}" for a, b in zip(tokens, tokens[1:]) if a in frequent and b in frequent})
    phrase = pick({p: n * items / len(texts) for p, n in pairs.items()}, PHRASE, lambda p: f'"{p}"')
    # a prefix's items: at most the sum of its words' (a text may hold several)
    prefixes: dict[str, float] = {}
    for term, c in counts.items():
        for length in (3, 4):
            if _is_word(term, length):
                prefixes[term[:length]] = prefixes.get(term[:length], 0.0) + c
    prefix = pick(prefixes, PREFIX, lambda p: f"{p}*")
    return {
        "common word": common,
        "medium word": medium,
        "rare word": rare,
        "two words": f"{common} {medium}",
        "phrase": f'"{phrase}"',
        "prefix": f"{prefix}*",
        "OR": f"{either} OR {other}",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--dir", type=Path, default=None,
                        help="where to build the store (default: a temp dir); a store of --items items "
                        "already there is used again")
    parser.add_argument("--db", default=None, metavar="PATH|URL",
                        help="the store to build (or use again, if it holds --items items): an SQLite path or a "
                        "postgresql:// URL (its tables are emptied first)")
    parser.add_argument("--postgres", action="store_true",
                        help="bench a store on a throwaway PostgreSQL server (tests/pg_server.py)")
    parser.add_argument("--store", default=None, metavar="PATH|URL",
                        help="bench an existing store as it is, read-only, with queries from its own vocabulary "
                        "(nothing filled or emptied; --items is ignored)")
    parser.add_argument("--pick-from", default=None, metavar="PATH|URL",
                        help="with --store: pick the queries from this store's vocabulary instead (the same "
                        "items on the other backend, to time the same queries on both)")
    parser.add_argument("--sample", type=float, default=0.05,
                        help="with --store on PostgreSQL: the share of items_fts whose words ts_stat counts "
                        "(default 0.05)")
    args = parser.parse_args()
    if args.store:
        run_store(_target(args.store), args.runs, args.sample, _target(args.pick_from or args.store))
        return
    bench_store_of(args, run, "bench-search-")


def _target(store: str) -> str | Path:
    return store if "://" in store else Path(store)


def load_average() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def run_store(target: str | Path, runs: int, sample: float, source: str | Path) -> None:
    """The benchmark on an existing store, as it is: nothing filled or emptied;
    the queries picked from ``source``'s vocabulary (the store itself, unless told)."""
    for store_at in (target, source):
        if isinstance(store_at, Path) and not store_at.is_file():
            sys.exit(f"no store at {store_at}")
    with open_store(target, readonly=True, migrate=False) as store:
        items = int(str(store.execute("SELECT count(*) FROM items")[1][0][0]))
        if needs_upgrade(store.engine, store.location):  # search reads the schema's head (its indexes)
            sys.exit(f"{target} is at an older revision of the schema: open it once with lifededup to upgrade "
                     f"it (lifededup check --db {target!s}), then bench it")
    print(f"{target}: {items:,} items, as they are (read-only); load average {load_average()}")
    with open_store(source, readonly=True, migrate=False) as store:
        if source != target:
            items = int(str(store.execute("SELECT count(*) FROM items")[1][0][0]))
            print(f"queries picked from {source} ({items:,} items)")
        queries = store_queries(store, items, sample)
    targets = {"common word": COMMON, "medium word": MEDIUM, "rare word": RARE, "phrase": PHRASE, "prefix": PREFIX}
    print(f"queries from {'that' if source != target else 'the'} store's own vocabulary, "
          "closest to the synthetic classes' shares of the items:")
    for name, query in queries.items():
        aim = (f"{100 * targets[name]:g}% of the items, {targets[name] * items:,.0f}" if name in targets else
               "the medium and the common word" if name == "two words" else
               f"each word {100 * OR_EACH:g}%, {OR_EACH * items:,.0f}")
        print(f"  {name:<12} {query:<28} (target: {aim})")
    bench(target, queries, runs, migrate=False)
    print(f"load average at the end: {load_average()}")


def run(path: str | Path, items: int, runs: int) -> None:
    fill(path, items)
    bench(path, QUERIES, runs)


def bench(path: str | Path, queries: dict[str, str], runs: int, migrate: bool = True) -> None:
    """Time each query collapsed, with --all and the peer; print the table
    (``migrate=False``: a store of an older schema is read as it is)."""
    print(f"\n{'query':<12} {'matches':>8} {'clusters':>8}   {'collapsed ms':>16} {'--all ms':>16} "
          f"{'peer ms':>16}   {'collapsed/peer':>14} {'all/peer':>8}   {'on a Store ms':>16}   "
          f"{'peer+snippets ms':>16} {'collapsed/that':>14}")
    print(f"{'':<12} {'':>8} {'':>8}   {'median / p95':>16} {'median / p95':>16} {'median / p95':>16}   "
          f"{'':>14} {'':>8}   {'median / p95':>16}   {'median / p95':>16}")
    worst = 0.0
    with (open_store(path, readonly=True, migrate=migrate) as store,
          closing(open_reader(path, migrate=migrate)) as reader):
        for name, query in queries.items():
            found = search(reader, query, limit=PAGE)
            got = measure(store, reader, query, runs)
            (cm, cp), (am, ap), (pm, pp), (sm, sp) = got["collapsed"], got["all"], got["peer"], got["store"]
            nm, np_ = got["snippeted"]
            worst = max(worst, cp, ap, sp)
            clusters = f"{found.rows:,}" if found.rows_exact else f">={found.rows:,}"
            matches = f"{found.matches:,}" if found.matches_exact else f">{found.matches - 1:,}"
            print(f"{name:<12} {matches:>8} {clusters:>9}  {cm * 1e3:>7.2f} / {cp * 1e3:>6.2f} "
                  f"{am * 1e3:>7.2f} / {ap * 1e3:>6.2f} {pm * 1e3:>7.2f} / {pp * 1e3:>6.2f}   "
                  f"{cm / pm:>13.1f}x {am / pm:>7.1f}x   {sm * 1e3:>7.2f} / {sp * 1e3:>6.2f}   "
                  f"{nm * 1e3:>7.2f} / {np_ * 1e3:>6.2f} {cm / nm:>13.1f}x")
    print(f"\nslowest 95th percentile: {worst * 1e3:.0f} ms (targets: under 50 ms at 100,000 items, "
          "under 250 ms at 1,000,000)")
    print(f"(clusters: >=N where more than {EXACT_ROWS:,} items match: the clusters of the first "
          f"{EXACT_ROWS + 1:,}, which is what search counts there; on PostgreSQL, a page found without ranking "
          f"every match counts the first {PG_COUNTED + 1:,}: matches >{PG_COUNTED:,}, clusters among them)")
    print("(collapsed and --all: on the reader `lifededup search` opens, the driver alone; on a Store: the same "
          "search inside SQLAlchemy's connection and transaction, as the web view runs it)")
    print("(peer+snippets: the peer with each row's snippet, as a page shows one: FTS5's snippet(), PostgreSQL's "
          f"ts_headline of the first {HEADLINE_CHARS:,} characters; not the issue's peer, a measure for choosing one)")


if __name__ == "__main__":
    main()
