"""Store insertion at 10k and at 1M items, store size, and collapsed-search
latency, each against a peer in the same run.

Items are synthetic fingerprinted documents: 85% originals (random 64-bit
features), 10% near copies of an earlier original (3 of its 6 features, so
they must join it: seeds/000 section 2.2 step 7), 5% exact copies of an
earlier item (same SHA-1).  Their right cluster is known by construction,
which is the exact answer the measured inserts are scored against.

The timed inserts go through the public API (``Store.upsert_item``, batches
of 100 in one transaction, as the indexer writes): 1,000 untimed, then the
median of 3 rounds of 1,000, at each size.  Between the 10k and the
1M measurement the store is filled with the same generator by plain
``executemany`` (rows, clusters and search index exactly as the API would
leave them -- ``check`` runs at the end to prove it), because a million API
inserts would take longer than the point needs.

Peers: the candidate lookup run as a full scan of ``fingerprints`` (``NOT
INDEXED``: what "never a scan" rules out), and the same search fetching the
same columns without the collapse.

    python benchmarks/bench_store.py                 # 1,000,000 items
    python benchmarks/bench_store.py --items 100000  # quicker
    python benchmarks/bench_store.py --stats --items 100000  # the stats report alone
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import os
import random
import sqlite3
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from lifededup.config import FingerprintParams
from lifededup.model import Fingerprint
from lifededup.store import ItemRecord, Store, check_store, collapse_sql, open_store
from lifededup.store.candidates import feature_union

PARAMS = FingerprintParams()
VOCAB = [f"w{i}" for i in range(20_000)]
WORDS_PER_TEXT = 40
BATCH = 100
SAMPLE = 1_000
ROUNDS = 3
# Search terms by how many of 1M items hold them (Zipf-ish text below).
QUERIES = {"rare": "w19990", "medium": "w500", "common": "w10"}


@dataclass(frozen=True)
class Synthetic:
    item_id: int  # the id the store will give it (ids are dense, from 1)
    sha1: str
    features: tuple[int, ...]
    text: str
    cluster_id: int  # the right answer


class Generator:
    """Deterministic items, each with the cluster it must land in."""

    def __init__(self, seed: int = 1) -> None:
        self.rng = random.Random(seed)
        self.items: list[tuple[str, tuple[int, ...], int]] = []  # sha1, features, cluster per id-1
        self.originals: list[int] = []
        # Zipf-like word choice: a few words in most texts, most words rare
        self.cum_weights = list(itertools.accumulate(1.0 / (rank + 1) for rank in range(len(VOCAB))))

    def _feature(self) -> int:
        return self.rng.getrandbits(64) - (1 << 63)

    def _text(self) -> str:
        return " ".join(self.rng.choices(VOCAB, cum_weights=self.cum_weights, k=WORDS_PER_TEXT))

    def probes(self, n: int) -> list[tuple[int, ...]]:
        """Feature vectors of near copies of existing originals, to look up
        without inserting them."""
        rng = random.Random(99)
        found = []
        for rep in rng.sample(self.originals, n):
            base = self.items[rep - 1][1]
            found.append(tuple(v if i < 3 else rng.getrandbits(64) - (1 << 63) for i, v in enumerate(base)))
        return found

    def next(self) -> Synthetic:
        item_id = len(self.items) + 1
        roll = self.rng.random()
        if roll < 0.05 and self.items:
            source = self.rng.randrange(len(self.items))
            sha1, features, cluster = self.items[source]
        elif roll < 0.15 and self.originals:
            rep = self.rng.choice(self.originals)
            base = self.items[rep - 1][1]
            keep = set(self.rng.sample(range(6), 3))
            features = tuple(base[i] if i in keep else self._feature() for i in range(6))
            sha1, cluster = hashlib.sha1(f"near {item_id}".encode()).hexdigest(), rep
        else:
            features = tuple(self._feature() for _ in range(6))
            sha1, cluster = hashlib.sha1(f"orig {item_id}".encode()).hexdigest(), item_id
            self.originals.append(item_id)
        self.items.append((sha1, features, cluster))
        return Synthetic(item_id, sha1, features, self._text(), cluster)


def fingerprint_of(item: Synthetic) -> Fingerprint:
    return Fingerprint(sha1=item.sha1, features=item.features, words=WORDS_PER_TEXT,
                       shingles=WORDS_PER_TEXT - 3, params=PARAMS)


def record_of(item: Synthetic) -> ItemRecord:
    return ItemRecord(path=f"/archive/{item.item_id}.txt", title=f"document {item.item_id}",
                      size=len(item.text), mtime=1.7e9, mime_type="text/plain", text=item.text)


def insert_via_api(store: Store, items: list[Synthetic]) -> float:
    """Seconds per insert through the public API."""
    start = time.perf_counter()
    for at in range(0, len(items), BATCH):
        with store.transaction():
            for item in items[at : at + BATCH]:
                store.upsert_item(record_of(item), fingerprint_of(item))
    return (time.perf_counter() - start) / len(items)


def timed_rounds(store: Store, gen: Generator) -> tuple[float, int]:
    """Median seconds per insert over ROUNDS rounds of SAMPLE inserts (the
    median shrugs off a round slowed by another process), and how many of
    them landed in the wrong cluster."""
    times, wrong = [], 0
    for _ in range(ROUNDS):
        sample = [gen.next() for _ in range(SAMPLE)]
        times.append(insert_via_api(store, sample))
        wrong += wrongly_clustered(store, sample)
    return statistics.median(times), wrong


def wrongly_clustered(store: Store, items: list[Synthetic]) -> int:
    ids = ",".join(str(i.item_id) for i in items)
    _, rows = store.execute(f"SELECT item_id, cluster_id FROM clusters WHERE item_id IN ({ids})")
    got = {int(r[0]): int(r[1]) for r in rows}  # type: ignore[call-overload]
    return sum(1 for i in items if got.get(i.item_id) != i.cluster_id)


def bulk_fill(path: Path, gen: Generator, until: int) -> float:
    """Fill to ``until`` items with plain executemany; seconds taken."""
    start = time.perf_counter()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA cache_size = -2000000")  # 2 GB: random-key index inserts
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute("BEGIN")
    while len(gen.items) < until:
        chunk = [gen.next() for _ in range(min(50_000, until - len(gen.items)))]
        conn.executemany(
            "INSERT INTO items (id, path, part, kind, mime_type, size, mtime, title, status, indexed_at, text)"
            " VALUES (?, ?, '', 'document', 'text/plain', ?, 1.7e9, ?, 'ok', '2026-11-21 00:00:00', ?)",
            [(i.item_id, f"/archive/{i.item_id}.txt", len(i.text), f"document {i.item_id}", i.text) for i in chunk],
        )
        conn.executemany(
            "INSERT INTO fingerprints (item_id, sha1, f1, f2, f3, f4, f5, f6, words, shingles, is_representative)"
            f" VALUES (?, ?, ?, ?, ?, ?, ?, ?, {WORDS_PER_TEXT}, {WORDS_PER_TEXT - 3}, ?)",
            [(i.item_id, i.sha1, *i.features, int(i.cluster_id == i.item_id)) for i in chunk],
        )
        conn.executemany(
            "INSERT INTO clusters (item_id, sha1, cluster_id) VALUES (?, ?, ?)",
            [(i.item_id, i.sha1, i.cluster_id) for i in chunk],
        )
        print(f"  filled {len(gen.items):,}", flush=True)
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    # synchronous=OFF left ~1 GB for the kernel to write back; let it finish
    # so the timed inserts do not compete with the fill's own disk writes
    os.sync()
    return time.perf_counter() - start


def lookup_seconds(store: Store, probes: list[tuple[int, ...]], *, scan: bool) -> float:
    """Median seconds of one candidate lookup, by the indexes or by a scan."""
    sql = (f"SELECT item_id, count(*) AS shared FROM ({feature_union(True)}) "
           "GROUP BY item_id HAVING count(*) >= :threshold ORDER BY shared DESC, item_id LIMIT 1")
    if scan:
        sql = sql.replace("FROM fingerprints", "FROM fingerprints NOT INDEXED")
    times = []
    for features in probes:
        values: dict[str, object] = {f"f{n + 1}": v for n, v in enumerate(features)}
        start = time.perf_counter()
        store.execute(sql, {**values, "threshold": 2})
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def search_seconds(store: Store, term: str, *, collapsed: bool) -> tuple[float, int]:
    results = f"SELECT rowid AS id, bm25(items_fts) AS rank FROM items_fts WHERE items_fts MATCH '{term}'"
    # the peer fetches the same columns for every result, just without collapsing
    plain = (f"WITH results AS MATERIALIZED ({results}) SELECT i.id, i.path, i.part, i.kind, i.title, r.rank "
             "FROM results r JOIN items i ON i.id = r.id ORDER BY r.rank, i.id")
    sql = collapse_sql(results) if collapsed else plain
    times, rows = [], 0
    for _ in range(5):
        start = time.perf_counter()
        rows = len(store.execute(sql)[1])
        times.append(time.perf_counter() - start)
    return statistics.median(times), rows


def stats_timing(path: Path, items: int) -> None:
    """``--stats``: the ``stats`` report (and ``--idf 4``) on a bulk-filled
    store, beside its peer: reading the rows the report reads (fingerprints,
    sketches, texts) and nothing else.  Run it with ``PYTHONPATH`` set to
    another checkout's top folder to time that code (README: before/after)."""
    import lifededup
    from lifededup.report import stats

    with open_store(path, readonly=True) as store:
        held = int(str(store.execute("SELECT count(*) FROM items")[1][0][0]))
    if held == 0:
        bulk_fill(path, Generator(), items)
    elif held != items:
        raise SystemExit(f"{path} holds {held:,} items, not {items:,}: give another --dir")
    # else a store filled by an earlier run (--dir): the same generator, so the same items
    with open_store(path, readonly=True) as store:
        start = time.perf_counter()
        store.execute("SELECT f.*, i.kind, i.text FROM fingerprints f JOIN items i ON i.id = f.item_id")
        read = time.perf_counter() - start
        start = time.perf_counter()
        stats(store)
        plain = time.perf_counter() - start
        start = time.perf_counter()
        stats(store, idf=[4.0])
        idf = time.perf_counter() - start
    print(f"code: {Path(lifededup.__file__).parent}")
    print(f"stats at {items:,} items: {plain:.1f} s ({plain / read:.0f}x reading its rows, {read:.2f} s); "
          f"stats --idf 4: {idf:.1f} s ({idf / read:.0f}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--small", type=int, default=10_000)
    parser.add_argument("--dir", type=Path, default=None, help="where to build the store (default: a temp dir)")
    parser.add_argument("--stats", action="store_true", help="time the stats report alone (see stats_timing)")
    args = parser.parse_args()
    folder = args.dir or Path(tempfile.mkdtemp(prefix="bench-store-"))
    path = folder / "bench.db"
    if args.stats:
        open_store(path).close()
        stats_timing(path, args.items)
        return
    gen = Generator()
    store = open_store(path)

    print(f"store {path}: {args.small:,} items through the API")
    insert_via_api(store, [gen.next() for _ in range(args.small - (ROUNDS + 1) * SAMPLE)])
    insert_via_api(store, [gen.next() for _ in range(SAMPLE)])  # warm-up, as at 1M
    per_small, wrong_small = timed_rounds(store, gen)
    probe = gen.probes(50)
    scan_small = lookup_seconds(store, probe, scan=True)
    index_small = lookup_seconds(store, probe, scan=False)
    store.close()

    print(f"filling to {args.items:,} items")
    fill = bulk_fill(path, gen, args.items - (ROUNDS + 1) * SAMPLE)
    store = open_store(path)
    # Untimed warm-up through the API: the bulk fill leaves the search index
    # with merge work a store grown one insert at a time would have spread out.
    insert_via_api(store, [gen.next() for _ in range(SAMPLE)])
    per_big, wrong_big = timed_rounds(store, gen)
    scan_big = lookup_seconds(store, probe, scan=True)
    index_big = lookup_seconds(store, probe, scan=False)
    searches = {
        name: (search_seconds(store, term, collapsed=True), search_seconds(store, term, collapsed=False))
        for name, term in QUERIES.items()
    }
    store.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = os.path.getsize(path)
    problems = check_store(store)
    store.close()

    n_small, n_big = args.small, args.items
    print()
    print(f"insert through the API, per item: at {n_small:,}: {per_small * 1e6:.0f} us; "
          f"at {n_big:,}: {per_big * 1e6:.0f} us; ratio {per_big / per_small:.2f}x (target < 2x)")
    print(f"  wrongly clustered of {ROUNDS * SAMPLE} inserts: {wrong_small} at {n_small:,}, {wrong_big} at {n_big:,}")
    print(f"candidate lookup, median: indexed {index_small * 1e6:.0f} -> {index_big * 1e6:.0f} us "
          f"({index_big / index_small:.2f}x); full scan (peer) {scan_small * 1e3:.1f} -> {scan_big * 1e3:.1f} ms "
          f"({scan_big / scan_small:.0f}x); scan / index at {n_big:,}: {scan_big / index_big:.0f}x")
    print(f"store size: {size / 2**20:.0f} MiB, {size / n_big:.0f} bytes per item "
          f"({WORDS_PER_TEXT}-word texts, with search index); bulk fill took {fill:.0f} s")
    for name, ((c_time, c_rows), (p_time, p_rows)) in searches.items():
        print(f"search '{QUERIES[name]}' ({name}) at {n_big:,}: collapsed {c_time * 1e3:.1f} ms for {c_rows:,} rows; "
              f"plain (peer) {p_time * 1e3:.1f} ms for {p_rows:,} rows; ratio {c_time / p_time:.2f}x")
    print("check:", "ok" if not problems else "; ".join(map(str, problems)))


if __name__ == "__main__":
    main()
