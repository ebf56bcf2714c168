"""Formats recognised and not read: PostScript, DVI, DjVu, 7-Zip, RAR, Outlook's data files; each
``unsupported`` with a reason naming it and what is read instead.

Read as text they were garbage (PostScript is two-thirds operators:
``%!PS-Adobe-3.0 ... moveto show``), or refused as "binary data of no format
lifededup reads", which says nothing of what the file is or what to do.  No
program that reads them (Ghostscript's ``ps2ascii``, ``dvi2tty``,
``djvutxt``, ``7z``, ``unrar``, ``readpst``) is among the ones lifededup installs
(scripts/install-system-deps.sh), so each is recorded as not read, with its
format named and the form of the same document that is read.  Gzipped
(``.ps.gz``, ``.dvi.gz``, as Debian ships manuals) they are the same.
"""

from __future__ import annotations

from lifededup.extract.base import Extracted, Format, Probe, Source, UnsupportedFormat

# DOS EPS: a binary header before the PostScript (and a TIFF or WMF preview)
_DOS_EPS = b"\xc5\xd0\xd3\xc6"
_7Z = b"7z\xbc\xaf\x27\x1c"
# DVI's preamble: pre (247), version 2, then the numerator TeX always writes (25400000)
_DVI = b"\xf7\x02\x01\x83\x92\xc0"
_RAR = b"Rar!\x1a\x07"
# Outlook's Personal Storage Table: "!BDN", a CRC, then "SM" (a .pst) or "SO" (an .ost, an Exchange cache)
_PST = b"!BDN"

_REASONS = {
    "PostScript": "PostScript is not read (a program drawing its pages, not text); its PDF (ps2pdf) is",
    "DVI": "DVI (TeX's output) is not read; its PDF (dvipdf) or its TeX source is",
    "DjVu": "DjVu (scanned pages) is not read; a PDF of the scan is (with `lifededup index --ocr`)",
    "7-Zip": "7-Zip archives are not read; a .zip or .tar.gz of the same files is",
    "RAR": "RAR archives are not read; a .zip or .tar.gz of the same files is",
    "an Outlook data file": ("its mail, contacts and calendar are not read; exported from Outlook as .msg or .eml "
                             "files, or converted to mailboxes by readpst (Debian's pst-utils: readpst -o DIR "
                             "FILE), they are"),
}


def _format(head: bytes) -> str:
    if head.lstrip(b"\x04\r\n\t ").startswith(b"%!PS") or head.startswith(_DOS_EPS):  # a Ctrl-D some drivers put first
        return "PostScript"
    if head.startswith(_DVI):
        return "DVI"
    if head.startswith(b"AT&TFORM") and head[12:16] in (b"DJVU", b"DJVM", b"DJVI"):
        return "DjVu"
    if head.startswith(_RAR):
        return "RAR"
    if head.startswith(_PST) and head[8:10] in (b"SM", b"SO"):
        return "an Outlook data file"
    return "7-Zip" if head.startswith(_7Z) else ""


def extract_unread(source: Source) -> Extracted:
    fmt = _format(source.head(64)) or _BY_NAME.get(source.suffix.lower(), "PostScript")
    raise UnsupportedFormat(f"{source.name} is {fmt}: {_REASONS[fmt]}")


_BY_NAME = {".7z": "7-Zip", ".dvi": "DVI", ".djvu": "DjVu", ".djv": "DjVu", ".rar": "RAR",
            ".pst": "an Outlook data file", ".ost": "an Outlook data file"}


def _is_unread(probe: Probe) -> bool:
    return bool(_format(probe.head))


FORMAT = Format(name="unread", extract=extract_unread, magic=_is_unread,
                suffixes=(".ps", ".eps", ".epsf", ".epsi", ".dvi", ".djvu", ".djv", ".7z", ".rar", ".pst", ".ost"))
