"""``lifededup recluster`` on a store of generated drafts, the code of two
checkouts timed alternately on copies of one store, whole process (time and
peak RSS), and every row they write compared.

The store (built once in ``--dir``, then reused) holds ``--items``
generated texts with sketches, indexed through ``Store.upsert_item`` (the
per-item clustering): families of drafts drifting 0-45% apart, letters
sharing a long signature, exact copies, notes too short to sample, and
unrelated texts.  ``bench_store.py``'s bulk-filled store has features but
no sketches; pass it with ``--db`` to time that one instead.

    python benchmarks/bench_recluster.py --before /tmp/main-copy --items 100000 --dir /tmp/recluster-100k
    python benchmarks/bench_recluster.py --before /tmp/main-copy --db /tmp/stats-100k/bench.db

``--before`` is the top folder of the other checkout (``git archive main
lifededup | tar -x -C DIR``): it goes on ``PYTHONPATH`` for its runs.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from lifededup.config import FingerprintParams
from lifededup.fingerprint import fingerprint_many
from lifededup.store import ItemRecord, open_store

# what recluster writes, read back in one order (flags as 0/1 on SQLite)
WRITTEN = ["SELECT item_id, sha1, cluster_id, quote(resemblance), quote(word_distance) FROM clusters ORDER BY item_id",
           "SELECT item_id, is_representative FROM fingerprints ORDER BY item_id",
           "SELECT value, item_id FROM sketch_keys ORDER BY value, item_id"]


def drafts(count: int, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(5000)]
    signer = random.Random(99)
    signature = [signer.choice(vocab) for _ in range(60)]

    def prose(words: int) -> list[str]:
        return [rng.choice(vocab) for _ in range(words)]

    texts: list[str] = []
    while len(texts) < count:
        kind = rng.random()
        if kind < 0.5:  # a family of drafts, each a share of the base's words replaced
            base = prose(rng.randint(80, 300))
            for _ in range(rng.randint(2, 8)):
                words = list(base)
                share = rng.choice((0.0, 0.02, 0.08, 0.15, 0.3, 0.45))
                for position in rng.sample(range(len(words)), int(len(words) * share)):
                    words[position] = f"x{rng.randrange(10**6)}"
                texts.append(" ".join(words))
        elif kind < 0.7:
            texts.append(" ".join(prose(rng.randint(60, 200)) + signature))
        elif kind < 0.8 and texts:
            texts.append(rng.choice(texts))
        elif kind < 0.85:
            texts.append(" ".join(prose(rng.randint(1, 6))))
        else:
            texts.append(" ".join(prose(rng.randint(50, 400))))
    return texts[:count]


def build(path: Path, count: int) -> None:
    texts = drafts(count)
    prints = fingerprint_many(texts, FingerprintParams())
    start = time.perf_counter()
    with open_store(path) as store, store.transaction():
        for n, (text, found) in enumerate(zip(texts, prints)):
            store.upsert_item(ItemRecord(f"/drafts/{n}.txt", text=text), found)
    print(f"indexed {count:,} generated texts into {path} in {time.perf_counter() - start:.0f} s")


def timed_recluster(source: Path, copy: Path, code: str | None) -> tuple[float, int]:
    """Seconds and peak RSS (KiB) of ``lifededup recluster`` on a fresh copy."""
    for stale in (copy, Path(f"{copy}-wal"), Path(f"{copy}-shm")):
        stale.unlink(missing_ok=True)
    shutil.copyfile(source, copy)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if code is not None:
        env["PYTHONPATH"] = code
    command = [str(Path(sys.executable).with_name("lifededup")), "recluster", "--db", str(copy)]
    start = time.perf_counter()
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)  # this child's own peak, as /usr/bin/time -f %M
    seconds = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({child.returncode})")
    return seconds, usage.ru_maxrss


def digest(path: Path) -> list[str]:
    with sqlite3.connect(path) as conn:
        return [hashlib.sha1(repr(conn.execute(sql).fetchall()).encode()).hexdigest() for sql in WRITTEN]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, help="top folder of the other checkout's code")
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/bench-recluster"))
    parser.add_argument("--db", type=Path, default=None, help="an SQLite store to recluster instead")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    source = args.db or args.dir / "drafts.db"
    if not source.exists():
        build(source, args.items)
    times: dict[str, list[float]] = {"before": [], "after": []}
    peaks: dict[str, list[int]] = {"before": [], "after": []}
    for run in range(args.runs):
        for name, code in (("before", args.before), ("after", None)):
            seconds, peak = timed_recluster(source, args.dir / f"{name}.db", code)
            times[name].append(seconds)
            peaks[name].append(peak)
            print(f"run {run + 1} {name}: {seconds:.1f} s, peak RSS {peak / 1024:.0f} MiB")
    same = digest(args.dir / "before.db") == digest(args.dir / "after.db")
    low, high = min(times["after"]) / max(times["before"]), max(times["after"]) / min(times["before"])
    print(f"recluster of {source}: before {min(times['before']):.1f}-{max(times['before']):.1f} s, "
          f"after {min(times['after']):.1f}-{max(times['after']):.1f} s, after / before {low:.2f}-{high:.2f}x; "
          f"rows written {'the same' if same else 'DIFFER'}")


if __name__ == "__main__":
    main()
