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
    from striprtf.striprtf import rtf_to_text

    raw, _ = decode(source.read_bytes())
    text: str = rtf_to_text(_CELL.sub(" ", raw), errors="replace")  # type: ignore[no-untyped-call]
    found = _TITLE.search(raw)
    title = rtf_to_text(found.group(1), errors="replace") if found else ""  # type: ignore[no-untyped-call]
    # each \par (and table row) ends a paragraph, as a .docx's paragraphs do: not lines to join into one
    return Extracted(text=clean_text(text.replace("\n", "\n\n")), title=" ".join(title.split()), kind="document",
                     mime="application/rtf",
                     doc_date=last_saved(_time(raw, "creatim"), _time(raw, "revtim")))


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
