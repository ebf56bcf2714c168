"""Word 97-2003 ``.doc`` through antiword (Debian package ``antiword``), as textract would call it."""

from __future__ import annotations

from lifededup.extract.base import Extracted, Format, Probe, Source
from lifededup.extract.layout import clean_text
from lifededup.extract.tool import run_tool


def extract_doc(source: Source) -> Extracted:
    with source.as_path() as path:
        out = run_tool("antiword", "antiword", "Word 97-2003 .doc", ["-m", "UTF-8.txt", "-w", "0", str(path)])
    text = clean_text(out.decode("utf-8", "replace").replace("[pic]", ""))
    return Extracted(text=text, kind="document", mime="application/msword")


def _is_doc(probe: Probe) -> bool:
    return "WordDocument" in probe.ole_streams()


FORMAT = Format(name="doc", extract=extract_doc, suffixes=(".doc",), magic=_is_doc)
