"""The verified stage's measures against plain reference computations: the
vectorized resemblance estimate, the bag-of-words lower bound that refuses
long texts before the edit distance, and the word cache's bound."""

from __future__ import annotations

import random

import numpy as np
from rapidfuzz.distance import Levenshtein

from lifededup.store.clustering import _WordCache
from lifededup.fingerprint.distance import bag_distance, word_distance
from lifededup.store.similarity import bounded_word_distance, estimate_resemblance, estimate_resemblances


def _reference_resemblance(a: bytes, b: bytes, features: int) -> float:
    left = np.frombuffer(a, dtype=">u8").reshape(features, -1)
    right = np.frombuffer(b, dtype=">u8").reshape(features, -1)
    k = left.shape[1]
    both = 0
    for x, y in zip(left, right):
        union = sorted(set(x.tolist()) | set(y.tolist()))[:k]
        both += len(set(union) & set(x.tolist()) & set(y.tolist()))
    return both / left.size


def test_resemblance_estimate_matches_the_bottom_k_definition() -> None:
    rng = np.random.default_rng(7)
    for trial in range(300):
        pool = rng.integers(0, 2**63, size=int(rng.integers(15, 60)), dtype=np.uint64) * np.uint64(2)
        pool = np.unique(pool)

        def sample() -> bytes:
            return np.array([np.sort(rng.choice(pool, size=14, replace=False)) for _ in range(6)]).astype(">u8").tobytes()

        a, b = sample(), sample()
        got, want = estimate_resemblance(a, b, 6), _reference_resemblance(a, b, 6)
        assert got == want, f"trial {trial}: estimate {got}, bottom-k definition {want}"
        assert estimate_resemblance(a, a, 6) == 1.0, f"trial {trial}: a sketch against itself is not 1.0"


def test_a_texts_candidates_estimated_together_are_estimated_as_one_by_one() -> None:
    """``estimate_resemblances``: a text's candidates in one pass, each the
    very float of the bottom-k definition and of ``estimate_resemblance``
    (the rule compares it with its bound, so a last bit could change a
    cluster); none, itself, and candidates sharing many values or none."""
    rng = np.random.default_rng(11)
    pool = np.unique(rng.integers(0, 2**63, size=80, dtype=np.uint64))

    def sample(values: np.ndarray) -> bytes:
        return np.array([np.sort(rng.choice(values, size=14, replace=False)) for _ in range(6)]).astype(">u8").tobytes()

    for trial in range(100):
        a = sample(pool)
        others = [sample(pool[: int(rng.integers(20, 80))]) for _ in range(int(rng.integers(0, 12)))] + [a]
        want = [_reference_resemblance(a, b, 6) for b in others]
        assert estimate_resemblances(a, others, 6) == want, f"trial {trial}"
        assert [estimate_resemblance(a, b, 6) for b in others] == want, f"trial {trial}"
        assert want[-1] == 1.0
    assert estimate_resemblances(a, [], 6) == []


def _drafts(rng: random.Random, words: int, edits: int) -> tuple[list[str], list[str]]:
    vocab = [f"w{n}" for n in range(300)]
    left = [rng.choice(vocab) for _ in range(words)]
    right = list(left)
    for _ in range(edits):
        where = rng.randrange(len(right) + 1)
        kind = rng.randrange(3)
        if kind == 0 or not right:
            right.insert(where, rng.choice(vocab))
        elif kind == 1:
            del right[min(where, len(right) - 1)]
        else:
            right[min(where, len(right) - 1)] = rng.choice(vocab)
    if rng.random() < 0.3:  # a reordering: few words differ, many edits
        cut = rng.randrange(len(right))
        right = right[cut:] + right[:cut]
    return left, right


def test_bag_bound_never_exceeds_the_distance_and_the_bound_decides_as_the_full_distance() -> None:
    rng = random.Random(11)
    for trial in range(60):
        left, right = _drafts(rng, rng.choice([50, 400, 2_500]), rng.randrange(0, 900))
        plain = Levenshtein.distance(left, right)
        full = word_distance(left, right)
        bag = bag_distance(left, right)
        assert full is not None and bag <= full <= plain, f"trial {trial}: bag {bag}, distance {full}, plain {plain}"
        longest = max(len(left), len(right))
        got = bounded_word_distance(left, right, 0.3)
        admitted = full <= int(0.3 * longest)
        assert (got is not None) == admitted, f"trial {trial}: bounded distance {got}, the full distance {full}"
        # within the bound as it stands, the plain distance; moves counted only to admit a pair
        assert got is None or got == (plain if plain <= int(0.3 * longest) else full) / longest, (trial, got)


def test_word_cache_holds_at_most_its_bound_in_words() -> None:
    cache = _WordCache(1_000)
    for n in range(50):
        cache.put(f"sha{n}", ["w"] * 300)
    held = [n for n in range(50) if cache.get(f"sha{n}") is not None]
    assert held == [47, 48, 49], f"the cache kept {held}, not the three most recent lists"
    cache.put("huge", ["w"] * 5_000)
    assert cache.get("huge") is None, "a list longer than the whole bound was kept"
