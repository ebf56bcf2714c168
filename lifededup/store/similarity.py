"""The verified second stage's measures: how alike a member is to its
representative, and whether that is close enough to hide it behind it.

A sketch is the 84 Rabin minima the six features are hashed from (6
polynomials x the 14 smallest distinct shingle values under each, Broder's
bottom-k samples, seeds/001), kept whole instead of hashed into features.  Two
sketches estimate resemblance directly, and any of their values shared is a
lookup key, which finds pairs the all-or-nothing features miss (a pair at
resemblance 0.8 shares a feature only when 14 minima agree: p = 0.8^14 = 4%).

A candidate is then *verified*: estimated resemblance at least
``min_resemblance`` and word edit distance -- insertions, deletions and
substitutions of words as a share of the longer text, the paper's own check
(seeds/000 section 3.1), a moved block of words counting as
``MOVE_COST`` edits (``fingerprint.distance``) -- at most ``max_word_distance`` (default the
paper's 30%, its Figure 4 bound for conservative clusters).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # numpy, and the fingerprint package that needs it, where used: a search never needs them
    import numpy as np
    import numpy.typing as npt

# A text's words as verification compares them (``fingerprint.distance.Words``).
Words = Sequence[Hashable]

RuleKind = Literal["verified", "features"]
RULES: tuple[RuleKind, ...] = ("verified", "features")
# How members gather around a representative (clustering.py): each within the
# rule of its representative (the paper's conservative clusters), or within
# the rule of any member (transitive, single link).
Method = Literal["conservative", "transitive"]
METHODS: tuple[Method, ...] = ("conservative", "transitive")

# The paper's bound on the word edit distance between a member and its
# representative under conservative clustering (seeds/000 Figure 4).
DEFAULT_MAX_WORD_DISTANCE = 0.30
# A pair 30% apart in words (edits spread through the text) keeps about one
# shingle in eight of w = 4 terms (each edit breaks 4): resemblance ~0.12.
# Below 0.05 the estimate from 84 samples is mostly noise; candidates that far
# apart are refused before the edit distance is paid for.
DEFAULT_MIN_RESEMBLANCE = 0.05
# A candidate shares at least this many of the 84 sketch values with the item:
# resemblance 0.05 gives about 84 * 2r / (1 + r) = 8 in expectation, while a
# shared line of boilerplate gives one or two.
DEFAULT_MIN_SHARED_MINIMA = 4
# Candidates verified for one item, most shared sketch values first.
DEFAULT_CANDIDATES = 8


@dataclass(frozen=True)
class Similarity:
    """A member's closeness to its representative (both 1.0 and 0.0 for an
    exact copy and for the representative itself)."""

    resemblance: float
    word_distance: float


EXACT = Similarity(1.0, 0.0)
# admitted without a measure (a detector's decision, or a features-rule
# member farther than the bound, which is not worth measuring exactly)
UNMEASURED = Similarity(float("nan"), float("nan"))


@dataclass(frozen=True)
class Rule:
    """How an item is admitted into a representative's cluster.

    ``verified`` (the default): candidates share a feature or at least
    ``min_shared_minima`` sketch values, and are admitted only within the two
    bounds.  ``features``: the design card's rule alone -- at least
    ``threshold`` shared features (the FingerprintParams' threshold), no
    verification.
    """

    kind: RuleKind = "verified"
    max_word_distance: float = DEFAULT_MAX_WORD_DISTANCE
    min_resemblance: float = DEFAULT_MIN_RESEMBLANCE
    min_shared_minima: int = DEFAULT_MIN_SHARED_MINIMA
    candidates: int = DEFAULT_CANDIDATES

    def __post_init__(self) -> None:
        if self.kind not in RULES:
            raise ValueError(f"rule must be one of {', '.join(RULES)}, not {self.kind!r}")
        if not 0.0 <= self.max_word_distance <= 1.0:
            raise ValueError(f"max_word_distance must be 0..1, got {self.max_word_distance}")
        if not 0.0 <= self.min_resemblance <= 1.0:
            raise ValueError(f"min_resemblance must be 0..1, got {self.min_resemblance}")
        if self.min_shared_minima < 1 or self.candidates < 1:
            raise ValueError("min_shared_minima and candidates must be at least 1")

    @property
    def spec(self) -> str:
        """``verified:30`` (the word distance bound in percent) or ``features``."""
        if self.kind == "features":
            return "features"
        return f"verified:{self.max_word_distance * 100:g}"

    @classmethod
    def parse(cls, spec: str) -> Rule:
        """``verified[:D]`` (D percent of words, default 30) or ``features``."""
        name, _, arg = spec.strip().partition(":")
        if name == "features" and not arg:
            return cls(kind="features")
        if name == "verified":
            return cls() if not arg else cls(max_word_distance=float(arg) / 100)
        raise ValueError(f"unknown clustering rule {spec!r}: give verified[:PERCENT] or features")

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, raw: str | None) -> Rule:
        return cls() if raw is None else cls(**json.loads(raw))


def sketch_values(sketch: bytes) -> npt.NDArray[np.int64]:
    """The sketch's minima as signed 64-bit integers (SQLite INTEGER)."""
    import numpy as np

    return np.frombuffer(sketch, dtype=">i8").astype(np.int64)


def estimate_resemblance(a: bytes, b: bytes, features: int) -> float:
    """Broder's bottom-k estimate, averaged over the polynomials: of the k
    smallest values of the union of both samples, the share in both.

    All polynomials at once: each row of both samples (distinct values
    each) sorted together; a value in both samples is one equal to its left
    neighbour, and it is among the union's k smallest when fewer than k
    distinct values precede it."""
    import numpy as np

    left = np.frombuffer(a, dtype=">u8").reshape(features, -1)
    right = np.frombuffer(b, dtype=">u8").reshape(features, -1)
    k = left.shape[1]
    merged = np.sort(np.concatenate([left, right], axis=1), axis=1)
    repeated = merged[:, 1:] == merged[:, :-1]
    # distinct values up to and including each position (the first is new)
    rank = 1 + np.cumsum(~repeated, axis=1)
    both = int(np.count_nonzero(repeated & (rank <= k)))
    return both / left.size


def estimate_resemblances(a: bytes, others: Sequence[bytes], features: int) -> list[float]:
    """``estimate_resemblance(a, b, features)`` for each ``b`` of
    ``others``, in one pass: a text's candidates are estimated together
    (one sort over all their rows, not a handful of numpy calls each).
    The pair's own function stays: for one pair it is faster (8 against
    12 us), and ``check`` measures every near member one pair at a time."""
    import numpy as np

    if not others:
        return []
    left = np.frombuffer(a, dtype=">u8").reshape(1, features, -1)
    right = np.frombuffer(b"".join(others), dtype=">u8").reshape(len(others), features, -1)
    k = left.shape[2]
    merged = np.sort(np.concatenate([np.broadcast_to(left, right.shape), right], axis=2), axis=2)
    repeated = merged[:, :, 1:] == merged[:, :, :-1]
    rank = 1 + np.cumsum(~repeated, axis=2)
    both = np.count_nonzero(repeated & (rank <= k), axis=(1, 2))
    return [int(n) / (features * k) for n in both.tolist()]


# Above this many words in the longer text, a bag-of-words lower bound is
# checked before the edit distance (it costs one pass; the edit distance
# costs the product of the lengths).
_BAG_CHECK_WORDS = 2_000


def bounded_word_distance(left: Words, right: Words, bound: float, *, moves: bool = True) -> float | None:
    """Word distance (a moved block ``MOVE_COST`` edits, ``fingerprint.distance``) as a
    share of the longer text, or None when it is over ``bound``.  Lower
    bounds first, so far-apart texts cost little: the length difference,
    then on long texts the multiset difference of their words; rapidfuzz
    stops once past the bound."""
    longest = max(len(left), len(right))
    if longest == 0:
        return 0.0
    from lifededup.fingerprint.distance import bag_distance, word_distance

    allowed = int(bound * longest)
    if abs(len(left) - len(right)) > allowed:
        return None
    floor = bag_distance(left, right) if longest > _BAG_CHECK_WORDS else None
    if floor is not None and floor > allowed:
        return None
    distance = word_distance(left, right, allowed, moves=moves, floor=floor)
    return None if distance is None else distance / longest


def measure(a_sketch: bytes | None, b_sketch: bytes | None, a_words: Words, b_words: Words,
            features: int, rule: Rule, estimated: float | None = None) -> Similarity | None:
    """The similarity of two texts if ``rule`` admits one beside the other,
    else None (refused).  Without sketches (short texts) the resemblance
    cannot be estimated and only the word distance is measured.
    ``estimated``: their resemblance, already estimated."""
    resemblance = 0.0
    if a_sketch is not None and b_sketch is not None:
        resemblance = estimate_resemblance(a_sketch, b_sketch, features) if estimated is None else estimated
        if resemblance < rule.min_resemblance:
            return None
    from lifededup.fingerprint.distance import MOVES_MIN_RESEMBLANCE

    # without sketches (short texts) no resemblance is known: moves are counted
    moves = a_sketch is None or b_sketch is None or resemblance >= MOVES_MIN_RESEMBLANCE
    distance = bounded_word_distance(a_words, b_words, rule.max_word_distance, moves=moves)
    return None if distance is None else Similarity(resemblance, distance)


def measure_any(a_sketch: bytes | None, b_sketch: bytes | None, a_words: Words, b_words: Words,
                features: int, bound: float) -> Similarity:
    """The similarity of two texts a rule admitted without verifying, so
    that a member still shows its closeness; beyond ``bound`` the word
    distance is not computed (it costs most there) and is left unmeasured."""
    resemblance = 0.0 if a_sketch is None or b_sketch is None else estimate_resemblance(a_sketch, b_sketch, features)
    distance = bounded_word_distance(a_words, b_words, bound)
    return Similarity(resemblance, float("nan")) if distance is None else Similarity(resemblance, distance)
