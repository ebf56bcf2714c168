"""Plain text, Markdown, CSV, logs, and any file whose bytes are text: detect the encoding, never crash.

Text is recognised by content, not by name: ``README.Debian``, ``NEWS`` or
``notes.2019`` are read as text when their bytes are text and no other format
claims them.  An undeclared encoding is found by charset-normalizer; its
guess is taken only when what it decodes reads as text (letters inside words,
typographic punctuation), so a mostly-ASCII file with a few stray bytes keeps
its ASCII and gets U+FFFD for the stray bytes rather than a legacy code
page's mojibake.
"""

from __future__ import annotations

import codecs
import re
import unicodedata

from lifededup.extract import markdown, rst
from lifededup.extract.base import EmptyFile, Extracted, Format, Source, UnsupportedFormat, title_line

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# Control bytes other than tab, newline, form feed and carriage return: text files have
# (almost) none, binary files are full of them.
# Counted by deleting them (bytes.translate): a regular expression's findall
# took 68 us over 8 KiB of text, this 14, asked twice a file.
_CONTROL = bytes([*range(0x00, 0x09), 0x0b, *range(0x0e, 0x1b), *range(0x1c, 0x20)])
# a letter or digit: a text with none holds no words
_WORD = re.compile(r"\w")
# More than this share of control bytes in the first 8 KiB means binary data.
BINARY_SHARE = 0.02
# A valid multi-byte UTF-8 sequence: its presence says the file is UTF-8 with a few bad bytes,
# not Windows-1252.
_UTF8_MULTIBYTE = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")

MIME_BY_SUFFIX = {".csv": "text/csv", ".tsv": "text/tab-separated-values", ".log": "text/plain"}


def bom_encoding(head: bytes) -> str | None:
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name
    return None


def looks_binary(head: bytes) -> bool:
    if not head or bom_encoding(head):
        return False
    return b"\x00" in head or len(head) - len(head.translate(None, _CONTROL)) > BINARY_SHARE * len(head)


def decode(data: bytes) -> tuple[str, str]:
    """(text, encoding name): BOM, UTF-8, then the legacy code page the bytes are in.

    Never raises: a mostly-UTF-8 or mostly-ASCII file with a few stray bytes
    keeps its UTF-8 and gets U+FFFD for the bad bytes.  Bytes in words
    ("p\\xe8re", or all of a Cyrillic text) are a legacy code page:
    Windows-1252 when it reads as Western text, else charset-normalizer's
    guess (which, on short Western texts, often says Windows-1250 and turns
    "crème" into "crčme").
    """
    bom = bom_encoding(data[:4])
    if bom:
        text = data.decode(bom, errors="replace")
        return text.lstrip("\ufeff"), bom
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    if not _mostly_utf8(data) and not _stray_bytes(data):
        try:
            text = data.decode("cp1252")
            if _mostly_ascii(data) and all(c < "\x80" or c.isalpha() or c in _TYPOGRAPHIC for c in text):
                return text, "windows-1252"
        except UnicodeDecodeError:
            pass
        from charset_normalizer import from_bytes

        best = from_bytes(data).best()
        if best is not None and best.encoding not in ("utf_8", "ascii"):
            return data.decode(best.encoding, errors="replace"), _ENCODING_NAMES.get(best.encoding, best.encoding)
    return data.decode("utf-8", errors="replace"), "utf-8 (invalid bytes replaced)"


# An Org file's title keyword (``#+TITLE: Garden plans``), in any case
_ORG_TITLE = re.compile(r"^[ \t]*#\+title:[ \t]*(\S.*)$", re.MULTILINE | re.IGNORECASE)
# Non-letters Windows-1252 is trusted to mean: quotes, dashes, currency, degrees, fractions...
_TYPOGRAPHIC = frozenset("\u00a0\u2018\u2019\u201a\u201c\u201d\u201e\u00ab\u00bb\u2039\u203a\u2013\u2014"
                         "\u2026\u20ac\u00a3\u00a5\u00a2\u00b0\u00a7\u00b6\u00a9\u00ae\u2122\u00bd\u00bc"
                         "\u00be\u00b7\u2022\u00d7\u00f7\u00b1\u00b2\u00b3\u00b5\u00bf\u00a1")
_ENCODING_NAMES = {"cp1250": "windows-1250", "cp1251": "windows-1251", "latin_1": "latin-1"}
# A text with more non-ASCII bytes than this share is written in them (Cyrillic, Greek, CJK).
_LEGACY_SHARE = 0.05


def _mostly_utf8(data: bytes) -> bool:
    """More valid multi-byte UTF-8 characters than invalid bytes: UTF-8 with some damage."""
    valid = len(_UTF8_MULTIBYTE.findall(data))
    return valid > 0 and valid >= data.decode("utf-8", errors="replace").count("\ufffd")


def _mostly_ascii(data: bytes) -> bool:
    """Letters mostly ASCII, as in Western European text (not Cyrillic or Greek in a code page)."""
    high = sum(1 for _ in re.finditer(rb"[\x80-\xff]", data))
    return high < 0.3 * (high + len(re.findall(rb"[A-Za-z]", data)))


def _stray_bytes(data: bytes) -> bool:
    """A mostly-ASCII text whose few non-ASCII bytes are not inside words: damage, not an encoding."""
    runs = [(m.start(), m.end()) for m in re.finditer(rb"[\x80-\xff]+", data)]
    if not runs or sum(e - s for s, e in runs) > _LEGACY_SHARE * len(data):
        return False
    in_words = sum(1 for s, e in runs if data[s - 1:s].isalpha() or data[e:e + 1].isalpha())
    return in_words * 2 < len(runs)


def extract_text_file(source: Source) -> Extracted:
    data = source.read_bytes()
    if not data or data.isspace():  # strip() copied the whole file to see it was not empty
        raise EmptyFile(f"{source.name} is empty")
    if looks_binary(data[:8192]):
        raise UnsupportedFormat(f"{source.name} holds binary data, not text, and no known format")
    text, encoding = decode(data)
    # most texts hold no \r, which `in` finds at memchr's speed; replace() scanned each whole text ten times
    # slower (0.17 s of the fingerprint command's 1.6 over /usr/share/doc's 61 MB)
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    title, is_markdown = "", markdown.is_markdown(source.name)
    # reStructuredText and Markdown read as their built pages show them, so that the two are read alike
    if rst.is_rst(source.name):
        text, title = _shown_or_whole(text), rst.title(text)
    elif is_markdown and len(text) <= markdown.MAX_RENDERED:
        text, title = _markdown_or_whole(text)
    elif source.name.lower().endswith(".org"):  # Emacs Org mode: the title its export gives the page
        found = _ORG_TITLE.search(text)
        title = title_line(found.group(1)) if found else ""
    return Extracted(text=text, title=title, kind="text",
                     mime="text/markdown" if is_markdown else MIME_BY_SUFFIX.get(source.suffix, "text/plain"),
                     metadata={"encoding": encoding})


def _markdown_or_whole(text: str) -> tuple[str, str]:
    """Markdown as its page shows it, and its title; a source whose page shows no words (link definitions
    alone) as it is, so that it is not read as empty."""
    found, title = markdown.shown(text)
    return (found if _WORD.search(found) else text), title


def _shown_or_whole(text: str) -> str:
    """reStructuredText as its page shows it; a source that is all markup (a
    page of ``.. automodule::``) as it is, so that it is not read as empty."""
    found = rst.shown(text)
    return found if _WORD.search(found) else text


# Names that say "text"; text with any other name (or none) is read too, when no other format claims it.
TEXT_SUFFIXES = (".txt", ".text", ".md", ".markdown", ".csv", ".tsv", ".log", ".rst", ".ini", ".json", ".xml",
                 ".yaml", ".yml", ".tex", ".org", ".nfo")
FORMAT = Format(name="text", kind="text", extract=extract_text_file, suffixes=TEXT_SUFFIXES)
