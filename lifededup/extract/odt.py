"""OpenDocument (odfpy): text, spreadsheets, presentations and drawings, and their templates, from content.xml.

A text's footnotes go after the body, as the DOCX extractor puts them.  A
spreadsheet gives each sheet's name, then its rows as lines of non-empty cells
a space apart (numbers as their value, as the .xlsx reader gives them); a
presentation or drawing gives each page's paragraphs (text boxes, tables,
speaker notes) in order.  Thumbnails, styles and settings are never read.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

from lifededup.extract.base import Extracted, Format, Probe, Source, iso_date, last_saved
from lifededup.extract.layout import clean_text


# The body element of each OpenDocument type (its mimetype without "-template", "-master"...) and its kind of file.
_BODIES = {"text": ("text", "document"), "spreadsheet": ("spreadsheet", "spreadsheet"),
           "presentation": ("presentation", "presentation"), "graphics": ("drawing", "document")}
_MIME = "application/vnd.oasis.opendocument."


def extract_odt(source: Source) -> Extracted:
    return read_package(io.BytesIO(source.read_bytes()))


def read_package(package: io.BytesIO) -> Extracted:
    """The text, title and dates of an OpenDocument package (a zip) as odfpy loads it."""
    from odf import teletype  # type: ignore[import-untyped]
    from odf.namespaces import DCNS, METANS  # type: ignore[import-untyped]
    from odf import opendocument

    # odfpy prints "SAX FAILED TO PARSE" and the whole part on standard output where a part is damaged (the
    # user's terminal: a cut content.xml of 4 KB, or of megabytes), and reads the part as far as it goes
    opendocument.print = _unsaid
    document = opendocument.load(package)
    mime = str(document.mimetype or _MIME + "text")
    body, kind = _BODIES.get(mime.removeprefix(_MIME).split("-")[0], ("text", "document"))
    # office:body's element of that type (odfpy's document.spreadsheet is an empty stand-in for some writers')
    content = next((node for node in _walk_odf(document.body) if node.qname[1] == body), None)
    if body == "spreadsheet":  # lines of cells, which clean_text would join into one paragraph
        text = "\n\n".join(_sheet_text(table) for table in _walk_odf(content) if table.qname[1] == "table")
    else:
        text = clean_text(_paragraphs_text(content))
    meta = {node.qname: teletype.extractText(node) for node in _walk_odf(document.meta)}
    return Extracted(text=text, title=meta.get((DCNS, "title"), "").strip(), kind=kind, mime=mime,
                     doc_date=last_saved(iso_date(meta.get((METANS, "creation-date"), "")),
                                         iso_date(meta.get((DCNS, "date"), ""))))


def _unsaid(*_: object, **__: object) -> None:
    pass


def _paragraphs_text(body: Any) -> str:
    """Every paragraph and heading of a text, or of a presentation's or drawing's pages, then the footnotes."""
    from odf.namespaces import TEXTNS

    notes: list[str] = []
    paragraphs = [_odf_text(node, notes) for node in _walk_odf(body) if node.qname in ((TEXTNS, "p"), (TEXTNS, "h"))]
    return "\n\n".join([*paragraphs, *notes])


def _sheet_text(table: Any) -> str:
    """A sheet's name, then its rows as lines of non-empty cells a space apart.  A repeated row or cell
    (``number-rows-repeated``: a sheet's million empty rows are one) is read once."""
    from odf.namespaces import OFFICENS, TABLENS

    lines = []
    for row in _walk_odf(table):
        if row.qname != (TABLENS, "table-row"):
            continue
        cells = []
        for cell in row.childNodes:
            if getattr(cell, "qname", None) != (TABLENS, "table-cell"):
                continue
            value = cell.attributes.get((OFFICENS, "value"))
            if cell.attributes.get((OFFICENS, "value-type")) in ("float", "percentage", "currency") and value:
                text = _number(value)
            else:
                notes: list[str] = []
                text = " ".join(_odf_text(p, notes) for p in cell.childNodes
                                if getattr(p, "qname", ("", ""))[1] in ("p", "h"))
            if text.strip():
                cells.append(text.strip())
        if cells:
            lines.append(" ".join(cells))
    return f"{table.getAttribute('name') or ''}\n" + "\n".join(lines)


def _number(value: str) -> str:
    """A number as the .xlsx reader shows it (59, not 59.0), so one workbook saved as both gives one text."""
    try:
        number = float(value)
    except ValueError:
        return value
    return str(int(number)) if number.is_integer() and abs(number) < 1e16 else str(number)


def _odf_text(node: Any, notes: list[str]) -> str:
    """A paragraph's text; its notes' bodies are moved to ``notes`` and their citation marks dropped."""
    out = []
    for child in getattr(node, "childNodes", []):
        qname = getattr(child, "qname", None)
        if qname is None:
            out.append(str(getattr(child, "data", "")))
        elif qname[1] == "note":
            body = [c for c in child.childNodes if getattr(c, "qname", ("", ""))[1] == "note-body"]
            notes.extend(_odf_text(p, notes) for b in body for p in b.childNodes if getattr(p, "qname", None))
        elif qname[1] == "s":
            out.append(" " * int(child.getAttribute("c") or 1))
        elif qname[1] in ("tab", "line-break"):
            out.append(" ")
        elif qname[1] in ("p", "h"):  # a paragraph in this one's frame or text box: a caption, not its first word
            out.append(f"\n{_odf_text(child, notes)}\n")
        else:
            out.append(_odf_text(child, notes))
    return "".join(out)


def _walk_odf(node: Any) -> Iterator[Any]:
    """Elements in document order, not descending into paragraphs (their text is taken whole).

    A draft's tracked changes (``text:tracked-changes``, at the top of the body)
    are skipped: their ``text:deletion`` regions hold the text deleted from the
    draft, which it no longer shows as its text (a DOCX's ``w:del`` is not read
    either).  Pending insertions are ordinary text between ``text:change-start``
    and ``text:change-end`` marks, read where they stand."""
    for child in getattr(node, "childNodes", []):
        if getattr(child, "qname", None) is None or child.qname[1] == "tracked-changes":
            continue
        yield child
        if child.qname[1] not in ("p", "h"):
            yield from _walk_odf(child)


def _is_odf(probe: Probe) -> bool:
    mime = probe.zip_mimetype().decode("ascii", "replace").strip()
    return mime.startswith(_MIME) and mime.removeprefix(_MIME).split("-")[0] in _BODIES


FORMAT = Format(name="odt", extract=extract_odt, magic=_is_odf, zipped=True, signed=True,
                suffixes=(".odt", ".ott", ".ods", ".ots", ".odp", ".otp", ".odg", ".otg"))
