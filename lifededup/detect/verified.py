"""The store's default rule as a detector: the 84 Rabin minima of the
fingerprint as a sketch, candidates sharing a feature or some of its values,
admitted within the word edit distance and resemblance bounds
(:mod:`lifededup.store.similarity`, the very test the store applies)."""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass

from lifededup.config import FingerprintParams
from lifededup.detect.base import Detector, IndexKey
from lifededup.detect.prepared import PreparedText, Text, fingerprint_all, prepared
from lifededup.fingerprint import DEFAULT_PARAMS
from lifededup.model import shared_features
from lifededup.normalize import DocFrequencies
from lifededup.store.similarity import Rule, measure, sketch_values

__all__ = ["Verified", "VerifiedSketch"]

# slots of the keys: sketch values in one, features by position after it
_MINIMA_SLOT = 0


@dataclass(frozen=True)
class VerifiedSketch:
    """The sketch, the features, and the words the verification reads (the
    store keeps the text anyway; a detector must carry it)."""

    sketch: bytes
    features: tuple[int, ...]
    words: tuple[str, ...]


class Verified(Detector[VerifiedSketch]):
    name = "verified"

    def __init__(self, rule: Rule = Rule(), params: FingerprintParams = DEFAULT_PARAMS,
                 doc_freq: DocFrequencies | None = None) -> None:
        if rule.kind != "verified":
            raise ValueError("the verified detector takes a verified rule")
        self.rule = rule
        self.params = params
        self.doc_freq = doc_freq

    @property
    def spec(self) -> str:
        return self.rule.spec

    def prepare(self, texts: Sequence[PreparedText]) -> None:
        fingerprint_all(texts, self.params, self.doc_freq)

    def sketch(self, text: Text) -> VerifiedSketch | None:
        source = prepared(text)
        made = source.fingerprint(self.params, self.doc_freq)
        if made.sketch is None or made.features is None:
            return None  # short texts are exact-only
        return VerifiedSketch(made.sketch, made.features, tuple(source.word_stream().split()))

    def body_keys(self, body: VerifiedSketch) -> list[IndexKey]:
        values = [(_MINIMA_SLOT, int(v)) for v in dict.fromkeys(sketch_values(body.sketch).tolist())]
        return values + [(position + 1, f) for position, f in enumerate(body.features)]

    def similar(self, a: VerifiedSketch, b: VerifiedSketch) -> bool:
        if not a.words or not b.words:
            raise ValueError("a decoded sketch carries no words: verify against the texts")
        if not self.shares(a, b):
            return False
        return measure(a.sketch, b.sketch, list(a.words), list(b.words), self.params.features, self.rule) is not None

    def encode(self, body: VerifiedSketch) -> bytes:
        # the sketch and features; the words are the text the store keeps
        return body.sketch + struct.pack(f">{len(body.features)}q", *body.features)

    def decode(self, raw: bytes) -> VerifiedSketch:
        count = self.params.features
        size = count * self.params.minima * 8
        return VerifiedSketch(raw[:size], struct.unpack(f">{count}q", raw[size:]), ())

    def shares(self, a: VerifiedSketch, b: VerifiedSketch) -> bool:
        """Whether the store would look at the pair at all."""
        common = len(set(sketch_values(a.sketch).tolist()) & set(sketch_values(b.sketch).tolist()))
        return shared_features(a.features, b.features) >= 1 or common >= self.rule.min_shared_minima
