"""Web view latency on a 100,000-item store: each common page, as HTML and as
JSON, against the library call the CLI makes for the same thing, in one run.

The store is ``bench_search.py``'s: ``bench_store.py``'s generator and bulk
fill (40-word Zipf texts, 85% originals, 10% near copies, 5% exact copies).
Pages are requested through the whole application -- the host guard, routing,
the read-only store, Jinja2 rendering, the security headers -- with
Starlette's test client (in process: no socket, so the figure is the view's
own cost, not the network's).

Peer: the library call behind the page, with its ``to_dict()`` turned into
JSON as ``lifededup ... --json`` does (``search``, ``explain`` for show, the
item's details and text).  The ratio is what the web layer adds.  Target
(issue 16): under 100 ms a page at 100,000 items for the common queries.

    python benchmarks/bench_web.py                  # 100,000 items, 20 runs a page
    python benchmarks/bench_web.py --items 20000 --runs 10
    python benchmarks/bench_web.py --postgres       # a store on a throwaway PostgreSQL server
    python benchmarks/bench_web.py --db postgresql://me@dbhost/bench
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from bench_search import bench_store_of, fill, timings
from starlette.testclient import TestClient

from lifededup.search import Filters, search
from lifededup.store import Store, clusters, explain, item_details, item_text, open_store
from lifededup.web import create_app

PAGE = 20


def pages(store: Store) -> dict[str, tuple[str, Callable[[], object]]]:
    """Name -> (URL, the library call the CLI makes for it)."""
    largest = clusters(store, limit=1)[0]
    cid = largest.cluster_id
    member = largest.members[-1].id

    def searched(query: str | None, filters: Filters = Filters(), offset: int = 0) -> Callable[[], object]:
        return lambda: json.dumps(search(store, query, filters, limit=PAGE, offset=offset).to_dict())

    def item() -> object:
        return json.dumps({**item_details(store, [member])[member].to_dict(), "text": item_text(store, member),
                           "show": explain(store, member).to_dict()})

    return {
        "search: common word": ("/?q=w10", searched("w10")),
        "search: rare word": ("/?q=w19990", searched("w19990")),
        "search: two words": ("/?q=w10+w500", searched("w10 w500")),
        "search: prefix": ("/?q=w199*", searched("w199*")),
        "search: page 5": ("/?q=w10&page=5", searched("w10", offset=4 * PAGE)),
        "search: kind + path": ("/?q=w500&kind=document&path=/archive/1*",
                                searched("w500", Filters(kinds=("document",), path="/archive/1*"))),
        "search: no words, by path": ("/?path=/archive/9*", searched(None, Filters(path="/archive/9*"))),
        "search.json: common word": ("/search.json?q=w10", searched("w10")),
        f"cluster ({len(largest.members)} items)": (f"/clusters/{cid}", lambda: json.dumps(explain(store, cid).to_dict())),
        "cluster.json": (f"/clusters/{cid}.json", lambda: json.dumps(explain(store, cid).to_dict())),
        "item": (f"/items/{member}", item),
        "clusters (100 largest)": ("/clusters", lambda: json.dumps([c.to_dict() for c in clusters(store, limit=100)])),
        "failures": ("/failures", lambda: None),
        "status": ("/status", lambda: None),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--dir", type=Path, default=None, help="where to build the store (default: a temp dir)")
    parser.add_argument("--db", default=None, metavar="PATH|URL",
                        help="the store to build (or use again): an SQLite path or a postgresql:// URL")
    parser.add_argument("--postgres", action="store_true",
                        help="bench a store on a throwaway PostgreSQL server (tests/pg_server.py)")
    bench_store_of(parser.parse_args(), run, "bench-web-")


def run(path: str | Path, items: int, runs: int) -> None:
    fill(path, items)
    print(f"\n{'page':<28} {'web ms':>16} {'library ms':>16} {'web/library':>11}")
    print(f"{'':<28} {'median / p95':>16} {'median / p95':>16}")
    worst = 0.0
    with open_store(path, readonly=True) as store, TestClient(create_app(path), base_url="http://127.0.0.1") as client:
        for name, (url, library) in pages(store).items():
            response = client.get(url)
            assert response.status_code == 200, f"{url}: {response.status_code} {response.text[:300]}"
            (wm, wp), (lm, lp) = timings(lambda: client.get(url), runs), timings(library, runs)
            worst = max(worst, wp)
            ratio = f"{wm / lm:>10.1f}x" if lm > 1e-4 else f"{'-':>11}"
            print(f"{name:<28} {wm * 1e3:>7.1f} / {wp * 1e3:>6.1f} {lm * 1e3:>7.1f} / {lp * 1e3:>6.1f} {ratio}")
    print(f"\nslowest 95th percentile: {worst * 1e3:.0f} ms (target: under 100 ms a page at 100,000 items)")


if __name__ == "__main__":
    main()
