"""The paper's detector, the default: six super-shingle features of 14 minima,
near-duplicates when two share at least 2 (seeds/000 section 2.2, after Broder,
seeds/001).  The engine is :mod:`lifededup.fingerprint.engine`; this module only puts
it behind the detector contract."""

from __future__ import annotations

import struct
from collections.abc import Sequence

from lifededup.config import FingerprintParams
from lifededup.detect.base import Detector, IndexKey
from lifededup.detect.prepared import PreparedText, Text, fingerprint_all, prepared
from lifededup.fingerprint import DEFAULT_PARAMS
from lifededup.model import shared_features
from lifededup.normalize import DocFrequencies

__all__ = ["SuperShingles"]


class SuperShingles(Detector[tuple[int, ...]]):
    name = "shingles"

    def __init__(
        self, params: FingerprintParams = DEFAULT_PARAMS, doc_freq: DocFrequencies | None = None
    ) -> None:
        self.params = params
        self.doc_freq = doc_freq

    @property
    def spec(self) -> str:
        return f"{self.name}:{self.params.threshold}"

    def prepare(self, texts: Sequence[PreparedText]) -> None:
        fingerprint_all(texts, self.params, self.doc_freq)

    def sketch(self, text: Text) -> tuple[int, ...] | None:
        return prepared(text).fingerprint(self.params, self.doc_freq).features

    def body_keys(self, body: tuple[int, ...]) -> list[IndexKey]:
        # a pair sharing `threshold` >= 1 features shares at least one
        return list(enumerate(body))

    def similar(self, a: tuple[int, ...], b: tuple[int, ...]) -> bool:
        return shared_features(a, b) >= self.params.threshold

    def encode(self, body: tuple[int, ...]) -> bytes:
        return struct.pack(f">{len(body)}q", *body)

    def decode(self, raw: bytes) -> tuple[int, ...]:
        return struct.unpack(f">{len(raw) // 8}q", raw)
