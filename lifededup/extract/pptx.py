"""PowerPoint 2007+ ``.pptx`` (python-pptx): each slide's text (text boxes, tables, grouped shapes, charts, SmartArt), then its notes."""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from typing import Any

from lifededup.extract.base import CorruptFile, EmptyFile, Extracted, Format, Probe, Source, last_saved, parse_xml
from lifededup.extract.layout import clean_text


# The main part's content type of PowerPoint's templates and macro-enabled files, which python-pptx refuses.
_MAIN = "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"
_VARIANTS = ("application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml",
             "application/vnd.openxmlformats-officedocument.presentationml.template.main+xml",
             "application/vnd.ms-powerpoint.template.macroEnabled.main+xml",
             "application/vnd.ms-powerpoint.slideshow.macroEnabled.main+xml")


def extract_pptx(source: Source) -> Extracted:
    from pptx import Presentation

    from lifededup.extract.docx import as_main_type

    deck = Presentation(io.BytesIO(as_main_type(source.read_bytes(), _VARIANTS, _MAIN)))
    slides = []
    for slide in deck.slides:
        texts = [text for text in _shape_texts(slide.shapes) if text.strip()]
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
            texts.append(slide.notes_slide.notes_text_frame.text)
        slides.append("\n\n".join(texts))
    text = clean_text("\n\n".join(slides))
    if not text.strip():  # as a .ppt of no text is
        raise EmptyFile(f"{source.name} holds no slide text")
    props = deck.core_properties
    return Extracted(text=text, title=(props.title or "").strip(), kind="presentation",
                     mime="application/vnd.openxmlformats-officedocument.presentationml.presentation",
                     doc_date=last_saved(props.created, props.modified), metadata={"slides": str(len(slides))})


def _shape_texts(shapes: Iterable[Any]) -> Iterator[str]:
    """The text of each shape in order: a group's shapes, in it, in theirs; a table's rows as lines, cells as words."""
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    for shape in shapes:
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            yield from _shape_texts(shape.shapes)
        elif getattr(shape, "has_table", False):
            rows = (" ".join(cell.text_frame.text.replace("\n", " ") for cell in row.cells) for row in shape.table.rows)
            yield "\n".join(row for row in rows if row.strip())
        elif shape.has_text_frame:
            yield shape.text_frame.text
        elif getattr(shape, "has_chart", False):
            yield _chart_text(shape.chart_part.blob)
        elif (diagram := _diagram_part(shape)) is not None:
            yield _diagram_text(diagram)


_CHART = {"c": "http://schemas.openxmlformats.org/drawingml/2006/chart",
          "a": "http://schemas.openxmlformats.org/drawingml/2006/main"}


def _chart_text(xml: bytes) -> str:
    """A chart's words as the slide shows them: its title, its series' names, its categories' labels (not
    its values, nor categories that are numbers: Excel's date serials, 37261.0).  A deck of charts was
    "empty: no slide text" (17 of python-pptx's test decks).  Read from the chart's XML, whatever the kind
    of chart (python-pptx's own chart objects know some kinds only: an area3DChart is NotImplementedError)."""
    try:
        chart = parse_xml(xml, "a chart")
    except CorruptFile:  # a chart's damage loses that chart alone
        return ""
    title = " ".join(t.text or "" for t in chart.iterfind("c:chart/c:title//a:t", _CHART))
    series = [v.text or "" for v in chart.iterfind(".//c:ser/c:tx//c:v", _CHART)]
    labels = [v.text or "" for v in chart.iterfind(".//c:ser/c:cat//c:pt/c:v", _CHART)]
    lines = (title, " ".join(dict.fromkeys(series)), " ".join(w for w in dict.fromkeys(labels) if not _is_number(w)))
    return "\n".join(line for line in lines if line.strip())


_DIAGRAM = {"dgm": "http://schemas.openxmlformats.org/drawingml/2006/diagram",
            "a": "http://schemas.openxmlformats.org/drawingml/2006/main",
            "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships"}


def _diagram_part(shape: Any) -> bytes | None:
    """A SmartArt graphic's data part (its boxes' text), which python-pptx does not read; None for other shapes."""
    found = shape.element.find("a:graphic/a:graphicData/dgm:relIds", _DIAGRAM)
    data = None if found is None else found.get(f"{{{_DIAGRAM['r']}}}dm")
    try:
        return bytes(shape.part.related_part(data).blob) if data else None
    except KeyError:  # a relationship the package lacks: the graphic is lost, not the deck
        return None


def _diagram_text(xml: bytes) -> str:
    """Each box of a SmartArt graphic (a process, an organisation chart) as a line: the points holding text."""
    try:
        data = parse_xml(xml, "a SmartArt graphic")
    except CorruptFile:
        return ""
    boxes = (" ".join(t.text or "" for t in point.iterfind("dgm:t//a:t", _DIAGRAM))
             for point in data.iterfind("dgm:ptLst/dgm:pt", _DIAGRAM))
    return "\n".join(box.strip() for box in boxes if box.strip())


def _is_number(label: str) -> bool:
    try:
        float(label)
    except ValueError:
        return False
    return True


def _is_pptx(probe: Probe) -> bool:
    return any(n.startswith("ppt/") for n in probe.zip_names())


FORMAT = Format(name="pptx", kind="presentation", extract=extract_pptx, magic=_is_pptx, zipped=True,
                suffixes=(".pptx", ".pptm", ".potx", ".potm", ".ppsx", ".ppsm"))
