"""Text to one standard word stream, then through the paper's filters
(seeds/000, section 2.2 steps 2-3).

Two outputs, for two purposes:

* :func:`stream_bytes` -- NFKC, case-folded, every run of characters that are
  not letters or digits (of any script) collapsed to one space, as UTF-8.  Its
  SHA-1 identifies exact copies, so it is *not* filtered: two invoices that
  differ only in their numbers are not the same document.
* :func:`terms` -- the word stream through the number, stop-word, stemming and
  low-IDF filters, as ids into a vocabulary of distinct terms; what gets
  shingled.

Both are vectorised: the text is handled as a numpy byte array, words are told
apart by 64-bit keys in a hash table, and every filter runs once per distinct
term, never once per word.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import numpy.typing as npt
import snowballstemmer  # type: ignore[import-untyped]

from lifededup.config import FilterParams
from lifededup.normalize.stopwords import stopwords_for

__all__ = [
    "DocFrequencies",
    "Terms",
    "Words",
    "split_words",
    "stream_bytes",
    "terms",
    "word_stream",
    "words",
]

SPACE = 0x20
NEWLINE = 0x0A

# Scripts written without spaces between words: each ideograph or kana is a
# word of its own, so that Chinese and Japanese text shingles at all.
_UNSPACED = ((0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x3FFFF))
# ASCII words are letters and digits, folded to lower case by a byte table;
# everything else separates words.
_ASCII_FOLD = bytes(
    (c | 0x20 if chr(c).isalpha() else c) if chr(c).isalnum() else SPACE for c in range(128)
) + bytes([SPACE] * 128)


def _is_word_char(char: str) -> bool:
    # Letters and digits of every script, and the combining marks that
    # Indic and other scripts write inside words (str.isalnum alone would cut
    # Hindi words at every vowel sign).
    return char.isalnum() or unicodedata.category(char)[0] == "M"


@lru_cache(maxsize=1)
def _basic_plane_words() -> npt.NDArray[np.bool_]:
    return np.fromiter((_is_word_char(chr(c)) for c in range(0x10000)), dtype=bool, count=0x10000)


def _word_chars(points: npt.NDArray[np.uint32]) -> npt.NDArray[np.bool_]:
    table = _basic_plane_words()
    word = table[np.minimum(points, 0xFFFF)]
    astral = np.flatnonzero(points > 0xFFFF)
    if astral.size:  # rare: emoji, historic scripts, CJK extensions
        word[astral] = [_is_word_char(chr(c)) for c in points[astral].tolist()]
    return word


def _fold_unicode(block: str, separator: bool = False) -> bytes:
    """NFKC, case folding, and every character that is not part of a word
    replaced by a space, as UTF-8 bytes; done on an array of code points.
    With ``separator``, NUL characters are kept (they mark where one piece of
    text ends, see :func:`_fold_tokens`)."""
    # NFKC_Casefold: case folding can undo NFKC's composition (Greek "ΰ"
    # folds to three code points), so normalise again after folding.
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", block).casefold())
    points = np.frombuffer(folded.encode("utf-32-le", "surrogatepass"), dtype="<u4").astype(np.uint32)
    word = _word_chars(points)
    if separator:
        word |= points == 0
    points = np.where(word, points, np.uint32(SPACE))
    unspaced = np.zeros(points.size, dtype=bool)
    for low, high in _UNSPACED:
        unspaced |= (points >= low) & (points <= high)
    if unspaced.any():
        # each unspaced character c becomes " c "
        width = 1 + 2 * unspaced.astype(np.intp)
        spread = np.full(int(width.sum()), SPACE, dtype=np.uint32)
        spread[np.cumsum(width) - width + unspaced] = points
        points = spread
    return points.astype("<u4").tobytes().decode("utf-32-le").encode("utf-8")


def _ranges(starts: npt.NDArray[np.intp], lengths: npt.NDArray[np.intp]) -> npt.NDArray[np.intp]:
    """The indices ``start .. start+length-1`` of every range, in order."""
    offsets = np.cumsum(lengths) - lengths
    return np.repeat(starts - offsets, lengths) + np.arange(int(lengths.sum()), dtype=np.intp)


def _fold_tokens(text: str) -> bytes:
    """:func:`_fold` of a text holding some non-ASCII characters.

    The folding never reaches across an ASCII space or newline: case folding
    maps each character on its own, and NFKC composes nothing with a space or
    a newline (they are starters that start no composition), so it cannot
    join what lies on their two sides.  So only the tokens between spaces and
    newlines that hold a non-ASCII byte take the Unicode path -- all of them
    in one call, NUL-separated -- and the rest goes through the byte table.
    A folded token is written back in the place of the original, padded with
    spaces; in a text where one grows (CJK spacing, "½" -> "1⁄2") the pieces
    are put together again.
    """
    raw = text.encode("utf-8", "surrogatepass")
    if b"\x00" in raw:  # NUL separates tokens below; as a non-word it is a space anyway
        raw = raw.replace(b"\x00", b"\x01")
    data = np.frombuffer(raw, dtype=np.uint8)
    cuts = np.flatnonzero((data == SPACE) | (data == NEWLINE))
    token = np.searchsorted(cuts, np.flatnonzero(data >= 0x80))
    token = token[np.concatenate(([True], token[1:] != token[:-1]))]
    edges = np.concatenate(([-1], cuts, [data.size]))
    starts, ends = edges[token] + 1, edges[token + 1]
    lengths = ends - starts
    joined = np.zeros(int(lengths.sum()) + lengths.size, dtype=np.uint8)
    joined[_ranges(np.cumsum(lengths + 1) - (lengths + 1), lengths)] = data[_ranges(starts, lengths)]
    folded = np.frombuffer(
        _fold_unicode(joined.tobytes().decode("utf-8", "surrogatepass"), separator=True), dtype=np.uint8
    )
    folded_ends = np.flatnonzero(folded == 0)
    folded_starts = np.concatenate(([0], folded_ends[:-1] + 1))
    folded_lengths = folded_ends - folded_starts
    out = np.frombuffer(bytearray(raw.translate(_ASCII_FOLD)), dtype=np.uint8)
    if (folded_lengths > lengths).any():
        # rebuild the text: the byte-table pieces between the tokens, and the
        # folded tokens, one after the other
        pieces = np.concatenate((out, folded))
        piece_starts = np.empty(2 * starts.size + 1, dtype=np.intp)
        piece_lengths = np.empty_like(piece_starts)
        piece_starts[0::2] = np.concatenate(([0], ends))
        piece_lengths[0::2] = np.concatenate((starts, [data.size])) - piece_starts[0::2]
        piece_starts[1::2] = data.size + folded_starts
        piece_lengths[1::2] = folded_lengths
        return pieces[_ranges(piece_starts, piece_lengths)].tobytes()
    out[_ranges(starts, lengths)] = SPACE
    out[_ranges(starts, folded_lengths)] = folded[_ranges(folded_starts, folded_lengths)]
    return out.tobytes()


def _fold(text: str) -> bytes:
    if text.isascii():
        return text.encode("ascii").translate(_ASCII_FOLD)
    return _fold_tokens(text)


def _collapse(raw: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """Runs of spaces to one space, none at either end."""
    word = raw != SPACE
    keep = np.empty_like(word)
    keep[:1] = word[:1]
    np.logical_or(word[1:], word[:-1], out=keep[1:])
    out: npt.NDArray[np.uint8] = raw[keep]
    if out.size and out[-1] == SPACE:
        out = out[:-1]
    return out


def stream_array(text: str) -> npt.NDArray[np.uint8]:
    """The standard word stream as a numpy array of UTF-8 bytes."""
    return _collapse(np.frombuffer(_fold(text), dtype=np.uint8))


def stream_bytes(text: str) -> bytes:
    """The standard word stream: words of any script, one space between them."""
    return stream_array(text).tobytes()


def word_stream(text: str) -> str:
    return stream_bytes(text).decode("utf-8")


def words(text: str) -> list[str]:
    if text.isascii():  # the byte table alone; split() drops the runs of spaces _collapse would
        return text.encode("ascii").translate(_ASCII_FOLD).decode("ascii").split()
    stream = word_stream(text)
    return stream.split(" ") if stream else []


@dataclass(frozen=True)
class Words:
    """A word stream cut into words: byte offsets and a 64-bit key per word."""

    stream: npt.NDArray[np.uint8]
    starts: npt.NDArray[np.intp]
    lengths: npt.NDArray[np.intp]
    keys: npt.NDArray[np.uint64]

    def __len__(self) -> int:
        return int(self.starts.size)


# Low bytes of a little-endian word of n bytes (n = 0..8).
_LOW_BYTES = np.array([(1 << (8 * n)) - 1 for n in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
# Odd multipliers for mixing the 8-byte chunks of longer words (splitmix64's).
_MIX_A = np.uint64(0xBF58476D1CE4E5B9)
_MIX_B = np.uint64(0x94D049BB133111EB)


def _word_keys(
    stream: npt.NDArray[np.uint8], starts: npt.NDArray[np.intp], lengths: npt.NDArray[np.intp]
) -> npt.NDArray[np.uint64]:
    """A 64-bit key per word: its own bytes when it has at most 8 (exact, so
    short words can never collide), a splitmix-style hash of its 8-byte chunks
    otherwise."""
    padded = np.zeros(stream.size + 8, dtype=np.uint8)
    padded[: stream.size] = stream
    window = np.ndarray((stream.size + 1,), dtype="<u8", buffer=padded, strides=(1,))
    keys = window[starts] & _LOW_BYTES[np.minimum(lengths, 8)]
    long_words = np.flatnonzero(lengths > 8)
    offset = 8
    while long_words.size:
        chunk = window[starts[long_words] + offset]
        chunk &= _LOW_BYTES[np.minimum(lengths[long_words] - offset, 8)]
        mixed = (keys[long_words] ^ chunk) * _MIX_A
        mixed ^= mixed >> np.uint64(31)
        keys[long_words] = (mixed * _MIX_B) ^ np.uint64(offset)
        offset += 8
        long_words = long_words[lengths[long_words] > offset]
    return keys


def split_words(stream: npt.NDArray[np.uint8]) -> Words:
    if stream.size == 0:
        empty = np.zeros(0, dtype=np.intp)
        return Words(stream, empty, empty, np.zeros(0, dtype=np.uint64))
    edges = np.flatnonzero(stream == SPACE)
    starts = np.empty(edges.size + 1, dtype=np.intp)
    starts[0] = 0
    np.add(edges, 1, out=starts[1:])
    lengths = np.diff(starts, append=stream.size + 1)
    lengths -= 1
    return Words(stream, starts, lengths, _word_keys(stream, starts, lengths))


# Odd multipliers for Fibonacci/multiplicative hashing (2^64/phi, then
# splitmix64's): the top bits of key * M spread any keys evenly.
_HASH_MULTIPLIERS = tuple(
    np.uint64(m) for m in (0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB, 0xD6E8FEB86659FD93)
)


# Slots of the hash table in first_occurrence, at most: 2^17 int32 is 512 kB,
# which stays in a core's L2 cache; a text has far fewer distinct words than
# words, so a table sized for every word would be mostly empty and slow.
_MAX_TABLE_BITS = 17


def first_occurrence(keys: npt.NDArray[np.uint64]) -> npt.NDArray[np.intp]:
    """For each position, a position holding the same key (the same one for
    all equal keys).

    A hash table without probing, vectorised: every pending position writes
    itself into its slot (one of them wins), then reads the winner back; those
    whose key equals the winner's are done.  The rest -- keys that lost their
    slot to another key -- go again into a fresh table with another
    multiplier.  Each round settles at least the winners' keys, so it ends;
    in practice in two or three rounds, the later ones tiny.
    """
    n = keys.size
    rep = np.empty(n, dtype=np.intp)
    pending = np.arange(n, dtype=np.intp)
    pending_keys = keys
    rounds = 0
    while pending.size:
        bits = max(4, min(pending.size.bit_length(), _MAX_TABLE_BITS))
        multiplier = _HASH_MULTIPLIERS[rounds % len(_HASH_MULTIPLIERS)]
        slot = pending_keys * multiplier
        slot >>= np.uint64(64 - bits)
        slot_index = slot.view(np.int64)  # < 2^bits: the same numbers
        owner = np.empty(1 << bits, dtype=np.intp)
        owner[slot_index] = pending
        holder = owner[slot_index]
        settled = keys[holder] == pending_keys
        if rounds == 0:  # pending is every position
            rep[:] = holder
            unsettled = np.flatnonzero(~settled)
            pending, pending_keys = unsettled, keys[unsettled]
        else:
            rep[pending[settled]] = holder[settled]
            pending, pending_keys = pending[~settled], pending_keys[~settled]
        rounds += 1
    return rep


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
    not_digit &= _LOW_BYTES[np.minimum(lengths, 8)]
    number: npt.NDArray[np.bool_] = not_digit == 0
    long_terms = np.flatnonzero(lengths > 8)
    if long_terms.size:
        spans = lengths[long_terms]
        first = np.cumsum(spans) - spans
        offsets = np.repeat(found.starts[vocab[long_terms]] - first, spans) + np.arange(int(spans.sum()))
        number[long_terms] = np.logical_and.reduceat(_DIGIT[found.stream[offsets]], first)
    return number


def _keep_mask(
    found: Words,
    vocab: npt.NDArray[np.intp],
    filters: FilterParams,
    max_bytes: int,
    doc_freq: DocFrequencies | None,
) -> npt.NDArray[np.bool_]:
    lengths = found.lengths[vocab]
    keep = lengths <= max_bytes
    if filters.numbers:
        keep &= ~_is_number(found, vocab)
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
) -> Terms:
    """Filter a word stream (from :func:`stream_array`) into shingling terms."""
    found = found if found is not None else split_words(stream)
    rep = first_occurrence(found.keys)
    vocab = np.flatnonzero(rep == np.arange(rep.size))  # one position per distinct word
    keep = _keep_mask(found, vocab, filters, max_bytes, doc_freq)
    kept = vocab[keep]
    # old vocabulary position -> new term id, or -1 when filtered out
    new_id = np.full(rep.size, -1, dtype=np.intp)
    if filters.stem:
        stemmed, remap = _stemmed(found, kept, filters.language)
        new_id[kept] = remap
        buffer, starts, lengths = stemmed.buffer, stemmed.starts, stemmed.lengths
    else:
        new_id[kept] = np.arange(kept.size, dtype=np.intp)
        buffer, starts, lengths = stream, found.starts[kept], found.lengths[kept]
    ids = new_id[rep]
    positions = np.flatnonzero(ids >= 0)
    return Terms(buffer, starts, lengths, ids[positions], positions)
