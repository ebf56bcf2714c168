"""Charikar's SimHash (seeds/004, Fig. 2) with Manku's block tables.

Each feature -- here a filtered term, weighted by how often it occurs -- is
hashed to 64 bits; every
bit adds the feature's weight to its component when set and subtracts it when
not; the fingerprint's bits are the signs.  Similar documents get fingerprints
a few bits apart, so near-duplicates are fingerprints within Hamming distance
``k``.

Finding them without a scan (Manku, Jain & Das Sarma; seeds/004 section II.A):
cut the 64 bits into ``k + 1`` blocks.  Two fingerprints at most ``k`` bits
apart differ in at most ``k`` blocks, so they agree on at least one whole
block: filing each fingerprint under its ``k + 1`` (block, bits) keys finds
every such pair, and only those candidates get the Hamming check.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from lifededup.config import FingerprintParams
from lifededup.detect.base import Detector, IndexKey, as_signed64
from lifededup.detect.permutation import U64, mix64
from lifededup.detect.prepared import Text, prepared
from lifededup.fingerprint import DEFAULT_PARAMS

__all__ = [
    "BITS",
    "DEFAULT_DISTANCE",
    "SimHash",
    "blocks",
    "hamming",
    "simhash",
]

# "we choose to construct a 64-bit fingerprint for each web document" (seeds/004).
BITS = 64
# k = 3 is the largest k of seeds/004's experiments (Table I) and Manku's
# choice for 64-bit fingerprints; k = 0 finds exact copies only.
DEFAULT_DISTANCE = 3

_SHIFTS = np.arange(BITS, dtype=U64)


def simhash(hashes: npt.NDArray[np.uint64], weights: npt.NDArray[np.float64]) -> int:
    """Charikar's fingerprint of weighted features (seeds/004, Fig. 2)."""
    if hashes.shape != weights.shape:
        raise ValueError(f"{hashes.size} feature hashes but {weights.size} weights")
    bits = ((hashes[:, None] >> _SHIFTS[None, :]) & U64(1)).astype(np.float64)
    components = weights @ (2.0 * bits - 1.0)
    # "If (Sim[i] > 0) Then Sim[i] = 1; Else Sim[i] = 0"
    return int(np.sum((components > 0).astype(np.uint64) << _SHIFTS, dtype=U64))


def hamming(a: int, b: int) -> int:
    return (a ^ b).bit_count()


def blocks(fingerprint: int, count: int) -> list[IndexKey]:
    """The fingerprint cut into ``count`` contiguous blocks (sizes differ by at
    most one bit), each as (block number, block bits)."""
    if not 1 <= count <= BITS:
        raise ValueError(f"a 64-bit fingerprint has 1..64 blocks, not {count}")
    edges = [BITS * i // count for i in range(count + 1)]
    return [
        (i, as_signed64((fingerprint >> low) & ((1 << (high - low)) - 1)))
        for i, (low, high) in enumerate(zip(edges, edges[1:]))
    ]


class SimHash(Detector[int]):
    name = "simhash"

    def __init__(self, distance: int = DEFAULT_DISTANCE, params: FingerprintParams = DEFAULT_PARAMS) -> None:
        if not 0 <= distance < BITS:
            raise ValueError(f"Hamming distance k must be 0..63, got {distance}")
        self.distance = distance
        self.params = params

    @property
    def spec(self) -> str:
        return f"{self.name}:{self.distance}"

    def sketch(self, text: Text) -> int | None:
        found = prepared(text).term_counts(self.params)
        if len(found) == 0:
            return None
        # features are the terms, weighted by how often they occur; their
        # 64-bit term values are already hashes, so they are mixed once more
        # only to spread the bits of similar values
        return simhash(mix64(found.values), found.counts.astype(np.float64))

    def body_keys(self, body: int) -> list[IndexKey]:
        return blocks(body, self.distance + 1)

    def similar(self, a: int, b: int) -> bool:
        return hamming(a, b) <= self.distance

    def encode(self, body: int) -> bytes:
        return body.to_bytes(8, "big")

    def decode(self, raw: bytes) -> int:
        return int.from_bytes(raw, "big")
