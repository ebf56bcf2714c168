"""How alike two texts are, measured three ways (seeds/000 section 3.1):
shared features (the fast test the index uses), the exact shingle resemblance
it estimates (Jaccard, seeds/001), and the word edit distance the paper uses to
check for false positives (a moved block of words a few edits: ``distance``)."""

from __future__ import annotations

from array import array
from dataclasses import asdict, dataclass
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from lifededup.config import FingerprintParams
from lifededup.fingerprint import distance
from lifededup.fingerprint.distance import Words, word_distance, word_distances
from lifededup.fingerprint.engine import DEFAULT_PARAMS, Shingled, features_of, shingle
from lifededup.model import shared_features
from lifededup.normalize import stream_bytes


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
    return _jaccard(np.unique(a.values[:, 0]), np.unique(b.values[:, 0]))


def _jaccard(left: npt.NDArray[np.uint64], right: npt.NDArray[np.uint64]) -> float:
    """``resemblance`` of two sets of distinct shingle values, sorted: the
    values of one looked up in the other, where a union and an intersection
    sorted both twice over (10 ms a pair of manuals, against 0.6)."""
    both = 0
    if left.size and right.size:
        at = np.searchsorted(left, right).clip(max=left.size - 1)
        both = int(np.count_nonzero(left[at] == right))
    union = left.size + right.size - both
    if union == 0:
        return 1.0
    return float(both / union)


def word_edit_distance(a: str | bytes | Words, b: str | bytes | Words) -> float:
    """Word edit distance, a moved block of words ``MOVE_COST`` edits
    (``distance.word_distance``), as a fraction of the longer text."""
    left = a.split() if isinstance(a, (str, bytes)) else a
    right = b.split() if isinstance(b, (str, bytes)) else b
    longest = max(len(left), len(right))
    if longest == 0:
        return 0.0
    return float(word_distance(left, right) or 0) / longest


class Prepared:
    """One text made ready to be compared, each part cut once and only when
    asked: a page measures a representative against every member, and an
    item against the texts like it in other clusters.  ``compare`` for each
    pair cut the representative again every time and made the features and
    the plain distance the page does not show (0.3-0.75 s a page of the
    real archive's manuals)."""

    def __init__(self, text: str, params: FingerprintParams = DEFAULT_PARAMS) -> None:
        self.text, self.params = text, params

    @cached_property
    def shingled(self) -> Shingled:
        return shingle(self.text, self.params)

    @cached_property
    def distinct(self) -> npt.NDArray[np.uint64]:
        """Its distinct shingle values (the first polynomial's), sorted: what ``resemblance`` compares."""
        return np.unique(self.shingled.values[:, 0])

    @cached_property
    def features(self) -> tuple[int, ...] | None:
        return features_of(self.shingled.values, self.params)

    @cached_property
    def words(self) -> array[int]:
        """Its words (of the stream its shingles are cut from), each as its
        64-bit hash, as the store's clustering compares them: rapidfuzz and
        the tiling read an array of numbers at once, where a list of words
        is hashed word by word at every pass (a quarter to a third of a manual's
        distance)."""
        stream = self.shingled.stream if "shingled" in self.__dict__ else stream_bytes(self.text)
        return distance.hashed_words(stream.split())


def exact_resemblance(a: Prepared, b: Prepared) -> float:
    """``resemblance`` of two prepared texts."""
    return _jaccard(a.distinct, b.distinct)


def moved_word_distance(a: Prepared, b: Prepared, within: float | None = None) -> float | None:
    """``Comparison.word_edit_distance`` of two prepared texts, or None
    when it is more than ``within`` (then measured only as far as needed to
    know it: ``distance.moved_distance``)."""
    left, right = a.words, b.words
    longest = max(len(left), len(right))
    if longest == 0:
        return None if within is not None and within < 0.0 else 0.0
    moved = distance.moved_distance(left, right, None if within is None else _allowed(within, longest))
    return None if moved is None else moved / longest


def _allowed(within: float, longest: int) -> int:
    """The most edits whose share of ``longest`` words is at most ``within``, as
    the share is computed (``moved / longest``: a float product may round across)."""
    allowed = min(int(within * longest), longest)  # no distance is more than the longer text
    while allowed >= 0 and allowed / longest > within:
        allowed -= 1
    while allowed < longest and (allowed + 1) / longest <= within:
        allowed += 1
    return allowed


def compare(a: str, b: str, params: FingerprintParams = DEFAULT_PARAMS) -> Comparison:
    return compare_prepared(Prepared(a, params), Prepared(b, params))


def compare_prepared(a: Prepared, b: Prepared) -> Comparison:
    """``compare`` of two prepared texts (under the first's params)."""
    cut_a, cut_b = a.shingled, b.shingled
    plain, moved = _distances(a.words, b.words)
    shared = shared_features(a.features, b.features)
    exact = cut_a.stream == cut_b.stream
    return Comparison(
        exact=exact,
        shared_features=shared,
        near_duplicate=exact or shared >= a.params.threshold,
        resemblance=exact_resemblance(a, b),
        word_edit_distance=moved,
        sampled=a.features is not None and b.features is not None,
        plain_word_edit_distance=plain,
    )


def _distances(left: Words, right: Words) -> tuple[float, float]:
    """The plain word edit distance and the one with moves counted, as
    fractions of the longer text (``distance.word_distances``)."""
    longest = max(len(left), len(right))
    if longest == 0:
        return 0.0, 0.0
    plain, moved = word_distances(left, right)
    return plain / longest, moved / longest
