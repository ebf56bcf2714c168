"""Two texts side by side, word by word: what a member of a cluster adds to
its representative and what it leaves out.

Words are compared as the fingerprint reads them (seeds/000 section 2.2 step
2): case, accents' composed forms and punctuation do not count, so a row
marked changed is a change the word edit distance counts too.  The text is
shown as written, its line breaks kept."""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from rapidfuzz.distance import Indel

# rapidfuzz's opcodes keep a bit matrix of len(a) x len(b) bits (Hyyro's
# bit-parallel LCS): 10,000 x 10,000 words is 12.5 MB. Longer pairs go to
# difflib, which matches longest blocks first and needs no matrix.
BIT_MATRIX_MAX = 10_000 * 10_000
# Unchanged runs longer than this many words show their ends only, so that a
# long near-copy shows its differences, not pages of the same words.
CONTEXT_WORDS = 25

_TOKEN = re.compile(r"\S+\s*")

RowKind = Literal["same", "skip", "change"]


@dataclass(frozen=True)
class Row:
    """One row of the side-by-side view.  ``same``: the words are in both
    (each side as written there); ``skip``: ``skipped`` words in both, not shown;
    ``change``: ``left`` was deleted from the representative, ``right``
    inserted in the member (either may be empty)."""

    kind: RowKind
    left: str = ""
    right: str = ""
    skipped: int = 0


@dataclass(frozen=True)
class WordDiff:
    rows: list[Row]
    same: int  # words in both
    deleted: int  # words of the representative the member lacks
    inserted: int  # words of the member the representative lacks

    @property
    def identical(self) -> bool:
        return self.deleted == 0 and self.inserted == 0


@lru_cache(maxsize=65536)
def _key(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKC", word).casefold() if c.isalnum())


def tokens(text: str) -> tuple[list[str], list[str]]:
    """The words' comparison keys, and each word as shown (with the space
    after it).  Punctuation standing alone goes with the word before it."""
    keys: list[str] = []
    shown: list[str] = []
    for match in _TOKEN.finditer(text):
        token = match.group()
        key = _key(token)
        if not key and shown:
            shown[-1] += token
            continue
        keys.append(key)
        shown.append(token if token[-1].isspace() else token + " ")
    return keys, shown


Opcode = tuple[str, int, int, int, int]


def _opcodes(a: Sequence[str], b: Sequence[str], shown_a: Sequence[str] = (),
             shown_b: Sequence[str] = ()) -> list[Opcode]:
    """The edit script of word keys ``a`` into ``b``.  Past the bit matrix's
    size the texts are first matched sentence by sentence (a sentence or
    line as one element, from the words as shown), then word by word within
    the sentences that differ: a 380,000-word changelog and its edited copy
    took difflib 5 minutes word by word (every "the" a candidate anchor)."""
    if len(a) * len(b) <= BIT_MATRIX_MAX:
        return [(o.tag, o.src_start, o.src_end, o.dest_start, o.dest_end) for o in Indel.opcodes(a, b)]
    spans_a, spans_b = _sentences(a, shown_a), _sentences(b, shown_b)
    if len(spans_a) < 2 or len(spans_b) < 2:
        return [tuple(o) for o in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()]  # type: ignore[misc]
    keys_a = [tuple(a[i:j]) for i, j in spans_a]
    keys_b = [tuple(b[i:j]) for i, j in spans_b]
    codes: list[Opcode] = []
    for tag, s0, s1, t0, t1 in difflib.SequenceMatcher(None, keys_a, keys_b, autojunk=False).get_opcodes():
        a0, a1 = (spans_a[s0][0], spans_a[s1 - 1][1]) if s1 > s0 else (_start(spans_a, s0, len(a)),) * 2
        b0, b1 = (spans_b[t0][0], spans_b[t1 - 1][1]) if t1 > t0 else (_start(spans_b, t0, len(b)),) * 2
        if tag == "equal":
            codes.append(("equal", a0, a1, b0, b1))
            continue
        inner = _opcodes(a[a0:a1], b[b0:b1]) if (a1 - a0) and (b1 - b0) else [
            ("delete" if a1 > a0 else "insert", 0, a1 - a0, 0, b1 - b0)]
        codes += [(t, x0 + a0, x1 + a0, y0 + b0, y1 + b0) for t, x0, x1, y0, y1 in inner]
    merged: list[Opcode] = []
    for code in codes:  # equal runs side by side, as one script from one matcher would give them
        if merged and merged[-1][0] == code[0] == "equal":
            merged[-1] = ("equal", merged[-1][1], code[2], merged[-1][3], code[4])
        else:
            merged.append(code)
    return merged


def _start(spans: list[tuple[int, int]], index: int, end: int) -> int:
    return spans[index][0] if index < len(spans) else end


def _sentences(keys: Sequence[str], shown: Sequence[str]) -> list[tuple[int, int]]:
    """(start, end) of each sentence or line of the words: a word shown with a
    line break after it, or ending in a full stop, ends one."""
    if len(shown) != len(keys):
        return []
    spans, start = [], 0
    for n, word in enumerate(shown):
        if "\n" in word or word.rstrip().endswith((".", "!", "?")):
            spans.append((start, n + 1))
            start = n + 1
    if start < len(keys):
        spans.append((start, len(keys)))
    return spans


def _same_rows(left: list[str], right: list[str], first: bool, last: bool) -> list[Row]:
    """An unchanged run (the same words, each side as it writes them), its
    middle left out when it is long."""
    # next to a change, the words around it; a text with no change shows its two ends
    head = 0 if first and not last else CONTEXT_WORDS
    tail = 0 if last and not first else CONTEXT_WORDS
    if len(left) <= head + tail + CONTEXT_WORDS:
        return [Row("same", "".join(left), "".join(right))]
    rows = []
    if head:
        rows.append(Row("same", "".join(left[:head]), "".join(right[:head])))
    rows.append(Row("skip", skipped=len(left) - head - tail))
    if tail:
        rows.append(Row("same", "".join(left[-tail:]), "".join(right[-tail:])))
    return rows


def word_diff(representative: str, member: str) -> WordDiff:
    """The member against the representative, as rows to show side by side."""
    keys_a, shown_a = tokens(representative)
    keys_b, shown_b = tokens(member)
    codes = _opcodes(keys_a, keys_b, shown_a, shown_b)
    rows: list[Row] = []
    same = deleted = inserted = 0
    for n, (tag, a0, a1, b0, b1) in enumerate(codes):
        if tag == "equal":
            same += a1 - a0
            rows.extend(_same_rows(shown_a[a0:a1], shown_b[b0:b1], first=n == 0, last=n == len(codes) - 1))
            continue
        deleted += a1 - a0
        inserted += b1 - b0
        left, right = "".join(shown_a[a0:a1]), "".join(shown_b[b0:b1])
        if rows and rows[-1].kind == "change":  # a deletion next to an insertion is one change
            left, right = rows[-1].left + left, rows[-1].right + right
            rows.pop()
        rows.append(Row("change", left, right))
    return WordDiff(rows, same, deleted, inserted)
