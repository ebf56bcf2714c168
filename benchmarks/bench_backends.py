"""SQLite and PostgreSQL side by side at a million items: the cost of an
insert through the store's API at 10,000 and at 1,000,000 items, and the
store's size on disk, in one run, with the ratio PostgreSQL / SQLite.

Documents are real text: paragraphs of the real archive's plain-text files
(``real_archive.py``: Debian's manuals as text, several releases of six
Python projects' docs), de-duplicated, and put together into originals of one
to four paragraphs; near copies are originals with 1-20% of their words
deleted, replaced or added (word edits spread through the text, as a
revision makes), exact copies repeat an earlier item.  Their clusters are
built as the store's rule makes them: a near copy joins its original when the
rule's measure (``store.similarity.measure``: sketch resemblance and word
edit distance within 30%) admits it, else it stands alone.

The million is bulk-loaded -- documents made and fingerprinted with
``fingerprint_many`` in one process per core, rows written with
``executemany`` (SQLite) and ``COPY`` (PostgreSQL), the search index and the
secondary indexes built after the rows -- but every measured insert goes
through the normal write path: ``Store.upsert_item`` with real fingerprints,
clustering included, ``--batch`` items a transaction as the indexer writes
them.  A window of ``--window`` inserts (after ``--warm`` untimed ones) at
each size: 60% new originals, 25% near copies of a representative already in
the store, 15% exact copies of a stored item; each is checked against the
cluster it should land in.

PostgreSQL runs in a throwaway server (``tests/pg_server.py``) with the
server's own default settings (durable: fsync and synchronous commit on,
shared_buffers 128 MB), not the test suite's.  The stores stay under
``--dir`` (default ``/tmp/lifededup-bench-1m``): ``store.db`` and the
server's data folder ``pg/`` (database ``bench``); see benchmarks/README.md
for starting that server again.

    python benchmarks/bench_backends.py [--items 1000000] [--small 10000] [--window 2000]
    python benchmarks/bench_backends.py --index FOLDER [--rounds 3]   # the whole indexer on each backend
"""

from __future__ import annotations

import argparse
import os
import pickle
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from pg_server import Server  # noqa: E402
from real_archive import build  # noqa: E402

from lifededup.config import FingerprintParams  # noqa: E402
from lifededup.fingerprint import fingerprint_many  # noqa: E402
from lifededup.model import Fingerprint  # noqa: E402
from lifededup.store import ItemRecord, Store, check_store, open_store  # noqa: E402
from lifededup.store.check import Problem  # noqa: E402
from lifededup.store.clustering import _words_of  # noqa: E402
from lifededup.store.records import machine_name  # noqa: E402
from lifededup.store.searchable import apart, pg_document, pg_fill_pieces  # noqa: E402
from lifededup.store.similarity import Rule, measure, sketch_values  # noqa: E402

PARAMS = FingerprintParams()
RULE = Rule()
CHUNK = 2_500  # documents a worker makes and fingerprints at once (the 10k stage: 3 chunks + the window)
# shares of a bulk chunk (a window uses the same shares)
ORIGINAL, NEAR = 0.60, 0.25  # the rest are exact copies
# PostgreSQL's defaults, said out loud (what a person's server runs with)
USER_SETTINGS = {"shared_buffers": "128MB", "fsync": "on", "synchronous_commit": "on", "full_page_writes": "on"}
PG_TABLES = ("items", "items_fts", "fingerprints", "clusters", "sketch_keys")


# --- documents -----------------------------------------------------------

def paragraphs() -> list[str]:
    """The words of the real archive's distinct plain-text paragraphs of 12-300 words."""
    seen: set[str] = set()
    found: list[str] = []
    for path in sorted(build().rglob("*")):
        if path.suffix not in {".txt", ".rst", ".md"} or not path.is_file():
            continue
        for block in re.split(r"\n\s*\n", path.read_text(encoding="utf-8", errors="replace")):
            words = block.split()
            key = " ".join(words)
            if 12 <= len(words) <= 300 and key not in seen:
                seen.add(key)
                found.extend(words)
    return found


_POOL: list[str] = []  # the paragraphs' words, one stream


def _run(rng: random.Random) -> str:
    """6-20 consecutive words from a random place in the real text."""
    at, length = rng.randrange(len(_POOL) - 20), rng.randint(6, 20)
    return " ".join(_POOL[at:at + length])


def _original(rng: random.Random, number: int) -> str:
    """A new text: 3-12 runs of real text, in paragraphs of up to four runs,
    under a numbered heading.  Runs rather than whole paragraphs, because a
    million texts hold a hundred times the words of the archive: whole
    paragraphs would make most texts near copies of others."""
    runs = [_run(rng) for _ in range(rng.randint(3, 12))]
    body = ("\n\n".join(" ".join(runs[at:at + 4]) for at in range(0, len(runs), 4)))
    return f"Note {number}\n\n{body}"


def _near_copy(text: str, rng: random.Random) -> str:
    """A revision: 1-20% of the words deleted, replaced or added."""
    rate = rng.uniform(0.01, 0.20)
    out: list[str] = []
    for word in text.split(" "):
        roll = rng.random()
        if roll < rate / 3:
            continue
        out.append(rng.choice(_POOL) if roll < 2 * rate / 3 else word)
        if roll > 1 - rate / 3:
            out.append(rng.choice(_POOL))
    return " ".join(out)


@dataclass(frozen=True)
class Doc:
    """One bulk document; ``cluster`` and ``source`` are offsets in its chunk."""

    text: str
    fingerprint: Fingerprint
    cluster: int
    resemblance: float
    word_distance: float


def _admitted(item: Fingerprint, item_text: str, rep: Fingerprint, rep_text: str) -> tuple[float, float] | None:
    """What the store's rule says of ``item`` beside ``rep`` (engine.place's admit)."""
    if item.sha1 == rep.sha1:
        return 1.0, 0.0
    if item.features is None or rep.features is None:
        return None
    found = measure(item.sketch, rep.sketch, _words_of(item_text), _words_of(rep_text), PARAMS.features, RULE)
    return None if found is None else (found.resemblance, found.word_distance)


def make_chunk(seed: int) -> list[Doc]:
    """CHUNK documents, fingerprinted and clustered within the chunk."""
    rng = random.Random(seed)
    texts: list[str] = []
    sources: list[tuple[str, int]] = []  # ("original" | "near" | "exact", offset of the source)
    originals: list[int] = []
    for at in range(CHUNK):
        roll = rng.random()
        if roll < ORIGINAL or not originals:
            texts.append(_original(rng, seed * CHUNK + at))
            sources.append(("original", at))
            originals.append(at)
        elif roll < ORIGINAL + NEAR:
            source = rng.choice(originals)
            texts.append(_near_copy(texts[source], rng))
            sources.append(("near", source))
        else:
            source = rng.randrange(at)
            texts.append(texts[source])
            sources.append(("exact", source))
    prints = fingerprint_many(texts, PARAMS)
    docs: list[Doc] = []
    first_of: dict[str, int] = {}
    for at, (text, fp, (how, source)) in enumerate(zip(texts, prints, sources)):
        copied = first_of.get(fp.sha1)
        if copied is not None:
            doc = docs[copied]
            docs.append(Doc(text, fp, doc.cluster, doc.resemblance, doc.word_distance))
            continue
        first_of[fp.sha1] = at
        rep = docs[source].cluster if how == "near" else at
        measured = _admitted(fp, text, prints[rep], texts[rep]) if rep != at else None
        if measured is None:
            docs.append(Doc(text, fp, at, 1.0, 0.0))
        else:
            docs.append(Doc(text, fp, rep, *measured))
    return docs


def _init_worker(pool: list[str]) -> None:
    _POOL[:] = pool


def chunk_files(folder: Path, count: int) -> list[Path]:
    """The bulk chunks, made once (one process per core) and kept in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"chunk-{n:04d}.pickle" for n in range(count)]
    todo = [n for n, p in enumerate(paths) if not p.exists()]
    if todo:
        pool = paragraphs()
        print(f"making {len(todo)} chunks of {CHUNK:,} documents from {len(pool):,} real paragraphs", flush=True)
        start = time.perf_counter()
        with get_context("fork").Pool(os.cpu_count(), _init_worker, (pool,)) as workers:
            for n, docs in zip(todo, workers.imap(make_chunk, todo)):
                paths[n].write_bytes(pickle.dumps(docs, protocol=pickle.HIGHEST_PROTOCOL))
                if n % 10 == 0:
                    print(f"  chunk {n} ({time.perf_counter() - start:.0f} s)", flush=True)
        print(f"  made in {time.perf_counter() - start:.0f} s", flush=True)
    return paths


# --- bulk loading --------------------------------------------------------

_ITEM_COLUMNS = ("id", "machine", "path", "part", "kind", "mime_type", "size", "mtime", "title", "status",
                 "indexed_at", "text", "title_apart", "text_apart")
_FP_COLUMNS = ("item_id", "sha1", "f1", "f2", "f3", "f4", "f5", "f6", "words", "shingles", "is_representative",
               "sketch")
_CLUSTER_COLUMNS = ("item_id", "sha1", "cluster_id", "resemblance", "word_distance")


def _rows(docs: list[Doc], base: int) -> tuple[list[tuple[object, ...]], ...]:
    items: list[tuple[object, ...]] = []
    prints: list[tuple[object, ...]] = []
    clusters: list[tuple[object, ...]] = []
    machine = machine_name()  # the machine the measured windows write as
    for at, doc in enumerate(docs):
        item_id, fp = base + at, doc.fingerprint
        title = " ".join(doc.text.split()[:8])
        # the words apart of a text with CJK characters in it, as the store writes them (revision 0022): the
        # real archive's contributors' names (林玮) left 208 items of the million without, which `check` said
        items.append((item_id, machine, f"/archive/{item_id:07d}.txt", "", "document", "text/plain", len(doc.text), 1.7e9,
                      title, "ok", "2026-11-23 00:00:00.000000", doc.text, apart(title), apart(doc.text)))
        features = fp.features or (None,) * 6
        prints.append((item_id, fp.sha1, *features, fp.words, fp.shingles, doc.cluster == at, fp.sketch))
        clusters.append((item_id, fp.sha1, base + doc.cluster, doc.resemblance, doc.word_distance))
    return items, prints, clusters


def _sketch_keys(docs: list[Doc], base: int) -> tuple[np.ndarray, np.ndarray]:
    """(value, item_id) of every representative's distinct sketch values."""
    values, owners = [], []
    for at, doc in enumerate(docs):
        if doc.cluster == at and doc.fingerprint.sketch is not None:
            distinct = np.unique(sketch_values(doc.fingerprint.sketch))
            values.append(distinct)
            owners.append(np.full(distinct.size, base + at, dtype=np.int64))
    return np.concatenate(values), np.concatenate(owners)


def _sorted_keys(keys: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    values = np.concatenate([k[0] for k in keys])
    owners = np.concatenate([k[1] for k in keys])
    order = np.lexsort((owners, values))  # the primary key's order: appends, never a random leaf
    return values[order], owners[order]


def _chunks(paths: list[Path], base: int) -> Iterator[tuple[list[Doc], int]]:
    for path in paths:
        docs: list[Doc] = pickle.loads(path.read_bytes())
        yield docs, base
        base += len(docs)


def load_sqlite(path: Path, paths: list[Path], base: int) -> float:
    """Bulk rows into the SQLite store (its triggers keep the search index); seconds."""
    start = time.perf_counter()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA cache_size = -2000000")  # 2 GB: the six feature indexes take random keys
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute("BEGIN")
    keys = []
    for docs, at in _chunks(paths, base):
        items, prints, clusters = _rows(docs, at)
        conn.executemany(f"INSERT INTO items ({', '.join(_ITEM_COLUMNS)}) VALUES ({', '.join('?' * len(_ITEM_COLUMNS))})", items)
        conn.executemany(f"INSERT INTO fingerprints ({', '.join(_FP_COLUMNS)}) VALUES ({', '.join('?' * 12)})",
                         prints)
        conn.executemany(f"INSERT INTO clusters ({', '.join(_CLUSTER_COLUMNS)}) VALUES (?, ?, ?, ?, ?)", clusters)
        keys.append(_sketch_keys(docs, at))
    values, owners = _sorted_keys(keys)
    conn.executemany("INSERT INTO sketch_keys (value, item_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
                     zip(values.tolist(), owners.tolist()))
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    os.sync()  # synchronous=OFF left the kernel gigabytes to write back; not during the timed inserts
    return time.perf_counter() - start


def _copy_binary(cursor: object, table: str, values: np.ndarray, owners: np.ndarray) -> None:
    """Two BIGINT columns in COPY's binary format, built by numpy."""
    row = np.dtype([("n", ">i2"), ("l1", ">i4"), ("v", ">i8"), ("l2", ">i4"), ("i", ">i8")])
    rows = np.empty(values.size, dtype=row)
    rows["n"], rows["l1"], rows["l2"] = 2, 8, 8
    rows["v"], rows["i"] = values, owners
    with cursor.copy(f"COPY {table} (value, item_id) FROM STDIN (FORMAT BINARY)") as copy:  # type: ignore[attr-defined]
        copy.write(b"PGCOPY\n\xff\r\n\x00" + b"\x00" * 8)
        for at in range(0, rows.size, 1_000_000):
            copy.write(rows[at:at + 1_000_000].tobytes())
        copy.write(b"\xff\xff")


def load_postgres(url: str, paths: list[Path], base: int) -> float:
    """Bulk rows into the PostgreSQL store with COPY, the search index and the
    secondary indexes built after the rows (as a bulk loader does); seconds."""
    import psycopg

    start = time.perf_counter()
    with psycopg.connect(url) as conn, conn.cursor() as cur:
        cur.execute("SET maintenance_work_mem = '1GB'")
        cur.execute("SET synchronous_commit = off")  # this session's commits only; the timed ones are durable
        secondary = cur.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename = ANY(%s)"
            " AND indexname NOT IN (SELECT conname FROM pg_constraint)", ([*PG_TABLES, "items_fts_pieces"],)).fetchall()
        for name, _ in secondary:
            cur.execute(f'DROP INDEX "{name}"')
        cur.execute("ALTER TABLE items DISABLE TRIGGER items_ai")
        keys = []
        first = base
        for docs, at in _chunks(paths, base):
            items, prints, clusters = _rows(docs, at)
            for table, columns, rows in (("items", _ITEM_COLUMNS, items), ("fingerprints", _FP_COLUMNS, prints),
                                         ("clusters", _CLUSTER_COLUMNS, clusters)):
                with cur.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(row)
            keys.append(_sketch_keys(docs, at))
            last = at + len(docs) - 1
        cur.execute("ALTER TABLE items ENABLE TRIGGER items_ai")
        # the trigger's own function, for the rows COPY wrote
        cur.execute(f"INSERT INTO items_fts (rowid, document) SELECT id, {pg_document()}"
                    " FROM items WHERE id BETWEEN %s AND %s", (first, last))
        # and a long text's pieces (revision 0027), as the trigger writes them
        cur.execute(pg_fill_pieces("i.id BETWEEN %s AND %s"), (first, last))
        values, owners = _sorted_keys(keys)
        _copy_binary(cur, "sketch_keys", values, owners)
        for _, definition in secondary:
            cur.execute(definition)
        cur.execute("SELECT setval(pg_get_serial_sequence('items', 'id'), (SELECT max(id) FROM items))")
        conn.commit()
        conn.autocommit = True
        cur.execute("VACUUM (ANALYZE)")  # what autovacuum does to a store that grew this much
        cur.execute("CHECKPOINT")
    return time.perf_counter() - start


# --- the measured inserts ------------------------------------------------

@dataclass(frozen=True)
class Window:
    """Documents to insert through the API, and for each the stored item it
    copies (None: a new original) and whether it is a near copy."""

    texts: list[str]
    sources: list[tuple[int, str, bool] | None]  # (cluster of the source, source's text, near)


def window(store: Store, count: int, seed: str) -> Window:
    """``count`` documents beside what the store holds: new originals, near copies
    of stored representatives, exact copies of stored items.  The seed is a
    string, never one of the chunks' integers: the same random draws would make
    the "new" originals near copies of a stored chunk's."""
    rng = random.Random(seed)
    top = int(store.execute("SELECT max(id) FROM items")[1][0][0])  # type: ignore[call-overload]
    texts: list[str] = []
    sources: list[tuple[int, str, bool] | None] = []
    for n in range(count):
        roll = rng.random()
        if roll < ORIGINAL:
            texts.append(_original(rng, -1 - n))
            sources.append(None)
            continue
        near = roll < ORIGINAL + NEAR
        while True:  # a stored item; for a near copy, a representative
            item = rng.randint(1, top)
            _, rows = store.execute("SELECT i.text, c.cluster_id FROM items i JOIN clusters c ON c.item_id = i.id"
                                    " WHERE i.id = :id", {"id": item})
            if rows and (not near or rows[0][1] == item):
                break
        text, cluster = str(rows[0][0]), int(rows[0][1])  # type: ignore[call-overload]
        texts.append(_near_copy(text, rng) if near else text)
        sources.append((cluster, text, near))
    return Window(texts, sources)


def expected(win: Window, prints: list[Fingerprint]) -> list[int | None]:
    """The cluster each should join by the store's rule (None: its own)."""
    found: list[int | None] = []
    sources = [s for s in win.sources if s is not None and s[2]]
    source_prints = iter(fingerprint_many([s[1] for s in sources], PARAMS))
    for text, fp, source in zip(win.texts, prints, win.sources):
        if source is None:
            found.append(None)
        elif not source[2]:
            found.append(source[0])
        else:
            admitted = _admitted(fp, text, next(source_prints), source[1])
            found.append(None if admitted is None else source[0])
    return found


def insert(store: Store, texts: list[str], prints: list[Fingerprint], batch: int, stem: str) -> tuple[float, list[int]]:
    """Seconds per item through ``Store.upsert_item``, ``batch`` items a transaction, and their ids."""
    ids: list[int] = []
    start = time.perf_counter()
    for at in range(0, len(texts), batch):
        with store.transaction():
            for n in range(at, min(at + batch, len(texts))):
                record = ItemRecord(path=f"/new/{stem}-{n:05d}.txt", title=" ".join(texts[n].split()[:8]),
                                    size=len(texts[n]), mtime=1.7e9, mime_type="text/plain", text=texts[n])
                ids.append(store.upsert_item(record, prints[n]))
    return (time.perf_counter() - start) / len(texts), ids


def misplaced(store: Store, ids: list[int], expect: list[int | None]) -> int:
    """Window inserts not in the cluster the rule gives them."""
    wrong = 0
    for item, want in zip(ids, expect):
        got = int(store.execute("SELECT cluster_id FROM clusters WHERE item_id = :i", {"i": item})[1][0][0])  # type: ignore[call-overload]
        wrong += got != (item if want is None else want)
    return wrong


def measure_window(target: str | Path, args: argparse.Namespace, stem: str) -> tuple[float, int]:
    """Warm up, then time ``args.window`` inserts; (seconds per item, misplaced).
    Both backends get the same documents (the same seeds over the same ids)."""
    with open_store(target) as store:
        warm = window(store, args.warm, seed=f"{stem}-warm")
        insert(store, warm.texts, fingerprint_many(warm.texts, PARAMS), args.batch, f"{stem}-warm")
        timed = window(store, args.window, seed=f"{stem}-timed")
        prints = fingerprint_many(timed.texts, PARAMS)
        want = expected(timed, prints)
        seconds, ids = insert(store, timed.texts, prints, args.batch, f"{stem}-timed")
        return seconds, misplaced(store, ids, want)


# --- sizes and the report ------------------------------------------------

def sqlite_sizes(path: Path) -> dict[str, int]:
    conn = sqlite3.connect(path)
    try:
        sizes = dict(conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall())
    except sqlite3.OperationalError:  # no dbstat in this SQLite
        sizes = {}
    conn.close()
    tables = {t: sum(v for k, v in sizes.items() if k == t or k.startswith(f"{t}_") or k.startswith(f"ix_{t}_")
                     or k.startswith(f"sqlite_autoindex_{t}_")) for t in PG_TABLES}
    tables["items"] -= sum(v for k, v in sizes.items() if k.startswith("items_fts"))
    return {"total": path.stat().st_size, **tables}


def postgres_sizes(url: str) -> dict[str, int]:
    import psycopg

    with psycopg.connect(url) as conn:
        total = int(conn.execute("SELECT pg_database_size(current_database())").fetchone()[0])  # type: ignore[index]
        tables = {t: int(conn.execute("SELECT pg_total_relation_size(%s)", (t,)).fetchone()[0])  # type: ignore[index]
                  for t in PG_TABLES}
    return {"total": total, **tables}


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--small", type=int, default=10_000)
    parser.add_argument("--window", type=int, default=2_000)
    parser.add_argument("--warm", type=int, default=500)
    parser.add_argument("--batch", type=int, default=256, help="items a transaction (the indexer's batch_items)")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/lifededup-bench-1m"))
    parser.add_argument("--check", action="store_true", help="lifededup check both stores at the end")
    parser.add_argument("--pg-setting", action="append", default=[], metavar="NAME=VALUE",
                        help="a server setting other than PostgreSQL's default (shared_buffers=4GB, say)")
    parser.add_argument("--again", action="store_true",
                        help="time new windows without loading the million again: on fresh 10k stores"
                        " and on the kept stores of an earlier run")
    parser.add_argument("--serve", action="store_true",
                        help="start the kept PostgreSQL server of an earlier run, print both stores, "
                        "wait for Ctrl-C or kill")
    parser.add_argument("--index", type=Path, metavar="FOLDER",
                        help="instead: time `lifededup index FOLDER` into a fresh store of each backend, alternated")
    parser.add_argument("--rounds", type=int, default=3, help="with --index: runs of each backend")
    args = parser.parse_args()
    USER_SETTINGS.update(setting.split("=", 1) for setting in args.pg_setting)
    if args.index is not None:
        index_both(args.index, args.rounds)
        return
    if args.serve:
        serve(args.dir)
        return
    if args.again:
        again(args)
        return
    per_chunk = args.window + args.warm
    small_chunks = max(0, (args.small - per_chunk) // CHUNK)
    big_chunks = (args.items - 2 * per_chunk) // CHUNK
    if big_chunks <= small_chunks:
        parser.error(f"--items must exceed --small by at least {CHUNK + per_chunk:,}")
    for stale in (args.dir / "store.db", args.dir / "store.db-wal", args.dir / "pg"):
        if stale.is_dir():
            shutil.rmtree(stale)
        elif stale.exists():
            stale.unlink()
    paths = chunk_files(args.dir / "chunks", big_chunks)
    _POOL[:] = paragraphs()
    db = args.dir / "store.db"
    server = Server.start(root=args.dir / "pg", settings=USER_SETTINGS)
    try:
        server.admin("CREATE DATABASE bench")
        url = server.url("bench")
        targets: dict[str, str | Path] = {"SQLite": db, "PostgreSQL": url}
        for target in targets.values():
            open_store(target).close()
        loads: dict[str, list[float]] = {name: [] for name in targets}
        per: dict[str, list[tuple[float, int]]] = {name: [] for name in targets}
        sizes_at: list[int] = []
        for stage, stage_paths in enumerate((paths[:small_chunks], paths[small_chunks:])):
            with open_store(db) as store:
                base = int(store.execute("SELECT coalesce(max(id), 0) FROM items")[1][0][0]) + 1  # type: ignore[call-overload]
            print(f"bulk-loading {len(stage_paths) * CHUNK:,} documents from id {base:,} (load {load_average()})",
                  flush=True)
            loads["SQLite"].append(load_sqlite(db, stage_paths, base))
            loads["PostgreSQL"].append(load_postgres(url, stage_paths, base))
            for name, target in targets.items():
                print(f"  {name}: loaded in {loads[name][-1]:.0f} s; timing {args.window:,} inserts "
                      f"(load {load_average()})", flush=True)
                per[name].append(measure_window(target, args, f"run{stage}"))
            with open_store(db) as store:
                sizes_at.append(int(store.execute("SELECT count(*) FROM items")[1][0][0]))  # type: ignore[call-overload]
        sizes = {"SQLite": sqlite_sizes(db), "PostgreSQL": postgres_sizes(url)}
        problems: dict[str, list[Problem]] = {}
        if args.check:
            for name, target in targets.items():
                with open_store(target, readonly=True) as store:
                    problems[name] = check_store(store)
        report(args, sizes_at, per, sizes, loads, problems)
    finally:
        server.stop(keep=True)
    print(f"\nkept: {db} and the server's data folder {args.dir / 'pg'} (database bench; benchmarks/README.md)")


def again(args: argparse.Namespace) -> None:
    """New windows: at 10,000 on fresh stores (bulk-loaded from the first chunks),
    and on the kept million (which grows by each window it is timed with)."""
    small_chunks = max(0, (args.small - args.window - args.warm) // CHUNK)
    paths = chunk_files(args.dir / "chunks", small_chunks)
    _POOL[:] = paragraphs()
    stamp = time.strftime("%H%M%S")
    small_db = args.dir / f"small-{stamp}.db"
    server = Server.start(root=args.dir / "pg", settings=USER_SETTINGS)
    try:
        server.admin(f"CREATE DATABASE small_{stamp}")
        stages = [{"SQLite": small_db, "PostgreSQL": server.url(f"small_{stamp}")},
                  {"SQLite": args.dir / "store.db", "PostgreSQL": server.url("bench")}]
        for target in stages[0].values():
            open_store(target).close()
        load_sqlite(small_db, paths[:small_chunks], 1)
        load_postgres(str(stages[0]["PostgreSQL"]), paths[:small_chunks], 1)
        per: dict[str, list[tuple[float, int]]] = {"SQLite": [], "PostgreSQL": []}
        counts = []
        for targets in stages:
            for name, target in targets.items():
                print(f"  {name}: timing {args.window:,} inserts (load {load_average()})", flush=True)
                per[name].append(measure_window(target, args, f"again{stamp}"))
            with open_store(targets["SQLite"]) as store:
                counts.append(int(store.execute("SELECT count(*) FROM items")[1][0][0]))  # type: ignore[call-overload]
        sizes = {"SQLite": sqlite_sizes(args.dir / "store.db"), "PostgreSQL": postgres_sizes(server.url("bench"))}
        report(args, counts, per, sizes, {}, {})
        server.admin(f"DROP DATABASE small_{stamp}")
        small_db.unlink()
        Path(f"{small_db}-wal").unlink(missing_ok=True)
    finally:
        server.stop(keep=True)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def index_both(folder: Path, rounds: int) -> None:
    """The whole indexer on both backends: ``lifededup index FOLDER`` (one
    worker a core) into a fresh SQLite file and into a throwaway server of
    its own with PostgreSQL's defaults (a server that took earlier runs was
    slower by its checkpoints of them), alternated ``rounds`` times;
    the index's own time (its summary's) and the process's, the fastest of
    each, and PostgreSQL / SQLite.  Run it with ``PYTHONPATH`` set to compare
    two trees of the code."""
    def run(db: str) -> tuple[float, float, str]:
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "lifededup", "index", "--db", db, str(folder)],
                              capture_output=True, text=True)
        wall = time.perf_counter() - started
        if done.returncode != 0:
            sys.exit(f"lifededup index --db {db} failed ({done.returncode}):\n{done.stderr[-3000:]}")
        first = done.stdout.splitlines()[0]
        took = re.search(r"\(([\d.]+) s, [\d.]+ files/s\)", first)
        return float(took.group(1)) if took else wall, wall, first

    times: dict[str, list[tuple[float, float]]] = {"SQLite": [], "PostgreSQL": []}
    with tempfile.TemporaryDirectory(prefix="lifededup-bench-index-") as tmp:
        for round_ in range(rounds):
            for name in times:
                server = Server.start(settings=USER_SETTINGS) if name == "PostgreSQL" else None
                try:
                    own, wall, first = run(server.new_database() if server else f"{tmp}/store{round_}.db")
                finally:
                    if server is not None:
                        server.stop()
                times[name].append((own, wall))
                print(f"round {round_ + 1}, {name}: {own:.1f} s by its summary, {wall:.1f} s the process "
                      f"(load {load_average()}): {first}", flush=True)
    best = {name: min(runs) for name, runs in times.items()}
    for name, (own, wall) in best.items():
        print(f"{name:<11} fastest: {own:6.1f} s by its summary, {wall:6.1f} s the process")
    print(f"PostgreSQL / SQLite: {best['PostgreSQL'][0] / best['SQLite'][0]:.2f}x")


def serve(folder: Path) -> None:
    """The kept stores, for other benchmarks (bench_search.py) to run on,
    until Ctrl-C, SIGINT or SIGTERM stops the server (a shell starts a job
    in the background with SIGINT ignored, and ``kill`` sends SIGTERM: either
    left the server running before)."""
    signal.signal(signal.SIGINT, _interrupt)
    signal.signal(signal.SIGTERM, _interrupt)
    server = Server.start(root=folder / "pg", settings=USER_SETTINGS)
    try:
        print(f"SQLite store:     {folder / 'store.db'}")
        print(f"PostgreSQL store: {server.url('bench')}")
        print("Ctrl-C or kill stops the server (its data folder stays)", flush=True)
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop(keep=True)


def report(args: argparse.Namespace, counts: list[int], per: dict[str, list[tuple[float, int]]],
           sizes: dict[str, dict[str, int]], loads: dict[str, list[float]], problems: dict[str, list[Problem]]) -> None:
    print(f"\nload average at the end: {load_average()}")
    print(f"insert through Store.upsert_item, {args.window:,} items ({args.batch} a transaction), ms per item:")
    print(f"{'':12} {'at ' + format(counts[0], ','):>14} {'at ' + format(counts[1], ','):>16} {'growth':>8}"
          f" {'misplaced':>10}")
    for name, ((small, wrong_small), (big, wrong_big)) in per.items():
        print(f"{name:12} {small * 1e3:14.2f} {big * 1e3:16.2f} {big / small:7.2f}x {wrong_small:>4} / {wrong_big}")
    (s_small, _), (s_big, _) = per["SQLite"]
    (p_small, _), (p_big, _) = per["PostgreSQL"]
    print(f"{'PG / SQLite':12} {p_small / s_small:13.2f}x {p_big / s_big:15.2f}x")
    print(f"\nstore size at {counts[1]:,} items, MiB:")
    print(f"{'':12} " + " ".join(f"{k:>12}" for k in sizes["SQLite"]))
    for name, found in sizes.items():
        print(f"{name:12} " + " ".join(f"{v / 2**20:12.0f}" for v in found.values()))
    ratio = sizes["PostgreSQL"]["total"] / sizes["SQLite"]["total"]
    print(f"PG / SQLite: {ratio:.2f}x; bytes per item: SQLite {sizes['SQLite']['total'] / counts[1]:.0f},"
          f" PostgreSQL {sizes['PostgreSQL']['total'] / counts[1]:.0f}")
    if loads:
        print("bulk loads, s: " + "; ".join(f"{n} " + " + ".join(f"{s:.0f}" for s in v) for n, v in loads.items()))
    for name, listed in problems.items():
        print(f"check {name}: " + ("ok" if not listed else "; ".join(map(str, listed))))


if __name__ == "__main__":
    main()
