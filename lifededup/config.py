"""The parameters every stage shares, in one place.

A fingerprint is only comparable with another made under the same
:class:`FingerprintParams`; the store keeps the params it was built with and
refuses to mix (see ``params_key``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, replace
from typing import Any

# Broder's "real implementation" (seeds/001): a sketch of t = 84 samples in
# k = 6 groups of s = 14, features of 8 bytes (48 bytes a document), and two
# documents are near-duplicates when they share r = 2 features.  The paper
# (seeds/000, section 2.2 steps 4-7) uses exactly these numbers.
DEFAULT_FEATURES = 6
DEFAULT_MINIMA = 14
DEFAULT_THRESHOLD = 2

# Shingle width in words.  Broder: "Good sizes: 3 -- 10" (seeds/001).  We count
# terms *after* the stop-word filter, so 4 terms span about 7 words of prose:
# long enough that unrelated letters do not share shingles by accident, short
# enough that a revised paragraph or a page header picked up by one extractor
# only touches a few shingles.
DEFAULT_SHINGLE_WORDS = 4

# Tokens longer than this many UTF-8 bytes are blobs (base64, hashes, minified
# code), not words: they are kept in the SHA-1 stream but not shingled.  64
# bytes is 64 Latin letters or 32 Cyrillic ones; real words are shorter.
DEFAULT_MAX_TERM_BYTES = 64

# Seed for the six irreducible Rabin polynomials.  Changing it changes every
# feature, which is why it is part of the params.
DEFAULT_SEED = 1


@dataclass(frozen=True)
class FilterParams:
    """Which of the paper's filters (seeds/000, section 2.2 step 3) run.

    ``idf`` is a threshold: terms whose inverse document frequency
    ``log(N / df)`` is below it are dropped.  It needs a table of document
    frequencies (from a store) and is off by default, because the paper found
    it did not help on personal archives (Table 2).
    """

    numbers: bool = True
    stopwords: bool = True
    stem: bool = False
    idf: float | None = None
    language: str = "english"


@dataclass(frozen=True)
class FingerprintParams:
    """Everything that decides a document's SHA-1 and features.

    Reported with every fingerprint (``to_dict``) so that a store, or a person,
    can tell whether two fingerprints are comparable.
    """

    shingle_words: int = DEFAULT_SHINGLE_WORDS
    features: int = DEFAULT_FEATURES
    minima: int = DEFAULT_MINIMA
    threshold: int = DEFAULT_THRESHOLD
    seed: int = DEFAULT_SEED
    max_term_bytes: int = DEFAULT_MAX_TERM_BYTES
    filters: FilterParams = field(default_factory=FilterParams)

    def __post_init__(self) -> None:
        if not 1 <= self.shingle_words <= 64:
            raise ValueError(f"shingle_words must be 1..64, got {self.shingle_words}")
        if self.features < 1:
            raise ValueError(f"features must be >= 1, got {self.features}")
        if self.minima < 1:
            raise ValueError(f"minima must be >= 1, got {self.minima}")
        if not 1 <= self.threshold <= self.features:
            raise ValueError(
                f"threshold must be 1..features ({self.features}), got {self.threshold}"
            )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> FingerprintParams:
        raw = dict(raw)
        filters = FilterParams(**raw.pop("filters", {}))
        return cls(filters=filters, **raw)

    def with_filters(self, **changes: Any) -> FingerprintParams:
        return replace(self, filters=replace(self.filters, **changes))

    def key(self) -> str:
        """A short stable name for these params: equal keys, comparable features.

        ``threshold`` is left out: it is how features are *compared*, not how
        they are made, so a store may change it without refingerprinting.
        """
        made = self.to_dict()
        made.pop("threshold")
        text = json.dumps(made, sort_keys=True, separators=(",", ":"))
        return hashlib.sha1(text.encode()).hexdigest()[:16]
