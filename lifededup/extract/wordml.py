"""Word 2003 XML (WordprocessingML, ``<w:wordDocument>``): paragraphs and tables, notes last, as a DOCX.

Word 2003 saved "XML Document" as one XML file, usually named ``.xml``
(sometimes ``.doc``, which Word opens all the same); LibreOffice still
writes it ("Word 2003 XML").  Read as plain text, a two-page report was
53 KB of markup -- styles, lists, fonts -- and named ``.doc`` it was read
as a web page, its properties run together into its first words.  Its
elements are a DOCX's ancestors, read the same way: each paragraph's runs
(``w:t``, a tab or a break a space), a tracked deletion not read (its text
is ``w:delText``), a table a line a row of its cells' words, a text box
where it is anchored, footnotes and endnotes (inline in a run here) after
the body; headers and footers (in ``w:sectPr``) are layout and not read, as
the DOCX reader keeps them apart, nor a reviewer's comments (inline here, in
a part of their own in a DOCX).  Its title and dates are its
``o:DocumentProperties``.  Entities are never resolved and the network is
never read (``parse_xml``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from lifededup.extract.base import Extracted, Format, Probe, Source, iso_date, last_saved, parse_xml
from lifededup.extract.layout import clean_text

_W = "{http://schemas.microsoft.com/office/word/2003/wordml}"
_O = "{urn:schemas-microsoft-com:office:office}"
# Where a run's words are, and what a mark in a run reads as
_RUN_MARKS = {f"{_W}tab": " ", f"{_W}br": "\n", f"{_W}cr": "\n", f"{_W}noBreakHyphen": "-", f"{_W}softHyphen": ""}
# Never words of the page: section properties (headers, footers), pictures' data, field codes, deleted text
_NOT_READ = frozenset(f"{_W}{name}" for name in ("sectPr", "binData", "instrText", "delText", "pPr", "rPr"))
_NOTES = frozenset({f"{_W}footnote", f"{_W}endnote"})
_BOX = f"{_W}txbxContent"
# A reviewer's comment (its body inline, where a DOCX keeps it in a part of its own, not read) and a tracked
# deletion are annotations of these types
_ANNOTATION, _NOT_TEXT = "{http://schemas.microsoft.com/aml/2001/core}annotation", ("Word.Comment", "Word.Deletion")


def _skipped(element: Any) -> bool:
    return (not isinstance(element.tag, str) or element.tag in _NOT_READ
            or (element.tag == _ANNOTATION and element.get(f"{_W}type") in _NOT_TEXT))


def extract_wordml(source: Source) -> Extracted:
    root = parse_xml(source.read_bytes(), source.name)
    body = root.find(f"{_W}body")
    notes: list[str] = []
    blocks = list(_blocks(body, notes)) if body is not None else []
    properties = root.find(f"{_O}DocumentProperties")

    def told(name: str) -> str:
        found = properties.find(f"{_O}{name}") if properties is not None else None
        return " ".join((found.text or "").split()) if found is not None else ""

    return Extracted(text=clean_text("\n\n".join(b for b in [*blocks, *notes] if b.strip())), title=told("Title"),
                     kind="document", mime="application/vnd.ms-word.document.2003+xml",
                     doc_date=last_saved(iso_date(told("Created")), iso_date(told("LastSaved"))))


def _blocks(container: Any, notes: list[str]) -> Iterator[str]:
    """The text of each paragraph and table in ``container`` (the body, a section, a cell, a note, a text
    box), in order; a paragraph's text boxes after it, its notes into ``notes``."""
    for child in container:
        if child.tag == f"{_W}p":
            boxes: list[str] = []
            yield _paragraph_text(child, notes, boxes)
            yield from boxes
        elif child.tag == f"{_W}tbl":
            yield "\n".join(_table_lines(child, notes))
        elif not _skipped(child):  # wx:sect, wx:sub-section, an insertion's aml:annotation
            yield from _blocks(child, notes)


def _paragraph_text(p: Any, notes: list[str], boxes: list[str]) -> str:
    out: list[str] = []

    def walk(element: Any) -> None:
        for child in element:
            if _skipped(child):
                continue
            if child.tag == f"{_W}t":
                out.append(child.text or "")
            elif child.tag in _RUN_MARKS:
                out.append(_RUN_MARKS[child.tag])
            elif child.tag in _NOTES:
                notes.append(" ".join(_blocks(child, notes)))
            elif child.tag == _BOX:
                boxes.extend(_blocks(child, notes))
            else:
                walk(child)

    walk(p)
    return "".join(out)


def _table_lines(table: Any, notes: list[str]) -> Iterator[str]:
    for row in table.iterchildren(f"{_W}tr"):
        cells = [" ".join(" ".join(_blocks(cell, notes)).split()) for cell in row.iterchildren(f"{_W}tc")]
        if any(cells):
            yield " ".join(c for c in cells if c)


# Word's processing instruction, or the root element in the WordML namespace, in the first bytes
_SIGNED = re.compile(rb"<\?mso-application\s+progid=\"Word\.Document\"\?>\s*(?:<!--.*?-->\s*)*<w:wordDocument\s"
                     rb"|<w:wordDocument\s[^>]*\"http://schemas\.microsoft\.com/office/word/2003/wordml\"", re.DOTALL)


def _is_wordml(probe: Probe) -> bool:
    return probe.is_markup and _SIGNED.search(probe.head) is not None


FORMAT = Format(name="wordml", extract=extract_wordml, magic=_is_wordml)
