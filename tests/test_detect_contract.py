"""What every detector promises: identical texts match, unrelated ones do not,
sketches survive encoding, and the index finds exactly what a scan would."""

from __future__ import annotations

import random
from typing import Any

import pytest
from detect_texts import document, substitute, vocabulary
from hypothesis import given, settings
from hypothesis import strategies as st

from lifededup.detect import (
    DETECTOR_NAMES,
    CandidateIndex,
    Detector,
    collection_statistics,
    conservative_clusters,
    make_detector,
)
from lifededup.normalize import word_stream

VOCAB = vocabulary(2000)


def _corpus(seed: int) -> list[str]:
    """Ten originals, each with three near copies of 1 to 6 changed words."""
    rng = random.Random(seed)
    texts = []
    for _ in range(10):
        original = document(rng, VOCAB)
        texts.append(" ".join(original))
        texts.extend(" ".join(substitute(rng, original, VOCAB, rng.randint(1, 6))) for _ in range(3))
    rng.shuffle(texts)
    return texts


def _detector(name: str, texts: list[str]) -> Detector[Any]:
    return make_detector(name, collection_statistics(word_stream(t) for t in texts))


@pytest.mark.parametrize("name", DETECTOR_NAMES)
def test_identical_texts_match_and_unrelated_do_not(name: str) -> None:
    rng = random.Random(1)
    a, b = " ".join(document(rng, VOCAB)), " ".join(document(rng, VOCAB))
    detector = _detector(name, [a, b])
    same = detector.is_near_duplicate(detector.signature(a), detector.signature(a))
    assert same, f"{name}: a text is not a near-duplicate of itself"
    reformatted = detector.signature("\n\n  " + a.upper().replace(" ", "\t "))
    assert detector.is_near_duplicate(detector.signature(a), reformatted), (
        f"{name}: changing case and whitespace broke the match"
    )
    assert not detector.is_near_duplicate(detector.signature(a), detector.signature(b)), (
        f"{name}: two unrelated texts matched"
    )


@pytest.mark.parametrize("name", DETECTOR_NAMES)
def test_short_texts_match_only_exact_copies(name: str) -> None:
    detector = _detector(name, ["fox", "fox den"])
    one, same, other = (detector.signature(t) for t in ("Fox!", "fox", "fox den"))
    assert detector.is_near_duplicate(one, same), f"{name}: exact short copies did not match"
    assert not detector.is_near_duplicate(one, other), f"{name}: different short texts matched"


@pytest.mark.parametrize("name", DETECTOR_NAMES)
def test_sketch_survives_encoding(name: str) -> None:
    text = " ".join(document(random.Random(2), VOCAB))
    detector = _detector(name, [text])
    body = detector.signature(text).body
    assert body is not None, f"{name}: no sketch for a 300-word text"
    raw = detector.encode(body)
    again = detector.encode(detector.decode(raw))
    assert again == raw, f"{name}: decode(encode(x)) changed the sketch"
    assert len(raw) == detector.size(detector.signature(text)), f"{name}: size is not the encoded length"


@pytest.mark.parametrize("name", DETECTOR_NAMES)
def test_index_finds_exactly_what_a_scan_finds(name: str) -> None:
    texts = _corpus(3)
    detector = _detector(name, texts)
    signed = [detector.signature(t) for t in texts]
    index: CandidateIndex[int, Any] = CandidateIndex(detector)
    for item, signature in enumerate(signed):
        scanned = [j for j in range(item) if detector.is_near_duplicate(signature, signed[j])]
        found = index.matches(signature)
        assert found == scanned, f"{name}: item {item}: index found {found}, a scan {scanned}"
        index.add(item, signature)


@pytest.mark.parametrize("name", DETECTOR_NAMES)
def test_conservative_clusters_keep_members_near_their_representative(name: str) -> None:
    texts = _corpus(4)
    detector = _detector(name, texts)
    signed = [(i, detector.signature(t)) for i, t in enumerate(texts)]
    cluster_of = conservative_clusters(detector, signed)
    for item, representative in cluster_of.items():
        assert cluster_of[representative] == representative, f"{name}: {representative} is not a representative"
        assert representative <= item, f"{name}: item {item} joined a later item {representative}"
        assert detector.is_near_duplicate(signed[item][1], signed[representative][1]), (
            f"{name}: item {item} is not near its representative {representative}"
        )


@settings(max_examples=30, deadline=None)
@given(text=st.text(alphabet=st.sampled_from("ab cé\n\tZ.,"), max_size=80), name=st.sampled_from(DETECTOR_NAMES))
def test_any_text_matches_itself_and_keys_are_sqlite_integers(text: str, name: str) -> None:
    detector = make_detector(name, collection_statistics([word_stream(text)]))
    signature = detector.signature(text)
    assert detector.is_near_duplicate(signature, detector.signature(text)), f"{name}: {text!r} differs from itself"
    for slot, value in detector.keys(signature):
        assert -(2**63) <= value < 2**63, f"{name}: key value {value} does not fit SQLite's INTEGER"


@pytest.mark.parametrize(
    "spec", ["nosuch", "imatch:3", "minhash:20", "minhash:20x5:0.8:1", "simhash:x", "bytes8:9", "simhash:64"]
)
def test_bad_specs_say_what_is_wrong(spec: str) -> None:
    with pytest.raises(ValueError) as caught:
        make_detector(spec)
    assert spec.partition(":")[0] in str(caught.value), f"the error for {spec!r} does not name it: {caught.value}"


@pytest.mark.parametrize("name", DETECTOR_NAMES)
def test_spec_names_the_same_detector(name: str) -> None:
    detector = make_detector(name)
    assert make_detector(detector.spec).spec == detector.spec, f"{detector.spec} does not round-trip"
