"""Text to the standard word stream, and the stream cut into words
(seeds/000 section 2.2 step 2).

:func:`stream_bytes` is NFKC, case-folded, every run of characters that are
not letters or digits (of any script) collapsed to one space, as UTF-8; its
SHA-1 identifies exact copies.  :func:`split_words` cuts a stream into words,
each with a 64-bit key, and :func:`first_occurrence` tells the distinct ones
apart -- what the filters (:mod:`lifededup.normalize.filters`) and the
fingerprint engine work on.  The text is handled as a numpy byte array: there
is no per-word Python loop.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

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
LOW_BYTES = np.array([(1 << (8 * n)) - 1 for n in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
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
    keys = window[starts] & LOW_BYTES[np.minimum(lengths, 8)]
    long_words = np.flatnonzero(lengths > 8)
    offset = 8
    # All long words a chunk at a time; the last few (a hex dump or a genome
    # on one line: millions of bytes) one by one, where numpy's cost per call
    # for a handful of words would be most of the time.
    while long_words.size > _WORDS_AT_ONCE:
        chunk = window[starts[long_words] + offset]
        chunk &= LOW_BYTES[np.minimum(lengths[long_words] - offset, 8)]
        mixed = (keys[long_words] ^ chunk) * _MIX_A
        mixed ^= mixed >> np.uint64(31)
        keys[long_words] = (mixed * _MIX_B) ^ np.uint64(offset)
        offset += 8
        long_words = long_words[lengths[long_words] > offset]
    for word in long_words.tolist():
        start, length = int(starts[word]), int(lengths[word])
        keys[word] = _finish_key(stream[start + offset : start + length].tobytes(), int(keys[word]), offset)
    return keys


# Fewer long words than this are finished by _finish_key.
_WORDS_AT_ONCE = 16
_MASK64 = (1 << 64) - 1


def _finish_key(rest: bytes, key: int, offset: int) -> int:
    """_word_keys' mixing of a word's chunks from ``offset`` on (``rest``, its bytes from there), in Python ints."""
    a, b = int(_MIX_A), int(_MIX_B)
    chunks = np.frombuffer(rest + bytes(-len(rest) % 8), dtype="<u8").tolist()
    for at, chunk in enumerate(chunks, start=offset // 8):
        mixed = ((key ^ chunk) * a) & _MASK64
        mixed ^= mixed >> 31
        key = ((mixed * b) & _MASK64) ^ (at * 8)
    return key


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
