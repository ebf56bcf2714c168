"""MinHash signatures with LSH banding (seeds/003, after Broder, seeds/001).

A document's shingles (the same Rabin-fingerprinted shingles the default
detector samples) go through ``n`` seeded permutations; the signature is the
minimum under each.  Two signatures agree in one row with probability equal to
the Jaccard resemblance ``s`` of the shingle sets, so the fraction of agreeing
rows estimates ``s``.

Banding: the ``n = b * r`` rows are cut into ``b`` bands of ``r`` rows and each
band is hashed to one key; two documents are candidates when any band agrees,
which happens with probability ``1 - (1 - s^r)^b`` (the S-curve of seeds/003).
Candidates are confirmed when the estimated resemblance reaches ``threshold``.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from lifededup.config import FingerprintParams
from lifededup.detect.base import Detector, IndexKey, signed64
from lifededup.detect.permutation import U64, permutation_keys, permute
from lifededup.detect.prepared import Text, prepared
from lifededup.fingerprint import DEFAULT_PARAMS, shingle
from lifededup.normalize import DocFrequencies

__all__ = [
    "DEFAULT_BANDS",
    "DEFAULT_RESEMBLANCE",
    "DEFAULT_ROWS",
    "MinHashLSH",
    "band_keys",
    "estimated_resemblance",
    "minhash",
]

# "Example: b = 20; r = 5" -- 20 bands of 5 rows, 100 min-hashes, whose S-curve
# catches 99.96% of pairs with s = 0.8 and 0.6% of pairs with s = 0.2 (seeds/003).
DEFAULT_BANDS = 20
DEFAULT_ROWS = 5
# "Similarity > 80% => Documents are 'near duplicates'" (seeds/003).
DEFAULT_RESEMBLANCE = 0.8

Signature = npt.NDArray[np.uint64]


def minhash(shingles: npt.NDArray[np.uint64], n: int, seed: int) -> Signature | None:
    """The minimum of ``shingles`` under each of ``n`` seeded permutations
    (``None`` for a document without shingles)."""
    if shingles.size == 0:
        return None
    unique = np.unique(shingles)
    minima: Signature = permute(unique, permutation_keys(seed, n, "minhash")).min(axis=0)
    return minima


def estimated_resemblance(a: Signature, b: Signature) -> float:
    if a.shape != b.shape:
        raise ValueError(f"min-hash signatures differ in length: {a.size} != {b.size}")
    return float(np.count_nonzero(a == b) / a.size)


def band_keys(signature: Signature, bands: int, rows: int) -> list[IndexKey]:
    """One key per band: the band number and a 64-bit hash of its ``rows`` values."""
    if signature.size != bands * rows:
        raise ValueError(f"a signature of {signature.size} rows is not {bands} bands of {rows}")
    cut = signature.astype(">u8").reshape(bands, rows)
    return [(band, signed64(hashlib.sha1(cut[band].tobytes()).digest())) for band in range(bands)]


class MinHashLSH(Detector[Signature]):
    name = "minhash"

    def __init__(
        self,
        bands: int = DEFAULT_BANDS,
        rows: int = DEFAULT_ROWS,
        threshold: float = DEFAULT_RESEMBLANCE,
        params: FingerprintParams = DEFAULT_PARAMS,
        doc_freq: DocFrequencies | None = None,
    ) -> None:
        if bands < 1 or rows < 1:
            raise ValueError(f"bands and rows must be >= 1, got {bands} and {rows}")
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"resemblance threshold must be in [0, 1], got {threshold}")
        self.bands, self.rows, self.threshold = bands, rows, threshold
        # one Rabin polynomial is enough: its shingle values are the set we sample
        self.params = replace(params, features=1, threshold=1)
        self.seed = params.seed
        self.doc_freq = doc_freq

    @property
    def spec(self) -> str:
        return f"{self.name}:{self.bands}x{self.rows}:{self.threshold:g}"

    def sketch(self, text: Text) -> Signature | None:
        # one polynomial: every shingle value, of any array shape, is one column
        values = shingle(prepared(text).text, self.params, self.doc_freq).values.ravel()
        return minhash(values, self.bands * self.rows, self.seed)

    def body_keys(self, body: Signature) -> list[IndexKey]:
        return band_keys(body, self.bands, self.rows)

    def similar(self, a: Signature, b: Signature) -> bool:
        # a candidate (some whole band agrees), confirmed by the estimate
        agree = (a == b).reshape(self.bands, self.rows)
        return bool(agree.all(axis=1).any()) and estimated_resemblance(a, b) >= self.threshold

    def encode(self, body: Signature) -> bytes:
        return body.astype(">u8").tobytes()

    def decode(self, raw: bytes) -> Signature:
        return np.frombuffer(raw, dtype=">u8").astype(U64)
