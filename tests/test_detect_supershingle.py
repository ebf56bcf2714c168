"""The super-shingle detectors accept pairs as Broder's formula says
(seeds/001): with resemblance rho, a feature of s minima agrees with
probability p (about rho^s), and a pair is accepted when at least r of k
features agree: sum_{i>=r} C(k,i) p^i (1-p)^(k-i).  For the 8-byte variant a
byte also agrees by chance, so q = p + (1 - p)/256, with r = 3 of k = 8."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lifededup.detect import EightBytes, SuperShingles
from lifededup.detect.eightbytes import lead_bytes
from lifededup.detect.permutation import permutation_keys, permute
from lifededup.fingerprint import features_of, fingerprint, shingle

UNION = 400
PAIRS = 300


def _feature_agreement(rho: float, minima: int) -> float:
    # the `minima` smallest of the union all lie in the intersection
    shared = round(rho * UNION)
    return math.comb(shared, minima) / math.comb(UNION, minima)


def _accept(p: float, k: int, r: int) -> float:
    return sum(math.comb(k, i) * p**i * (1 - p) ** (k - i) for i in range(r, k + 1))


def _pairs(rho: float, columns: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Shingle-value matrices of pairs of exact resemblance rho, one column per
    independent permutation (as the engine's Rabin polynomials)."""
    rng = np.random.default_rng(seed)
    shared = round(rho * UNION)
    split = shared + (UNION - shared) // 2
    out = []
    for trial in range(PAIRS):
        ids = rng.integers(0, 2**64, size=UNION, dtype=np.uint64)
        keys = permutation_keys(trial, columns, "test columns")
        a = permute(np.concatenate([ids[:shared], ids[shared:split]]), keys)
        b = permute(np.concatenate([ids[:shared], ids[split:]]), keys)
        out.append((a, b))
    return out


def _engine_layout(values: np.ndarray, params: object) -> np.ndarray:
    """``values`` (one row per shingle, one column per polynomial) laid out as
    the fingerprint engine's shingle() lays out its own."""
    sample = shingle(" ".join(f"qx{chr(97 + i)}{chr(97 + j)}" for i in range(9) for j in range(9)), params)  # type: ignore[arg-type]
    return values if sample.values.shape[1] == values.shape[1] else values.T.copy()


def _close(got: float, want: float) -> bool:
    return abs(got - want) <= 4.5 * math.sqrt(want * (1 - want) / PAIRS) + 1 / PAIRS


@pytest.mark.parametrize("rho", [0.85, 0.9, 0.95])
def test_super_shingle_acceptance_follows_broders_formula(rho: float) -> None:
    detector = SuperShingles()
    params = detector.params
    accepted = 0
    for a, b in _pairs(rho, params.features, seed=int(rho * 100)):
        fa, fb = features_of(_engine_layout(a, params), params), features_of(_engine_layout(b, params), params)
        assert fa is not None and fb is not None
        accepted += detector.similar(fa, fb)
    want = _accept(_feature_agreement(rho, params.minima), params.features, params.threshold)
    assert _close(accepted / PAIRS, want), f"rho={rho}: accepted {accepted / PAIRS:.3f}, Broder says {want:.3f}"


@pytest.mark.parametrize("rho", [0.0, 0.85, 0.9, 0.95])
def test_eight_byte_acceptance_follows_broders_formula(rho: float) -> None:
    detector = EightBytes()
    params = detector.params
    accepted = 0
    for a, b in _pairs(rho, params.features, seed=int(rho * 100) + 1):
        fa, fb = features_of(_engine_layout(a, params), params), features_of(_engine_layout(b, params), params)
        assert fa is not None and fb is not None
        accepted += detector.similar(lead_bytes(fa), lead_bytes(fb))
    p = _feature_agreement(rho, params.minima)
    want = _accept(p + (1 - p) / 256, 8, detector.threshold)
    assert _close(accepted / PAIRS, want), f"rho={rho}: accepted {accepted / PAIRS:.3f}, Broder says {want:.3f}"


def test_eight_bytes_are_eight_bytes() -> None:
    text = " ".join(f"word{chr(97 + i % 26)}{chr(97 + i // 26 % 26)}" for i in range(200))
    detector = EightBytes()
    assert detector.size(detector.signature(text)) == 8, "the 8-byte variant must store 8 bytes a document"
    assert SuperShingles().size(SuperShingles().signature(text)) == 48, "6 features of 8 bytes (seeds/001)"


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["Straße", "STRASSE", "ﬁle", "Ǆemal", "naïve", "résumé", "word", "Ωmega", "x²"]),
                min_size=0, max_size=120))
def test_the_default_detector_is_the_fingerprint_stage(words: list[str]) -> None:
    """The store keeps the fingerprint stage's SHA-1 and features; the default
    detector must give the very same, or the two would disagree on duplicates."""
    text = " ".join(words)
    want = fingerprint(text)
    got = SuperShingles().signature(text)
    assert (got.sha1, got.body) == (want.sha1, want.features), f"detector and fingerprint stage differ on {text!r}"
