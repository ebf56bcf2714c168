"""SimHash keeps its published behaviour (seeds/004): the Hamming distance of
two fingerprints grows with the share of changed features (Charikar: bits
differ with probability angle/pi), and Manku's k+1 blocks find every pair
within distance k."""

from __future__ import annotations

import hashlib
import math
import random

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from lifededup.detect import CandidateIndex, Signature, SimHash
from lifededup.detect.simhash import blocks, hamming, simhash

FEATURES = 200


def _mean_distance(changed: int, trials: int = 60) -> float:
    rng = np.random.default_rng(changed)
    weights = np.ones(FEATURES)
    total = 0
    for _ in range(trials):
        hashes = rng.integers(0, 2**64, size=FEATURES, dtype=np.uint64)
        edited = hashes.copy()
        edited[:changed] = rng.integers(0, 2**64, size=changed, dtype=np.uint64)
        total += hamming(simhash(hashes, weights), simhash(edited, weights))
    return total / trials


def test_distance_grows_with_the_share_of_changed_features() -> None:
    shares = [0.0, 0.05, 0.1, 0.2, 0.4, 0.8]
    means = [_mean_distance(round(share * FEATURES)) for share in shares]
    assert means[0] == 0, f"unchanged features gave distance {means[0]}"
    assert all(a < b for a, b in zip(means, means[1:])), f"distances {means} do not grow with {shares}"
    for share, got in zip(shares[1:], means[1:]):
        # equal weights, a share c replaced: cosine 1 - c, bits differ w.p. angle / pi
        want = 64 * math.acos(1 - share) / math.pi
        assert abs(got - want) <= 0.15 * want + 1, f"share {share}: mean distance {got:.1f}, Charikar {want:.1f}"


def test_weights_decide_the_bits() -> None:
    hashes = np.array([0x0F0F0F0F0F0F0F0F, 0xFFFFFFFF00000000], dtype=np.uint64)
    assert simhash(hashes, np.array([3.0, 1.0])) == 0x0F0F0F0F0F0F0F0F, "the heavy feature did not win"
    assert simhash(hashes, np.array([1.0, 3.0])) == 0xFFFFFFFF00000000, "the heavy feature did not win"


@given(st.integers(0, 2**64 - 1), st.integers(0, 7), st.data())
def test_pairs_within_k_bits_share_a_block(fingerprint: int, k: int, data: st.DataObject) -> None:
    flips = data.draw(st.sets(st.integers(0, 63), max_size=k))
    other = fingerprint
    for bit in flips:
        other ^= 1 << bit
    shared = set(blocks(fingerprint, k + 1)) & set(blocks(other, k + 1))
    assert shared, f"{fingerprint:016x} and {other:016x} are {len(flips)} <= {k} bits apart but share no block"


def test_block_index_finds_every_pair_within_k_without_a_scan() -> None:
    rng = random.Random(5)
    detector = SimHash(distance=3)
    index: CandidateIndex[int, int] = CandidateIndex(detector)
    prints: list[int] = []
    for item in range(400):
        if prints and rng.random() < 0.5:
            base = rng.choice(prints)
            value = base
            for bit in rng.sample(range(64), rng.randint(0, 5)):
                value ^= 1 << bit
        else:
            value = rng.getrandbits(64)
        signature = Signature(sha1=hashlib.sha1(str(item).encode()).hexdigest(), body=value)
        want = [j for j, p in enumerate(prints) if hamming(p, value) <= 3]
        got = index.matches(signature)
        assert got == want, f"item {item}: blocks found {got}, a scan {want}"
        # the lookup touched far fewer items than a scan would
        assert len(index.candidates(signature)) <= len(want) + 10, "block lookup degenerated into a scan"
        index.add(item, signature)
        prints.append(value)


def test_distance_k_zero_is_exact_fingerprints_only() -> None:
    detector = SimHash(distance=0)
    assert detector.similar(5, 5) and not detector.similar(5, 4), "k=0 must accept only equal fingerprints"
    assert len(detector.body_keys(5)) == 1, "k=0 wants one block: the whole fingerprint"
