"""A few words around what matched, with the matched words marked."""

from __future__ import annotations

import re
from dataclasses import dataclass

from lifededup.store.searchable import together

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
# PostgreSQL's parser reads <...> as HTML tags (and a <script>'s body as
# nothing), which ts_headline then leaves out of the text it shows: the
# headline is made over the text with < > & as private-use characters, put
# back when it is read (``from_headline``; a text's own U+E000-U+E002, which
# no font draws, would show as < > & there).
_HIDDEN = {"<": "\ue000", ">": "\ue001", "&": "\ue002"}
_SHOWN_AGAIN = str.maketrans({v: k for k, v in _HIDDEN.items()})
_HIDE = "'<>&', chr(57344) || chr(57345) || chr(57346)"
_HEADLINE_OPTIONS = (f"'StartSel=' || chr(2) || ', StopSel=' || chr(3) || "
                     f"', MaxWords={SNIPPET_TOKENS}, MinWords={SNIPPET_TOKENS - 4}, ShortWord=0'")


def headline_sql(tsquery: str, ids: str, start: str = "1") -> str:
    """PostgreSQL's counterpart of ``SNIPPET_SQL`` for the items ``ids``:
    rows of ``id``, the text's ``headline``, the title's
    (``title_headline``), where the headline starts in the text
    (``found_at``, 1: at its start; 0: not found) and the end of the text
    read (``read``).  Each subquery is fenced (``OFFSET 0``): pulled up into
    the query around it, the headline was made twice, once for itself and
    once for ``found_at`` (20 rows: 0.89 against 0.41 ms).  Made of the text
    as the index reads it (a CJK text's ``text_apart``, revision 0022),
    whose separators ``Snippet.from_marked`` drops; from its character
    ``start`` on (an SQL expression of the item ``i``: where a long text's
    piece holding the phrase starts, ``search.phrases``)."""
    return (
        "SELECT id, h AS headline, th AS title_headline, "
        "coalesce(at - 1 + nullif(strpos(body, translate(h, chr(2) || chr(3), '')), 0), 0) AS found_at, "
        "at - 1 + length(rtrim(body)) AS read FROM (SELECT id, body, at, "
        f"ts_headline('simple', left(body, {HEADLINE_CHARS}), {tsquery}, {_HEADLINE_OPTIONS}) AS h, "
        f"ts_headline('simple', title, {tsquery}, {_HEADLINE_OPTIONS}) AS th FROM ("
        f"SELECT i.id, translate(substr(coalesce(i.text_apart, i.text), s.at, {HEADLINE_CHARS + 1}), {_HIDE}) "
        f"AS body, s.at, translate(coalesce(i.title_apart, i.title, ''), {_HIDE}) AS title "
        f"FROM items i CROSS JOIN LATERAL (SELECT {start} AS at) AS s WHERE i.id IN ({ids}) OFFSET 0) AS texts "
        "OFFSET 0) AS headlines"
    )


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
    def from_headline(cls, text: str | None, title: str | None, start: int, length: int) -> Snippet:
        """Read a row of :func:`headline_sql`: the text's headline, with an
        ellipsis where the text goes on (as FTS5 writes it), else the
        title's when only the title matched."""
        text, title = (text or "").translate(_SHOWN_AGAIN), (title or "").translate(_SHOWN_AGAIN)
        if OPEN not in text and OPEN in title:
            return cls.from_marked(title)
        shown = len(text) - text.count(OPEN) - text.count(CLOSE)
        before = ELLIPSIS if start != 1 else ""
        after = ELLIPSIS if start < 1 or start - 1 + shown < length else ""
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
