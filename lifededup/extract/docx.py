"""DOCX (python-docx): body paragraphs and tables in document order, headers and footers kept apart.

Headers and footers are layout: a PDF exported from the same file repeats them
on every page and the PDF extractor removes them there, so here they go into
``metadata`` ("header", "footer") rather than the text, and the two formats agree.
Footnotes and endnotes are content and come last: "there is no 'correct'
place for an iFilter to put" a footnote (seeds/000 section 2.2, note 1).
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from datetime import timezone
from xml.etree import ElementTree

import docx
from lxml import etree  # type: ignore[import-untyped]
from docx.document import Document
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.table import Table
from docx.text.paragraph import Paragraph

from lifededup.extract.base import Extracted, Format, Probe, Source, last_saved
from lifededup.extract.layout import clean_text


def _table_lines(table: Table) -> Iterator[str]:
    for row in table.rows:
        cells: list[str] = []
        for cell in row.cells:
            text = " ".join(cell.text.split())
            # A merged cell appears once per grid column it spans; keep it once.
            if text and (not cells or cells[-1] != text):
                cells.append(text)
        if cells:
            yield " ".join(cells)


def _body(document: Document) -> Iterator[str]:
    for block in document.iter_inner_content():
        if isinstance(block, Paragraph):
            yield block.text
        elif isinstance(block, Table):
            yield "\n".join(_table_lines(block))


_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def _notes(document: Document) -> Iterator[str]:
    """Footnote and endnote texts (python-docx has no API for them: read their XML parts)."""
    for rel in document.part.rels.values():
        if rel.is_external or rel.reltype not in (RT.FOOTNOTES, RT.ENDNOTES):
            continue
        root = ElementTree.fromstring(rel.target_part.blob)
        for note in [*root.iter(f"{_W}footnote"), *root.iter(f"{_W}endnote")]:
            if note.get(f"{_W}type") in ("separator", "continuationSeparator", "continuationNotice"):
                continue
            paragraphs = ("".join(t.text or "" for t in p.iter(f"{_W}t")) for p in note.iter(f"{_W}p"))
            text = "\n".join(p for p in paragraphs if p.strip())
            if text:
                yield text


def _edges(document: Document) -> tuple[str, str]:
    headers: list[str] = []
    footers: list[str] = []
    for section in document.sections:
        for part, into in ((section.header, headers), (section.footer, footers)):
            text = "\n".join(p.text for p in part.paragraphs if p.text.strip())
            if text and text not in into:
                into.append(text)
    return "\n".join(headers), "\n".join(footers)


def _drop_entities(element: etree._Element) -> None:
    """python-docx parses without resolving entities (no XXE), leaving each
    reference as a node whose tail holds the text after it, which ``.text``
    then loses: drop the references, keep the text after them."""
    for entity in list(element.iter(etree.Entity)):
        parent, previous, tail = entity.getparent(), entity.getprevious(), entity.tail or ""
        if parent is None:
            continue
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
        parent.remove(entity)


def extract_docx(source: Source) -> Extracted:
    document = docx.Document(io.BytesIO(source.read_bytes()))
    _drop_entities(document.element)
    text = clean_text("\n\n".join([*_body(document), *_notes(document)]))
    header, footer = _edges(document)
    props = document.core_properties
    date = last_saved(props.created, props.modified)
    metadata = {k: v for k, v in (("header", header), ("footer", footer), ("author", props.author or ""),
                                  ("revision", str(props.revision or ""))) if v}
    if date is not None and date.tzinfo is None:
        date = date.replace(tzinfo=timezone.utc)  # OOXML stores W3CDTF in UTC
    return Extracted(text=text, title=(props.title or "").strip(), kind="document", doc_date=date,
                     mime="application/vnd.openxmlformats-officedocument.wordprocessingml.document",
                     metadata=metadata)


def _is_docx(probe: Probe) -> bool:
    return "word/document.xml" in probe.zip_names()


FORMAT = Format(name="docx", extract=extract_docx, suffixes=(".docx",), magic=_is_docx, zipped=True)
