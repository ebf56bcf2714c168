"""An item's page and a cluster's on long documents: ``lifededup show ID``
as a whole process, and ``explain()`` and ``near_elsewhere()`` timed in one
process, under two trees of lifededup (the code before a change and after),
alternated in fresh processes for several rounds; the median of each, the
ratio, the machine's load, and whether both trees show the same figures
(``show --json`` compared whole: the old tree's are the exact answer).

A tree is a checkout's root (``git archive COMMIT | tar -x -C TREE``), put on
PYTHONPATH with the current directory outside both trees, so that ``python -m
lifededup`` runs the tree meant.  Without IDs, the representatives of the
store's eight clusters of the most words, where pages were slowest (each
member measured against its representative, the item against the texts like
it elsewhere: benchmarks/README.md, "Session 26").

    python benchmarks/bench_pages.py --db STORE --old TREE --new TREE [--rounds 7] [ID ...]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# What a child process runs: each item's explain() and near_elsewhere(), each
# timed on its second call (the first pays numpy's and rapidfuzz's imports,
# which the whole-process ``show`` measures).
_IN_PROCESS = """
import json, sys, time
from lifededup.store.reader import open_reader
from lifededup.store.queries import explain, near_elsewhere
store = open_reader(sys.argv[1])
out = {}
for item in map(int, sys.argv[2:]):
    for _ in range(2):
        start = time.perf_counter(); explain(store, item); middle = time.perf_counter()
        near_elsewhere(store, item); end = time.perf_counter()
    out[item] = [middle - start, end - middle]
print(json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", required=True, help="an SQLite store (it is only read)")
    parser.add_argument("--old", required=True, type=Path, help="the tree before the change")
    parser.add_argument("--new", required=True, type=Path, help="the tree after it")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("ids", nargs="*", type=int)
    args = parser.parse_args()
    ids = args.ids or slowest(args.db)
    trees = {"old": args.old.resolve(), "new": args.new.resolve()}
    loads = [os.getloadavg()[0]]
    shown = {name: {item: show(tree, args.db, item)[1] for item in ids} for name, tree in trees.items()}
    times: dict[str, dict[int, dict[str, list[float]]]] = {
        name: {item: {"show": [], "explain": [], "elsewhere": []} for item in ids} for name in trees}
    for n in range(args.rounds):
        for name in (("old", "new") if n % 2 == 0 else ("new", "old")):  # alternated: neither always first
            for item, (explained, elsewhere) in in_process(trees[name], args.db, ids).items():
                times[name][item]["explain"].append(explained)
                times[name][item]["elsewhere"].append(elsewhere)
            for item in ids:
                times[name][item]["show"].append(show(trees[name], args.db, item)[0])
        loads.append(os.getloadavg()[0])
    report(ids, times, shown, loads, args.rounds)


def slowest(db: str) -> list[int]:
    """The representatives of the eight clusters holding the most words."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        rows = conn.execute("SELECT c.cluster_id FROM clusters c JOIN fingerprints f ON f.item_id = c.item_id"
                            " GROUP BY c.cluster_id HAVING count(*) > 1 ORDER BY sum(f.words) DESC LIMIT 8")
        return [int(r[0]) for r in rows]


def _run(tree: Path, argv: list[str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    with tempfile.TemporaryDirectory() as outside:  # no tree on the path by the current directory
        return subprocess.run([sys.executable, *argv], cwd=outside, env=env, capture_output=True, text=True,
                              check=True)


def show(tree: Path, db: str, item: int) -> tuple[float, str]:
    """``lifededup show ITEM --json`` as a whole process: its wall time, and what it printed."""
    start = time.perf_counter()
    done = _run(tree, ["-m", "lifededup", "show", str(item), "--json", "--db", db])
    return time.perf_counter() - start, done.stdout


def in_process(tree: Path, db: str, ids: list[int]) -> dict[int, list[float]]:
    found = json.loads(_run(tree, ["-c", _IN_PROCESS, db, *map(str, ids)]).stdout)
    return {int(k): v for k, v in found.items()}


def report(ids: list[int], times: dict[str, dict[int, dict[str, list[float]]]], shown: dict[str, dict[int, str]],
           loads: list[float], rounds: int) -> None:
    print(f"{rounds} rounds, old and new alternated; load average (1 min) {min(loads):.1f}-{max(loads):.1f}")
    print(f"{'item':>6} {'measure':<10} {'old s':>7} {'new s':>7} {'old/new':>7}  same figures")
    for item in ids:
        same = "yes" if shown["old"][item] == shown["new"][item] else "NO"
        for measure in ("show", "explain", "elsewhere"):
            old, new = (statistics.median(times[name][item][measure]) for name in ("old", "new"))
            print(f"{item:>6} {measure:<10} {old:7.3f} {new:7.3f} {old / new if new else float('inf'):7.1f}  {same}")
    totals = {name: sum(statistics.median(times[name][i]["explain"]) + statistics.median(times[name][i]["elsewhere"])
                        for i in ids) for name in ("old", "new")}
    print(f"all {len(ids)} pages in process: old {totals['old']:.3f} s, new {totals['new']:.3f} s, "
          f"{totals['old'] / totals['new']:.1f}x")


if __name__ == "__main__":
    main()
