"""OCR of scans with Tesseract: PDFs without a text layer and images of pages (PNG, JPEG, TIFF...).

OCR is slow (seconds a page), so it is off unless ``Limits.ocr`` is set
(``lifededup index --ocr``); it then runs in the extraction workers like any
parser, under the same time and memory limits.  A scan read without OCR, or
with Tesseract not installed, is recorded as ``no-text-layer`` with a hint
saying what to do (and read again by a run with OCR); a scan OCR finds no
words in is ``no-text``, and is not OCR'd again until it changes.  PDF pages are rendered by PDFium at 300 dpi into
greyscale PGM files that Tesseract reads.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from lifededup.extract.base import Extracted, NoText, NoTextLayer, Source
from lifededup.extract.layout import clean_pages
from lifededup.extract.tool import run_tool

INSTALL = "sudo apt-get install tesseract-ocr tesseract-ocr-eng"
# Tesseract's accuracy peaks near 300 dpi for body text.
DPI = 300


def _hint(limits_ocr: bool) -> str:
    if not limits_ocr:
        return "OCR is off: `lifededup index --ocr` reads scans with Tesseract"
    return f"OCR is on but Tesseract is not installed: {INSTALL} (or run scripts/install-system-deps.sh)"


def scan_unreadable(what: str, limits_ocr: bool) -> NoTextLayer:
    """The no-text-layer failure for a scan that is not OCR'd, with what to do about it."""
    return NoTextLayer(f"{what}: {_hint(limits_ocr)}")


def can_ocr(source: Source) -> bool:
    return source.limits.ocr and shutil.which("tesseract") is not None


def ocr_image(path: Path, languages: str) -> str:
    """The text Tesseract reads on one image file."""
    # one thread per Tesseract: the workers are the parallelism
    out = run_tool("tesseract", "tesseract-ocr", "scans (OCR)", [str(path), "stdout", "-l", languages],
                   env={**os.environ, "OMP_THREAD_LIMIT": "1"})
    return out.decode("utf-8", "replace")


def ocr_pdf(data: bytes, languages: str) -> list[str]:
    """Each page of a PDF rendered at :data:`DPI` and read by Tesseract.

    Each page read is reported to the parent process (isolate.report_progress): the time limit is then a page's,
    not the whole scan's, and a long scan that advances is not stopped as a parser that hangs."""
    import pypdfium2 as pdfium  # type: ignore[import-untyped]

    from lifededup.extract.isolate import report_progress

    document = pdfium.PdfDocument(data)
    pages = []
    try:
        with tempfile.TemporaryDirectory(prefix="lifededup-ocr-") as folder:
            for index in range(len(document)):
                page = document[index]
                bitmap = page.render(scale=DPI / 72, grayscale=True)
                pixels = bitmap.to_numpy()
                image = Path(folder, f"page-{index}.pgm")
                height, width = pixels.shape[:2]
                image.write_bytes(b"P5 %d %d 255\n" % (width, height) + pixels[:, :, 0].tobytes()
                                  if pixels.ndim == 3 else b"P5 %d %d 255\n" % (width, height) + pixels.tobytes())
                page.close()
                pages.append(ocr_image(image, languages))
                image.unlink()
                report_progress()
    finally:
        document.close()
    return pages


def read_scanned_pdf(source: Source, data: bytes, page_count: int) -> Extracted:
    """A PDF with no text layer: its pages OCR'd when OCR is on, else :class:`NoTextLayer` with a hint."""
    what = f"no text layer in {page_count} page(s): probably a scan"
    if not can_ocr(source):
        raise scan_unreadable(what, source.limits.ocr)
    pages = ocr_pdf(data, source.limits.ocr_languages)
    text = clean_pages(pages)
    if not text.strip():
        raise NoText(f"{what}, and OCR found no text on it")
    return Extracted(text=text, kind="document", mime="application/pdf",
                     metadata={"engine": "tesseract", "ocr": "yes", "pages": str(page_count)})
