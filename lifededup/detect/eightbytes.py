"""Broder's "8 bytes are enough" (seeds/001): the super-shingle scheme with
eight features of one byte each, near-duplicates when at least 3 of the 8 bytes
agree.  Eight bytes a document instead of 48, for stores where size matters --
at a price the slides state: it "works only on small scale (say less than 50K
documents)", because two unrelated documents agree on a byte by chance with
probability 1/256, and on 3 of 8 with about C(8,3)/256^3 = 3.3e-6 per pair.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from lifededup.config import FingerprintParams
from lifededup.detect.base import Detector, IndexKey
from lifededup.detect.prepared import PreparedText, Text, fingerprint_all, prepared
from lifededup.fingerprint import DEFAULT_PARAMS
from lifededup.normalize import DocFrequencies

__all__ = ["DEFAULT_BYTE_THRESHOLD", "EIGHT_FEATURES", "EightBytes", "lead_bytes"]

# "8 bytes are enough! ... threshold = 3 common bytes out of 8" (seeds/001).
EIGHT_FEATURES = 8
DEFAULT_BYTE_THRESHOLD = 3


def lead_bytes(features: tuple[int, ...]) -> bytes:
    """The lead byte of each feature (a feature is the first 8 bytes of a SHA-1)."""
    return bytes((f >> 56) & 0xFF for f in features)


class EightBytes(Detector[bytes]):
    name = "bytes8"

    def __init__(
        self,
        threshold: int = DEFAULT_BYTE_THRESHOLD,
        params: FingerprintParams = DEFAULT_PARAMS,
        doc_freq: DocFrequencies | None = None,
    ) -> None:
        if not 1 <= threshold <= EIGHT_FEATURES:
            raise ValueError(f"bytes8 threshold must be 1..8, got {threshold}")
        self.threshold = threshold
        # Each feature is still the SHA-1 of the 14 smallest shingle values
        # under its own Rabin polynomial (seeds/001's s = 14); only its first
        # byte is kept.
        self.params = replace(params, features=EIGHT_FEATURES, threshold=1)
        self.doc_freq = doc_freq

    @property
    def spec(self) -> str:
        return f"{self.name}:{self.threshold}"

    def prepare(self, texts: Sequence[PreparedText]) -> None:
        fingerprint_all(texts, self.params, self.doc_freq)

    def sketch(self, text: Text) -> bytes | None:
        features = prepared(text).fingerprint(self.params, self.doc_freq).features
        return None if features is None else lead_bytes(features)

    def body_keys(self, body: bytes) -> list[IndexKey]:
        return list(enumerate(body))

    def similar(self, a: bytes, b: bytes) -> bool:
        if len(a) != len(b):
            raise ValueError(f"8-byte sketches differ in length: {len(a)} != {len(b)}")
        return sum(x == y for x, y in zip(a, b)) >= self.threshold

    def encode(self, body: bytes) -> bytes:
        return body

    def decode(self, raw: bytes) -> bytes:
        return raw
