"""Moving a whole store (``lifededup export``) in the four directions, each
against a peer in the same run where one exists.

The store: synthetic items of about 300 words (Zipf-ish words, so the search
index has real work), each with six features and an 84-minima sketch; 85%
represent their cluster (so ``sketch_keys`` holds 84 rows for each), 10% are
near copies, 5% exact copies -- the shape of a real store, filled by plain
``executemany`` (``check`` passes on it).

Peers: SQLite's own whole-file copy (``VACUUM INTO``, which copies the
search index's pages instead of building them) for SQLite -> SQLite, and
``pg_dump | psql`` (PostgreSQL's own dump and restore) for PostgreSQL ->
PostgreSQL.  Every copy is checked: the same rows in every table.

    python benchmarks/bench_transfer.py --items 100000
"""

from __future__ import annotations

import argparse
import hashlib
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import pg_server  # noqa: E402

from lifededup.store import check_store, open_store  # noqa: E402
from lifededup.store.transfer import copy_store, tables  # noqa: E402

WORDS = 300
VOCAB = np.array([f"w{i}" for i in range(20_000)])
CHUNK = 10_000


def fill(path: Path, items: int) -> None:
    """An SQLite store of ``items`` synthetic items (see module docs)."""
    open_store(path).close()  # the schema, at head
    rng = np.random.default_rng(1)
    weights = np.cumsum(1.0 / np.arange(1, len(VOCAB) + 1))
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute("BEGIN")
    sha1s: list[str] = []
    cluster_of: list[int] = []
    for start in range(1, items + 1, CHUNK):
        ids = np.arange(start, min(start + CHUNK, items + 1))
        picks = np.searchsorted(weights, rng.random((len(ids), WORDS)) * weights[-1])
        texts = [" ".join(row) for row in VOCAB[picks]]
        features = rng.integers(-(2**63), 2**63 - 1, size=(len(ids), 6), dtype=np.int64)
        sketches = rng.integers(-(2**63), 2**63 - 1, size=(len(ids), 84), dtype=np.int64)
        roll = rng.random(len(ids))
        items_rows, prints, cluster_rows, keys = [], [], [], []
        for n, item_id in enumerate(ids.tolist()):
            if roll[n] < 0.15 and sha1s:  # a copy of an earlier item: in its cluster
                source = int(rng.integers(len(sha1s)))
                sha1, cluster = sha1s[source], cluster_of[source]
            else:
                sha1, cluster = hashlib.sha1(f"{item_id}".encode()).hexdigest(), item_id
            rep = cluster == item_id
            cluster_of.append(cluster)
            sha1s.append(sha1)
            items_rows.append((item_id, f"/archive/{item_id // 1000}/{item_id}.txt", f"document {item_id}",
                               len(texts[n]), 1.7e9 + item_id, texts[n]))
            sketch = sketches[n].astype(">i8").tobytes()
            prints.append((item_id, sha1, *features[n].tolist(), sketch, WORDS, WORDS - 3, int(rep)))
            cluster_rows.append((item_id, sha1, cluster, 1.0, 0.0))
            if rep:
                keys.extend((int(v), item_id) for v in set(sketches[n].tolist()))
        conn.executemany("INSERT INTO items (id, path, title, size, mtime, text, indexed_at, kind, mime_type)"
                         " VALUES (?, ?, ?, ?, ?, ?, '2026-11-23 12:00:00.000000', 'document', 'text/plain')",
                         items_rows)
        conn.executemany("INSERT INTO fingerprints (item_id, sha1, f1, f2, f3, f4, f5, f6, sketch, words, shingles,"
                         " is_representative) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", prints)
        conn.executemany("INSERT INTO clusters (item_id, sha1, cluster_id, resemblance, word_distance)"
                         " VALUES (?, ?, ?, ?, ?)", cluster_rows)
        conn.executemany("INSERT INTO sketch_keys (value, item_id) VALUES (?, ?) ON CONFLICT DO NOTHING", keys)
    conn.execute("COMMIT")
    conn.close()


def timed_copy(source: str, target: str) -> tuple[float, dict[str, int]]:
    with open_store(source, readonly=True, migrate=False) as reading, open_store(target) as writing:
        start = time.perf_counter()
        moved = copy_store(reading, writing)
        return time.perf_counter() - start, moved.rows


def table_digest(url: str) -> dict[str, str]:
    """A digest of every table's rows, in key order, as the models' Python values."""
    from sqlalchemy import select

    found = {}
    with open_store(url, readonly=True) as store, store.transaction() as conn:
        for table in tables():
            digest = hashlib.sha1()
            for row in conn.execute(select(table).order_by(*table.primary_key.columns)):
                digest.update(repr(tuple(row)).encode())
            found[table.name] = digest.hexdigest()
    return found


def pg_tool(name: str) -> str:
    """A client program of the installed server (``initdb`` may be on PATH without them)."""
    found = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), reverse=True)
    return str(found[0]) if found else name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--dir", type=Path, default=None,
                        help="where the stores go; a source.db of --items items there is used again")
    parser.add_argument("--there-and-back", action="store_true",
                        help="only SQLite -> PostgreSQL -> SQLite, without peers: how the time grows with size")
    args = parser.parse_args()
    folder = args.dir or Path(tempfile.mkdtemp(prefix="bench-transfer-"))
    folder.mkdir(parents=True, exist_ok=True)
    for old in ("back.db", "copy.db", "vacuum.db"):
        for path in folder.glob(old + "*"):
            path.unlink()
    server = pg_server.Server.start()
    try:
        source = folder / "source.db"
        start = time.perf_counter()
        if not source.exists():
            fill(source, args.items)
        print(f"filled {args.items:,} items in {time.perf_counter() - start:.0f} s "
              f"({source.stat().st_size / 2**20:.0f} MB)", flush=True)
        want = table_digest(str(source))
        pg1, pg2, pg3 = server.new_database(), server.new_database(), server.new_database()
        results = {}
        moves = [("SQLite -> PostgreSQL", str(source), pg1), ("PostgreSQL -> PostgreSQL", pg1, pg2),
                 ("PostgreSQL -> SQLite", pg1, str(folder / "back.db")),
                 ("SQLite -> SQLite", str(source), str(folder / "copy.db"))]
        for name, src, dst in moves[::2] if args.there_and_back else moves:
            seconds, rows = timed_copy(src, dst)
            results[name] = seconds
            same = table_digest(dst) == want
            with open_store(dst, readonly=True) as store:
                problems = check_store(store)
            print(f"{name:<26} {seconds:7.1f} s  {sum(rows.values()) / seconds:>10,.0f} rows/s  "
                  f"same rows: {same}  check: {'clean' if not problems else problems}", flush=True)
        if args.there_and_back:
            return
        start = time.perf_counter()
        sqlite3.connect(source).execute(f"VACUUM INTO '{folder / 'vacuum.db'}'")
        vacuum = time.perf_counter() - start
        start = time.perf_counter()
        dump = subprocess.Popen([pg_tool("pg_dump"), "--no-owner", pg1.split("?")[0].rsplit("/", 1)[1],
                                 "-h", str(server.socket_dir), "-U", "postgres"], stdout=subprocess.PIPE)
        subprocess.run([pg_tool("psql"), "-q", "-h", str(server.socket_dir), "-U", "postgres",
                        pg3.split("?")[0].rsplit("/", 1)[1]], stdin=dump.stdout, check=True,
                       stdout=subprocess.DEVNULL)
        dump.wait()
        restore = time.perf_counter() - start
        print(f"peer: SQLite VACUUM INTO {vacuum:.1f} s -> export SQLite -> SQLite "
              f"{results['SQLite -> SQLite'] / vacuum:.2f}x")
        print(f"peer: pg_dump | psql {restore:.1f} s -> export PostgreSQL -> PostgreSQL "
              f"{results['PostgreSQL -> PostgreSQL'] / restore:.2f}x")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
