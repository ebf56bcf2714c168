"""Whether the same queries find the same items on an SQLite store and a
PostgreSQL store of the same files.

```sh
lifededup index ARCHIVE --db a.db
lifededup index ARCHIVE --db postgresql://...
python benchmarks/agree_backends.py --sqlite a.db --postgres postgresql://... [--queries 300] [--seed 1]
```

The queries are taken from the SQLite store's own texts, at random (``--seed``),
nine kinds in turn: a word; a phrase of 2-4 words as they stand; two words;
two words ORed; a word without another (``a -b``); a word's first 3-5
letters as a prefix; a word joined by punctuation as written (``setup.py``,
``bug-fix``, ``doko@debian.org``) bare, and quoted; two runs of the text as
typed, punctuation and all.  Each is searched on both (``search --all``, up
to 5,000 items), and the items found are compared by path and part; a query
one backend refuses is counted as differing.  Prints each query that
differs and how, then the count.  The stores are opened as they are (no
upgrade).
"""

from __future__ import annotations

import argparse
import random
import re
import sqlite3
from collections.abc import Callable

from lifededup.search import QuerySyntaxError, search
from lifededup.store import open_reader

# a run holding punctuation between two letters or digits, its ends' punctuation dropped
_JOINED = re.compile(r"\w[-./@_:']\w")
_KINDS = 9


def queries(db: str, count: int, seed: int) -> list[str]:
    """``count`` queries taken from the texts of the SQLite store ``db`` (above)."""
    rng = random.Random(seed)
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    texts = [r[0] for r in conn.execute("SELECT text FROM items WHERE text IS NOT NULL AND length(text) > 200")]
    conn.close()
    made: list[str] = []
    while len(made) < count:
        text = rng.choice(texts)
        words, runs = re.findall(r"\w+", text[:200_000]), text.split()
        at = rng.randrange(len(words))
        joined = [r.strip("()[]{},;:!?\"'<>") for r in runs if _JOINED.search(r)]
        kind = len(made) % _KINDS
        kinds: dict[int, Callable[[], str | None]] = {
            0: lambda: words[at],
            1: lambda: '"' + " ".join(words[at:at + rng.randint(2, 4)]) + '"',
            2: lambda: f"{words[at]} {rng.choice(words)}",
            3: lambda: f"{words[at]} OR {rng.choice(words)}",
            4: lambda: f"{words[at]} -{rng.choice(words)}",
            5: lambda: words[at][:max(2, min(len(words[at]), rng.randint(3, 5)))] + "*",
            6: lambda: rng.choice(joined) if joined else None,
            7: lambda: '"' + rng.choice(joined).replace('"', "") + '"' if joined else None,
            8: lambda: " ".join(runs[(n := rng.randrange(len(runs))):n + 2]).replace('"', ""),
        }
        query = kinds[kind]()
        if query and query.strip():
            made.append(query)
    return made


def found(reader: object, query: str) -> tuple[object, ...]:
    """How many items ``query`` finds and which (path#part), or why it was refused."""
    try:
        result = search(reader, query, limit=5000, collapse=False)  # type: ignore[arg-type]
    except QuerySyntaxError as exc:
        return ("refused", str(exc).splitlines()[0][:100])
    return (result.matches, tuple(sorted(f"{h.path}#{h.part}" for h in result.hits)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sqlite", required=True, help="an SQLite store")
    parser.add_argument("--postgres", required=True, help="a PostgreSQL store of the same files")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sqlite_store = open_reader(args.sqlite, migrate=False)
    server_store = open_reader(args.postgres, migrate=False)
    made = queries(args.sqlite, args.queries, args.seed)
    differ = 0
    for query in made:
        a, b = found(sqlite_store, query), found(server_store, query)
        if a == b:
            continue
        differ += 1
        if a[0] == "refused" or b[0] == "refused":
            print(f"{query!r}: SQLite {a[1] if a[0] == 'refused' else a[0]} | PostgreSQL "
                  f"{b[1] if b[0] == 'refused' else b[0]}")
            continue
        only_a, only_b = set(a[1]) - set(b[1]), set(b[1]) - set(a[1])  # type: ignore[call-overload]
        print(f"{query!r}: SQLite {a[0]}, PostgreSQL {b[0]}; only on SQLite {len(only_a)} "
              f"{sorted(only_a)[:1]}, only on PostgreSQL {len(only_b)} {sorted(only_b)[:1]}")
    print(f"{differ} of {len(made)} queries find other items on the two backends")


if __name__ == "__main__":
    main()
