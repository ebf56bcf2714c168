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
from lifededup.normalize import DocFrequencies, Terms, split_words, stream_array, terms

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
    """A document cut into shingles: its word stream (UTF-8) and, per
    polynomial, the Rabin fingerprint of every shingle (shape
    ``(positions, features)``)."""

    stream: bytes
    words: int
    values: npt.NDArray[np.uint64]


def shingle_values(found: Terms, params: FingerprintParams) -> npt.NDArray[np.uint64]:
    """Rabin fingerprints of every shingle of ``found``: shape
    ``(positions, features)``, one column per polynomial."""
    w = params.shingle_words
    positions = len(found) - w + 1
    k = params.features
    if positions <= 0:
        return np.zeros((0, k), dtype=U64)
    polys = polynomials(params.seed, k)
    term_value = rabin_strings(found.buffer, found.starts, found.lengths, polys)
    # by_offset[m][t] = r(t) * x^(64 (m + 1)) mod P_k for every k: a term's
    # contribution when m terms follow it in the shingle.  Computed once per
    # distinct term, in rows of 6 values so that one lookup fetches all six.
    by_offset = apply_tables(term_value, times_x_tables(polys, 64, w))
    ids = found.ids
    values = np.take(by_offset[w - 1], ids[:positions], axis=0)
    for i in range(1, w):
        values ^= np.take(by_offset[w - 1 - i], ids[i : i + positions], axis=0)
    return values


def shingle(
    text: str, params: FingerprintParams = DEFAULT_PARAMS, doc_freq: DocFrequencies | None = None
) -> Shingled:
    stream = stream_array(text)
    cut = split_words(stream)
    found = terms(stream, params.filters, params.max_term_bytes, doc_freq, cut)
    return Shingled(stream=stream.tobytes(), words=len(cut), values=shingle_values(found, params))


# Keep values below this multiple of the expected m-th smallest as candidates
# for the m smallest: Rabin fingerprints are spread evenly over 64 bits, so the
# m-th smallest of n lies near m/n of the range, and 4x that is almost always
# enough (else we fall back to a full selection).
_CANDIDATE_MARGIN = 4


def _smallest_distinct(row: npt.NDArray[np.uint64], m: int) -> npt.NDArray[np.uint64]:
    """The ``m`` smallest distinct values of ``row`` (fewer if there are not ``m``)."""
    n = row.size
    if n > 8 * m:
        bound = np.uint64(min((1 << 64) - 1, (_CANDIDATE_MARGIN * m << 64) // n))
        head = np.unique(row[row < bound])
        if head.size >= m:
            return head[:m]
        head = np.unique(np.partition(row, 2 * m)[: 2 * m + 1])
        if head.size >= m:
            return head[:m]
    return np.unique(row)[:m]


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
        sha1=hashlib.sha1(cut.stream).hexdigest(),
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
