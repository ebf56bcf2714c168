"""PowerPoint 97-2003 ``.ppt``/``.pps``: the text atoms of its record stream, read with olefile.

catdoc's ``catppt`` (which the issue names) finds no text in the .ppt files
LibreOffice writes, so the "PowerPoint Document" stream is walked here as
LibreOffice's mso-dumper (which Recoll's filter uses) walks it: records are
an 8-byte header (version/instance, type, length); containers (version 0xF)
hold records; TextCharsAtom (UTF-16) and TextBytesAtom (Latin-1) hold the
slides' and notes' text, in order.  Master slides are skipped: their text is
the template's placeholders ("Click to edit the title text format").
"""

from __future__ import annotations

import struct

from lifededup.extract.base import CorruptFile, EmptyFile, EncryptedFile, Extracted, Format, Probe, Source, ole_data
from lifededup.extract.layout import clean_text

_TEXT_CHARS, _TEXT_BYTES = 0x0FA0, 0x0FA8
_MAIN_MASTER, _HANDOUT = 0x03F8, 0x0FC9
# Past this nesting the stream is damaged or hostile.
_MAX_NESTING = 32


def text_atoms(stream: bytes, start: int = 0, end: int | None = None, depth: int = 0) -> list[str]:
    """The text of every text atom outside the master slides, in stream order."""
    out: list[str] = []
    offset, end = start, len(stream) if end is None else end
    while offset + 8 <= end:
        ver_inst, kind, length = struct.unpack_from("<HHI", stream, offset)
        body = offset + 8
        if length > end - body:
            break
        if ver_inst & 0xF == 0xF:
            if kind not in (_MAIN_MASTER, _HANDOUT) and depth < _MAX_NESTING:
                out.extend(text_atoms(stream, body, body + length, depth + 1))
        elif kind == _TEXT_CHARS:
            out.append(stream[body:body + length].decode("utf-16-le", "replace"))
        elif kind == _TEXT_BYTES:
            out.append(stream[body:body + length].decode("latin-1"))
        offset = body + length
    return out


def extract_ppt(source: Source) -> Extracted:
    import olefile  # type: ignore[import-untyped]

    with olefile.OleFileIO(ole_data(source)) as ole:
        if ole.exists("EncryptedSummary"):
            raise EncryptedFile("the PowerPoint file is encrypted with a password")
        if not ole.exists("PowerPoint Document"):
            raise CorruptFile("an OLE2 file without a 'PowerPoint Document' stream")
        stream = ole.openstream("PowerPoint Document").read()
    # "*" alone is a slide-number field
    texts = [t.replace("\r", "\n").replace("\x0b", "\n") for t in text_atoms(stream) if t.strip() not in ("", "*")]
    if not texts:
        raise EmptyFile(f"{source.name} holds no slide text")
    return Extracted(text=clean_text("\n\n".join(texts)), kind="presentation", mime="application/vnd.ms-powerpoint")


def _is_ppt(probe: Probe) -> bool:
    return "PowerPoint Document" in probe.ole_streams()


FORMAT = Format(name="ppt", kind="presentation", extract=extract_ppt, suffixes=(".ppt", ".pps", ".pot"),
                magic=_is_ppt, signed=True)
