"""A few words around what matched, with the matched words marked."""

from __future__ import annotations

from dataclasses import dataclass

# FTS5's snippet() wraps each matched token in these; control characters
# cannot occur in stored text's words, so they cannot be confused with it.
OPEN, CLOSE = "\x02", "\x03"
ELLIPSIS = "…"
# Tokens of context FTS5 picks around the best match (its maximum is 64).
SNIPPET_TOKENS = 24
# A preview without a query: this many characters of the text.
PREVIEW_CHARS = 160

SNIPPET_SQL = f"snippet(items_fts, -1, char(2), char(3), '{ELLIPSIS}', {SNIPPET_TOKENS})"


@dataclass(frozen=True)
class Snippet:
    """Plain ``text`` and the ``(start, end)`` character spans of the matched
    words in it."""

    text: str
    spans: tuple[tuple[int, int], ...] = ()

    @classmethod
    def from_marked(cls, marked: str) -> Snippet:
        """Read FTS5's marked snippet (``OPEN`` word ``CLOSE``) on one line."""
        out: list[str] = []
        spans: list[tuple[int, int]] = []
        length, start = 0, 0
        for char in " ".join(marked.split()) if marked else "":
            if char == OPEN:
                start = length
            elif char == CLOSE:
                spans.append((start, length))
            else:
                out.append(char)
                length += 1
        return cls("".join(out), tuple(spans))

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
