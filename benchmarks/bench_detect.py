"""How fast and how accurate the detectors' sketches are, against an exact
answer and a peer, on the same input in the same run.

* MinHash: our seeded-permutation signatures against datasketch's MinHash
  (affine permutations mod a Mersenne prime): mean absolute error of the
  estimated resemblance against the exact Jaccard of the shingle sets, and
  time per document; prints the ratios ours/datasketch.
* Every detector: sketch time per document on the same texts, as a ratio to
  the default super-shingle detector.

Run:  pip install ".[bench]" && python benchmarks/bench_detect.py [--docs 300]
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
from datasketch import MinHash

from lifededup.detect import DETECTOR_NAMES, collection_statistics, make_detector
from lifededup.detect.minhash import estimated_resemblance, minhash
from lifededup.normalize import word_stream

ROWS = 100  # seeds/003's 20 bands x 5 rows


def _pairs(count: int, rng: np.random.Generator) -> list[tuple[np.ndarray, np.ndarray, float]]:
    pairs = []
    for _ in range(count):
        union = int(rng.integers(200, 2000))
        values = np.unique(rng.integers(0, 2**64, size=union, dtype=np.uint64))
        shared = int(rng.uniform(0.3, 1.0) * values.size)
        split = shared + (values.size - shared) // 2
        a, b = values[:split], np.concatenate([values[:shared], values[split:]])
        pairs.append((a, b, shared / values.size))
    return pairs


def bench_minhash(count: int) -> None:
    pairs = _pairs(count, np.random.default_rng(1))
    started = time.perf_counter()
    ours = []
    for a, b, _ in pairs:
        sa, sb = minhash(a, ROWS, 1), minhash(b, ROWS, 1)
        assert sa is not None and sb is not None
        ours.append(estimated_resemblance(sa, sb))
    ours_s = time.perf_counter() - started
    started = time.perf_counter()
    theirs = []
    for a, b, _ in pairs:
        ma, mb = MinHash(num_perm=ROWS, seed=1), MinHash(num_perm=ROWS, seed=1)
        ma.update_batch(list(a.tobytes()[i : i + 8] for i in range(0, a.size * 8, 8)))
        mb.update_batch(list(b.tobytes()[i : i + 8] for i in range(0, b.size * 8, 8)))
        theirs.append(ma.jaccard(mb))
    theirs_s = time.perf_counter() - started
    exact = np.array([s for _, _, s in pairs])
    ours_err = float(np.mean(np.abs(np.array(ours) - exact)))
    theirs_err = float(np.mean(np.abs(np.array(theirs) - exact)))
    print(f"MinHash, {ROWS} rows, {count} pairs of 200-2000 shingles")
    print(f"  mean |error|  ours {ours_err:.4f}  datasketch {theirs_err:.4f}  ratio {ours_err / theirs_err:.2f}")
    per_doc = 1e6 / (2 * count)
    print(f"  us/document   ours {ours_s * per_doc:.0f}  datasketch {theirs_s * per_doc:.0f}  "
          f"ratio {ours_s / theirs_s:.2f}")


def bench_detectors(count: int) -> None:
    rng = random.Random(2)
    vocab = [f"w{rng.getrandbits(40):x}" for _ in range(20_000)]
    texts = [" ".join(rng.choice(vocab) for _ in range(rng.randint(200, 3000))) for _ in range(count)]
    words = sum(len(t.split()) for t in texts)
    stats = collection_statistics(word_stream(t) for t in texts)
    timings = {}
    for name in DETECTOR_NAMES:
        detector = make_detector(name, stats)
        detector.signature(texts[0])  # tables and polynomials are made once
        started = time.perf_counter()
        for text in texts:
            detector.signature(text)
        timings[detector.spec] = time.perf_counter() - started
    base = timings["shingles:2"]
    print(f"Sketch time, {count} documents, {words / count:.0f} words each on average")
    for spec, seconds in timings.items():
        print(f"  {spec:<18} {seconds / words * 1e6:6.2f} us/word  ratio to shingles {seconds / base:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=300)
    args = parser.parse_args()
    bench_minhash(args.docs)
    bench_detectors(args.docs)


if __name__ == "__main__":
    main()
