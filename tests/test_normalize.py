"""The standard word stream and the paper's filters (seeds/000 section 2.2
steps 2-3)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lifededup.config import FilterParams
from lifededup.normalize import (
    DocFrequencies,
    first_occurrence,
    split_words,
    stream_array,
    terms,
    word_stream,
    words,
)
from lifededup.normalize.stream import _fold_unicode

NO_FILTERS = FilterParams(numbers=False, stopwords=False)


def kept(text: str, filters: FilterParams, max_bytes: int = 64, doc_freq: DocFrequencies | None = None) -> list[str]:
    return terms(stream_array(text), filters, max_bytes, doc_freq).as_words()


def test_words_keep_the_letters_of_every_script() -> None:
    got = words("Ünïcödé FAÇADE — Москва, Ἀθῆναι! 東京タワー; ﬁnance № 5 don't snake_case")
    want = ["ünïcödé", "façade", "москва", "ἀθῆναι", "東", "京", "タ", "ワ", "ー", "finance", "no", "5",
            "don", "t", "snake", "case"]
    assert got == want


def test_indic_words_keep_their_vowel_signs_and_astral_characters_are_classified() -> None:
    assert words("नमस्ते दुनिया") == ["नमस्ते", "दुनिया"], "combining marks are part of a word"
    assert words("hello 😀 world 𠀀𠀁 \ud800 end") == ["hello", "world", "𠀀", "𠀁", "end"]


def test_stream_collapses_all_whitespace_and_punctuation() -> None:
    assert word_stream("  Hello,\t\tWORLD!\r\n\n -- again...  ") == "hello world again"
    assert word_stream("") == "" and words(" \n\t ") == []


def test_long_text_in_blocks_equals_one_pass() -> None:
    """The fast path folds ASCII blocks with a byte table; blocks holding other
    characters take the Unicode path.  The stream must not depend on where the
    blocks fall."""
    rng = np.random.default_rng(1)
    vocab = ["report", "Budget", "café", "Zürich", "naïve", "ÉTÉ", "x", "2024", "q3", "ΰ", "東京", "don't"]
    text = "\n".join(" ".join(rng.choice(vocab, size=12)) + "," for _ in range(8000))
    assert len(text) > 4 * 16384, "the text must span several blocks"
    whole = _fold_unicode(text).split()
    assert word_stream(text).split(" ") == [w.decode() for w in whole]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_any_text_gives_a_clean_stream(text: str) -> None:
    stream = word_stream(text)
    assert "  " not in stream and stream == stream.strip()
    # the ASCII byte table and the Unicode path agree
    assert stream == " ".join(w for w in _fold_unicode(text).decode().split(" ") if w)
    assert word_stream(stream) == stream, "normalising twice changes nothing"


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=200), st.text(st.characters(max_codepoint=127), max_size=200)))
def test_words_are_the_stream_cut_at_its_spaces(text: str) -> None:
    """words() takes a shortcut for ASCII text: the same words as the stream's."""
    stream = word_stream(text)
    want = stream.split(" ") if stream else []
    assert words(text) == want, f"words({text!r}) is not the stream {stream!r} cut at its spaces"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "Z", "9", " ", "\n", "\t", "-", "=", "\x00", "é", "e\u0301", "\u0301", "\u0338",
                                 "½", "İ", "ß", "ﬁ", "東", "ΰ", "’", "😀", "\ud800", "Ａ", "ﷺ", "ᄀ", "ᅡ"]), max_size=60))
def test_text_folded_token_by_token_equals_one_pass(pieces: list[str]) -> None:
    """Only the tokens holding non-ASCII characters take the Unicode path,
    folded tokens are spliced back (padded, or the text rebuilt when one
    grows): the stream must be what folding the whole text gives."""
    text = "".join(pieces)
    want = " ".join(w.decode("utf-8", "surrogatepass") for w in _fold_unicode(text).split())
    assert word_stream(text) == want, f"token-wise folding of {text!r} differs from folding it whole"


def test_number_filter() -> None:
    text = "invoice 2005 total 1234567890123 mp3 q3 ２００５ 10h30"
    assert kept(text, FilterParams(stopwords=False)) == ["invoice", "total", "mp3", "q3", "10h30"]
    assert "2005" in kept(text, NO_FILTERS)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="0123456789:/aé٣", min_size=1, max_size=12), max_size=40))
def test_number_filter_drops_exactly_the_all_digit_terms(tokens: list[str]) -> None:
    text = " ".join(tokens)
    want = [w for w in words(text) if not (w.isascii() and w.isdigit())]
    assert kept(text, FilterParams(stopwords=False)) == want, f"number filter on {text!r}"


def test_stopword_filter() -> None:
    assert kept("The cat and the hat, isn't it?", FilterParams()) == ["cat", "hat"]


def test_stemming_merges_inflections() -> None:
    got = kept("running runs runner connected connection", FilterParams(stem=True))
    assert got[:2] == ["run", "run"] and got[3] == got[4] == "connect"


def test_low_idf_filter_drops_common_terms() -> None:
    freq = DocFrequencies(documents=1000, counts={"report": 900, "budget": 5})
    # idf(report) = ln(1000/900) ~ 0.1; idf(budget) = ln(200) ~ 5.3; unseen terms are rarest
    assert kept("report budget zanzibar", FilterParams(idf=4.0), doc_freq=freq) == ["budget", "zanzibar"]
    with pytest.raises(ValueError, match="document frequencies"):
        kept("report", FilterParams(idf=4.0))


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 60), st.dictionaries(st.sampled_from(["alpha", "beta", "gamma", "delta"]), st.integers(0, 80)),
       st.floats(0.0, 5.0) | st.sampled_from([math.log(30), 50.0]), st.lists(st.sampled_from(
           ["alpha", "beta", "gamma", "delta", "omega"]), max_size=12))
def test_low_idf_filter_keeps_exactly_the_terms_its_idf_keeps(documents: int, counts: dict[str, int],
                                                              threshold: float, tokens: list[str]) -> None:
    """The filter asks a set of the dropped terms, found once per threshold:
    it keeps what idf() >= threshold keeps, terms never seen included."""
    freq = DocFrequencies(documents=documents, counts=counts)
    text = " ".join(tokens)
    want = [w for w in words(text) if freq.idf(w) >= threshold]
    assert kept(text, FilterParams(stopwords=False, idf=threshold), doc_freq=freq) == want, (documents, counts)


def test_blobs_are_not_terms_but_stay_in_the_stream() -> None:
    blob = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODk"
    assert kept(f"attached {blob} file", NO_FILTERS) == ["attached", "file"]
    assert blob.lower() in word_stream(f"attached {blob} file")


def test_words_sharing_their_first_bytes_stay_distinct() -> None:
    text = "internationalisation internationalization internationalisations internat"
    found = split_words(stream_array(text))
    assert len(set(found.keys.tolist())) == 4


def test_word_keys_are_those_stored_fingerprints_were_made_with() -> None:
    """Stored sketches are made of these keys: a change would part every new copy from the stored ones."""
    keys = split_words(stream_array("internationalisation " + "acgt" * 250 + " tide")).keys.tolist()
    assert keys == [0xDDA54FFA96BDA2CB, 0xE444A4B5446131E0, 0x65646974], [hex(k) for k in keys]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text("abcdefgh0123", min_size=1, max_size=90), min_size=1, max_size=60))
def test_a_words_key_does_not_depend_on_the_words_around_it(vocabulary: list[str]) -> None:
    """Many long words are keyed a chunk at a time together, the last few one by one: the same keys."""
    together = split_words(stream_array(" ".join(vocabulary))).keys.tolist()
    alone = [split_words(stream_array(word)).keys.tolist()[0] for word in vocabulary]
    assert together == alone


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=30), max_size=400))
def test_first_occurrence_groups_equal_keys(values: list[int]) -> None:
    keys = np.array(values, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    rep = first_occurrence(keys)
    for i, r in enumerate(rep.tolist()):
        assert keys[r] == keys[i], "a position points at a different key"
    groups = {int(k): int(r) for k, r in zip(keys, rep)}
    assert all(groups[int(k)] == r for k, r in zip(keys, rep)), "equal keys point at different positions"
