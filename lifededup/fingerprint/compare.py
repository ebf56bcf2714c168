"""How alike two texts are, measured three ways (seeds/000 section 3.1):
shared features (the fast test the index uses), the exact shingle resemblance
it estimates (Jaccard, seeds/001), and the word edit distance the paper uses to
check for false positives (a moved block of words a few edits: ``distance``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from lifededup.config import FingerprintParams
from lifededup.fingerprint.distance import Words, word_distance, word_distances
from lifededup.fingerprint.engine import DEFAULT_PARAMS, Shingled, features_of, shingle
from lifededup.model import shared_features


@dataclass(frozen=True)
class Comparison:
    exact: bool
    shared_features: int
    near_duplicate: bool
    resemblance: float
    word_edit_distance: float
    # False when either text is too short to sample (no features): then only
    # an exact copy counts, whatever the resemblance
    sampled: bool
    # the plain Levenshtein distance over words, every word of a moved block
    # counted (``word_edit_distance`` counts a move as ``MOVE_COST`` edits)
    plain_word_edit_distance: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def resemblance(a: Shingled, b: Shingled) -> float:
    """Jaccard resemblance of the two shingle sets (1.0 for two empty sets)."""
    left, right = np.unique(a.values[:, 0]), np.unique(b.values[:, 0])
    union = np.union1d(left, right).size
    if union == 0:
        return 1.0
    return float(np.intersect1d(left, right, assume_unique=True).size / union)


def word_edit_distance(a: str | bytes | Words, b: str | bytes | Words) -> float:
    """Word edit distance, a moved block of words ``MOVE_COST`` edits
    (``distance.word_distance``), as a fraction of the longer text."""
    left = a.split() if isinstance(a, (str, bytes)) else a
    right = b.split() if isinstance(b, (str, bytes)) else b
    longest = max(len(left), len(right))
    if longest == 0:
        return 0.0
    return float(word_distance(left, right) or 0) / longest


def compare(a: str, b: str, params: FingerprintParams = DEFAULT_PARAMS) -> Comparison:
    cut_a, cut_b = shingle(a, params), shingle(b, params)
    plain, moved = _distances(cut_a.stream, cut_b.stream)
    features_a, features_b = features_of(cut_a.values, params), features_of(cut_b.values, params)
    shared = shared_features(features_a, features_b)
    exact = cut_a.stream == cut_b.stream
    return Comparison(
        exact=exact,
        shared_features=shared,
        near_duplicate=exact or shared >= params.threshold,
        resemblance=resemblance(cut_a, cut_b),
        word_edit_distance=moved,
        sampled=features_a is not None and features_b is not None,
        plain_word_edit_distance=plain,
    )


def _distances(a: str | bytes, b: str | bytes) -> tuple[float, float]:
    """The plain word edit distance and the one with moves counted, as
    fractions of the longer text (``distance.word_distances``)."""
    left, right = a.split(), b.split()
    longest = max(len(left), len(right))
    if longest == 0:
        return 0.0, 0.0
    plain, moved = word_distances(left, right)
    return plain / longest, moved / longest
