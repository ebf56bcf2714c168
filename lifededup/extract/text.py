"""Plain text, Markdown, CSV and logs: detect the encoding, refuse binary data, never crash."""

from __future__ import annotations

import codecs
import re

from lifededup.extract.base import EmptyFile, Extracted, Format, Source, UnsupportedFormat

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# Control bytes other than tab, newline, form feed and carriage return: text files have
# (almost) none, binary files are full of them.
_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f]")
# More than this share of control bytes in the first 8 KiB means binary data.
BINARY_SHARE = 0.02
# A valid multi-byte UTF-8 sequence: its presence says the file is UTF-8 with a few bad bytes,
# not Windows-1252.
_UTF8_MULTIBYTE = re.compile(rb"[\xc2-\xf4][\x80-\xbf]+")

MIME_BY_SUFFIX = {".md": "text/markdown", ".markdown": "text/markdown", ".csv": "text/csv",
                  ".tsv": "text/tab-separated-values", ".log": "text/plain"}


def bom_encoding(head: bytes) -> str | None:
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name
    return None


def looks_binary(head: bytes) -> bool:
    if not head or bom_encoding(head):
        return False
    return b"\x00" in head or len(_CONTROL.findall(head)) > BINARY_SHARE * len(head)


def decode(data: bytes) -> tuple[str, str]:
    """(text, encoding name): BOM, then UTF-8, then Windows-1252, then Latin-1.

    Never raises: a mostly-UTF-8 file with a few invalid bytes keeps its UTF-8
    and gets U+FFFD for the bad bytes.
    """
    bom = bom_encoding(data[:4])
    if bom:
        text = data.decode(bom, errors="replace")
        return text.lstrip("\ufeff"), bom
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    if _UTF8_MULTIBYTE.search(data):
        return data.decode("utf-8", errors="replace"), "utf-8 (invalid bytes replaced)"
    try:
        return data.decode("cp1252"), "windows-1252"
    except UnicodeDecodeError:
        # Bytes 0x81, 0x8d, 0x8f, 0x90, 0x9d are unassigned in Windows-1252; Latin-1 maps everything.
        return data.decode("latin-1"), "latin-1"


def extract_text_file(source: Source) -> Extracted:
    data = source.read_bytes()
    if not data.strip():
        raise EmptyFile(f"{source.name} is empty")
    if looks_binary(data[:8192]):
        raise UnsupportedFormat(f"{source.name} holds binary data, not text, and no known format")
    text, encoding = decode(data)
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    title = first.lstrip("#").strip()[:200] if source.suffix in (".md", ".markdown") else ""
    return Extracted(text=text.replace("\r\n", "\n"), title=title, kind="text",
                     mime=MIME_BY_SUFFIX.get(source.suffix, "text/plain"),
                     metadata={"encoding": encoding})


# Names that say "text"; text with any other name (or none) is read too, when no other format claims it.
TEXT_SUFFIXES = (".txt", ".text", ".md", ".markdown", ".csv", ".tsv", ".log", ".rst", ".ini", ".json", ".xml",
                 ".yaml", ".yml", ".tex", ".org", ".nfo")
FORMAT = Format(name="text", extract=extract_text_file, suffixes=TEXT_SUFFIXES)
