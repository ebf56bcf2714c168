"""Rich Text Format through striprtf (pure Python) instead of the unrtf program textract calls."""

from __future__ import annotations

import re
from datetime import datetime

from lifededup.extract.base import Extracted, Format, Probe, Source, last_saved
from lifededup.extract.layout import clean_text
from lifededup.extract.text import decode


# A table's cell end: striprtf writes "|", a .docx's table gives its cells'
# words (the same document saved both ways, the same text).  Not \cellx, a
# cell's width.
_CELL = re.compile(r"\\(?:nest)?cell(?![a-z])")
# The document's title and its save and creation times, in its \info group
_TITLE = re.compile(r"\{\\title\s?((?:[^{}\\]|\\.)*)\}")
_TIME = r"\{\\{name}\\yr(\d+)(?:\\mo(\d+))?(?:\\dy(\d+))?(?:\\hr(\d+))?(?:\\min(\d+))?"


def extract_rtf(source: Source) -> Extracted:
    raw, _ = decode(source.read_bytes())
    text = rtf_text(_CELL.sub(" ", raw))
    found = _TITLE.search(raw)
    title = rtf_text(found.group(1)) if found else ""
    # each \par (and table row) ends a paragraph, as a .docx's paragraphs do: not lines to join into one
    return Extracted(text=clean_text(text.replace("\n", "\n\n")), title=" ".join(title.split()), kind="document",
                     mime="application/rtf",
                     doc_date=last_saved(_time(raw, "creatim"), _time(raw, "revtim")))


def rtf_text(rtf: str) -> str:
    """The text of RTF markup (striprtf), each character past U+FFFF one character.

    RTF writes a character past U+FFFF (an emoji, a rare CJK ideograph: 𠮷) as its two UTF-16 halves,
    ``\\u55362 \\u57271`` (LibreOffice) or ``\\u-10174?\\u-8265?`` (Word), and striprtf gives each half
    as a character of its own: the halves are joined into the character, a half without its other half is
    U+FFFD (a worker could not store it: "crashed")."""
    from striprtf.striprtf import rtf_to_text

    text: str = rtf_to_text(rtf, errors="replace")  # type: ignore[no-untyped-call]
    if text.isascii():
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _time(raw: str, name: str) -> datetime | None:
    """One of the \\info group's times (\\creatim, \\revtim); None where
    it is not set (\\yr0, as LibreOffice writes it) or not a date."""
    found = re.search(_TIME.replace("{name}", name), raw)
    if found is None:
        return None
    year, month, day, hour, minute = (int(g) if g else 0 for g in found.groups())
    try:
        return datetime(year, month or 1, day or 1, hour, minute) if year else None
    except ValueError:
        return None


def _is_rtf(probe: Probe) -> bool:
    return probe.head.startswith(b"{\\rtf")


FORMAT = Format(name="rtf", extract=extract_rtf, suffixes=(".rtf",), magic=_is_rtf, signed=True,
                opens_text=True)
