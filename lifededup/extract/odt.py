"""OpenDocument text (odfpy); footnotes go after the body, as the DOCX extractor puts them."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

from lifededup.extract.base import Extracted, Format, Probe, Source, iso_date, last_saved
from lifededup.extract.layout import clean_text


def extract_odt(source: Source) -> Extracted:
    from odf import teletype  # type: ignore[import-untyped]
    from odf.namespaces import DCNS, METANS, TEXTNS  # type: ignore[import-untyped]
    from odf.opendocument import load  # type: ignore[import-untyped]

    document = load(io.BytesIO(source.read_bytes()))
    notes: list[str] = []
    paragraphs = [_odf_text(node, notes) for node in _walk_odf(document.text)
                  if node.qname in ((TEXTNS, "p"), (TEXTNS, "h"))]
    meta = {node.qname: teletype.extractText(node) for node in _walk_odf(document.meta)}
    return Extracted(text=clean_text("\n\n".join([*paragraphs, *notes])),
                     title=meta.get((DCNS, "title"), "").strip(),
                     kind="document", mime="application/vnd.oasis.opendocument.text",
                     doc_date=last_saved(iso_date(meta.get((METANS, "creation-date"), "")),
                                         iso_date(meta.get((DCNS, "date"), ""))))


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


def _is_odt(probe: Probe) -> bool:
    return probe.zip_mimetype().startswith(b"application/vnd.oasis.opendocument.text")


FORMAT = Format(name="odt", extract=extract_odt, suffixes=(".odt",), magic=_is_odt, zipped=True)
