"""Word 97-2003 ``.doc`` through antiword (Debian package ``antiword``), as textract would call it;
its title and dates from the file's SummaryInformation (olefile), as a .docx's from its core properties.

antiword refuses a file whose text stream is under 4 KiB ("the text stream of
this file is too small to handle"): a short letter or note LibreOffice saved.
Such a file's text is read here from its piece table (olefile; [MS-DOC]
2.4.1, "Retrieving Text"), as catdoc reads it -- catdoc is not among the
programs lifededup installs.
"""

from __future__ import annotations

import re
import struct
from datetime import datetime, timezone
from pathlib import Path

from lifededup.extract.base import CorruptFile, EncryptedFile, Extracted, Format, Probe, Source, last_saved
from lifededup.extract.layout import clean_text
from lifededup.extract.tool import run_tool

# antiword draws a table row as "|cell  |cell  |": its cells' words, as a
# .docx's table gives them (the same document saved both ways, the same text)
_TABLE_ROW = re.compile(r"^\|(.*)\|[ \t]*$", re.MULTILINE)
# a date SummaryInformation holds when none was set: FILETIME's zero
_NO_DATE = datetime(1601, 1, 1)


def extract_doc(source: Source) -> Extracted:
    with source.as_path() as path:
        try:
            out = run_tool("antiword", "antiword", "Word 97-2003 .doc", ["-m", "UTF-8.txt", "-w", "0", str(path)])
            text = out.decode("utf-8", "replace")
        except CorruptFile as exc:
            if "too small" not in str(exc):
                raise
            text = piece_table_text(path)
        title, date = _summary(path)
    text = _TABLE_ROW.sub(lambda row: " ".join(row.group(1).replace("|", " ").split()), text)
    return Extracted(text=clean_text(text.replace("[pic]", "")), title=title, kind="document",
                     mime="application/msword", doc_date=date)


# Word's marks in the text: paragraphs end, and a row ends (a cell's mark, 0x07, and its own) as a line, line and page
# breaks become line ends, a cell's end a space (a table's cells as words, as antiword's are made here); a picture, a
# footnote's mark and an optional hyphen go; a field's code (between 0x13 and 0x14) goes, its result stays.
_MARKS = str.maketrans({"\r": "\n\n", "\x07": " ", "\x0b": "\n", "\x0c": "\n\n", "\x0e": "\n", "\x01": None,
                        "\x02": None, "\x05": None, "\x08": None, "\x1f": None, "\x1e": "-"})
_FIELD_CODE = re.compile("\x13[^\x13\x14\x15]*(?:\x14|(?=\x15))")
_ROW_END = re.compile("\x07\x07(?=[^\r\x07]*\x07)")  # a row's end with a cell of the next row after it


def piece_table_text(path: Path) -> str:
    """The main text of a Word 97-2003 file, from its piece table (the text antiword refuses as too small)."""
    import olefile  # type: ignore[import-untyped]

    try:
        with olefile.OleFileIO(str(path)) as ole:
            word = ole.openstream("WordDocument").read()
            ident, flags = struct.unpack_from("<H8xH", word, 0)
            if ident != 0xA5EC:
                raise CorruptFile("not a Word 97-2003 document (its FIB's signature)")
            if flags & 0x0100:
                raise EncryptedFile("the Word 97-2003 .doc file is encrypted")
            table = ole.openstream("1Table" if flags & 0x0200 else "0Table").read()
        # the FIB: its 32-byte base, then arrays of shorts, longs and (fc, lcb) pairs, each after its count
        csw = struct.unpack_from("<H", word, 32)[0]
        longs = 34 + csw * 2
        cslw = struct.unpack_from("<H", word, longs)[0]
        ccp_text = struct.unpack_from("<i", word, longs + 2 + 3 * 4)[0]
        pairs = longs + 2 + cslw * 4 + 2
        fc_clx, lcb_clx = struct.unpack_from("<II", word, pairs + 33 * 8)
        clx = table[fc_clx:fc_clx + lcb_clx]
        at = 0
        while at < len(clx) and clx[at] == 0x01:  # Prc: formatting, skipped
            at += 3 + struct.unpack_from("<H", clx, at + 1)[0]
        if at >= len(clx) or clx[at] != 0x02:
            raise CorruptFile("damaged Word 97-2003 document: no piece table")
        size = struct.unpack_from("<I", clx, at + 1)[0]
        plc = clx[at + 5:at + 5 + size]
        pieces = (len(plc) - 4) // 12
        cps = struct.unpack_from(f"<{pieces + 1}i", plc, 0)
        out: list[str] = []
        for n in range(pieces):
            start, end = cps[n], min(cps[n + 1], ccp_text)
            if end <= start:
                continue
            fc = struct.unpack_from("<I", plc, 4 * (pieces + 1) + 8 * n + 2)[0]
            if fc & 0x40000000:  # 8-bit characters (Windows-1252) at half the offset
                offset = (fc & 0x3FFFFFFF) // 2
                out.append(word[offset:offset + end - start].decode("cp1252", "replace"))
            else:
                out.append(word[fc:fc + 2 * (end - start)].decode("utf-16-le", "replace"))
    except (OSError, struct.error, ValueError) as exc:
        raise CorruptFile(f"damaged Word 97-2003 document: {exc}") from exc
    text = _FIELD_CODE.sub("", "".join(out)).replace("\x14", "").replace("\x15", "")
    text = _ROW_END.sub("\n", text).replace("\x07\x07", "\n\n")  # a row, then another; the table's last row
    return text.translate(_MARKS)


def _summary(path: Path) -> tuple[str, datetime | None]:
    """The title and the last save (else the creation) SummaryInformation
    records; nothing where it records none or cannot be read."""
    import olefile

    try:
        with olefile.OleFileIO(str(path)) as ole:
            meta = ole.get_metadata()
    except Exception:  # noqa: BLE001 -- antiword read the text: a damaged summary costs only the title
        return "", None
    raw = meta.title or b""
    try:
        title = raw.decode("utf-8") if isinstance(raw, bytes) else str(raw)
    except UnicodeDecodeError:
        title = raw.decode("cp1252", "replace")

    def when(value: object) -> datetime | None:
        if not isinstance(value, datetime) or value <= _NO_DATE:
            return None
        return value.replace(tzinfo=timezone.utc)  # FILETIME is UTC

    return " ".join(title.split()), last_saved(when(meta.create_time), when(meta.last_saved_time))


def _is_doc(probe: Probe) -> bool:
    return "WordDocument" in probe.ole_streams()


FORMAT = Format(name="doc", extract=extract_doc, suffixes=(".doc",), magic=_is_doc)
