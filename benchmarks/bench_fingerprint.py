"""Fingerprinting throughput on real plain text, beside datasketch.

Both sides start from the same decoded text of the same files, in one run:

* lifededup: ``fingerprint_many(texts)`` (what the indexer calls, a batch of
  files at a time) -- normalisation, filters, Rabin shingle fingerprints under
  six polynomials, 6 features of 14 minima, and the SHA-1; and, for
  reference, ``fingerprint(text)`` one file at a time;
* datasketch: ``MinHash(num_perm=84)`` (84 = 6 x 14, Broder's sketch size,
  seeds/001) updated with the same word shingles (lower-cased ``\\w+`` words,
  ``w`` of them joined by a space), the way its documentation shows.

Prints MB/s and words/s for each and the ratio.  Targets (issue 2): at least
4x datasketch, and at least 40 MB/s on one core.

    pip install ".[bench]"
    python benchmarks/bench_fingerprint.py [FOLDER_OR_FILE ...]

Default input: the text files of sample_corpus/, the Vim manual and the
licence texts that Debian installs, and the seed papers.
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from collections.abc import Iterable
from pathlib import Path

from datasketch import MinHash

from lifededup.config import FingerprintParams
from lifededup.fingerprint import fingerprint, fingerprint_many

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_INPUTS = [
    ROOT / "sample_corpus",
    Path("/usr/share/vim/vim90/doc"),
    Path("/usr/share/common-licenses"),
    ROOT.parent / "shared" / "seeds",
]
TEXT_SUFFIXES = {".txt", ".md", ".eml", ""}
WORD = re.compile(r"\w+")


def text_files(inputs: Iterable[Path]) -> list[Path]:
    found: list[Path] = []
    for root in inputs:
        if root.is_file():
            found.append(root)
        elif root.is_dir():
            found.extend(
                p for p in sorted(root.rglob("*"))
                if p.is_file() and not p.is_symlink() and p.suffix.lower() in TEXT_SUFFIXES
            )
    return found


def load(paths: list[Path]) -> list[str]:
    texts = []
    for path in paths:
        raw = path.read_bytes()
        if b"\0" in raw[:4096] or len(raw) < 200:
            continue
        texts.append(raw.decode("utf-8", errors="replace"))
    return texts


def run_lifededup(texts: list[str], params: FingerprintParams) -> float:
    start = time.perf_counter()
    fingerprint_many(texts, params)
    return time.perf_counter() - start


def run_lifededup_one_by_one(texts: list[str], params: FingerprintParams) -> float:
    start = time.perf_counter()
    for text in texts:
        fingerprint(text, params)
    return time.perf_counter() - start


def run_datasketch(texts: list[str], w: int) -> float:
    start = time.perf_counter()
    for text in texts:
        words = WORD.findall(text.lower())
        shingles = [" ".join(words[i : i + w]).encode() for i in range(len(words) - w + 1)]
        sketch = MinHash(num_perm=84)
        sketch.update_batch(shingles)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("inputs", nargs="*", type=Path, default=DEFAULT_INPUTS)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each; the best is reported")
    args = parser.parse_args()
    texts = load(text_files(args.inputs))
    if not texts:
        raise SystemExit("no text files found in the inputs")
    params = FingerprintParams()
    megabytes = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    words = sum(len(WORD.findall(t)) for t in texts)
    fingerprint(texts[0], params)  # build the Rabin tables once, outside the timing
    ours = min(run_lifededup(texts, params) for _ in range(args.repeat))
    single = min(run_lifededup_one_by_one(texts, params) for _ in range(args.repeat))
    peer = min(run_datasketch(texts, params.shingle_words) for _ in range(args.repeat))
    print(f"input: {len(texts)} files, {megabytes:.1f} MB, {words:,} words "
          f"(median file {statistics.median(len(t) for t in texts) / 1e3:.1f} kB)")
    print(f"{'':12} {'seconds':>8} {'MB/s':>8} {'Mwords/s':>9}")
    for name, seconds in (("lifededup", ours), ("  one by one", single), ("datasketch", peer)):
        print(f"{name:12} {seconds:8.2f} {megabytes / seconds:8.1f} {words / seconds / 1e6:9.2f}")
    print(f"ratio lifededup / datasketch throughput: {peer / ours:.1f}x "
          f"(target >= 4x; and >= 40 MB/s per core)")


if __name__ == "__main__":
    main()
