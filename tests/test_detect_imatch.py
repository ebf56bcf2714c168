"""I-Match keeps its published behaviour (seeds/002), including the weakness
the paper names (seeds/000 section 2.2): one added rare word breaks the match;
the lexicon-randomized variant (Kolcz et al.) recovers most such pairs."""

from __future__ import annotations

import random

from detect_texts import document, vocabulary

from lifededup.detect import IMatch, RandomizedIMatch, collection_statistics
from lifededup.detect.terms import term_counts
from lifededup.normalize import word_stream

VOCAB = vocabulary(3000, seed=11)
COMMON = "zanzanzan"  # in every document: no IDF to speak of


def _collection(count: int = 60) -> list[str]:
    rng = random.Random(12)
    return [" ".join([COMMON, *document(rng, VOCAB, 150)]) for _ in range(count)]


def test_one_added_rare_word_breaks_imatch_and_lexicons_recover_most() -> None:
    originals = _collection()
    with_rare = [f"{text} quoxylophant{i}" for i, text in enumerate(originals)]
    stats = collection_statistics(word_stream(t) for t in originals + with_rare)
    plain, randomized = IMatch(stats), RandomizedIMatch(stats)
    missed = sum(
        not plain.is_near_duplicate(plain.signature(a), plain.signature(b)) for a, b in zip(originals, with_rare)
    )
    assert missed == len(originals), f"I-Match matched {len(originals) - missed} pairs that differ by a rare word"
    recovered = sum(
        randomized.is_near_duplicate(randomized.signature(a), randomized.signature(b))
        for a, b in zip(originals, with_rare)
    )
    # a lexicon keeps a word w.p. 2/3: all 10 keep it w.p. (2/3)^10 = 1.7%
    assert recovered >= 0.8 * len(originals), f"random lexicons recovered only {recovered} of {len(originals)}"


def test_randomized_variant_keeps_unrelated_documents_apart() -> None:
    texts = _collection()
    detector = RandomizedIMatch(collection_statistics(word_stream(t) for t in texts))
    signed = [detector.signature(t) for t in texts]
    false = [(i, j) for i in range(len(signed)) for j in range(i) if detector.is_near_duplicate(signed[i], signed[j])]
    assert false == [], f"unrelated documents matched: {false}"


def test_a_common_word_is_filtered_out_by_its_idf() -> None:
    texts = _collection()
    detector = IMatch(collection_statistics(word_stream(t) for t in texts))
    text = texts[0].replace(COMMON, "", 1)
    extra = f"{text} {COMMON} {COMMON}"
    (common,) = term_counts(COMMON).values.tolist()
    assert common not in detector.significant(texts[0]).tolist(), "a word in every document survived"
    assert detector.is_near_duplicate(detector.signature(text), detector.signature(extra)), (
        "adding a word found in every document changed the I-Match signature"
    )


def test_order_and_repetition_of_terms_do_not_matter() -> None:
    rng = random.Random(3)
    words = document(rng, VOCAB, 100)
    shuffled = list(words)
    rng.shuffle(shuffled)
    detector = IMatch()
    a, b = detector.signature(" ".join(words)), detector.signature(" ".join(shuffled + words[:10]))
    assert a.sha1 != b.sha1, "the test wants two different word streams"
    assert detector.is_near_duplicate(a, b), "I-Match hashes the sorted unique terms, so order must not matter"


def test_without_statistics_every_term_counts_once_in_order() -> None:
    found = IMatch().significant("lorem ipsum lorem").tolist()
    assert found == sorted(term_counts("ipsum lorem").values.tolist()), f"unique sorted terms expected, got {found}"
