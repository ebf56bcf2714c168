"""A few words around what matched, with the matched words marked."""

from __future__ import annotations

import re
from dataclasses import dataclass

from lifededup.store.searchable import TS_CONFIG, pg_spaced, together

# FTS5's snippet() (and ts_headline) wrap each matched token in these; control characters
# cannot occur in stored text's words, so they cannot be confused with it.
OPEN, CLOSE = "\x02", "\x03"
ELLIPSIS = "…"
# Tokens of context FTS5 picks around the best match (its maximum is 64).
SNIPPET_TOKENS = 24
# A preview without a query: this many characters of the text.
PREVIEW_CHARS = 160

_MARKS = re.compile(f"([{OPEN}{CLOSE}])")

SNIPPET_SQL = f"snippet(items_fts, -1, char(2), char(3), '{ELLIPSIS}', {SNIPPET_TOKENS})"

# PostgreSQL's ts_headline reads the whole text it is given, so it is given a
# bounded start of the text: a page of snippets costs the same whatever the
# texts' length (a text matched only past it shows its start, unmarked).
HEADLINE_CHARS = 20_000
# A PostgreSQL store's words are read with ASCII punctuation as spaces
# (revision 0028), so the headline is made over the text read so (``pg_spaced``):
# PostgreSQL's parser would keep ``setup.py`` whole and mark no ``setup``
# in it, and read ``<b>`` as a tag it leaves out.  The text shown is the
# text itself (``shown``, the same characters as the headline's but for
# the marks: a mark for a space, one for one), put back in
# ``from_headline``.
_HEADLINE_OPTIONS = (f"'StartSel=' || chr(2) || ', StopSel=' || chr(3) || "
                     f"', MaxWords={SNIPPET_TOKENS}, MinWords={SNIPPET_TOKENS - 4}, ShortWord=0'")
_UNMARKED = "translate({}, chr(2) || chr(3), '')"


def headline_sql(tsquery: str, ids: str, start: str = "1") -> str:
    """PostgreSQL's counterpart of ``SNIPPET_SQL`` for the items ``ids``:
    rows of ``id``, the text's ``headline`` and the title's
    (``title_headline``), each over the text with punctuation as spaces;
    where the headline starts in the text (``found_at``, 1: at its start;
    0: not found); the end of the text read (``read``); and the text and
    title the headlines show (``shown``, ``title_shown``: NULL where not
    found).  Each subquery is fenced (``OFFSET 0``): pulled up into the
    query around it, the headline was made twice, once for itself and
    once for ``found_at`` (20 rows: 0.89 against 0.41 ms).  Made of the
    text as the index reads it (a CJK text's ``text_apart``, revision
    0022), whose separators ``Snippet.from_marked`` drops; from its
    character ``start`` on (an SQL expression of the item ``i``: where a
    long text's piece holding the phrase starts, ``search.phrases``)."""
    found, title_found = (f"nullif(strpos({spaced}, {_UNMARKED.format(h)}), 0)"
                          for spaced, h in (("spaced", "h"), ("spaced_title", "th")))
    return (
        f"SELECT id, h AS headline, th AS title_headline, coalesce(at - 1 + {found}, 0) AS found_at, "
        f"at - 1 + length(rtrim(body)) AS read, substr(body, {found}, length({_UNMARKED.format('h')})) AS shown, "
        f"substr(title, {title_found}, length({_UNMARKED.format('th')})) AS title_shown "
        "FROM (SELECT id, body, at, title, spaced, spaced_title, "
        f"ts_headline('{TS_CONFIG}', left(spaced, {HEADLINE_CHARS}), {tsquery}, {_HEADLINE_OPTIONS}) AS h, "
        f"ts_headline('{TS_CONFIG}', spaced_title, {tsquery}, {_HEADLINE_OPTIONS}) AS th FROM ("
        f"SELECT id, body, at, title, {pg_spaced('body')} AS spaced, {pg_spaced('title')} AS spaced_title "
        f"FROM (SELECT i.id, substr(coalesce(i.text_apart, i.text), s.at, {HEADLINE_CHARS + 1}) AS body, s.at, "
        "coalesce(i.title_apart, i.title, '') AS title "
        f"FROM items i CROSS JOIN LATERAL (SELECT {start} AS at) AS s WHERE i.id IN ({ids}) OFFSET 0) AS texts "
        "OFFSET 0) AS read OFFSET 0) AS headlines"
    )


def _shown(marked: str, text: str | None) -> str:
    """A headline's ``marked`` characters with ``text``'s put back where the
    two differ (a space for a punctuation mark), the marks kept."""
    if not text:
        return marked
    out: list[str] = []
    at = 0
    for piece in _MARKS.split(marked):
        if piece in (OPEN, CLOSE) or not piece:
            out.append(piece)
        else:
            out.append(text[at:at + len(piece)])
            at += len(piece)
    return "".join(out)


@dataclass(frozen=True)
class Snippet:
    """Plain ``text`` and the ``(start, end)`` character spans of the matched
    words in it."""

    text: str
    spans: tuple[tuple[int, int], ...] = ()

    @classmethod
    def from_marked(cls, marked: str) -> Snippet:
        """Read FTS5's marked snippet (``OPEN`` word ``CLOSE``) on one line,
        made of the text as the index reads it: without the separators
        between CJK characters (``store/searchable.py``), and a word marked
        character by character (ts_headline's ``東`` ``京``) marked whole."""
        flat = " ".join(together(marked).split()) if marked else ""
        out: list[str] = []
        spans: list[tuple[int, int]] = []
        length, start = 0, 0
        for piece in _MARKS.split(flat):  # the marks, and the text between them
            if piece == OPEN:
                start = length
            elif piece == CLOSE:
                if spans and spans[-1][1] == start:  # touching the one before: one word
                    start = spans.pop()[0]
                spans.append((start, length))
            elif piece:
                out.append(piece)
                length += len(piece)
        return cls("".join(out), tuple(spans))

    @classmethod
    def from_headline(cls, text: str | None, title: str | None, start: int, length: int,
                      shown: str | None = None, title_shown: str | None = None) -> Snippet:
        """Read a row of :func:`headline_sql`: the text's headline, with an
        ellipsis where the text goes on (as FTS5 writes it), else the
        title's when only the title matched; each with the characters of
        the text it shows (``shown``, ``title_shown``)."""
        text, title = _shown(text or "", shown), _shown(title or "", title_shown)
        if OPEN not in text and OPEN in title:
            return cls.from_marked(title)
        shown_chars = len(text) - text.count(OPEN) - text.count(CLOSE)
        before = ELLIPSIS if start != 1 else ""
        after = ELLIPSIS if start < 1 or start - 1 + shown_chars < length else ""
        return cls.from_marked(before + text + after if text else "")

    @classmethod
    def preview(cls, text: str | None) -> Snippet:
        """The start of a text, on one line, cut at a word."""
        flat = " ".join((text or "")[: PREVIEW_CHARS * 2].split())
        if len(flat) <= PREVIEW_CHARS:
            return cls(flat)
        cut = flat[:PREVIEW_CHARS].rsplit(" ", 1)[0]
        return cls(cut + ELLIPSIS)

    def parts(self) -> list[tuple[str, bool]]:
        """The text in pieces, each with whether it matched."""
        pieces: list[tuple[str, bool]] = []
        at = 0
        for start, end in self.spans:
            if start > at:
                pieces.append((self.text[at:start], False))
            pieces.append((self.text[start:end], True))
            at = end
        if at < len(self.text):
            pieces.append((self.text[at:], False))
        return pieces

    @property
    def matched(self) -> list[str]:
        return [self.text[s:e] for s, e in self.spans]
