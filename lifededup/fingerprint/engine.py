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
each shingle costs ``w`` table lookups and xors.

Documents are fingerprinted in batches (:func:`fingerprint_many`): the words
of a whole batch go through one vectorised pass, so that a mailbox of small
messages costs no more numpy calls than one long report.  There is no
per-word Python loop anywhere.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from lifededup.config import FilterParams, FingerprintParams
from lifededup.fingerprint.rabin import U64, apply_tables, polynomials, rabin_strings, times_x_tables
from lifededup.model import Fingerprint, shared_features
from lifededup.normalize import (
    DocFrequencies, Terms, Words, number_words, split_words, stream_array, stream_bytes, terms,
)


DEFAULT_PARAMS = FingerprintParams()

# Text per vectorised pass: large enough to amortise numpy's per-call cost
# over many small documents, small enough to stay in cache and bound memory.
# 512 kB also keeps the pass's temporary arrays small enough for the
# allocator to reuse them: with 2 MB, each batch page-faulted ~40 MB of fresh
# memory (benchmarks/bench_fingerprint.py: 42 -> 48-51 MB/s).
_BATCH_BYTES = 1 << 19
# Shingles whose values are summed at a time in _run_values (8192 x 6 x 8
# bytes: 384 kB, in cache).
_SLICE_ROWS = 1 << 13
# Documents per batch: their numbers must fit 16 bits (see _batch_minima).
_BATCH_DOCS = 1 << 14


@dataclass(frozen=True)
class Shingled:
    """A document cut into shingles: its word stream (UTF-8) and, per
    polynomial, the Rabin fingerprint of every shingle (shape
    ``(positions, features)``)."""

    stream: bytes
    words: int
    values: npt.NDArray[np.uint64]


@dataclass(frozen=True)
class _Batch:
    """Several documents cut into shingles at once.  ``values`` has a row for
    every run of ``w`` consecutive terms of the batch; document ``d`` owns rows
    ``first[d] : first[d] + counts[d]`` (the rows between straddle two
    documents and belong to none)."""

    streams: list[bytes]
    words: npt.NDArray[np.intp]
    values: npt.NDArray[np.uint64]
    first: npt.NDArray[np.intp]
    counts: npt.NDArray[np.intp]
    # the documents whose words are mostly numbers (``_numbers_carry``), where the numbers were filtered
    numeric: npt.NDArray[np.bool_] | None = None

    def shingles(self, doc: int) -> npt.NDArray[np.uint64]:
        return self.values[self.first[doc] : self.first[doc] + self.counts[doc]]


def _run_values(found: Terms, params: FingerprintParams) -> npt.NDArray[np.uint64]:
    """Rabin fingerprints of every run of ``w`` consecutive terms, shape
    ``(runs, features)``."""
    w, k = params.shingle_words, params.features
    runs = max(len(found) - w + 1, 0)
    if runs == 0:
        return np.zeros((0, k), dtype=U64)
    polys = polynomials(params.seed, k)
    term_value = rabin_strings(found.buffer, found.starts, found.lengths, polys)
    # by_offset[m, t] = r(t) * x^(64 (m + 1)) mod P_k for every k, as one
    # 8k-byte item: a term's contributions when m terms follow it in the
    # shingle.  Computed once per distinct term.
    by_offset = apply_tables(term_value, times_x_tables(polys, 64, w)).view(f"V{8 * k}")[:, :, 0]
    # One gather of all k values per term and offset (numpy copies a whole
    # item at a time), then xors of the gathered rows shifted by one term.
    ids = found.ids
    values = by_offset[w - 1].take(ids[:runs])
    out: npt.NDArray[np.uint64] = values.view(U64).reshape(runs, k)
    # the other offsets' contributions a slice at a time, through one small
    # buffer: a second batch-sized array would be page-faulted in per batch
    contribution = np.empty(min(runs, _SLICE_ROWS), dtype=values.dtype)
    for start in range(0, runs, _SLICE_ROWS):
        stop = min(start + _SLICE_ROWS, runs)
        here, gathered = out[start:stop], contribution[: stop - start]
        for i in range(1, w):
            by_offset[w - 1 - i].take(ids[start + i : stop + i], out=gathered)
            here ^= gathered.view(U64).reshape(stop - start, k)
    return out


def shingle_values(
    found: Terms, params: FingerprintParams, starts: npt.NDArray[np.intp] | None = None
) -> npt.NDArray[np.uint64]:
    """Rabin fingerprints of the shingles of ``found`` that begin at term
    ``starts`` (default: every shingle); one column per polynomial."""
    values = _run_values(found, params)
    return values if starts is None else values[starts]


def _words_of(texts: Sequence[str]) -> tuple[list[bytes], npt.NDArray[np.uint8], Words, npt.NDArray[np.intp]]:
    """The texts' word streams, one buffer of them all, its words, and
    where each document's words begin (and the last ends)."""
    streams = [stream_array(text).tobytes() for text in texts]
    sizes = np.fromiter(map(len, streams), dtype=np.intp, count=len(streams))
    # One buffer, documents separated by one space; empty ones add nothing.
    present = np.flatnonzero(sizes)
    buffer = np.frombuffer(b" ".join(streams[d] for d in present.tolist()), dtype=np.uint8)
    cut = split_words(buffer)
    # Where each document's words begin: a document's words, and so its
    # terms, are consecutive.
    begins = np.cumsum(sizes + 1) - (sizes + 1) - np.cumsum(sizes == 0)
    return streams, buffer, cut, np.searchsorted(cut.starts, np.append(begins, buffer.size + 1))


def _shingle_batch(
    texts: Sequence[str], params: FingerprintParams, doc_freq: DocFrequencies | None,
    filters: FilterParams | None = None,
) -> _Batch:
    """``filters``: other than ``params.filters`` (:func:`_numbers_kept`)."""
    streams, buffer, cut, word_bounds = _words_of(texts)
    filters = filters or params.filters
    found = terms(buffer, filters, params.max_term_bytes, doc_freq, cut, numbers_of=filters.numbers)
    term_counts = np.diff(np.searchsorted(found.positions, word_bounds))
    words = np.diff(word_bounds)
    # A document's shingles are the runs that start among its first
    # (terms - w + 1) terms.
    return _Batch(
        streams=streams,
        words=words,
        values=_run_values(found, params),
        first=np.cumsum(term_counts) - term_counts,
        counts=np.maximum(term_counts - params.shingle_words + 1, 0),
        numeric=None if found.numbers is None else _numbers_carry(found.numbers, word_bounds, words),
    )


# A text whose words are at least this share numbers is a table, a
# statement, a log or a list of versions: its numbers are what it says.
# Real texts sit far from it on both sides: of 50,000 of the real-text
# million, 0.06% are half numbers or more, 0.1% between 40% and 50%; a
# sheet of readings is 65-75% numbers, a log 60-70%, prose under 20%.
NUMBERS_SHARE = 0.5


def mostly_numbers(texts: Sequence[str]) -> list[bool]:
    """Which texts are mostly numbers (``NUMBERS_SHARE``): those sampled
    with their numbers, whatever their count of shingles (revision 0030
    finds the stored ones by it)."""
    out: list[bool] = []
    for chunk in _batches(texts):
        _, _, cut, word_bounds = _words_of(chunk)
        out += _numbers_carry(number_words(cut), word_bounds, np.diff(word_bounds)).tolist()
    return out


def _numbers_carry(numbers: npt.NDArray[np.intp], word_bounds: npt.NDArray[np.intp],
                   words: npt.NDArray[np.intp]) -> npt.NDArray[np.bool_]:
    """Which documents are mostly numbers (``NUMBERS_SHARE``), from the
    positions of the batch's number words and each document's bounds."""
    held = np.diff(np.searchsorted(numbers, word_bounds))
    carry: npt.NDArray[np.bool_] = (words > 0) & (held >= NUMBERS_SHARE * words)
    return carry


# Keep values below this multiple of the expected m-th smallest as candidates
# for the m smallest: Rabin fingerprints are spread evenly over 64 bits, so the
# m-th smallest of n lies near m/n of the range, and 4x that is almost always
# enough (a document where it is not is done again exactly).
_CANDIDATE_MARGIN = 4
_ALL = np.uint64((1 << 64) - 1)


def _bounds(counts: npt.NDArray[np.intp], m: int) -> npt.NDArray[np.uint64]:
    return np.array(
        [(_CANDIDATE_MARGIN * m << 64) // n if n > 8 * m else (1 << 64) - 1 for n in counts.tolist()],
        dtype=U64,
    )


def _batch_minima(batch: _Batch, m: int) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.bool_]]:
    """The ``m`` smallest distinct values of each document under each
    polynomial, shape ``(docs, features, m)``, and which documents have them."""
    docs, k = len(batch.streams), batch.values.shape[1]
    limit = _bounds(batch.counts, m)
    # Each row's cut-off: its document's, and 0 for rows that straddle two
    # documents (a value of 0 there is dropped below, by its row).
    owners = np.flatnonzero(batch.counts)
    begin = batch.first[owners]
    end = begin + batch.counts[owners]
    spans = np.empty(2 * owners.size + 1, dtype=np.intp)
    spans[0::2] = np.diff(end, prepend=0, append=batch.values.shape[0]) - np.append(batch.counts[owners], 0)
    spans[1::2] = batch.counts[owners]
    cut_offs = np.zeros(spans.size, dtype=U64)
    cut_offs[1::2] = limit[owners]
    # every candidate at once: its row, column (polynomial) and document
    flat = np.flatnonzero(batch.values <= np.repeat(cut_offs, spans)[:, None])
    rows, poly = np.divmod(flat, k)
    owner = np.searchsorted(begin, rows, side="right") - 1
    mine = rows < np.append(end, 0)[owner]  # owner -1: a row before every document
    doc, poly, value = owners[owner[mine]], poly[mine], batch.values.ravel()[flat[mine]]
    # by polynomial, document, then value: sort values, then stable radix
    # sorts by document (batches hold fewer than 2^16) and by polynomial
    order = np.argsort(value)
    order = order[np.argsort(doc[order].astype(np.uint16), kind="stable")]
    order = order[np.argsort(poly[order].astype(np.uint16), kind="stable")]
    group, value = poly[order] * docs + doc[order], value[order]
    distinct = np.ones(group.size, dtype=bool)
    distinct[1:] = (group[1:] != group[:-1]) | (value[1:] != value[:-1])
    group, value = group[distinct], value[distinct]
    rank = np.arange(group.size) - np.searchsorted(group, group)
    take = rank < m
    group = group[take]
    minima = np.zeros((k, docs, m), dtype=U64)
    minima.reshape(k * docs, m)[group, rank[take]] = value[take]
    minima = minima.transpose(1, 0, 2)
    found = np.bincount(group, minlength=k * docs).reshape(k, docs).T
    complete = (found == m).all(axis=1)
    # Where the cut-off was too tight (a text that repeats itself has fewer
    # distinct shingles than positions), widen it until it is not.
    for tight in np.flatnonzero(~complete & (limit != _ALL)).tolist():
        for col in range(k):
            column, cut = batch.shingles(tight)[:, col], int(limit[tight])
            while True:
                cut = min(cut * 16, (1 << 64) - 1)
                exact = np.unique(column[column <= np.uint64(cut)])[:m]
                if exact.size == m or cut == (1 << 64) - 1:
                    break
            minima[tight, col, : exact.size] = exact
            found[tight, col] = exact.size
        complete[tight] = (found[tight] == m).all()
    return minima, complete


def _features(minima: npt.NDArray[np.uint64]) -> tuple[int, ...]:
    raw = minima.astype(">u8")
    return tuple(
        int.from_bytes(hashlib.sha1(row.tobytes()).digest()[:8], "big", signed=True) for row in raw
    )


def _batches(texts: Sequence[str]) -> Iterator[Sequence[str]]:
    start, size = 0, 0
    for i, text in enumerate(texts):
        size += len(text)
        if size >= _BATCH_BYTES or i + 1 - start >= _BATCH_DOCS:
            yield texts[start : i + 1]
            start, size = i + 1, 0
    if start < len(texts):
        yield texts[start:]


def fingerprint_many(
    texts: Sequence[str], params: FingerprintParams = DEFAULT_PARAMS, doc_freq: DocFrequencies | None = None
) -> list[Fingerprint]:
    """The SHA-1 and features of each text, computed a batch at a time.

    A text with fewer than ``minima`` distinct shingles, with its numbers
    too (:func:`_numbers_kept`), gets ``features=None`` and is matched by
    SHA-1 only, by design: every sample would then be its
    whole shingle set, so a feature could only match a text with the very same
    shingles -- the SHA-1 already finds those, and DSC-SS is known to misfire
    on such texts (seeds/002).
    """
    out: list[Fingerprint] = []
    for chunk in _batches(texts):
        batch = _shingle_batch(chunk, params, doc_freq)
        minima, complete = _batch_minima(batch, params.minima)
        # the sketch is always of the words alone: a text sampled with its numbers only because its words
        # are too few keeps none (_numbers_kept); one mostly numbers keeps the one its words make
        sketches = {doc: minima[doc].astype(">u8").tobytes() for doc in np.flatnonzero(complete).tolist()}
        counts = batch.counts.copy()
        kept = _numbers_kept(params)
        again_with_numbers = ~complete if batch.numeric is None else ~complete | batch.numeric
        short = np.flatnonzero(again_with_numbers).tolist()
        if short and kept is not None:
            again = _shingle_batch([chunk[d] for d in short], params, doc_freq, kept)
            more, done = _batch_minima(again, params.minima)
            for i, doc in enumerate(short):
                if done[i]:
                    minima[doc], complete[doc], counts[doc] = more[i], True, again.counts[i]
        for doc, stream in enumerate(batch.streams):
            out.append(
                Fingerprint(
                    sha1=hashlib.sha1(stream).hexdigest(),
                    features=_features(minima[doc]) if complete[doc] else None,
                    words=int(batch.words[doc]),
                    shingles=int(counts[doc]),
                    params=params,
                    sketch=sketches.get(doc),
                )
            )
    return out


def fingerprint(
    text: str, params: FingerprintParams = DEFAULT_PARAMS, doc_freq: DocFrequencies | None = None
) -> Fingerprint:
    """The SHA-1 and features of one text."""
    return fingerprint_many([text], params, doc_freq)[0]


def text_sha1(text: str) -> str:
    """The SHA-1 :func:`fingerprint` gives a text (of its word stream),
    without its features: a twentieth of the cost (9 us a text of 650
    characters, against 190).  The features are made from the same stream,
    so a text whose SHA-1 is unchanged has its features unchanged too."""
    return hashlib.sha1(stream_bytes(text)).hexdigest()


def shingle(
    text: str, params: FingerprintParams = DEFAULT_PARAMS, doc_freq: DocFrequencies | None = None
) -> Shingled:
    """One text cut into shingles, for comparing it in detail: those its
    features are made of (with its numbers, where :func:`fingerprint_many`
    keeps them)."""
    batch = _shingle_batch([text], params, doc_freq)
    kept = _numbers_kept(params)
    numeric = batch.numeric is not None and bool(batch.numeric[0])
    if kept is not None and (numeric or not _batch_minima(batch, params.minima)[1][0]):
        again = _shingle_batch([text], params, doc_freq, kept)
        if _batch_minima(again, params.minima)[1][0]:
            batch = again
    return Shingled(stream=batch.streams[0], words=int(batch.words[0]), values=batch.values)


def _numbers_kept(params: FingerprintParams) -> FilterParams | None:
    """The filters a text too short to sample, or mostly numbers
    (``NUMBERS_SHARE``), is shingled again under: its numbers kept (None:
    they are kept already).  A table of readings, a statement or a log is
    mostly numbers; filtered, its few words repeat (``site a site a``) into
    fewer than ``minima`` distinct shingles, and it was matched by SHA-1
    only -- a spreadsheet re-saved with one reading corrected was a document
    apart.  Deciding by that count alone put a sheet's drafts on two sides
    of it: a paragraph of notes added to a sheet of readings, or seven
    releases added to pytest's list of its announcements (4.3% of words
    apart), brought the filtered words past ``minima`` -- sampled without
    the numbers, in shingles the other draft never has (resemblance 0.002),
    and a cluster apart.  A text mostly numbers is sampled with them
    whatever its count: a few words more do not move its share.  Any other
    text's features are what they were.

    The sketch is always of the words alone.  A text sampled with its
    numbers because its words are too few keeps none: the verified rule
    then finds its candidates by a shared feature alone (the paper's
    super-shingles, which want a resemblance near 0.9), not by a few shared
    sketch values.  Eight daily sensor logs on one time grid, their readings
    all other, were 29.6% apart in words -- the timestamps alike -- and one
    cluster through sketches of their numbers (resemblance 0.13); a sheet
    with one reading corrected shares 5 of 6 features.  A text mostly
    numbers whose words alone make a sample keeps the sketch they make, so
    a draft further off than a feature finds is still found through it: a
    real dpkg.log at 72-85% of its length beside the whole (15-28% of words
    apart) shares no feature with it, and is a near copy by its sketch."""
    return replace(params.filters, numbers=False) if params.filters.numbers else None


def features_of(values: npt.NDArray[np.uint64], params: FingerprintParams) -> tuple[int, ...] | None:
    """The features of one document's shingle fingerprints (``None`` when it
    has fewer than ``minima`` distinct shingles)."""
    batch = _Batch(
        [b""], np.zeros(1, dtype=np.intp), values, np.zeros(1, dtype=np.intp), np.array([values.shape[0]])
    )
    minima, complete = _batch_minima(batch, params.minima)
    return _features(minima[0]) if complete[0] else None


def is_near_duplicate(a: Fingerprint, b: Fingerprint) -> bool:
    """Exact copies, or at least ``threshold`` shared features."""
    if a.params.key() != b.params.key():
        raise ValueError("fingerprints made under different params cannot be compared")
    if a.sha1 == b.sha1:
        return True
    return shared_features(a.features, b.features) >= a.params.threshold
