"""Rich Text Format through striprtf (pure Python) instead of the unrtf program textract calls."""

from __future__ import annotations

from lifededup.extract.base import Extracted, Format, Probe, Source
from lifededup.extract.layout import clean_text
from lifededup.extract.text import decode


def extract_rtf(source: Source) -> Extracted:
    from striprtf.striprtf import rtf_to_text

    raw, _ = decode(source.read_bytes())
    text: str = rtf_to_text(raw, errors="replace")  # type: ignore[no-untyped-call]
    return Extracted(text=clean_text(text), kind="document", mime="application/rtf")


def _is_rtf(probe: Probe) -> bool:
    return probe.head.startswith(b"{\\rtf")


FORMAT = Format(name="rtf", extract=extract_rtf, suffixes=(".rtf",), magic=_is_rtf)
