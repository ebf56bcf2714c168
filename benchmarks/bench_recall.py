"""Do the clusters hold the copies people mean?  Recall and precision of the
store's clustering on a real archive (``real_archive.py``: Debian manuals in
PDF/TXT/EPUB/HTML, several releases of three projects' documentation, real
mail), for the default verified rule, the design card's six-feature rule and
datasketch's MinHashLSH, in one run.

What counts as a near copy is measured, not assumed: every pair of items that
shares at least 5% of its shingles (an inverted index over all shingles, those
in more than 40 items left out as boilerplate) gets its word edit distance
(rapidfuzz, a share of the longer text).  Printed for each clustering:

* **near-copy rows on first pages** -- 30 queries (terms in 1-10% of the
  items, evenly spread), the bm25 ranking collapsed by the clustering, first
  20 rows: the share of rows within 20% word edit distance of a row above;
* **document recall at 10/20/30%** -- of the items with a partner within that
  distance, the share that shares a cluster with one;
* **near-pair recall** -- of the pairs within 30%, the share in one cluster;
* **cross-format recall** -- the same for pairs of different formats, and the
  manuals all of whose renderings share one cluster;
* **precision** -- the share of members within 30% of their representative;
* **indexing time** -- ``lifededup.index.run`` into a fresh store (extraction
  included), best of ``--repeat`` runs taken alternately, and its ratio to
  the six-feature rule's.

datasketch: ``MinHash(num_perm=128)`` over the same shingles, ``MinHashLSH``
at threshold T, clustered conservatively (an item joins the earliest
representative the LSH returns whose estimated resemblance is at least T,
else represents itself; exact copies join their copy).  T = 0.5 (datasketch's
usual) and T = 0.2 (near the resemblance of a 30%-edited pair).

    python benchmarks/bench_recall.py            # builds /tmp/lifededup-real-archive once
    python benchmarks/bench_recall.py --workers 2 --repeat 3
    python benchmarks/bench_recall.py --heldout   # material nothing was tuned on (real_archive.build_heldout)
    git archive 048f3a4 | tar -x -C /tmp/before       # the code before the verified stage
    python benchmarks/bench_recall.py --baseline /tmp/before
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from itertools import combinations
from pathlib import Path

import numpy as np
import real_archive

from lifededup.eval.archive import sharing_pairs
from lifededup.fingerprint import shingle
from lifededup.index import IndexConfig, run
from lifededup.normalize import word_stream
from lifededup.store import Store, open_store
from lifededup.store.similarity import bounded_word_distance

QUERIES = 30
PAGE = 20


def distance(a: list[str], b: list[str], bound: float = 0.30) -> float | None:
    return bounded_word_distance(a, b, bound)


class Archive:
    """The indexed items: words, shingles, suffix; and the measured pairs."""

    def __init__(self, store: Store) -> None:
        _, rows = store.execute("SELECT i.id, i.path, i.part, i.text FROM items i JOIN fingerprints f"
                                " ON f.item_id = i.id ORDER BY i.id")
        self.ids = [int(str(r[0])) for r in rows]
        self.key = {int(str(r[0])): (str(r[1]), str(r[2])) for r in rows}
        self.text = {int(str(r[0])): str(r[3] or "") for r in rows}
        self.words = {i: word_stream(t).split() for i, t in self.text.items()}
        self.suffix = {i: Path(p).suffix.lower() for i, (p, _) in self.key.items()}
        self.shingles = {i: np.unique(shingle(t).values[:, 0]) for i, t in self.text.items()}
        self.pairs = self._pairs()

    def _pairs(self) -> dict[tuple[int, int], float]:
        # the pairs eval --store labels: sharing 5% of their shingles
        found = {}
        for a, b in sharing_pairs(self.text):
            d = distance(self.words[a], self.words[b])
            if d is not None:
                found[(a, b)] = d
        # exact copies whose shingles were too few or too common to be paired
        by_text: defaultdict[tuple[str, ...], list[int]] = defaultdict(list)
        for item, words in self.words.items():
            by_text[tuple(words)].append(item)
        for group in by_text.values():
            for a, b in combinations(sorted(group), 2):
                found[(a, b)] = 0.0
        return found


def measure(archive: Archive, cluster_of: Mapping[int, int], store: Store,
            renderings: Mapping[str, list[Path]]) -> dict[str, float | str]:
    together = {p: cluster_of[p[0]] == cluster_of[p[1]] for p in archive.pairs}
    out: dict[str, float | str] = {}
    for bound in (0.10, 0.20, 0.30):
        partners: defaultdict[int, list[bool]] = defaultdict(list)
        for (a, b), d in archive.pairs.items():
            if d <= bound:
                partners[a].append(together[(a, b)])
                partners[b].append(together[(a, b)])
        out[f"doc recall {bound:.0%}"] = sum(any(v) for v in partners.values()) / max(1, len(partners))
    near = [together[p] for p, d in archive.pairs.items()]
    out["near-pair recall"] = sum(near) / max(1, len(near))
    cross = [together[(a, b)] for (a, b) in archive.pairs if archive.suffix[a] != archive.suffix[b]]
    out["cross-format recall"] = sum(cross) / max(1, len(cross))
    out["manuals in one cluster"] = _manuals(archive, cluster_of, renderings)
    out["... leaving EPUB out"] = _manuals(archive, cluster_of, renderings, ".epub")
    members = [(i, c) for i, c in cluster_of.items() if i != c]
    within = [archive.words[i] == archive.words[c] or distance(archive.words[i], archive.words[c]) is not None
              for i, c in members]
    out["precision"] = sum(within) / max(1, len(within))
    out["first-page near copies"] = first_pages(archive, cluster_of, store)
    out["clusters"] = float(len(set(cluster_of.values())))
    return out


def _manuals(archive: Archive, cluster_of: Mapping[int, int], renderings: Mapping[str, list[Path]],
             skip: str = "") -> str:
    by_path = {p: i for i, (p, part) in archive.key.items() if not part}
    whole = 0
    for paths in renderings.values():
        clusters = {cluster_of.get(by_path.get(str(p.resolve()), -1), -1) for p in paths if p.suffix != skip}
        whole += len(clusters) == 1 and -1 not in clusters
    return f"{whole} of {len(renderings)}"


_WORD = re.compile(r"^[a-z]{5,}$")


def queries(archive: Archive) -> list[str]:
    """Terms in 1-10% of the items, evenly spread over that range."""
    df: Counter[str] = Counter()
    for words in archive.words.values():
        df.update({w for w in words if _WORD.match(w)})
    n = len(archive.words)
    band = sorted((c, w) for w, c in df.items() if 0.01 * n <= c <= 0.10 * n)
    step = max(1, len(band) // QUERIES)
    return [w for _, w in band[::step]][:QUERIES]


def first_pages(archive: Archive, cluster_of: Mapping[int, int] | None, store: Store) -> float:
    rows = near = 0
    for query in queries(archive):
        _, ranked = store.execute("SELECT rowid FROM items_fts WHERE items_fts MATCH :q"
                                  " ORDER BY bm25(items_fts) LIMIT 400", {"q": query})
        page: list[int] = []
        seen: set[int] = set()
        for (rowid,) in ranked:
            item = int(str(rowid))
            if item not in archive.words:
                continue
            group = item if cluster_of is None else cluster_of[item]
            if group in seen:
                continue
            seen.add(group)
            page.append(item)
            if len(page) == PAGE:
                break
        for n, item in enumerate(page):
            rows += 1
            near += any(distance(archive.words[item], archive.words[above], 0.20) is not None for above in page[:n])
    return near / max(1, rows)


def stored_clusters(store: Store, archive: Archive, keys: Mapping[tuple[str, str], int]) -> dict[int, int]:
    """The store's clusters in ``archive``'s item ids (stores number items
    in the order they were read)."""
    _, rows = store.execute("SELECT i.path, i.part, r.path, r.part FROM clusters c JOIN items i ON i.id = c.item_id"
                            " JOIN items r ON r.id = c.cluster_id")
    found: dict[int, int] = {}
    for r in rows:
        member, rep = keys.get((str(r[0]), str(r[1]))), keys.get((str(r[2]), str(r[3])))
        if member is None or rep is None:  # read in one run, failed in the other (a timeout under load)
            print(f"note: {r[0]} {r[1]} is not in both stores; left out", file=sys.stderr)
            continue
        found[member] = rep
    for item in archive.ids:  # failed here, read in the measured store: a cluster of its own
        found.setdefault(item, item)
    return found


def index_with(folder: Path, db: Path, rule: str, workers: int) -> tuple[Store, float]:
    store = open_store(db)
    store.recluster(rule=rule)  # an empty store: sets the rule for indexing
    started = time.perf_counter()
    run(store, [folder], IndexConfig(workers=workers))
    return store, time.perf_counter() - started


_BASELINE = """
import sys, time
from pathlib import Path
from lifededup.index import IndexConfig, run
from lifededup.store import open_store
store = open_store(sys.argv[1])
started = time.perf_counter()
run(store, [Path(sys.argv[2])], IndexConfig(workers=int(sys.argv[3])))
print(time.perf_counter() - started)
"""


def index_baseline(source: Path, folder: Path, db: Path, workers: int) -> float:
    """Indexing time of another lifededup source tree (say the release
    before this change: ``git archive REV | tar -x -C DIR``), in a process
    of its own."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(source)}
    done = subprocess.run([sys.executable, "-c", _BASELINE, str(db), str(folder), str(workers)],
                          env=env, check=True, capture_output=True, text=True)
    return float(done.stdout.strip().splitlines()[-1])


def datasketch_clusters(archive: Archive, threshold: float) -> tuple[dict[int, int], float]:
    from datasketch import MinHash, MinHashLSH

    started = time.perf_counter()
    lsh = MinHashLSH(threshold=threshold, num_perm=128)
    signatures: dict[int, MinHash] = {}
    cluster_of: dict[int, int] = {}
    first_of_text: dict[tuple[str, ...], int] = {}
    for item in archive.ids:
        text_key = tuple(archive.words[item])
        if text_key in first_of_text:
            cluster_of[item] = cluster_of[first_of_text[text_key]]
            continue
        first_of_text[text_key] = item
        sig = MinHash(num_perm=128)
        sig.update_batch([v.tobytes() for v in archive.shingles[item]])
        signatures[item] = sig
        found = sorted(int(r) for r in lsh.query(sig)) if archive.shingles[item].size else []
        chosen = next((r for r in found if signatures[r].jaccard(sig) >= threshold), None)
        if chosen is None:
            cluster_of[item] = item
            if archive.shingles[item].size:
                lsh.insert(str(item), sig)
        else:
            cluster_of[item] = chosen
    return cluster_of, time.perf_counter() - started


def table(rows: Sequence[tuple[str, Mapping[str, float | str]]]) -> None:
    names = list(rows[0][1])
    print("| measure | " + " | ".join(label for label, _ in rows) + " |")
    print("| --- |" + " ---: |" * len(rows))
    for name in names:
        cells = []
        for _, values in rows:
            value = values.get(name, "")
            if isinstance(value, float) and name not in ("clusters",) and "time" not in name:
                cells.append(f"{value:.1%}")
            elif isinstance(value, float):
                cells.append(f"{value:.1f}" if "time" in name else f"{value:.0f}")
            else:
                cells.append(str(value))
        print(f"| {name} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2, help="index runs per rule, best kept")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="a lifededup source tree to time indexing with too (e.g. the code before this change)")
    parser.add_argument("--heldout", action="store_true",
                        help="measure on the held-out archive (real_archive.build_heldout) instead")
    args = parser.parse_args()
    if args.heldout:
        folder, renderings = real_archive.build_heldout().resolve(), real_archive.heldout_manuals()
    else:
        folder, renderings = real_archive.build().resolve(), real_archive.manuals()
    files = sum(1 for p in folder.rglob("*") if p.is_file() and p.name != ".complete")
    with tempfile.TemporaryDirectory(prefix="bench-recall-") as tmp:
        # alternately, best of --repeat each: the first run warms the file cache
        times: dict[str, list[float]] = {"features": [], "verified": []}
        for attempt in range(args.repeat):
            for rule in times:
                store, seconds = index_with(folder, Path(tmp) / f"{rule}{attempt}.db", rule, args.workers)
                times[rule].append(seconds)
                if attempt + 1 < args.repeat:
                    store.close()
                elif rule == "features":
                    features = store
                else:
                    verified = store
        t_features, t_verified = min(times["features"]), min(times["verified"])
        if args.baseline is not None:
            times["baseline"] = [index_baseline(args.baseline, folder, Path(tmp) / f"baseline{n}.db", args.workers)
                                 for n in range(args.repeat)]
        archive = Archive(verified)
        keys = {k: i for i, k in archive.key.items()}
        print(f"archive: {folder} ({files} files, {len(archive.ids)} items with text, "
              f"{len(archive.pairs)} pairs within 30% word edit distance, "
              f"{sum(1 for (a, b) in archive.pairs if archive.suffix[a] != archive.suffix[b])} of them across formats)")
        results: list[tuple[str, dict[str, float | str]]] = []
        as_indexed = measure(archive, stored_clusters(verified, archive, keys), verified, renderings)
        as_indexed["indexing time (s)"] = t_verified
        verified.recluster()
        canonical = measure(archive, stored_clusters(verified, archive, keys), verified, renderings)
        six = measure(archive, stored_clusters(features, archive, keys), verified, renderings)
        six["indexing time (s)"] = t_features
        results += [("verified:30 (default, as indexed)", as_indexed), ("verified:30 after recluster", canonical),
                    ("features (six-feature rule)", six)]
        for threshold in (0.5, 0.2):
            clusters, seconds = datasketch_clusters(archive, threshold)
            row = measure(archive, clusters, verified, renderings)
            row["sketch + cluster time (s)"] = seconds
            results.append((f"datasketch LSH {threshold}", row))
        nothing = {i: i for i in archive.ids}
        results.append(("no clustering (--all)", {"first-page near copies": first_pages(archive, None, verified),
                                                  "precision": 1.0, "near-pair recall": 0.0}))
        del nothing
        table(results)
        print(f"\nindexing time, verified / six-feature rule: {t_verified / t_features:.2f}x "
              f"(best of {args.repeat}: {t_verified:.1f} s / {t_features:.1f} s, {args.workers} workers; "
              f"all runs: verified {', '.join(f'{t:.1f}' for t in times['verified'])}, "
              f"features {', '.join(f'{t:.1f}' for t in times['features'])})")
        if "baseline" in times:
            best = min(times["baseline"])
            print(f"indexing time, verified / {args.baseline}: {t_verified / best:.2f}x "
                  f"(best of {args.repeat}: {t_verified:.1f} s / {best:.1f} s; "
                  f"runs {', '.join(f'{t:.1f}' for t in times['baseline'])})")
        features.close()
        verified.close()


if __name__ == "__main__":
    main()
