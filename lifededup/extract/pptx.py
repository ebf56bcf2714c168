"""PowerPoint 2007+ ``.pptx`` (python-pptx): each slide's text (text boxes, tables, grouped shapes,
charts, SmartArt), then its notes."""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from typing import Any

from lifededup.extract.base import EmptyFile, Extracted, Format, Probe, Source, last_saved, pictures_said
from lifededup.extract.drawing import DIAGRAM, chart_text, diagram_text
from lifededup.extract.layout import clean_text


# The main part's content type of PowerPoint's templates, shows and macro-enabled files, which python-pptx
# refuses.  A show (.ppsx, a deck that opens playing: forwarded by mail as often as a .pptx) was "damaged"
_MAIN = "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"
_VARIANTS = ("application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml",
             "application/vnd.openxmlformats-officedocument.presentationml.template.main+xml",
             "application/vnd.ms-powerpoint.template.macroEnabled.main+xml",
             "application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml",
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
        raise EmptyFile(f"{source.name} holds no slide text{pictures_said(source)}")
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
            yield chart_text(shape.chart_part.blob)
        elif (diagram := _diagram_part(shape)) is not None:
            yield diagram_text(diagram)


def _diagram_part(shape: Any) -> bytes | None:
    """A SmartArt graphic's data part (its boxes' text), which python-pptx does not read; None for other shapes."""
    found = shape.element.find("a:graphic/a:graphicData/dgm:relIds", DIAGRAM)
    data = None if found is None else found.get(f"{{{DIAGRAM['r']}}}dm")
    try:
        return bytes(shape.part.related_part(data).blob) if data else None
    except KeyError:  # a relationship the package lacks: the graphic is lost, not the deck
        return None


def _is_pptx(probe: Probe) -> bool:
    return any(n.startswith("ppt/") for n in probe.zip_names())


FORMAT = Format(name="pptx", kind="presentation", extract=extract_pptx, magic=_is_pptx, zipped=True, signed=True,
                suffixes=(".pptx", ".pptm", ".potx", ".potm", ".ppsx", ".ppsm"))
