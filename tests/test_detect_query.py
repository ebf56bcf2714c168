"""Query-biased de-duplication (seeds/004): only the result set is clustered,
best-ranked first, and the first of each group is kept."""

from __future__ import annotations

import random

import pytest
from detect_texts import document, substitute, vocabulary

from lifededup.detect import DETECTOR_NAMES, dedup_results

VOCAB = vocabulary(2000, seed=21)


def _edit(rng: random.Random, words: list[str], spec: str) -> list[str]:
    """A near copy each detector is built to catch: I-Match and SimHash with
    k = 0 ignore word order, the others forgive one changed word."""
    if spec.startswith("imatch") or spec == "simhash:0":
        return rng.sample(words, len(words))
    return substitute(rng, words, VOCAB, 1)


@pytest.mark.parametrize("spec", [*DETECTOR_NAMES, "simhash:0", "simhash:6"])
def test_near_copies_in_a_result_set_are_hidden_behind_the_best_ranked(spec: str) -> None:
    rng = random.Random(22)
    report, memo = document(rng, VOCAB), document(rng, VOCAB)
    results = [
        ("memo.txt", " ".join(memo)),
        ("report-v1.txt", " ".join(report)),
        ("report-copy.txt", " ".join(report).upper()),
        ("memo-v2.txt", " ".join(_edit(rng, memo, spec))),
    ]
    got = dedup_results(results, spec)
    assert got.kept == ["memo.txt", "report-v1.txt"], f"{spec}: kept {got.kept}"
    want = {"report-copy.txt": "report-v1.txt", "memo-v2.txt": "memo.txt"}
    assert got.hidden == want, f"{spec}: hid {got.hidden}"


def test_unrelated_results_are_all_kept() -> None:
    rng = random.Random(23)
    results = [(i, " ".join(document(rng, VOCAB))) for i in range(8)]
    got = dedup_results(results, "simhash:3")
    assert got.kept == list(range(8)) and got.hidden == {}, f"unrelated results were hidden: {got.hidden}"


def test_a_bad_spec_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="unknown detector"):
        dedup_results([("a", "text")], "simhahs:3")
