"""MinHash-LSH keeps its published behaviour (seeds/003): the fraction of
agreeing rows estimates the Jaccard resemblance, and a pair becomes a
candidate with probability 1 - (1 - s^r)^b."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lifededup.detect import MinHashLSH
from lifededup.detect.minhash import band_keys, estimated_resemblance, minhash

PAIRS = 400
UNION = 200


def _pair(rng: np.random.Generator, s: float) -> tuple[np.ndarray, np.ndarray]:
    """Two shingle sets of exact Jaccard resemblance ``s`` over a union of 200."""
    values = np.unique(rng.integers(0, 2**64, size=UNION + 10, dtype=np.uint64))[:UNION]
    rng.shuffle(values)
    common = round(s * UNION)
    split = common + (UNION - common) // 2
    a = np.concatenate([values[:common], values[common:split]])
    b = np.concatenate([values[:common], values[split:]])
    return a, b


def _tolerance(p: float, n: int) -> float:
    # 4.5 standard deviations of a binomial rate, plus one pair's worth
    return 4.5 * math.sqrt(p * (1 - p) / n) + 1 / n


@pytest.mark.parametrize("s", [0.2, 0.4, 0.5, 0.6, 0.8])
def test_candidate_rate_follows_the_s_curve(s: float) -> None:
    bands, rows = 20, 5  # seeds/003's worked example
    rng = np.random.default_rng(int(s * 100))
    hits = 0
    for trial in range(PAIRS):
        a, b = _pair(rng, s)
        sig_a, sig_b = minhash(a, bands * rows, trial), minhash(b, bands * rows, trial)
        assert sig_a is not None and sig_b is not None
        hits += bool(set(band_keys(sig_a, bands, rows)) & set(band_keys(sig_b, bands, rows)))
    want = 1 - (1 - s**rows) ** bands
    got = hits / PAIRS
    assert abs(got - want) <= _tolerance(want, PAIRS), (
        f"s={s}: {got:.3f} of pairs were candidates, the S-curve says {want:.3f}"
    )


@pytest.mark.parametrize("s", [0.3, 0.7, 0.9])
def test_agreeing_rows_estimate_the_resemblance(s: float) -> None:
    rng = np.random.default_rng(7)
    estimates = []
    for trial in range(100):
        a, b = _pair(rng, s)
        sig_a, sig_b = minhash(a, 100, trial), minhash(b, 100, trial)
        assert sig_a is not None and sig_b is not None
        estimates.append(estimated_resemblance(sig_a, sig_b))
    # the mean of 100 x 100 Bernoulli(s) rows
    got = float(np.mean(estimates))
    assert abs(got - s) <= 4.5 * math.sqrt(s * (1 - s) / 10_000), f"mean estimate {got:.4f} for s={s}"


def test_a_set_and_a_reordered_copy_have_the_same_signature() -> None:
    values = np.arange(1, 50, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    first, second = minhash(values, 100, 1), minhash(values[::-1].copy(), 100, 1)
    assert first is not None and second is not None
    assert np.array_equal(first, second), "min-hashes depend on the order of the shingles"


def test_no_shingles_no_signature() -> None:
    assert minhash(np.zeros(0, dtype=np.uint64), 100, 1) is None, "an empty shingle set got a signature"


def test_a_pair_is_confirmed_only_when_a_band_agrees() -> None:
    detector = MinHashLSH(bands=4, rows=5, threshold=0.75)
    a = np.arange(20, dtype=np.uint64)
    b = a.copy()
    b[[0, 5, 10, 15]] += np.uint64(100)  # 16 of 20 rows agree, but every band has a change
    assert estimated_resemblance(a, b) == 0.8
    assert not detector.similar(a, b), "a pair sharing no band was accepted"
    c = a.copy()
    c[[0, 1, 2, 3]] += np.uint64(100)  # 16 of 20 agree, bands 1-3 whole
    assert detector.similar(a, c), "a pair sharing three bands with 80% agreement was rejected"


def test_signatures_are_reproducible_from_the_seed() -> None:
    values = np.arange(1, 30, dtype=np.uint64)
    one, two, other = minhash(values, 10, 5), minhash(values, 10, 5), minhash(values, 10, 6)
    assert one is not None and two is not None and other is not None
    assert np.array_equal(one, two), "the same seed gave two signatures"
    assert not np.array_equal(one, other), "two seeds gave the same signature"
