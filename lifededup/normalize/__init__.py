"""Text to one standard word stream, then through the paper's filters
(seeds/000, section 2.2 steps 2-3).

Two outputs, for two purposes:

* :func:`word_stream` -- NFKC, case-folded, every run of non-letters collapsed
  to one space.  Its SHA-1 identifies exact copies, so it is *not* filtered: two
  invoices that differ only in their numbers are not the same document.
* :func:`terms` -- the word stream through the number, stop-word, stemming and
  low-IDF filters; what gets shingled.

Filters act on the vocabulary (each distinct word once), never word by word,
so a long document costs one dictionary lookup per word and the filters cost
per distinct word.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt
import snowballstemmer

from lifededup.config import FilterParams
from lifededup.normalize.stopwords import stopwords_for

__all__ = ["DocFrequencies", "Terms", "terms", "word_stream", "words"]

# Scripts written without spaces between words: each ideograph or kana is a
# word of its own, so that Chinese and Japanese text shingles at all.
_UNSPACED = re.compile(r"([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff])")
# Anything that is not a letter or digit of some script separates words.
_SEPARATORS = re.compile(r"[\W_]+")


def word_stream(text: str) -> str:
    """The standard word stream: words of any script, separated by one space."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    if not folded.isascii():
        folded = _UNSPACED.sub(r" \1 ", folded)
    return _SEPARATORS.sub(" ", folded).strip()


def words(text: str) -> list[str]:
    stream = word_stream(text)
    return stream.split(" ") if stream else []


@dataclass(frozen=True)
class DocFrequencies:
    """Collection statistics for the low-IDF filter: in how many of
    ``documents`` each term occurs."""

    documents: int
    counts: Mapping[str, int]

    def idf(self, term: str) -> float:
        # A term never seen is as rare as can be: it survives any threshold.
        return math.log(max(self.documents, 1) / max(self.counts.get(term, 0), 1))


@dataclass(frozen=True)
class Terms:
    """A filtered word stream as ids into its own vocabulary."""

    vocab: list[str]
    ids: npt.NDArray[np.int32]

    def __len__(self) -> int:
        return int(self.ids.size)

    def as_words(self) -> list[str]:
        return [self.vocab[i] for i in self.ids.tolist()]


@lru_cache(maxsize=4)
def _stemmer(language: str) -> snowballstemmer.stemmer:
    return snowballstemmer.stemmer(language)


def _keep_mask(
    vocab: list[str], filters: FilterParams, max_chars: int, doc_freq: DocFrequencies | None
) -> npt.NDArray[np.bool_]:
    keep = np.fromiter((len(w) <= max_chars for w in vocab), dtype=bool, count=len(vocab))
    if filters.numbers:
        keep &= ~np.fromiter(map(str.isnumeric, vocab), dtype=bool, count=len(vocab))
    if filters.stopwords:
        stop = stopwords_for(filters.language)
        keep &= ~np.fromiter(map(stop.__contains__, vocab), dtype=bool, count=len(vocab))
    if filters.idf is not None:
        if doc_freq is None:
            raise ValueError("the low-IDF filter needs document frequencies (doc_freq)")
        threshold = filters.idf
        keep &= np.fromiter(
            (doc_freq.idf(w) >= threshold for w in vocab), dtype=bool, count=len(vocab)
        )
    return keep


def terms(
    stream_words: list[str],
    filters: FilterParams,
    max_chars: int,
    doc_freq: DocFrequencies | None = None,
) -> Terms:
    """Filter a word list (from :func:`words`) into shingling terms."""
    vocab = list(dict.fromkeys(stream_words))
    index = dict(zip(vocab, range(len(vocab))))
    ids = np.fromiter(map(index.__getitem__, stream_words), dtype=np.int32, count=len(stream_words))
    keep = _keep_mask(vocab, filters, max_chars, doc_freq)
    if filters.stem:
        stems = _stemmer(filters.language).stemWords(vocab)
        stem_vocab = list(dict.fromkeys(s for s, k in zip(stems, keep) if k))
        stem_index = dict(zip(stem_vocab, range(len(stem_vocab))))
        remap = np.array([stem_index.get(s, -1) if k else -1 for s, k in zip(stems, keep)], dtype=np.int32)
        vocab = stem_vocab
    else:
        remap = np.full(len(keep), -1, dtype=np.int32)
        remap[keep] = np.arange(int(keep.sum()), dtype=np.int32)
        vocab = [w for w, k in zip(vocab, keep) if k]
    mapped = remap[ids] if ids.size else ids
    return Terms(vocab=vocab, ids=mapped[mapped >= 0].astype(np.int32, copy=False))
