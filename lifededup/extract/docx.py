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
from typing import TYPE_CHECKING

from lxml import etree  # type: ignore[import-untyped]

from lifededup.extract.base import Extracted, Format, Probe, Source, last_saved
from lifededup.extract.drawing import CHART, DIAGRAM, chart_text, diagram_text
from lifededup.extract.html import drop_element
from lifededup.extract.layout import clean_text

if TYPE_CHECKING:  # python-docx is imported where a document is read (extract/html.py says why)
    from docx import types as t
    from docx.document import Document
    from docx.table import Table


_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_NS = {"w": _W[1:-1], "mc": "http://schemas.openxmlformats.org/markup-compatibility/2006"}

# A paragraph's text as Word shows it with its tracked changes accepted: every run's
# text in document order, wherever the run sits (a pending insertion <w:ins>, a link,
# a content control <w:sdt>, a smart tag, <w:customXml>, a simple field), except
# text deleted or moved away (<w:del>, <w:moveFrom>; deleted text is <w:delText>,
# not read either), the fallback copy of an alternate content (<mc:Fallback>
# repeats <mc:Choice>). A paragraph holding a text box (<w:txbxContent>) is
# read by _paragraph_blocks instead, its boxes apart, where they are anchored.
# python-docx's ``Paragraph.text`` reads only the runs that are children of the
# paragraph or of a link, and lost all the others: a Word draft with 40% of its
# paragraphs as pending insertions read 6,014 of its 10,912 words.
_RUN_TEXT = etree.XPath(
    ".//w:r/*[self::w:t or self::w:tab or self::w:ptab or self::w:br or self::w:cr or self::w:noBreakHyphen]"
    "[not(ancestor::w:del or ancestor::w:moveFrom or ancestor::mc:Fallback)]",
    namespaces=_NS)
_RUN_MARKS = {f"{_W}tab": "\t", f"{_W}ptab": "\t", f"{_W}br": "\n", f"{_W}cr": "\n", f"{_W}noBreakHyphen": "-"}


def _paragraph_text(p: etree._Element) -> str:
    return "".join(e.text or "" if e.tag == f"{_W}t" else _RUN_MARKS[e.tag] for e in _RUN_TEXT(p))


_HAS_BOX = etree.XPath("boolean(.//w:txbxContent[not(ancestor::mc:Fallback)])", namespaces=_NS)
# what a paragraph's walk does not enter: deleted or moved-away text, alternate content's fallback copy
_NOT_READ = frozenset({f"{_W}del", f"{_W}moveFrom", f"{{{_NS['mc']}}}Fallback"})


def _paragraph_blocks(p: etree._Element, parent: t.ProvidesStoryPart) -> Iterator[str]:
    """A paragraph holding text boxes (a newsletter's sidebar): its text up to
    each box, the box's blocks, then the rest -- where an ODT or a PDF of the
    same document has them. The box is read once: Word keeps it twice, as a
    drawing (<mc:Choice>) and as its VML fallback (<mc:Fallback>, not read)."""
    found: list[str] = []
    text: list[str] = []

    def walk(element: etree._Element) -> None:
        for child in element:
            if child.tag in _NOT_READ:
                continue
            if child.tag == f"{_W}txbxContent":
                found.append("".join(text))
                text.clear()
                found.extend(_blocks(child, parent))
            elif element.tag == f"{_W}r" and child.tag == f"{_W}t":
                text.append(child.text or "")
            elif element.tag == f"{_W}r" and child.tag in _RUN_MARKS:
                text.append(_RUN_MARKS[child.tag])
            else:
                walk(child)

    walk(p)
    found.append("".join(text))
    yield from (block for block in found if block)


# the parts of the charts and SmartArt graphics a paragraph holds, by relationship (not Word's fallback copies)
_GRAPHICS = etree.XPath(
    ".//a:graphicData[not(ancestor::mc:Fallback)]/*[self::c:chart/@r:id or self::dgm:relIds]",
    namespaces={**_NS, **CHART, **DIAGRAM})


def _graphics(p: etree._Element, parent: t.ProvidesStoryPart) -> Iterator[str]:
    """The words of each chart and SmartArt graphic in the paragraph, after it (python-docx reads neither)."""
    r = f"{{{DIAGRAM['r']}}}"
    for graphic in _GRAPHICS(p):
        chart = graphic.tag == f"{{{CHART['c']}}}chart"
        related = parent.part.rels.get(graphic.get(f"{r}id" if chart else f"{r}dm"))
        if related is not None and not related.is_external:
            yield (chart_text if chart else diagram_text)(related.target_part.blob)


def _blocks(container: etree._Element, parent: t.ProvidesStoryPart) -> Iterator[str]:
    """The text of each paragraph and table in ``container`` (a body, cell, header, note),
    in order, through block-level content controls (<w:sdt>) and <w:customXml>,
    which python-docx's ``iter_inner_content()`` skipped with all they hold."""
    for child in container:
        if child.tag == f"{_W}p":
            yield from _paragraph_blocks(child, parent) if _HAS_BOX(child) else (_paragraph_text(child),)
            yield from _graphics(child, parent)
        elif child.tag == f"{_W}tbl":
            from docx.table import Table

            yield "\n".join(_table_lines(Table(child, parent)))
        elif child.tag == f"{_W}sdt":
            for content in child.iterchildren(f"{_W}sdtContent"):
                yield from _blocks(content, parent)
        elif child.tag == f"{_W}customXml":
            yield from _blocks(child, parent)


def _table_lines(table: Table) -> Iterator[str]:
    # python-docx gives a merged cell once per grid column and per row it spans: each is read once, where
    # it starts (by its element: two cells side by side that say the same, "Yes Yes", are two cells)
    seen: set[etree._Element] = set()
    for row in table.rows:
        cells: list[str] = []
        for cell in row.cells:
            if cell._tc in seen:
                continue
            seen.add(cell._tc)
            text = " ".join(" ".join(_blocks(cell._tc, table)).split())
            if text:
                cells.append(text)
        if cells:
            yield " ".join(cells)


def _body(document: Document) -> Iterator[str]:
    return _blocks(document.element.body, document)


def _notes(document: Document) -> Iterator[str]:
    """Footnote and endnote texts (python-docx has no API for them: read their XML parts)."""
    from docx.opc.constants import RELATIONSHIP_TYPE as RT

    for rel in document.part.rels.values():
        if rel.is_external or rel.reltype not in (RT.FOOTNOTES, RT.ENDNOTES):
            continue
        # parsed as python-docx parses the document, entities not resolved (a parser a call: not shared by threads)
        root = etree.fromstring(rel.target_part.blob, etree.XMLParser(resolve_entities=False, no_network=True))
        _drop_entities(root)
        for note in root.iterchildren(f"{_W}footnote", f"{_W}endnote"):
            if note.get(f"{_W}type") in ("separator", "continuationSeparator", "continuationNotice"):
                continue
            text = "\n".join(p for p in _blocks(note, document) if p.strip())
            if text:
                yield text


def _edges(document: Document) -> tuple[str, str]:
    headers: list[str] = []
    footers: list[str] = []
    for section in document.sections:
        for part, into in ((section.header, headers), (section.footer, footers)):
            text = "\n".join(p for p in _blocks(part.part.element, part) if p.strip())
            if text and text not in into:
                into.append(text)
    return "\n".join(headers), "\n".join(footers)


def _drop_entities(element: etree._Element) -> None:
    """python-docx parses without resolving entities (no XXE), leaving each
    reference as a node whose tail holds the text after it, which ``.text``
    then loses: drop the references, keep the text after them."""
    for entity in list(element.iter(etree.Entity)):
        if entity.getparent() is not None:
            drop_element(entity)


# The main part's content type of Word's macro-enabled documents and templates, which python-docx refuses (".docm
# is not a Word file"), though the part is a document's; the same for PowerPoint's (python-pptx: pptx.py).
WORD_MAIN = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
_WORD_VARIANTS = ("application/vnd.ms-word.document.macroEnabled.main+xml",
                  "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml",
                  "application/vnd.ms-word.template.macroEnabledTemplate.main+xml")


def as_main_type(data: bytes, variants: tuple[str, ...], main: str) -> bytes:
    """The package ``data`` with its main part's content type, if one of ``variants`` (a template's, a
    macro-enabled file's), rewritten to ``main``, in memory: the library then reads it as the document it is.
    The file itself is never written to; a package with no such type is returned as it is."""
    import zipfile

    with zipfile.ZipFile(io.BytesIO(data)) as package:
        name = next((n for n in package.namelist() if n.lower() == "[content_types].xml"), None)
        if name is None:
            return data
        types = package.read(name)
        changed = types
        for variant in variants:
            changed = changed.replace(variant.encode(), main.encode())
        if changed == types:
            return data
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as copy:
            for info in package.infolist():
                copy.writestr(info, changed if info.filename == name else package.read(info))
        return out.getvalue()


def extract_docx(source: Source) -> Extracted:
    import docx

    document = docx.Document(io.BytesIO(as_main_type(source.read_bytes(), _WORD_VARIANTS, WORD_MAIN)))
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


FORMAT = Format(name="docx", extract=extract_docx, suffixes=(".docx", ".docm", ".dotx", ".dotm"), magic=_is_docx,
                zipped=True, signed=True)
