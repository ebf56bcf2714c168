"""I-Match (Chowdhury et al.; seeds/002) and its lexicon-randomized variant
(Kolcz et al.; seeds/002).

I-Match keeps only the terms whose collection statistics say they carry
meaning -- here, terms not too common by inverse document frequency -- sorts
the unique survivors and hashes them with SHA-1 into one signature.  Equal
signatures are near-duplicates.  It is fast, does not ignore short documents,
and is brittle: one added term that survives the filter changes the digest,
which is why the paper did not use it (seeds/000 section 2.2: "the addition of
just one high IDF word would mean rejection").

The randomized variant also hashes the survivors within ``K`` random
sub-lexicons; any agreeing digest counts, so an added word is forgiven by every
lexicon that happens to leave it out.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Iterable
from typing import Any

import numpy as np

from lifededup.config import FilterParams
from lifededup.detect.base import Detector, IndexKey, signed64
from lifededup.detect.permutation import U64, mix64, permutation_keys, string_hashes
from lifededup.normalize import DocFrequencies, terms

__all__ = [
    "DEFAULT_LEXICONS",
    "DEFAULT_LEXICON_KEEP",
    "DEFAULT_MIN_NIDF",
    "IMatch",
    "RandomizedIMatch",
    "collection_statistics",
]

# Our choice, not a seed's: keep terms whose normalized IDF, log(N/df) / log(N),
# is at least 0.2 -- i.e. drop terms found in more than N^0.8 of N documents
# (more than 251 of 1000).  A fixed IDF cut such as the paper's 4.0 (seeds/000
# Table 2) would drop every term of a collection of fewer than e^4 = 55
# documents; the normalized cut means the same on a small archive as a large one.
DEFAULT_MIN_NIDF = 0.2
# "when using 10 random lexicons" recall improved by 40-60% (Kolcz, seeds/002).
DEFAULT_LEXICONS = 10
# Our choice: each extra lexicon keeps a term with probability 2/3, so one added
# word is left out of at least one of 10 lexicons with probability
# 1 - (2/3)^10 = 98%, while each lexicon keeps enough terms to stay selective.
DEFAULT_LEXICON_KEEP = 2 / 3

_DIGEST = 20
# Marks a lexicon in which nothing of the document survived: matches nothing.
_EMPTY = bytes(_DIGEST)


def collection_statistics(streams: Iterable[str]) -> DocFrequencies:
    """In how many word streams each word occurs: the two-pass way of getting
    I-Match's statistics from the collection itself (seeds/002)."""
    counts: Counter[str] = Counter()
    documents = 0
    for stream in streams:
        documents += 1
        counts.update(set(stream.split()))
    return DocFrequencies(documents=documents, counts=counts)


class IMatch(Detector[tuple[bytes, ...]]):
    """I-Match with ``lexicons`` extra random lexicons (0: the original)."""

    name = "imatch"

    def __init__(
        self,
        doc_freq: DocFrequencies | None = None,
        lexicons: int = 0,
        min_nidf: float = DEFAULT_MIN_NIDF,
        keep: float = DEFAULT_LEXICON_KEEP,
        filters: FilterParams = FilterParams(),
        max_term_chars: int = 64,
        seed: int = 1,
    ) -> None:
        if lexicons < 0:
            raise ValueError(f"the number of random lexicons must be >= 0, got {lexicons}")
        if not 0.0 < keep <= 1.0:
            raise ValueError(f"a lexicon keeps a fraction in (0, 1] of the terms, not {keep}")
        self.doc_freq = doc_freq
        self.lexicons = lexicons
        self.min_nidf = min_nidf
        self.keep = keep
        self.filters = filters
        self.max_term_chars = max_term_chars
        self.seed = seed

    @property
    def spec(self) -> str:
        return f"{self.name}:{self.lexicons}" if self.lexicons else self.name

    def significant(self, stream: str) -> list[str]:
        """The sorted unique terms that survive the filters and the IDF cut."""
        found = terms(stream.split(" ") if stream else [], self.filters, self.max_term_chars)
        vocab = sorted(found.vocab)
        stats = self.doc_freq
        if stats is None or stats.documents < 2:
            return vocab
        scale = math.log(stats.documents)
        return [t for t in vocab if stats.idf(t) / scale >= self.min_nidf]

    def sketch(self, stream: str) -> tuple[bytes, ...] | None:
        vocab = self.significant(stream)
        if not vocab:
            return None
        member = np.ones((1 + self.lexicons, len(vocab)), dtype=bool)
        if self.lexicons:
            keys = permutation_keys(self.seed, self.lexicons, "imatch lexicon")
            draws = mix64(string_hashes(vocab)[None, :] ^ keys[:, None])
            member[1:] = draws < U64(int(self.keep * 2.0**64 - 1))
        return tuple(self._digest(vocab, row) for row in member)

    @staticmethod
    def _digest(vocab: list[str], member: np.ndarray) -> bytes:
        chosen = [t for t, m in zip(vocab, member.tolist()) if m]
        if not chosen:
            return _EMPTY
        # "add each unique token to the SHA1 digest" in Unicode order (seeds/002);
        # a separator keeps ["ab", "c"] and ["a", "bc"] apart.
        return hashlib.sha1("\n".join(chosen).encode("utf-8")).digest()

    def body_keys(self, body: tuple[bytes, ...]) -> list[IndexKey]:
        return [(i, signed64(d)) for i, d in enumerate(body) if d != _EMPTY]

    def similar(self, a: tuple[bytes, ...], b: tuple[bytes, ...]) -> bool:
        if len(a) != len(b):
            raise ValueError(f"I-Match signatures of {len(a)} and {len(b)} lexicons")
        return any(x == y and x != _EMPTY for x, y in zip(a, b))

    def encode(self, body: tuple[bytes, ...]) -> bytes:
        return b"".join(body)

    def decode(self, raw: bytes) -> tuple[bytes, ...]:
        return tuple(raw[i : i + _DIGEST] for i in range(0, len(raw), _DIGEST))


class RandomizedIMatch(IMatch):
    """I-Match over the full lexicon plus ``lexicons`` random sub-lexicons
    (Kolcz et al., seeds/002): K + 1 digests, any match counts."""

    name = "imatch-lex"

    def __init__(self, doc_freq: DocFrequencies | None = None, lexicons: int = DEFAULT_LEXICONS, **options: Any) -> None:
        if lexicons < 1:
            raise ValueError(f"lexicon-randomized I-Match needs at least one lexicon, got {lexicons}")
        super().__init__(doc_freq, lexicons=lexicons, **options)
