"""PostScript (``.ps``, ``.eps``, and gzipped, ``.ps.gz``): recognised, and recorded as not read.

A PostScript file is a program that draws its pages: its text is scattered
in operators and font encodings, and read as text it was two-thirds
operators (``%!PS-Adobe-3.0 ... moveto show``), indexed as garbage.  No tool
that reads it (Ghostscript's ``ps2ascii``, ``pstotext``) is among the ones
lifededup installs (scripts/install-system-deps.sh), so it is ``unsupported``
with that said; the PDF of the same document is read.
"""

from __future__ import annotations

from lifededup.extract.base import Extracted, Format, Probe, Source, UnsupportedFormat

# DOS EPS: a binary header before the PostScript (and a TIFF or WMF preview)
_DOS_EPS = b"\xc5\xd0\xd3\xc6"


def extract_postscript(source: Source) -> Extracted:
    raise UnsupportedFormat(f"{source.name} is PostScript: PostScript is not read (a program drawing its pages, "
                            "not text); its PDF (ps2pdf) is")


def _is_postscript(probe: Probe) -> bool:
    head = probe.head.lstrip(b"\x04\r\n\t ")  # a Ctrl-D some printer drivers put first
    return head.startswith(b"%!PS") or probe.head.startswith(_DOS_EPS)


FORMAT = Format(name="postscript", extract=extract_postscript, suffixes=(".ps", ".eps", ".epsf", ".epsi"),
                magic=_is_postscript)
