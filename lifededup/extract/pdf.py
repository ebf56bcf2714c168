"""PDF: PDFium (pypdfium2) first, pdfminer.six as the fallback.

pdfminer.six is the engine the design card names, but it reads about 20 pages/s
against about 725 pages/s for PDFium on the same 97 real PDFs (issue 4;
``benchmarks/bench_pdf.py`` measures both here).  So PDFium reads first and
pdfminer.six reads whatever PDFium fails on (or everything, where pypdfium2 is
not installed).  Encrypted PDFs and scans without a text layer get their own
status instead of an empty document.
"""

from __future__ import annotations

import ctypes
import functools
import io
import re
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

from lifededup.extract.base import (
    CorruptFile, EmptyFile, EncryptedFile, ExtractionError, Extracted, Format, NoText, Probe, Source, hush_log,
    last_saved,
)
from lifededup.extract.layout import clean_pages
from lifededup.extract.ocr import read_scanned_pdf


@functools.cache
def _pdfium() -> Any:
    """pypdfium2, or None without it; imported where a PDF is read, not with the module (extract/html.py says why)."""
    try:
        import pypdfium2  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - pypdfium2 is a dependency, but the fallback must stand alone
        return None
    return pypdfium2


_PDF_DATE = re.compile(r"D?:?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Zz+\-])?(\d{2})?'?(\d{2})?")


def parse_pdf_date(value: str) -> datetime | None:
    """A PDF date string ("D:20240131093000+01'00'") as a datetime; None when unreadable."""
    m = _PDF_DATE.match(value.strip())
    if not m:
        return None
    y, mo, d, h, mi, s, sign, tzh, tzm = m.groups()
    try:
        when = datetime(int(y), int(mo or 1), int(d or 1), int(h or 0), int(mi or 0), int(s or 0))
    except ValueError:
        return None
    if sign in ("+", "-") and tzh:
        offset = timedelta(hours=int(tzh), minutes=int(tzm or 0))
        return when.replace(tzinfo=timezone(offset if sign == "+" else -offset))
    return when.replace(tzinfo=timezone.utc) if sign in ("Z", "z") else when


def _pages_pdfium(data: bytes) -> tuple[list[str], dict[str, str]]:
    pdfium = _pdfium()
    assert pdfium is not None
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise EncryptedFile("the PDF is encrypted with a password") from exc
        raise
    try:
        pages = []
        for index in range(len(document)):
            page = document[index]
            textpage = page.get_textpage()
            text = textpage.get_text_bounded()
            if _words_split(text):
                text = _rejoined(pdfium, textpage, text)
            text = "\n".join([text, *_form_values(pdfium, page)])
            pages.append(text.replace("\r\n", "\n").replace("\r", "\n"))
            textpage.close()
            page.close()
        meta = {k: str(v) for k, v in document.get_metadata_dict(skip_empty=True).items()}
        return pages, meta
    finally:
        document.close()


def _form_values(pdfium: Any, page: Any) -> list[str]:
    """What was typed into the page's form fields ("Alice" beside "First Name"): a field's value is
    no part of the page's text to PDFium, where an unflattened form (LibreOffice's, with
    NeedAppearances) keeps it; poppler's pdftotext shows it.  Ticked boxes (a name, /Off) are not words."""
    raw = pdfium.raw
    values = []
    for annot in _annotations(raw, page):
        if (raw.FPDFAnnot_GetSubtype(annot) == raw.FPDF_ANNOT_WIDGET
                and raw.FPDFAnnot_GetValueType(annot, b"V") == raw.FPDF_OBJECT_STRING):
            value = _annotation_string(pdfium, annot, b"V").strip()
            if value:
                values.append(value)
    return values


def _annotations(raw: Any, page: Any) -> Iterator[Any]:
    """Each annotation of a PDFium page, closed once the caller moves on."""
    for number in range(raw.FPDFPage_GetAnnotCount(page.raw)):
        annot = raw.FPDFPage_GetAnnot(page.raw, number)
        try:
            yield annot
        finally:
            raw.FPDFPage_CloseAnnot(annot)


def _annotation_string(pdfium: Any, annot: Any, key: bytes) -> str:
    raw = pdfium.raw
    size = raw.FPDFAnnot_GetStringValue(annot, key, None, 0)  # bytes of UTF-16LE, its NUL included
    buffer = ctypes.create_string_buffer(size)
    raw.FPDFAnnot_GetStringValue(annot, key, ctypes.cast(buffer, ctypes.POINTER(raw.FPDF_WCHAR)), size)
    return buffer.raw[:max(0, size - 2)].decode("utf-16-le", errors="replace")


# A page whose words are more than this share single letters may have words split ("Nort h Buon a Vist a"),
# and only such a page is measured (5% more time on the Debian manuals): English prose holds 2-5% ("a",
# "I"), the Debian manuals' pages at most 19%, split OCR layers 40-50%.  Measured on every page of the 111
# PDFs of real_archive's three archives and sample_corpus/, the rule drops no space but the OCR layer's.
SPLIT_SHARE = 0.25
_WORD = re.compile(r"\w+")


def _words_split(text: str) -> bool:
    words = _WORD.findall(text)
    return len(words) >= 20 and sum(len(w) == 1 and w.isalpha() for w in words) > SPLIT_SHARE * len(words)


def _rejoined(pdfium: Any, textpage: Any, text: str) -> str:
    """The page's text without the spaces PDFium put inside words.  An OCR program's invisible text
    layer writes each word's last letter apart, letter-spaced as the scan (``(Nor) Tj (t) Tj``, 2 pt
    between letters); PDFium adds a space wherever a new piece starts past a gap, so "Nort h Buon a".
    A space PDFium made up (not in the file) is dropped where its gap is no wider than the gaps
    between the letters beside it: a word's gap, not a space.  ``text`` back when the page's chars
    do not map one to one on its text (letters past UCS-2)."""
    full = textpage.get_text_range()
    if len(full) != textpage.count_chars():
        return text
    generated = pdfium.raw.FPDFText_IsGenerated
    dropped = {i for i in range(1, len(full) - 1)
               if full[i] == " " and full[i - 1].isalnum() and full[i + 1].isalnum()
               and generated(textpage.raw, i) == 1 and _inside_word(pdfium, textpage, full, i)}
    return "".join(char for i, char in enumerate(full) if i not in dropped)


# Letters this far apart (in ems) are letter-spaced, as an OCR layer spaces them to cover the scan's
# words (0.17 em in pypdf's indirect-rotation.pdf); PDFium cannot tell their gaps from spaces.
LETTER_SPACED = 0.1
# How much wider than the letter gaps beside it a gap must be to be a space, in ems: an OCR layer's
# split words are within 0.02 of their letters' gaps; a made-up space between words of the Debian
# manuals' justified lines, 0.036 and more (0.25 the median)
SPACE_OVER_LETTERS = 0.03


def _inside_word(pdfium: Any, textpage: Any, full: str, i: int) -> bool:
    """Whether the gap at the made-up space ``i`` is a gap between two letters of one letter-spaced word."""
    left, right = textpage.get_charbox(i - 1, loose=True), textpage.get_charbox(i + 1, loose=True)
    # the font size, unless a scaled text matrix inflates it (1 pt type drawn at 199): then the glyph's height
    em = min(pdfium.raw.FPDFText_GetFontSize(textpage.raw, i - 1), left[3] - left[1])
    if em <= 0 or abs((left[1] + left[3]) - (right[1] + right[3])) > em:  # not on one line
        return False
    gap = right[0] - left[2]
    letters = []
    if i >= 2 and full[i - 2].isalnum():
        letters.append(left[0] - textpage.get_charbox(i - 2, loose=True)[2])
    if i + 2 < len(full) and full[i + 2].isalnum():
        letters.append(textpage.get_charbox(i + 2, loose=True)[0] - right[2])
    spaced = max(letters, default=0.0)
    return bool(spaced > LETTER_SPACED * em and 0 < gap < spaced + SPACE_OVER_LETTERS * em)


@functools.cache
def _pages_pdfminer(data: bytes) -> tuple[list[str], dict[str, str]]:
    hush_log("pdfminer")
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LTTextContainer
    from pdfminer.pdfdocument import PDFDocument, PDFEncryptionError, PDFPasswordIncorrect
    from pdfminer.pdfparser import PDFParser

    try:
        parser = PDFParser(io.BytesIO(data))
        info: list[dict[str, Any]] = PDFDocument(parser).info
        pages = ["\n".join(el.get_text() for el in layout if isinstance(el, LTTextContainer))
                 for layout in extract_pages(io.BytesIO(data))]
    except (PDFPasswordIncorrect, PDFEncryptionError) as exc:
        raise EncryptedFile("the PDF is encrypted with a password") from exc
    meta = {}
    for key, value in (info[0] if info else {}).items():
        if isinstance(value, bytes):
            value = value.decode("utf-16" if value.startswith(b"\xfe\xff") else "latin-1", errors="replace")
        if isinstance(value, str) and value.strip():
            meta[str(key)] = value
    return pages, meta


def _opened_without_password(data: bytes, refused: EncryptedFile) -> tuple[list[str], dict[str, str], str]:
    """A PDF PDFium asks a password for, read by pdfminer.six where it opens without one: AES-256
    (revision 5 and 6) with an empty owner password -- ``qpdf --encrypt USER "" 256`` -- opens for
    anyone (poppler and pdfminer.six try the empty password as the owner's), PDFium only for USER."""
    try:
        return (*_pages_pdfminer(data), "pdfminer.six")
    except Exception:
        raise refused from None


def read_pages(data: bytes) -> tuple[list[str], dict[str, str], str]:
    """(page texts, document info, engine used); PDFium first, pdfminer.six when PDFium fails."""
    errors = []
    if _pdfium() is not None:
        try:
            return (*_pages_pdfium(data), "pypdfium2")
        except EncryptedFile as refused:
            return _opened_without_password(data, refused)
        except Exception as exc:  # PDFium refused it: give pdfminer.six its chance
            errors.append(f"pypdfium2: {exc}")
    try:
        return (*_pages_pdfminer(data), "pdfminer.six")
    except EncryptedFile:
        raise
    except Exception as exc:
        errors.append(f"pdfminer.six: {type(exc).__name__}: {exc}")
    raise CorruptFile("damaged or truncated PDF (" + "; ".join(errors) + ")")


# Windows' print-to-PDF titles a document after the program and the file it
# printed: "Microsoft Word - Budget 2024.docx" is the document "Budget 2024"
# (its .docx, saved beside it, is titled so), as search should list it.
_PRINTED_FROM = re.compile(r"(?:Microsoft (?:Office )?(?:Word|PowerPoint|Excel|Publisher)|Word|PowerPoint) - (.+)",
                           re.DOTALL)
_OFFICE_NAME = re.compile(r"\.(?:docx?|docm|dotx?|dotm|rtf|pptx?|pptm|ppsx?|xlsx?|xlsm|pub)$", re.IGNORECASE)


def pdf_title(title: str) -> str:
    """A PDF's own title, without what a print driver put around it."""
    title = title.strip()
    printed = _PRINTED_FROM.fullmatch(title)
    if printed is None:
        return title
    return _OFFICE_NAME.sub("", printed.group(1).strip()).strip()


# Annotations that draw nothing a reader could want read: a link's area, a form field's box (what was typed
# into it is read with the page, ``_form_values``), a comment's pop-up window
_UNDRAWN_ANNOTATIONS = ("FPDF_ANNOT_LINK", "FPDF_ANNOT_WIDGET", "FPDF_ANNOT_POPUP")


def _nothing_drawn(data: bytes) -> bool:
    """Whether every page of a PDF is blank to PDFium: no text, picture or drawing on it, and no annotation
    but links and empty form fields -- a page left blank, not a scan, which OCR would read.  False where
    PDFium does not open it (pdfminer.six read it)."""
    pdfium = _pdfium()
    if pdfium is None:
        return False
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError:
        return False
    raw = pdfium.raw
    undrawn = {getattr(raw, name) for name in _UNDRAWN_ANNOTATIONS}
    try:
        for index in range(len(document)):
            page = document[index]
            try:
                if raw.FPDFPage_CountObjects(page.raw) or any(
                        raw.FPDFAnnot_GetSubtype(annot) not in undrawn for annot in _annotations(raw, page)):
                    return False
            finally:
                page.close()
        return True
    finally:
        document.close()


def _pages_said(count: int) -> str:
    return "1 page" if count == 1 else f"{count:,} pages"


def extract_pdf(source: Source) -> Extracted:
    data = source.read_bytes()
    pages, meta, engine = read_pages(data)
    if not pages:
        raise EmptyFile(f"{source.name} is empty: a PDF of no pages")
    if not any(p.strip() for p in pages):
        if _nothing_drawn(data):  # OCR would find nothing, and --ocr is no help to offer
            raise EmptyFile(f"{source.name} is empty: {_pages_said(len(pages))} with nothing on "
                            f"{'it' if len(pages) == 1 else 'them'}")
        return read_scanned_pdf(source, data, len(pages))
    metadata = {"engine": engine, "pages": str(len(pages))}
    metadata.update({k.lower(): v for k, v in meta.items() if k in ("Author", "Creator", "Producer", "Subject")})
    date = last_saved(parse_pdf_date(meta.get("CreationDate", "")), parse_pdf_date(meta.get("ModDate", "")))
    text = clean_pages(pages)
    if not any(char.isalnum() for char in text):
        raise NoText(f"the {len(pages)} page(s) give no words (only page numbers or marks)")
    return Extracted(text=text, title=pdf_title(meta.get("Title", "")), kind="document",
                     mime="application/pdf", doc_date=date, metadata=metadata)


def _is_pdf(probe: Probe) -> bool:
    """``%PDF-`` in the first 1,024 bytes, where readers look for it past bytes a server or a Mac put before it
    -- but not in a zip or a tar, whose first member's bytes stand there when stored uncompressed (``zip -0``,
    ``tar cf``, and zips of PDFs, which deflate saves little on): such an archive was read as its first PDF
    alone, its other members never read; nor in an old Office (OLE2) file, whose streams start at byte 512."""
    at = probe.head.find(b"%PDF-", 0, 1024)
    return at == 0 or at > 0 and not (probe.is_zip or probe.is_ole or probe.head[257:262] == b"ustar")


FORMAT = Format(name="pdf", extract=extract_pdf, suffixes=(".pdf",), magic=_is_pdf, signed=True)
