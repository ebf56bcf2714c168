"""PowerPoint 2007+ ``.pptx`` (python-pptx): each slide's text, then its notes."""

from __future__ import annotations

import io

from lifededup.extract.base import Extracted, Format, Probe, Source, last_saved
from lifededup.extract.layout import clean_text


def extract_pptx(source: Source) -> Extracted:
    from pptx import Presentation

    deck = Presentation(io.BytesIO(source.read_bytes()))
    slides = []
    for slide in deck.slides:
        texts = [shape.text_frame.text for shape in slide.shapes if shape.has_text_frame and shape.text_frame.text]
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
            texts.append(slide.notes_slide.notes_text_frame.text)
        slides.append("\n\n".join(texts))
    props = deck.core_properties
    return Extracted(text=clean_text("\n\n".join(slides)), title=(props.title or "").strip(), kind="presentation",
                     mime="application/vnd.openxmlformats-officedocument.presentationml.presentation",
                     doc_date=last_saved(props.created, props.modified), metadata={"slides": str(len(slides))})


def _is_pptx(probe: Probe) -> bool:
    return any(n.startswith("ppt/") for n in probe.zip_names())


FORMAT = Format(name="pptx", kind="presentation", extract=extract_pptx, suffixes=(".pptx",), magic=_is_pptx,
                zipped=True)
