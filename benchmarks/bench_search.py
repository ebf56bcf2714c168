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

    python benchmarks/bench_search.py                  # 100,000 items, 30 runs a query
    python benchmarks/bench_search.py --items 20000 --runs 10
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench_store import Generator, bulk_fill

from lifededup.search import search
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
    return {
        "collapsed": timings(lambda: search(store, query, limit=PAGE), runs),
        "all": timings(lambda: search(store, query, limit=PAGE, collapse=False), runs),
        "peer": timings(lambda: store.execute(peer_sql(), {"query": query, "limit": PAGE}), runs),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--dir", type=Path, default=None,
                        help="where to build the store (default: a temp dir); a store of --items items "
                        "already there is used again")
    args = parser.parse_args()
    path = (args.dir or Path(tempfile.mkdtemp(prefix="bench-search-"))) / "bench.db"
    if not path.exists() or open_store(path).execute("SELECT count(*) FROM items")[1][0][0] != args.items:
        path.unlink(missing_ok=True)
        open_store(path).close()  # the schema
        print(f"filling {path} with {args.items:,} items")
        bulk_fill(path, Generator(), args.items)
    print(f"\n{'query':<12} {'matches':>8} {'clusters':>8}   {'collapsed ms':>16} {'--all ms':>16} "
          f"{'peer ms':>16}   {'collapsed/peer':>14} {'all/peer':>8}")
    print(f"{'':<12} {'':>8} {'':>8}   {'median / p95':>16} {'median / p95':>16} {'median / p95':>16}")
    worst = 0.0
    with open_store(path, readonly=True) as store:
        for name, query in QUERIES.items():
            found = search(store, query, limit=PAGE)
            got = measure(store, query, args.runs)
            (cm, cp), (am, ap), (pm, pp) = got["collapsed"], got["all"], got["peer"]
            worst = max(worst, cp, ap)
            print(f"{name:<12} {found.matches:>8,} {found.rows:>8,}   {cm * 1e3:>7.1f} / {cp * 1e3:>6.1f} "
                  f"{am * 1e3:>7.1f} / {ap * 1e3:>6.1f} {pm * 1e3:>7.1f} / {pp * 1e3:>6.1f}   "
                  f"{cm / pm:>13.1f}x {am / pm:>7.1f}x")
    print(f"\nslowest 95th percentile: {worst * 1e3:.0f} ms (targets: under 50 ms at 100,000 items, "
          "under 250 ms at 1,000,000)")


if __name__ == "__main__":
    main()
