"""Excel 2003 XML (SpreadsheetML, ``<Workbook>``): each sheet's name, then its rows, as the ``.xlsx`` reader.

Excel 2003's "XML Spreadsheet" is what many web applications, banks and
report tools still give for "export to Excel", often named ``.xls``, which
Excel opens all the same; LibreOffice writes it too ("Microsoft Excel 2003
XML").  Read as plain text (named ``.xml``) a statement of eight rows was
6 KB of styles and colours; named ``.xls`` it was read as a web page, each
row's cells run together into one word ("datedescriptionamount").  Each
sheet gives its name, then its rows as lines of non-empty cells a space
apart: a number as the ``.xlsx`` reader shows it (59, not 59.0), a date as
``2023-12-16 00:00:00``, a cell's comment not read (the ``.xlsx`` reader
reads none).  Its title and dates are its ``DocumentProperties``.  Read as
a stream, element by element: an export of a hundred thousand rows is not
held whole; entities are never resolved and the network is never read.
"""

from __future__ import annotations

import io
import re
from typing import Any

from lifededup.extract.base import CorruptFile, Extracted, Format, Probe, Source, iso_date, last_saved
from lifededup.extract.xlsx import rows_text

_SS = "{urn:schemas-microsoft-com:office:spreadsheet}"
_O = "{urn:schemas-microsoft-com:office:office}"
_PROPERTIES = {f"{_O}Title", f"{_O}Created", f"{_O}LastSaved"}


def extract_spreadsheetml(source: Source) -> Extracted:
    from lxml import etree  # type: ignore[import-untyped]

    sheets: list[str] = []
    told: dict[str, str] = {}
    rows: list[tuple[object, ...]] = []
    cells: list[object] = []
    name = ""
    events = etree.iterparse(io.BytesIO(source.read_bytes()), events=("start", "end"), resolve_entities=False,
                             no_network=True, huge_tree=False, recover=True)
    try:
        for event, element in events:
            tag = element.tag
            if event == "start":
                if tag == f"{_SS}Worksheet":
                    name, rows = element.get(f"{_SS}Name") or "", []
                elif tag == f"{_SS}Row":
                    cells = []
                continue
            if tag == f"{_SS}Data" and element.getparent() is not None and element.getparent().tag == f"{_SS}Cell":
                cells.append(_value(element))
            elif tag == f"{_SS}Row":
                rows.append(tuple(cells))
                element.clear()
            elif tag == f"{_SS}Worksheet":
                sheets.append(f"{name}\n{rows_text(iter(rows))}")
                element.clear()
            elif tag in _PROPERTIES:
                told[tag.removeprefix(_O)] = " ".join((element.text or "").split())
    except etree.XMLSyntaxError as exc:
        if not sheets and not rows:
            raise CorruptFile(f"unreadable XML in {source.name}: {exc}") from exc
    damage = [e for e in events.error_log if e.level >= etree.ErrorLevels.ERROR]
    if damage and not sheets:  # recovered: a sheet cut short is read as far as it goes
        raise CorruptFile(f"damaged or truncated XML spreadsheet {source.name}: {damage[0].message}")
    return Extracted(text="\n\n".join(sheets), title=told.get("Title", ""), kind="spreadsheet",
                     mime="application/vnd.ms-excel.2003+xml", metadata={"sheets": str(len(sheets))},
                     doc_date=last_saved(iso_date(told.get("Created", "")), iso_date(told.get("LastSaved", ""))))


def _value(data: Any) -> object:
    """A cell's value as openpyxl gives the same cell of an ``.xlsx``: a number a float, a date a datetime."""
    text = "".join(data.itertext())  # rich text: <html:B>, <html:Font> inside
    kind = data.get(f"{_SS}Type")
    if kind == "Number":
        try:
            return float(text)
        except ValueError:
            return text
    if kind == "DateTime":
        return iso_date(text) or text
    if kind == "Boolean":
        return text.strip() in ("1", "true", "TRUE")
    return text


# Excel's processing instruction, or the root element in SpreadsheetML's namespace, in the first bytes
_SIGNED = re.compile(rb"<\?mso-application\s+progid=\"Excel\.Sheet\"\?>\s*(?:<!--.*?-->\s*)*<(?:ss:)?Workbook\s"
                     rb"|<(?:ss:)?Workbook\s[^>]*\"urn:schemas-microsoft-com:office:spreadsheet\"", re.DOTALL)


def _is_spreadsheetml(probe: Probe) -> bool:
    return probe.is_markup and _SIGNED.search(probe.head) is not None


FORMAT = Format(name="spreadsheetml", kind="spreadsheet", extract=extract_spreadsheetml, magic=_is_spreadsheetml)
