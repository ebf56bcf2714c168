"""Domain types shared by every stage (the only module besides ``config`` that
any stage may import)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lifededup.config import FingerprintParams


@dataclass(frozen=True)
class Fingerprint:
    """What the fingerprint stage says about one text.

    ``sha1`` is the hex SHA-1 of the normalized word stream (exact copies);
    ``features`` are the super-shingle features as signed 64-bit integers (so
    they store unchanged in SQLite's INTEGER), or ``None`` when the text has too
    few shingles to sample (it is then matched by ``sha1`` only).
    """

    sha1: str
    features: tuple[int, ...] | None
    words: int
    shingles: int
    params: FingerprintParams
    # The 84 Rabin minima the features are hashed from (features x minima
    # big-endian uint64, polynomial by polynomial), kept as the sketch the
    # verified second stage estimates resemblance from; None with features.
    sketch: bytes | None = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "sha1": self.sha1,
            "features": list(self.features) if self.features is not None else None,
            "words": self.words,
            "shingles": self.shingles,
            "params": self.params.to_dict(),
        }


def shared_features(a: tuple[int, ...] | None, b: tuple[int, ...] | None) -> int:
    """How many feature positions two documents agree on (0 if either has none)."""
    if a is None or b is None:
        return 0
    if len(a) != len(b):
        raise ValueError(f"feature vectors differ in length: {len(a)} != {len(b)}")
    return sum(1 for x, y in zip(a, b) if x == y)
