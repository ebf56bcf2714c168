"""A document's distinct terms as 64-bit values, with their counts.

SimHash and I-Match work on terms, not shingles.  Rather than a second
tokenizer, a term is the fingerprint stage's one-term shingle: the same
normalization and filters (numbers, stop words, stemming) as the default
detector, and the term's 64-bit Rabin fingerprint as its name.  Two equal
terms get equal values; two different ones collide with probability about
2^-64 (Broder, seeds/001), so the values stand in for the strings in hashes,
sorted lists and collection statistics.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np
import numpy.typing as npt

from lifededup.config import FingerprintParams
from lifededup.fingerprint import DEFAULT_PARAMS, shingle

__all__ = ["CollectionStatistics", "Counted", "TermCounts", "collection_statistics", "term_counts"]


@dataclass(frozen=True)
class TermCounts:
    """Distinct term values, ascending, and how often each occurs."""

    values: npt.NDArray[np.uint64]
    counts: npt.NDArray[np.int64]

    def __len__(self) -> int:
        return int(self.values.size)


def term_counts(text: str, params: FingerprintParams = DEFAULT_PARAMS) -> TermCounts:
    one_term = replace(params, shingle_words=1, features=1, threshold=1)
    values, counts = np.unique(shingle(text, one_term).values.ravel(), return_counts=True)
    return TermCounts(values=values, counts=counts.astype(np.int64))


@dataclass(frozen=True)
class CollectionStatistics:
    """In how many of ``documents`` each term value occurs (I-Match's IDF)."""

    documents: int
    frequencies: dict[int, int]

    def normalized_idf(self, values: npt.NDArray[np.uint64]) -> npt.NDArray[np.float64]:
        """``log(N / df) / log(N)`` per term: 1 for a term in one document, 0
        for a term in all; a term never seen counts as in one document."""
        if self.documents < 2:
            return np.ones(values.size)
        df = np.fromiter((self.frequencies.get(v, 1) for v in values.tolist()), dtype=np.float64, count=values.size)
        nidf: npt.NDArray[np.float64] = np.log(self.documents / np.maximum(df, 1.0)) / np.log(self.documents)
        return nidf


class Counted(Protocol):
    """A text that keeps its term counts (:class:`~lifededup.detect.prepared.PreparedText`)."""

    def term_counts(self, params: FingerprintParams = DEFAULT_PARAMS) -> TermCounts: ...


def collection_statistics(
    texts: Iterable[str | Counted], params: FingerprintParams = DEFAULT_PARAMS
) -> CollectionStatistics:
    """Term document frequencies of a collection, read in a first pass over
    it: the two-pass way of getting I-Match's statistics (seeds/002)."""
    frequencies: Counter[int] = Counter()
    documents = 0
    for text in texts:
        documents += 1
        found = term_counts(text, params) if isinstance(text, str) else text.term_counts(params)
        frequencies.update(found.values.tolist())
    return CollectionStatistics(documents=documents, frequencies=dict(frequencies))
