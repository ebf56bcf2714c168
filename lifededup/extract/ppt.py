"""PowerPoint 97-2003 ``.ppt``/``.pps`` through catdoc's ``catppt`` (Debian package ``catdoc``), as Recoll reads it."""

from __future__ import annotations

from lifededup.extract.base import Extracted, Format, Probe, Source
from lifededup.extract.layout import clean_text
from lifededup.extract.tool import run_tool


def extract_ppt(source: Source) -> Extracted:
    with source.as_path() as path:
        out = run_tool("catppt", "catdoc", "PowerPoint 97-2003 .ppt", ["-dutf-8", str(path)])
    # catppt ends each slide with a form feed
    slides = [s for s in out.decode("utf-8", "replace").split("\f") if s.strip()]
    return Extracted(text=clean_text("\n\n".join(slides)), kind="presentation", mime="application/vnd.ms-powerpoint",
                     metadata={"slides": str(len(slides))})


def _is_ppt(probe: Probe) -> bool:
    return "PowerPoint Document" in probe.ole_streams()


FORMAT = Format(name="ppt", extract=extract_ppt, suffixes=(".ppt", ".pps", ".pot"), magic=_is_ppt)
