"""Search latency on a 100,000-item store: ``lifededup search`` collapsed
(the default) and with ``--all``, against a plain FTS5 query, in one run.

The store is filled by ``bench_store.py``'s generator and bulk fill: 40-word
Zipf-distributed texts, 85% originals, 10% near copies, 5% exact copies, with
their clusters known by construction.  Each query runs through the library
call the CLI makes (``lifededup.search.search``: bm25 ranking, the collapse of
seeds/000 step 9, one page of 20 rows with snippets, dates and the copies each
row hides) and through the peer.

Peer: the query sqlite-utils' ``Table.search()`` runs for a page of results
-- ``SELECT ... FROM items JOIN items_fts ... WHERE items_fts MATCH ? ORDER BY
rank LIMIT 20`` -- with no collapse, no snippet, no filter.  The ratio is what
showing each document once (and saying where its copies are) costs over plain
full-text search.

On PostgreSQL (``--db postgresql://...``, or ``--postgres`` for a throwaway
server started from Debian's package by tests/pg_server.py) the store is
filled with the same items by COPY (the store's own trigger builds each
tsvector), and the peer is the same bare page query in PostgreSQL's terms:
``WHERE f.document @@ websearch_to_tsquery(...) ORDER BY -ts_rank(...)
LIMIT 20``.

    python benchmarks/bench_search.py                  # 100,000 items, 30 runs a query
    python benchmarks/bench_search.py --items 20000 --runs 10
    python benchmarks/bench_search.py --postgres       # the same on a throwaway PostgreSQL server
    python benchmarks/bench_search.py --db postgresql://me@dbhost/bench --items 1000000 --runs 10
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from bench_store import WORDS_PER_TEXT, Generator, bulk_fill

from lifededup.search import search
from lifededup.search.query import pg_query
from lifededup.search.results import EXACT_ROWS
from lifededup.store import Store, open_store

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


def peer_sql() -> str:
    return ("SELECT items.id, items.path, items.title, items_fts.rank FROM items "
            "JOIN items_fts ON items_fts.rowid = items.id WHERE items_fts MATCH :query "
            "ORDER BY items_fts.rank LIMIT :limit")


def pg_peer_sql(query: str) -> tuple[str, str]:
    """The same bare page query on PostgreSQL, and the text to bind as ``:query``."""
    tsquery, marked = pg_query(query)
    return (f"SELECT items.id, items.path, items.title, -ts_rank(f.document, {tsquery}, 1) AS rank "
            f"FROM items JOIN items_fts f ON f.rowid = items.id WHERE f.document @@ {tsquery} "
            "ORDER BY rank LIMIT :limit"), marked


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


def measure(store: Store, query: str, runs: int) -> dict[str, tuple[float, float]]:
    sql, bound = pg_peer_sql(query) if store.location.url is not None else (peer_sql(), query)
    return {
        "collapsed": timings(lambda: search(store, query, limit=PAGE), runs),
        "all": timings(lambda: search(store, query, limit=PAGE, collapse=False), runs),
        "peer": timings(lambda: store.execute(sql, {"query": bound, "limit": PAGE}), runs),
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
    bench_store_of(parser.parse_args(), run, "bench-search-")


def run(path: str | Path, items: int, runs: int) -> None:
    fill(path, items)
    print(f"\n{'query':<12} {'matches':>8} {'clusters':>8}   {'collapsed ms':>16} {'--all ms':>16} "
          f"{'peer ms':>16}   {'collapsed/peer':>14} {'all/peer':>8}")
    print(f"{'':<12} {'':>8} {'':>8}   {'median / p95':>16} {'median / p95':>16} {'median / p95':>16}")
    worst = 0.0
    with open_store(path, readonly=True) as store:
        for name, query in QUERIES.items():
            found = search(store, query, limit=PAGE)
            got = measure(store, query, runs)
            (cm, cp), (am, ap), (pm, pp) = got["collapsed"], got["all"], got["peer"]
            worst = max(worst, cp, ap)
            clusters = f"{found.rows:,}" if found.rows_exact else f">={found.rows:,}"
            print(f"{name:<12} {found.matches:>8,} {clusters:>9}  {cm * 1e3:>7.1f} / {cp * 1e3:>6.1f} "
                  f"{am * 1e3:>7.1f} / {ap * 1e3:>6.1f} {pm * 1e3:>7.1f} / {pp * 1e3:>6.1f}   "
                  f"{cm / pm:>13.1f}x {am / pm:>7.1f}x")
    print(f"\nslowest 95th percentile: {worst * 1e3:.0f} ms (targets: under 50 ms at 100,000 items, "
          "under 250 ms at 1,000,000)")
    print(f"(clusters: >=N where more than {EXACT_ROWS:,} items match: the clusters of the first "
          f"{EXACT_ROWS + 1:,}, which is what search counts there)")


if __name__ == "__main__":
    main()
