"""Whether PostgreSQL's bounded pages (``lifededup/search/bounded.py``,
revision 0025) are the pages ranking every match gives, on a real store:
random queries of every shape the bound reads (a word, words ORed, words
that must all match, a phrase, a word left out, a phrase ORed with a word,
a word joined by a dot), from the store's own vocabulary (the commonest 200
words six times in ten), each page read both ways -- the bound used
wherever it can serve, and every match ranked -- in the modes a user pages
through (collapsed, ``--all``, page 2, short and long pages).  Prints each
page that differs, and how many pages the bound served.

    python benchmarks/check_bounded.py 'postgresql://me@host/archive' --queries 1000

Session 17, seed 1: 1,000 queries on the 100,000-item real-text store (486
pages served by the bound) and 100 on the million (46), none different."""

from __future__ import annotations

import argparse
import random
import time

from lifededup.search import bounded, results, search
from lifededup.store import open_reader


def shapes(rng: random.Random, words: list[str]) -> str:
    def word() -> str:
        return rng.choice(words[:200] if rng.random() < 0.6 else words)

    shape = rng.randrange(8)
    a, b, c = word(), word(), word()
    return [a, f"{a} OR {b}", f"{a} {b}", f'"{a} {b}"', f"{a} -{b}", f'"{a} {b}" OR {c}', f"{a}.{b}",
            f"{a} {b} OR {c}"][shape]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", help="a PostgreSQL store's URL (read only)")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with open_reader(args.url) as reader:
        with reader.reading() as conn:
            words = [str(r[0]) for r in conn.execute(
                "SELECT word FROM ts_stat('SELECT document FROM items_fts TABLESAMPLE SYSTEM (2)') "
                "WHERE ndoc > 20 AND word ~ '^[a-z]+$' ORDER BY ndoc DESC LIMIT 3000").fetchall()]
        worth, chosen = bounded.worth, results._bounded
        served = differ = 0
        started = time.monotonic()
        try:
            for _ in range(args.queries):
                query = shapes(rng, words)
                options = rng.choice([{}, {"collapse": False}, {"offset": 20}, {"limit": 5}, {"limit": 50}])
                bounded.worth = lambda *a: True
                page = search(reader, query, **options)  # type: ignore[arg-type]
                results._bounded = lambda *a: None
                whole = search(reader, query, **options)  # type: ignore[arg-type]
                results._bounded = chosen
                served += not page.matches_exact
                if [(h.id, h.rank, h.hidden) for h in page.hits] != [(h.id, h.rank, h.hidden) for h in whole.hits]:
                    differ += 1
                    print(f"differs: {query!r} {options}: {[h.id for h in page.hits][:8]} "
                          f"against {[h.id for h in whole.hits][:8]}", flush=True)
        finally:
            bounded.worth, results._bounded = worth, chosen
    print(f"{args.queries} queries from {len(words)} words: {served} pages served by the bound, {differ} differ "
          f"({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
