"""Images (PNG, JPEG, TIFF, GIF, BMP, WebP): a photo of a page is a scan, read by OCR when it is on.

Without OCR (the default) an image is recorded as ``no-text-layer`` with the
hint to turn OCR on; see :mod:`lifededup.extract.ocr`.
"""

from __future__ import annotations

from lifededup.extract.base import Extracted, Format, NoText, NoTextLayer, Probe, Source
from lifededup.extract.layout import clean_text
from lifededup.extract.ocr import can_ocr, ocr_image, scan_unreadable

SIGNATURES = {b"\x89PNG\r\n\x1a\n": "image/png", b"\xff\xd8\xff": "image/jpeg", b"II*\x00": "image/tiff",
              b"MM\x00*": "image/tiff", b"GIF87a": "image/gif", b"GIF89a": "image/gif", b"BM": "image/bmp"}


def _mime(head: bytes) -> str:
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return next((mime for magic, mime in SIGNATURES.items() if head.startswith(magic)), "")


def extract_image(source: Source) -> Extracted:
    mime = _mime(source.head(16))
    if not can_ocr(source):
        raise scan_unreadable(f"an image ({mime}) has no text without OCR", source.limits.ocr)
    with source.as_path() as path:
        text = clean_text(ocr_image(path, source.limits.ocr_languages))
    if not text:
        raise NoText(f"OCR found no text on this image ({mime})")
    return Extracted(text=text, kind="document", mime=mime, metadata={"engine": "tesseract", "ocr": "yes"})


def _is_image(probe: Probe) -> bool:
    # BMP's two-byte "BM" is too weak alone: it needs its name too
    mime = _mime(probe.head)
    return bool(mime) and (mime != "image/bmp" or probe.source.suffix == ".bmp")


FORMAT = Format(name="image", extract=extract_image,
                suffixes=(".png", ".jpg", ".jpeg", ".tif", ".tiff", ".gif", ".bmp", ".webp"), magic=_is_image)
