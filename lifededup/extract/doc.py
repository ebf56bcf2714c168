"""Word 97-2003 ``.doc`` through antiword (Debian package ``antiword``), as textract would call it;
its title and dates from the file's SummaryInformation (olefile), as a .docx's from its core properties.

antiword refuses a file whose text stream is under 4 KiB ("the text stream of
this file is too small to handle"): a short letter or note LibreOffice saved.
Such a file is read by catdoc (Debian package ``catdoc``), which reads the
same text from the file's piece table.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

from lifededup.extract.base import CorruptFile, Extracted, Format, Probe, Source, last_saved
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
            out = run_tool("antiword", "antiword", "Word 97-2003 .doc", ["-m", "UTF-8.txt", "-w", "0", str(path)],
                           name=source.name)
            text = out.decode("utf-8", "replace")
        except CorruptFile as exc:
            if "too small" not in str(exc):
                raise
            out = run_tool("catdoc", "catdoc", "short Word 97-2003 .doc", ["-d", "utf-8", "-w", str(path)],
                           name=source.name)
            text = out.decode("utf-8", "replace")
        title, date = _summary(path)
    text = _TABLE_ROW.sub(lambda row: " ".join(row.group(1).replace("|", " ").split()), text)
    return Extracted(text=clean_text(text.replace("[pic]", "")), title=title, kind="document",
                     mime="application/msword", doc_date=date)


def _summary(path: Path) -> tuple[str, datetime | None]:
    """The title and the last save (else the creation) SummaryInformation
    records; nothing where it records none or cannot be read."""
    import olefile  # type: ignore[import-untyped]

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


FORMAT = Format(name="doc", extract=extract_doc, suffixes=(".doc",), magic=_is_doc, signed=True,
                opens_text=True)
