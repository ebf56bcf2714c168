"""The fingerprint engine: SHA-1 and super-shingle features (seeds/000 section
2.2 steps 4-7; Broder, seeds/001)."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lifededup.config import FingerprintParams
from lifededup.fingerprint import fingerprint, fingerprint_many, is_near_duplicate, shingle, shingle_values
from lifededup.fingerprint.compare import compare, resemblance
from lifededup.fingerprint.rabin import polynomials, rabin_reference
from lifededup.model import shared_features
from lifededup.normalize import stream_array, terms

PARAMS = FingerprintParams()
RNG_WORD_LETTERS = np.array(list("bcdfghjklmnpqrstvwxz"))


def random_words(rng: np.random.Generator, count: int) -> list[str]:
    """Made-up words of 5-9 consonants: never stop words, never numbers, and
    from a space so large that two documents share none by accident."""
    lengths = rng.integers(5, 10, size=count)
    letters = rng.choice(RNG_WORD_LETTERS, size=(count, 9))
    return ["".join(row[:n]) for row, n in zip(letters, lengths)]


def test_shingle_values_agree_with_reference() -> None:
    """A shingle's fingerprint is the Rabin fingerprint of its terms'
    fingerprints, then 64 zero bits (see lifededup.fingerprint)."""
    text = "Kleine Nachtmusik: the quick brown fox jumps over the lazy dog; ÉLAN vital, naïve café 42 times"
    stream = stream_array(text)
    found = terms(stream, PARAMS.filters, PARAMS.max_term_bytes)
    got = shingle_values(found, PARAMS)
    words = found.as_words()
    w = PARAMS.shingle_words
    assert got.shape == (len(words) - w + 1, PARAMS.features)
    for k, poly in enumerate(polynomials(PARAMS.seed, PARAMS.features)):
        for j in range(len(words) - w + 1):
            joined = b"".join(
                rabin_reference(word.encode(), poly).to_bytes(8, "big") for word in words[j : j + w]
            )
            want = rabin_reference(joined + bytes(8), poly)
            assert int(got[j, k]) == want, f"shingle {j} {words[j:j + w]} under polynomial {k}"


def test_sha1_is_of_the_normalized_word_stream() -> None:
    import hashlib

    found = fingerprint("Hello,   WORLD!\n\tHello again.")
    assert found.sha1 == hashlib.sha1(b"hello world hello again").hexdigest()


words_strategy = st.lists(
    st.text(alphabet=st.characters(categories=["Ll", "Lu", "Nd"]), min_size=1, max_size=12),
    min_size=0,
    max_size=120,
)
spaces = st.sampled_from([" ", "  ", "\t", "\n", "\r\n", " \n\n ", "\u00a0", "\u3000"])


@settings(max_examples=150, deadline=None)
@given(words_strategy, st.data())
def test_whitespace_and_case_do_not_change_the_fingerprint(words: list[str], data: st.DataObject) -> None:
    # Case changes that case folding undoes (not, e.g., dotless i -> I -> i).
    words = [w for w in words if w.upper().casefold() == w.casefold()]
    plain = " ".join(words)
    gaps = [data.draw(spaces) for _ in words]
    respaced_upper = "".join(w + g for w, g in zip(words, gaps)).upper()
    a, b = fingerprint(plain), fingerprint(respaced_upper)
    assert a.sha1 == b.sha1, f"{plain!r} vs {respaced_upper!r}"
    assert a.features == b.features


def test_features_are_deterministic_across_processes() -> None:
    text = " ".join(random_words(np.random.default_rng(7), 400))
    code = (
        "import json, sys; from lifededup.fingerprint import fingerprint;"
        "f = fingerprint(sys.stdin.read()); print(json.dumps([f.sha1, f.features]))"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], input=text, capture_output=True, text=True, check=True,
            env={"PYTHONHASHSEED": str(seed), "PATH": ""},
        ).stdout
        for seed in (1, 2)
    ]
    assert runs[0] == runs[1], "two processes with different hash seeds disagree"
    sha1, features = json.loads(runs[0])
    here = fingerprint(text)
    assert (sha1, tuple(features)) == (here.sha1, here.features)


def test_unrelated_documents_share_no_feature() -> None:
    rng = np.random.default_rng(11)
    found = [fingerprint(" ".join(random_words(rng, 300))) for _ in range(60)]
    for i, a in enumerate(found):
        for b in found[i + 1 :]:
            assert shared_features(a.features, b.features) == 0, "unrelated documents share a feature"


def test_identical_documents_share_every_feature() -> None:
    text = " ".join(random_words(np.random.default_rng(3), 200))
    a, b = fingerprint(text), fingerprint(text)
    assert a.features is not None and shared_features(a.features, b.features) == 6
    assert is_near_duplicate(a, b)


def broder_acceptance(rho: float, features: int = 6, minima: int = 14, threshold: int = 2) -> float:
    """P = sum_{i >= r} C(k, i) p^i (1 - p)^(k - i), p = rho^s (seeds/001)."""
    p = rho**minima
    return sum(math.comb(features, i) * p**i * (1 - p) ** (features - i) for i in range(threshold, features + 1))


@pytest.mark.parametrize("target", [0.80, 0.90, 0.95])
def test_acceptance_follows_broders_formula(target: float) -> None:
    """Over a few hundred pairs with resemblance rho, the share judged
    near-duplicate is Broder's P(rho) within sampling error."""
    rng = np.random.default_rng(int(target * 100))
    n, w, pairs = 600, PARAMS.shingle_words, 300
    shingles = n - w + 1
    # B keeps A's first m words and replaces the rest: the shared shingles are
    # those inside the kept prefix, so rho = (m-w+1) / (2 S - (m-w+1)).
    shared = round(2 * shingles * target / (1 + target))
    m = shared + w - 1
    accepted, rhos = 0, []
    for _ in range(pairs):
        a = random_words(rng, n)
        b = a[:m] + random_words(rng, n - m)
        cut_a, cut_b = shingle(" ".join(a)), shingle(" ".join(b))
        rhos.append(resemblance(cut_a, cut_b))
        fa, fb = fingerprint(" ".join(a)), fingerprint(" ".join(b))
        accepted += shared_features(fa.features, fb.features) >= 2
    rho = float(np.mean(rhos))
    assert abs(rho - target) < 0.002, f"the construction gave rho={rho}, not {target}"
    want = broder_acceptance(rho)
    got = accepted / pairs
    sigma = math.sqrt(want * (1 - want) / pairs)
    assert abs(got - want) <= 4 * sigma + 0.01, f"rho={rho:.3f}: accepted {got:.3f}, Broder says {want:.3f}"


def test_short_text_is_exact_only() -> None:
    """Fewer than 14 distinct shingles: no features, matched by SHA-1 only."""
    short = "Meeting moved to Thursday afternoon, please bring the budget spreadsheet"
    found = fingerprint(short)
    assert found.features is None, "a one-line note should have no features"
    assert found.shingles < PARAMS.minima
    same = fingerprint(short.upper() + "  ")
    assert is_near_duplicate(found, same), "an exact copy of a short text is still found, by SHA-1"
    other = fingerprint(short.replace("Thursday", "Friday"))
    assert not is_near_duplicate(found, other), "short texts that differ are never near-duplicates"


def test_just_long_enough_text_gets_features() -> None:
    words = random_words(np.random.default_rng(5), PARAMS.minima + PARAMS.shingle_words - 1)
    found = fingerprint(" ".join(words))
    assert found.shingles == PARAMS.minima and found.features is not None


def test_near_duplicate_revision_is_found_and_rewrite_is_not() -> None:
    rng = np.random.default_rng(9)
    base = random_words(rng, 2000)
    revised = list(base)
    for i in rng.choice(len(base), size=3, replace=False):
        revised[i] = random_words(rng, 1)[0]
    rewrite = base[:1000] + random_words(rng, 1000)
    assert compare(" ".join(base), " ".join(revised)).near_duplicate
    result = compare(" ".join(base), " ".join(rewrite))
    assert not result.near_duplicate and result.resemblance < 0.5


def test_compare_reports_edit_distance_and_resemblance() -> None:
    a = "one two three four five six seven eight nine ten"
    b = "one two three four FIVE six seven eight nine eleven"
    result = compare(a, b, FingerprintParams(filters=PARAMS.filters.__class__(stopwords=False)))
    assert result.word_edit_distance == pytest.approx(0.1), "one word of ten changed"
    assert 0 < result.resemblance < 1


def test_params_mismatch_is_refused() -> None:
    a = fingerprint("some words here", PARAMS)
    b = fingerprint("some words here", FingerprintParams(shingle_words=5))
    with pytest.raises(ValueError, match="different params"):
        is_near_duplicate(a, b)


def test_bad_params_are_refused() -> None:
    with pytest.raises(ValueError, match="threshold"):
        FingerprintParams(threshold=7)
    with pytest.raises(ValueError, match="shingle_words"):
        FingerprintParams(shingle_words=0)


def test_a_text_that_repeats_itself_gets_the_features_of_its_distinct_shingles() -> None:
    """Minima are of the shingle *set*: repeating a text many times (a log
    file, a quoted mail thread) changes no feature."""
    once = " ".join(random_words(np.random.default_rng(21), 300))
    many = " ".join([once] * 40)
    a, b = fingerprint(once), fingerprint(many)
    assert a.features is not None
    # the repeated text adds the shingles that straddle two copies: a few new
    # ones among ~300, so most features survive
    assert shared_features(a.features, b.features) >= 2


def test_batch_and_one_by_one_agree() -> None:
    rng = np.random.default_rng(17)
    texts = [" ".join(random_words(rng, int(n))) for n in rng.integers(0, 400, size=50)]
    texts += ["", "   ", "short note", texts[3].upper()]
    assert fingerprint_many(texts) == [fingerprint(t) for t in texts]
