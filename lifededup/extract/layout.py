"""Remove what is layout rather than content, so the formats of one document agree.

seeds/000 section 2.2 step 1: "the .doc and .pdf versions of the same document
should produce about the same output".  A PDF repeats a running header and
footer on every page, numbers its pages, hyphenates words at line ends, sets
ligatures, leads its table of contents with dots to page numbers and
breaks every line mid-sentence; a DOCX has none of that in its body.  These
functions are shared by every extractor that sees pages or lines.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

# Lines this close to the top or bottom of a page are candidates for a running header/footer.
EDGE_LINES = 3
# A line is "running" when it sits at a page edge on at least this share of the pages.
RUNNING_SHARE = 0.5
# Running headers and footers are short; a repeated long line is content that happens to repeat.
RUNNING_MAX_CHARS = 120

_PAGE_NUMBER = re.compile(
    r"^\s*(?:[-\u2013\u2014\s]*)(?:page|seite|p\.|pg\.?)?\s*\d{1,4}(?:\s*(?:of|/|von)\s*\d{1,4})?"
    r"(?:[-\u2013\u2014\s]*)$|^\s*[ivxlcdm]{1,6}\s*$",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d+")
# A word broken at the end of a line: "exam-\nple".  Only lower-case on both sides,
# so that "well-\nKnown" or "COVID-\n19" keep their hyphen.
_LINE_END_HYPHEN = re.compile(r"([a-z\u00df-\u00ff])[-\u00ad]\n[ \t]*([a-z\u00df-\u00ff])")
_SOFT_HYPHEN = "\u00ad"
# PDFium marks a hyphen it found at a line end with U+0002 and joins the two
# halves itself ("files\x02ystem"): the word, without the mark.
_PDFIUM_HYPHEN = re.compile(r"(\w)\x02\s*(\w)")
# A table of contents line: a title, a leader of dots (". . ." or "....",
# or an ellipsis character) and a page number.  The title is content, the
# leader and number are layout (another rendering numbers pages otherwise).
_DOT_LEADER = re.compile(r"^(.*?\S)\s*(?:(?:\.\s?){3,}|\u2026+|(?:\u00b7\s?){3,})\s*(?:\d{1,4}|[ivxlcdm]{1,6})\s*$",
                         re.IGNORECASE)
# Typographic ligatures (Unicode's Alphabetic Presentation Forms): the letters.
_LIGATURES = str.maketrans({"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi",
                            "\ufb04": "ffl", "\ufb05": "st", "\ufb06": "st"})


def is_page_number(line: str) -> bool:
    return bool(_PAGE_NUMBER.match(line)) and bool(line.strip())


def _signature(line: str) -> str:
    # "Page 3 of 9" and "Page 4 of 9" are the same running line.
    return _DIGITS.sub("#", " ".join(line.split()).casefold())


def strip_running_lines(pages: Sequence[str]) -> list[str]:
    """Drop page numbers and the lines repeated at the edges of most pages."""
    split = [[ln for ln in page.splitlines()] for page in pages]
    counts: Counter[str] = Counter()
    for lines in split:
        edge = _edge_lines(lines)
        counts.update({_signature(lines[i]) for i in edge if len(lines[i].strip()) <= RUNNING_MAX_CHARS})
    running = ({sig for sig, n in counts.items() if n >= max(2, RUNNING_SHARE * len(pages))}
               if len(pages) >= 2 else set())
    cleaned = []
    for lines in split:
        drop: set[int] = set()
        seen: set[str] = set()
        for i in sorted(_edge_lines(lines)):
            sig = _signature(lines[i])
            # Once per page: a heading that repeats the running header ("Annual Report" under
            # "Annual Report") is content.
            if is_page_number(lines[i]) or (sig in running and sig not in seen):
                drop.add(i)
                seen.add(sig)
        cleaned.append("\n".join(ln for i, ln in enumerate(lines) if i not in drop))
    return cleaned


def _edge_lines(lines: list[str]) -> set[int]:
    filled = [i for i, ln in enumerate(lines) if ln.strip()]
    return set(filled[:EDGE_LINES]) | set(filled[-EDGE_LINES:])


def dehyphenate(text: str) -> str:
    """Join words split across lines ("exam-\\nple" -> "example", PDFium's
    "exam\\x02ple" too) and drop soft hyphens.  A compound broken at one of
    its hyphens keeps it ("out-of-\\nthe-box" -> "out-of-the-box"): the word
    before the break has a hyphen of its own."""
    # each pattern only where its hyphen is: a search for one costs 4 ms of each 100 kB it is not in
    # (a text of no hyphen at a line's end, as most mail and HTML is), looking for the mark 0.003 ms
    if "\x02" in text:
        text = _PDFIUM_HYPHEN.sub(_join, text).replace("\x02", "")
    if "-\n" in text or _SOFT_HYPHEN + "\n" in text:
        text = _LINE_END_HYPHEN.sub(_join, text)
    return text.replace(_SOFT_HYPHEN, "")


def _join(match: re.Match[str]) -> str:
    before = match.string[max(0, match.start() - 64):match.start() + 1].split()
    compound = match.group(0)[1] != _SOFT_HYPHEN and bool(before) and "-" in before[-1]
    return match.group(1) + ("-" if compound else "") + match.group(2)


def strip_leaders(text: str) -> str:
    """Tables of contents without their dot leaders and page numbers
    ("Installing ........ 12" -> "Installing")."""
    return "\n".join(_DOT_LEADER.sub(r"\1", line) for line in text.split("\n"))


def unligature(text: str) -> str:
    """Ligature characters as their letters ("\ufb01le" -> "file")."""
    return text.translate(_LIGATURES)


def reflow(text: str) -> str:
    """Join the lines of each paragraph with spaces; paragraphs stay one blank line apart."""
    paragraphs = re.split(r"\n[ \t]*\n+", text.replace("\r\n", "\n").replace("\r", "\n"))
    joined = (" ".join(ln.strip() for ln in para.splitlines() if ln.strip()) for para in paragraphs)
    return "\n\n".join(p for p in joined if p)


def clean_pages(pages: Sequence[str]) -> str:
    """The whole treatment for paged formats (PDF): running lines and page
    numbers, contents' dot leaders, ligatures, hyphens, line breaks."""
    body = "\n\n".join(p.strip("\n") for p in strip_running_lines(pages))
    return reflow(dehyphenate(strip_leaders(unligature(body))))


def clean_text(text: str) -> str:
    """The treatment for flowing formats (DOCX, mail, HTML): hyphens and stray whitespace."""
    return reflow(dehyphenate(text))
