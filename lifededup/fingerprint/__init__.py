"""Text in, SHA-1 and super-shingle features out (seeds/000 section 2.2 steps
4-7, after Broder, seeds/001).

For each document:

1. the SHA-1 of the standard word stream identifies exact copies;
2. the filtered terms are cut into shingles of ``w`` consecutive terms;
3. each shingle gets a 64-bit Rabin fingerprint under each of six irreducible
   polynomials (the paper's "six different Rabin fingerprinting parameters");
4. under each polynomial the 14 smallest distinct values are kept (a min-wise
   sample) and hashed with SHA-1 into one 64-bit *feature*.

Two documents are near-duplicates when they share at least ``threshold`` (2)
of the 6 features.  With resemblance ``rho`` a feature matches with
probability about ``rho^14``, so the acceptance probability is
``sum_{i>=2} C(6,i) p^i (1-p)^(6-i)``, ``p = rho^14`` (Broder's slides).

A shingle's fingerprint is the Rabin fingerprint of the string
``r(t_1) . r(t_2) ... r(t_w) . 0^64``: the 8-byte Rabin fingerprints of its
terms, then 64 zero bits so that every term, the last included, goes through
the reduction mod ``P``.  Because multiplying by ``x^64`` is linear, each
term's contribution at each position is computed once per *distinct* term and
each shingle costs ``w`` table lookups and xors -- no per-word Python loop.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from lifededup.config import FingerprintParams
from lifededup.fingerprint.rabin import (
    U64,
    apply_tables,
    polynomials,
    rabin_strings,
    times_x_tables,
)
from lifededup.model import Fingerprint, shared_features
from lifededup.normalize import DocFrequencies, Terms, terms, word_stream

__all__ = [
    "Fingerprint",
    "Shingled",
    "fingerprint",
    "is_near_duplicate",
    "shared_features",
    "shingle",
]

DEFAULT_PARAMS = FingerprintParams()


@dataclass(frozen=True)
class Shingled:
    """A document cut into shingles: its word stream and, per polynomial, the
    Rabin fingerprint of every shingle (shape ``(positions, features)``)."""

    stream: str
    words: int
    values: npt.NDArray[np.uint64]


def shingle_values(found: Terms, params: FingerprintParams) -> npt.NDArray[np.uint64]:
    """Rabin fingerprints of every shingle of ``found``, one column per polynomial."""
    w = params.shingle_words
    positions = len(found) - w + 1
    k = params.features
    if positions <= 0:
        return np.zeros((0, k), dtype=U64)
    polys = polynomials(params.seed, k)
    shift = times_x_tables(polys, 64)
    # every vocabulary entry of a Terms occurs in it (see normalize.terms)
    term_value = rabin_strings([t.encode("utf-8") for t in found.vocab], polys, shift)
    compact = found.ids
    # by_offset[m] = r(t) * x^(64 (m + 1)) mod P: a term's contribution when
    # m terms follow it in the shingle.
    by_offset = [apply_tables(term_value, shift)]
    for _ in range(w - 1):
        by_offset.append(apply_tables(by_offset[-1], shift))
    values = by_offset[w - 1][compact[:positions]]
    for i in range(1, w):
        values ^= by_offset[w - 1 - i][compact[i : i + positions]]
    return values


def shingle(
    text: str, params: FingerprintParams = DEFAULT_PARAMS, doc_freq: DocFrequencies | None = None
) -> Shingled:
    stream = word_stream(text)
    stream_words = stream.split(" ") if stream else []
    found = terms(stream_words, params.filters, params.max_term_chars, doc_freq)
    return Shingled(stream=stream, words=len(stream_words), values=shingle_values(found, params))


def _smallest_distinct(column: npt.NDArray[np.uint64], m: int) -> npt.NDArray[np.uint64]:
    """The ``m`` smallest distinct values (fewer if there are not ``m``)."""
    if column.size > 2 * m:
        head = np.unique(np.partition(column, 2 * m)[: 2 * m + 1])
        if head.size >= m:
            return head[:m]
    return np.unique(column)[:m]


def features_of(values: npt.NDArray[np.uint64], params: FingerprintParams) -> tuple[int, ...] | None:
    """Six features from the shingle fingerprints, or ``None`` for a text with
    fewer than ``minima`` distinct shingles.

    Short texts are exact-only, by design: with fewer than 14 distinct
    shingles every sample would be the whole shingle set, so a feature could
    only match a text with the very same shingles -- the SHA-1 already finds
    those, and DSC-SS is known to misfire on such texts (seeds/002).
    """
    features = []
    for column in values.T:
        minima = _smallest_distinct(column, params.minima)
        if minima.size < params.minima:
            return None
        digest = hashlib.sha1(minima.astype(">u8").tobytes()).digest()
        features.append(int.from_bytes(digest[:8], "big", signed=True))
    return tuple(features)


def fingerprint(
    text: str, params: FingerprintParams = DEFAULT_PARAMS, doc_freq: DocFrequencies | None = None
) -> Fingerprint:
    """The SHA-1 and features of one text."""
    cut = shingle(text, params, doc_freq)
    return Fingerprint(
        sha1=hashlib.sha1(cut.stream.encode("utf-8")).hexdigest(),
        features=features_of(cut.values, params),
        words=cut.words,
        shingles=int(cut.values.shape[0]),
        params=params,
    )


def is_near_duplicate(a: Fingerprint, b: Fingerprint) -> bool:
    """Exact copies, or at least ``threshold`` shared features."""
    if a.params.key() != b.params.key():
        raise ValueError("fingerprints made under different params cannot be compared")
    if a.sha1 == b.sha1:
        return True
    return shared_features(a.features, b.features) >= a.params.threshold
