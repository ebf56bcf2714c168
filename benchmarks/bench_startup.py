"""Start-up: ``lifededup --help``, ``search``, ``show``, ``sql``, ``dups`` and ``failures``
as whole processes, beside Python doing nothing and Python importing what
the store stands on, in one run.

The search runs on a store of 16,000 items (``bench_store.py``'s generator
and bulk fill) for its common word, a page of 20 collapsed rows; ``show``
explains the store's largest cluster (each member measured against its
representative, which imports the fingerprinting engine).  Peers:
``python -c pass`` (the interpreter's own start) and ``python -c "import
click, sqlalchemy"`` (what search stood on before it read through
``sqlite3`` alone: the floor of the commands that still open a ``Store``).
Each command runs ``--runs`` times, interleaved; median and fastest.
Target (issue 15): 0.2 s for both.  ``--postgres URL`` adds the same search
on a PostgreSQL store (for instance ``bench_backends.py``'s million, whose
common word is ``the``; benchmarks/README.md says how to start its server),
and beside it ``python -c "import click, psycopg"``: what that search stands
on now that it reads through psycopg alone (``store/reader.py``).

    python benchmarks/bench_startup.py [--items 16000] [--runs 20] [--postgres URL --word the]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_store import Generator, bulk_fill

from lifededup.store import open_store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=16_000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--postgres", metavar="URL", help="also search this PostgreSQL store")
    parser.add_argument("--word", default="the", help="what to search the PostgreSQL store for")
    args = parser.parse_args()
    db = Path(tempfile.mkdtemp(prefix="bench-startup-")) / "store.db"
    open_store(db).close()
    bulk_fill(db, Generator(), args.items)
    python = sys.executable
    with sqlite3.connect(db) as conn:
        [(largest,)] = conn.execute("SELECT cluster_id FROM clusters GROUP BY cluster_id "
                                    "ORDER BY count(*) DESC, cluster_id LIMIT 1").fetchall()
    commands = {
        "lifededup --help": [python, "-m", "lifededup", "--help"],
        f"lifededup search ({args.items:,} items)": [python, "-m", "lifededup", "search", "--db", str(db), "w10"],
        f"lifededup show ({args.items:,} items)": [python, "-m", "lifededup", "show", "--db", str(db), str(largest)],
        f"lifededup sql ({args.items:,} items)": [python, "-m", "lifededup", "sql", "--db", str(db),
                                                  "SELECT kind, count(*) FROM items GROUP BY kind"],
        f"lifededup dups ({args.items:,} items)": [python, "-m", "lifededup", "dups", "--db", str(db), "--limit", "20"],
        f"lifededup failures ({args.items:,} items)": [python, "-m", "lifededup", "failures", "--db", str(db)],
        "lifededup index --help": [python, "-m", "lifededup", "index", "--help"],
        "lifededup daemon status": [python, "-m", "lifededup", "daemon", "status"],
        **({"lifededup search (PostgreSQL)": [python, "-m", "lifededup", "search", "--db", args.postgres, args.word]}
           if args.postgres else {}),
        "python -c pass": [python, "-c", "pass"],
        "python: import click, sqlalchemy": [python, "-c", "import click, sqlalchemy"],
        **({"python: import click, psycopg": [python, "-c", "import click, psycopg"]} if args.postgres else {}),
    }
    # `daemon status` reads a state folder of its own, where no daemon runs (it exits 3)
    env = {**os.environ, "XDG_STATE_HOME": str(db.parent / "state")}
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, command in commands.items():
            start = time.perf_counter()
            done = subprocess.run(command, stdout=subprocess.DEVNULL, env=env)
            if done.returncode not in ((0, 3) if command[-2:] == ["daemon", "status"] else (0,)):
                raise SystemExit(f"{name} failed (exit {done.returncode})")
            times[name].append(time.perf_counter() - start)
    floor = statistics.median(times["python: import click, sqlalchemy"])
    print(f"{'':36} {'median ms':>10} {'fastest ms':>11} {'/ import click, sqlalchemy':>27}")
    for name, seconds in times.items():
        median = statistics.median(seconds)
        print(f"{name:36} {median * 1e3:10.0f} {min(seconds) * 1e3:11.0f} {median / floor:26.2f}x")
    print("target: 200 ms for --help and for search")


if __name__ == "__main__":
    main()
