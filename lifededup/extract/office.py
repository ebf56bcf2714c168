"""Legacy and office formats: the libraries and tools textract wraps, called directly.

textract 1.6.5 cannot be installed by pip >= 24.1 (invalid metadata,
``extract-msg<=0.29.*``) and pins 2019-era dependencies; textract 2.x returns
bare bytes (no title, date or attachments) and pulls speech recognition along.
So each format here calls what textract would have called: antiword for .doc,
python-pptx, openpyxl, xlrd, odfpy, EbookLib and extract-msg; RTF through
striprtf (pure Python) instead of the unrtf program.
"""

from __future__ import annotations

import io
import shutil
import subprocess
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from lifededup.extract.base import (
    CorruptFile, EmptyFile, EncryptedFile, Extracted, MissingTool, Source,
)
from lifededup.extract.html import parse_html
from lifededup.extract.layout import clean_text
from lifededup.extract.mail import attachment_items, strip_quotes
from lifededup.extract.text import decode

# antiword gets this long before the worker's own limit would stop the whole file.
TOOL_TIMEOUT_S = 50


def _run_tool(tool: str, package: str, fmt: str, args: list[str]) -> bytes:
    if shutil.which(tool) is None:
        raise MissingTool(tool, package, fmt)
    try:
        done = subprocess.run([tool, *args], capture_output=True, timeout=TOOL_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired as exc:
        raise CorruptFile(f"{tool} gave up after {TOOL_TIMEOUT_S} s") from exc
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = message[-1] if message else f"exit {done.returncode}"
        if "encrypt" in reason.lower() or "password" in reason.lower():
            raise EncryptedFile(f"the Word document is encrypted: {reason}")
        raise CorruptFile(f"{tool} could not read it: {reason}")
    return done.stdout


def extract_doc(source: Source) -> Extracted:
    """Word 97-2003 through antiword (Debian package ``antiword``)."""
    with source.as_path() as path:
        out = _run_tool("antiword", "antiword", "Word 97-2003 .doc", ["-m", "UTF-8.txt", "-w", "0", str(path)])
    text = clean_text(out.decode("utf-8", "replace").replace("[pic]", ""))
    return Extracted(text=text, kind="document", mime="application/msword")


def extract_rtf(source: Source) -> Extracted:
    from striprtf.striprtf import rtf_to_text

    raw, _ = decode(source.read_bytes())
    text: str = rtf_to_text(raw, errors="replace")  # type: ignore[no-untyped-call]
    return Extracted(text=clean_text(text), kind="document", mime="application/rtf")


def extract_odt(source: Source) -> Extracted:
    """OpenDocument text (odfpy); footnotes go after the body, as the DOCX extractor puts them."""
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
                     doc_date=_iso_date(meta.get((METANS, "creation-date"), "")))


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
    """Elements in document order, not descending into paragraphs (their text is taken whole)."""
    for child in getattr(node, "childNodes", []):
        if getattr(child, "qname", None) is None:
            continue
        yield child
        if child.qname[1] not in ("p", "h"):
            yield from _walk_odf(child)


def _iso_date(value: str) -> datetime | None:
    try:
        return datetime.fromisoformat(value.strip()) if value.strip() else None
    except ValueError:
        return None


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
                     doc_date=props.created, metadata={"slides": str(len(slides))})


def _cell_text(value: object) -> str:
    # .xls stores every number as a float; show 59.0 as Excel does (59), so a
    # workbook saved as .xls and as .xlsx gives the same text
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _rows_text(rows: Iterator[tuple[object, ...]]) -> str:
    lines = (" ".join(_cell_text(v) for v in row if v is not None and str(v).strip()) for row in rows)
    return "\n".join(ln for ln in lines if ln)


def extract_xlsx(source: Source) -> Extracted:
    from openpyxl import load_workbook  # type: ignore[import-untyped]

    book = load_workbook(io.BytesIO(source.read_bytes()), read_only=True, data_only=True)
    try:
        sheets = [f"{sheet.title}\n{_rows_text(sheet.iter_rows(values_only=True))}" for sheet in book.worksheets]
        props = book.properties
        return Extracted(text="\n\n".join(sheets), title=(props.title or "").strip(), kind="spreadsheet",
                         mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                         doc_date=props.created, metadata={"sheets": str(len(sheets))})
    finally:
        book.close()


def extract_xls(source: Source) -> Extracted:
    import xlrd  # type: ignore[import-untyped]

    try:
        book = xlrd.open_workbook(file_contents=source.read_bytes(), on_demand=True)
    except xlrd.biffh.XLRDError as exc:
        if "encrypt" in str(exc).lower():
            raise EncryptedFile(f"the Excel workbook is encrypted: {exc}") from exc
        raise
    sheets = []
    for index in range(book.nsheets):
        sheet = book.sheet_by_index(index)
        sheets.append(f"{sheet.name}\n{_rows_text(iter(sheet.row_values(r) for r in range(sheet.nrows)))}")
    return Extracted(text="\n\n".join(sheets), kind="spreadsheet", mime="application/vnd.ms-excel",
                     metadata={"sheets": str(len(sheets))})


def extract_epub(source: Source) -> Extracted:
    import ebooklib  # type: ignore[import-untyped]
    from ebooklib import epub

    with source.as_path() as path:
        book = epub.read_epub(str(path), options={"ignore_ncx": True})
    chapters = [parse_html(item.get_content()).text for item in book.get_items_of_type(ebooklib.ITEM_DOCUMENT)]
    titles = book.get_metadata("DC", "title")
    dates = book.get_metadata("DC", "date")
    return Extracted(text="\n\n".join(c for c in chapters if c), title=titles[0][0] if titles else "",
                     kind="document", mime="application/epub+zip",
                     doc_date=_iso_date(dates[0][0]) if dates else None)


def extract_msg(source: Source) -> Extracted:
    """Outlook .msg (extract-msg): like a mail, quoted replies dropped, attachments as parts."""
    import extract_msg


    message: Any = extract_msg.openMsg(source.read_bytes())
    try:
        # MAPI strings are often padded with NULs (Outlook, PST exports)
        body = (message.body or "").replace("\x00", "")
        if not body.strip() and message.htmlBody:
            body = parse_html(message.htmlBody).text
        metadata = {k: " ".join(str(v).replace("\x00", "").split())
                    for k, v in (("from", message.sender), ("to", message.to), ("cc", message.cc)) if v}
        # a signed message's parts are SignedAttachments, which have a name but no getFilename()
        attachments = [(getattr(a, "longFilename", None) or getattr(a, "name", None) or f"attachment-{i}", a.data)
                       for i, a in enumerate(message.attachments, start=1)
                       if isinstance(getattr(a, "data", None), bytes)]
        date = message.date if isinstance(message.date, datetime) else None
        subject = " ".join((message.subject or "").replace("\x00", "").split())
    finally:
        message.close()
    if not body.strip() and not subject and not attachments:
        raise EmptyFile(f"{source.name} is a message with no text")
    return Extracted(text=clean_text(strip_quotes(body)), title=subject, kind="email",
                     mime="application/vnd.ms-outlook", doc_date=date, metadata=metadata,
                     children=attachment_items(attachments))
