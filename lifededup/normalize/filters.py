"""The word stream through the paper's filters into shingling terms
(seeds/000 section 2.2 step 3): numbers, stop words, stemming and low IDF,
each run once per distinct term, never once per word; the terms come out as
ids into a vocabulary of distinct terms (:class:`Terms`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import numpy.typing as npt
import snowballstemmer  # type: ignore[import-untyped]

from lifededup.config import FilterParams
from lifededup.normalize.stopwords import stopwords_for
from lifededup.normalize.stream import LOW_BYTES, Words, first_occurrence, split_words

@dataclass(frozen=True)
class DocFrequencies:
    """Collection statistics for the low-IDF filter: in how many of
    ``documents`` each term occurs."""

    documents: int
    counts: Mapping[str, int]
    _below: dict[float, frozenset[str] | None] = field(default_factory=dict, init=False, repr=False, compare=False)

    def idf(self, term: str) -> float:
        # A term never seen is as rare as can be: it survives any threshold.
        return math.log(max(self.documents, 1) / max(self.counts.get(term, 0), 1))

    def below(self, threshold: float) -> frozenset[str] | None:
        """The terms whose IDF is below ``threshold``, the ones the filter
        drops -- None when that is every term, one never seen included
        (``threshold`` above ln N).  Found once per threshold, so that a batch
        asks a set, not ``idf``, about each of its terms."""
        if threshold not in self._below:
            unseen = math.log(max(self.documents, 1))  # the highest IDF there is
            self._below[threshold] = (None if unseen < threshold
                                      else frozenset(t for t in self.counts if self.idf(t) < threshold))
        return self._below[threshold]


@dataclass(frozen=True)
class Terms:
    """A filtered word stream: ``ids`` index a vocabulary of distinct terms,
    each given by its UTF-8 bytes in ``buffer``; ``positions`` says which word
    of the stream each term was.  Every vocabulary entry occurs in ``ids``."""

    buffer: npt.NDArray[np.uint8]
    starts: npt.NDArray[np.intp]
    lengths: npt.NDArray[np.intp]
    ids: npt.NDArray[np.intp]
    positions: npt.NDArray[np.intp]
    # which words of the stream were numbers filtered out (ASCII digits alone), where asked
    # (``terms(numbers_of=True)``)
    numbers: npt.NDArray[np.intp] | None = None

    def __len__(self) -> int:
        return int(self.ids.size)

    @property
    def vocab(self) -> list[str]:
        return _decode(self.buffer, self.starts, self.lengths)

    def as_words(self) -> list[str]:
        vocab = self.vocab
        return [vocab[i] for i in self.ids.tolist()]


@lru_cache(maxsize=8)
def _keys_of(vocab: frozenset[str]) -> npt.NDArray[np.uint64]:
    stream = np.frombuffer(" ".join(sorted(vocab)).encode("utf-8"), dtype=np.uint8)
    return np.unique(split_words(stream).keys)


@lru_cache(maxsize=4)
def _stemmer(language: str) -> snowballstemmer.stemmer:
    return snowballstemmer.stemmer(language)


_DIGIT = np.zeros(256, dtype=bool)
_DIGIT[ord("0") : ord("9") + 1] = True
_ZEROS = np.uint64(0x3030303030303030)
_HIGH_NIBBLES = np.uint64(0xF0F0F0F0F0F0F0F0)
_LOW_NIBBLES = np.uint64(0x0F0F0F0F0F0F0F0F)
_SIXES = np.uint64(0x0606060606060606)


def _is_number(found: Words, vocab: npt.NDArray[np.intp]) -> npt.NDArray[np.bool_]:
    """Terms made only of ASCII digits (NFKC has already folded full-width and
    other compatibility digits to ASCII).  A word of up to 8 bytes is its own
    key, so its bytes are read from the key; longer ones from the stream."""
    lengths = found.lengths[vocab]
    # All eight bytes of the key at once (byte i is character i): xor with
    # "0" leaves a digit as 0-9, which has a zero high nibble and a low
    # nibble that 6 does not carry out of; bytes past the word do not count.
    shifted = found.keys[vocab] ^ _ZEROS
    not_digit = shifted & _HIGH_NIBBLES
    shifted &= _LOW_NIBBLES
    shifted += _SIXES
    shifted &= _HIGH_NIBBLES
    not_digit |= shifted
    not_digit &= LOW_BYTES[np.minimum(lengths, 8)]
    number: npt.NDArray[np.bool_] = not_digit == 0
    long_terms = np.flatnonzero(lengths > 8)
    if long_terms.size:
        spans = lengths[long_terms]
        first = np.cumsum(spans) - spans
        offsets = np.repeat(found.starts[vocab[long_terms]] - first, spans) + np.arange(int(spans.sum()))
        number[long_terms] = np.logical_and.reduceat(_DIGIT[found.stream[offsets]], first)
    return number


def number_words(found: Words) -> npt.NDArray[np.intp]:
    """The positions of the words that are numbers (ASCII digits alone),
    asked once per distinct word."""
    rep = first_occurrence(found.keys)
    vocab = np.flatnonzero(rep == np.arange(rep.size))
    flags = np.zeros(rep.size, dtype=bool)
    flags[vocab[_is_number(found, vocab)]] = True
    return np.flatnonzero(flags[rep])


_NUMBER = -2  # a word filtered out as a number, in ``terms``


def _keep_mask(
    found: Words,
    vocab: npt.NDArray[np.intp],
    filters: FilterParams,
    max_bytes: int,
    doc_freq: DocFrequencies | None,
    number: npt.NDArray[np.bool_] | None = None,
) -> npt.NDArray[np.bool_]:
    """Which distinct terms are kept; ``number``: which are numbers, where
    the caller has asked already."""
    lengths = found.lengths[vocab]
    keep = lengths <= max_bytes
    if filters.numbers:
        keep &= ~(_is_number(found, vocab) if number is None else number)
    if filters.stopwords:
        stop = _keys_of(stopwords_for(filters.language))  # sorted
        keys = found.keys[vocab]
        keep &= stop[np.minimum(np.searchsorted(stop, keys), stop.size - 1)] != keys
    if filters.idf is not None:
        if doc_freq is None:
            raise ValueError("the low-IDF filter needs document frequencies (doc_freq)")
        dropped = doc_freq.below(filters.idf)
        if dropped is None:
            keep[:] = False
        else:
            texts = _decode(found.stream, found.starts[vocab], lengths)
            keep &= np.fromiter((w not in dropped for w in texts), dtype=bool, count=len(texts))
    return keep


def _decode(
    buffer: npt.NDArray[np.uint8], starts: npt.NDArray[np.intp], lengths: npt.NDArray[np.intp]
) -> list[str]:
    """The strings at ``buffer[start:start+length]`` (one per distinct term:
    only the filters that need Python strings -- stemming, IDF -- call it)."""
    raw = buffer.tobytes()
    return [raw[s : s + n].decode("utf-8") for s, n in zip(starts.tolist(), lengths.tolist())]


def _stemmed(found: Words, vocab: npt.NDArray[np.intp], language: str) -> tuple[Terms, npt.NDArray[np.intp]]:
    """Stems of the vocabulary as a new vocabulary, and the map old id -> new id."""
    stems = _stemmer(language).stemWords(_decode(found.stream, found.starts[vocab], found.lengths[vocab]))
    distinct = list(dict.fromkeys(stems))
    index = dict(zip(distinct, range(len(distinct))))
    remap = np.fromiter(map(index.__getitem__, stems), dtype=np.intp, count=len(stems))
    encoded = [s.encode("utf-8") for s in distinct]
    lengths = np.fromiter(map(len, encoded), dtype=np.intp, count=len(encoded))
    starts = np.cumsum(lengths) - lengths
    buffer = np.frombuffer(b"".join(encoded), dtype=np.uint8)
    empty = np.zeros(0, dtype=np.intp)
    return Terms(buffer, starts, lengths, empty, empty), remap


def terms(
    stream: npt.NDArray[np.uint8],
    filters: FilterParams,
    max_bytes: int,
    doc_freq: DocFrequencies | None = None,
    found: Words | None = None,
    numbers_of: bool = False,
) -> Terms:
    """Filter a word stream (from :func:`stream_array`) into shingling terms;
    ``numbers_of``: say which words were numbers, too (``Terms.numbers``)."""
    found = found if found is not None else split_words(stream)
    rep = first_occurrence(found.keys)
    vocab = np.flatnonzero(rep == np.arange(rep.size))  # one position per distinct word
    number = _is_number(found, vocab) if numbers_of else None
    keep = _keep_mask(found, vocab, filters, max_bytes, doc_freq, number)
    kept = vocab[keep]
    # old vocabulary position -> new term id, or -1 when filtered out (-2: a number, where asked)
    new_id = np.full(rep.size, -1, dtype=np.intp)
    if number is not None:
        new_id[vocab[number & ~keep]] = _NUMBER
    if filters.stem:
        stemmed, remap = _stemmed(found, kept, filters.language)
        new_id[kept] = remap
        buffer, starts, lengths = stemmed.buffer, stemmed.starts, stemmed.lengths
    else:
        new_id[kept] = np.arange(kept.size, dtype=np.intp)
        buffer, starts, lengths = stream, found.starts[kept], found.lengths[kept]
    ids = new_id[rep]
    positions = np.flatnonzero(ids >= 0)
    return Terms(buffer, starts, lengths, ids[positions], positions,
                 np.flatnonzero(ids == _NUMBER) if numbers_of else None)
