"""Images (PNG, JPEG, TIFF, GIF, BMP, WebP): a photo of a page is a scan, read by OCR when it is on.

Without OCR (the default) an image is recorded as ``no-text-layer`` with the
hint to turn OCR on; see :mod:`lifededup.extract.ocr`.  A BMP Tesseract's
image library (Leptonica) cannot read -- 32 bits with an alpha channel or
colour masks, as Windows writes icons and screenshots -- is turned into a
greyscale image it reads: a valid image is never recorded ``corrupt``.
"""

from __future__ import annotations

import struct
import tempfile
from pathlib import Path
from typing import Any

from lifededup.extract.base import CorruptFile, Extracted, Format, NoText, NoTextLayer, Probe, Source
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
        try:
            text = clean_text(ocr_image(path, source.limits.ocr_languages))
        except CorruptFile:
            grey = bmp_as_pgm(source.read_bytes()) if mime == "image/bmp" else None
            if grey is None:
                raise
            with tempfile.TemporaryDirectory(prefix="lifededup-ocr-") as folder:
                image = Path(folder, "image.pgm")
                image.write_bytes(grey)
                text = clean_text(ocr_image(image, source.limits.ocr_languages))
    if not text:
        raise NoText(f"OCR found no text on this image ({mime})")
    return Extracted(text=text, kind="document", mime=mime, metadata={"engine": "tesseract", "ocr": "yes"})


def bmp_as_pgm(data: bytes) -> bytes | None:
    """An uncompressed 24- or 32-bit BMP (colour masks and alpha too) as a greyscale PGM, transparency on white;
    None for any other BMP, or one whose pixels are not all there."""
    import numpy as np

    if len(data) < 54 or data[:2] != b"BM":
        return None
    offset, header, width, height, _, bits, compression = struct.unpack_from("<IIiiHHI", data, 10)
    rows = abs(height)
    if bits not in (24, 32) or compression not in (0, 3) or width <= 0 or rows == 0 or width * rows > 2**26:
        return None
    stride = (bits * width + 31) // 32 * 4
    if offset + stride * rows > len(data):
        return None
    raw = np.frombuffer(data, np.uint8, stride * rows, offset).reshape(rows, stride)[:, :width * bits // 8]
    if bits == 32:
        pixels = raw.copy().view("<u4").reshape(rows, width)
        red, green, blue, alpha = (0xFF0000, 0xFF00, 0xFF, 0)
        if compression == 3:  # BI_BITFIELDS: the masks after the 40-byte header (in it from version 3 on: alpha too)
            red, green, blue, alpha = struct.unpack_from("<IIII", data[:70].ljust(70, b"\0"), 54)
            alpha = alpha if header >= 56 else 0
        channels = [_channel(pixels, mask) for mask in (red, green, blue)]
        opacity = _channel(pixels, alpha) if alpha and alpha not in (red, green, blue) else None
    else:
        channels = [raw.reshape(rows, width, 3)[:, :, i].astype(np.float64) for i in (2, 1, 0)]
        opacity = None
    grey = 0.299 * channels[0] + 0.587 * channels[1] + 0.114 * channels[2]
    if opacity is not None and opacity.any():
        grey = grey * opacity / 255 + 255 * (1 - opacity / 255)
    if height > 0:  # rows stored bottom-up
        grey = grey[::-1]
    return b"P5 %d %d 255\n" % (width, rows) + bytes(np.clip(grey, 0, 255).astype(np.uint8).tobytes())


def _channel(pixels: Any, mask: int) -> Any:
    """The bits of ``mask`` in each pixel, scaled to 0-255."""
    if not mask:
        return pixels * 0.0
    shift = (mask & -mask).bit_length() - 1
    return ((pixels & mask) >> shift) * (255.0 / (mask >> shift))


def _is_image(probe: Probe) -> bool:
    # BMP's two-byte "BM" is too weak alone: it needs its name too
    mime = _mime(probe.head)
    return bool(mime) and (mime != "image/bmp" or probe.source.suffix == ".bmp")


FORMAT = Format(name="image", extract=extract_image, magic=_is_image, signed=True,
                suffixes=(".png", ".jpg", ".jpeg", ".tif", ".tiff", ".gif", ".bmp", ".webp"),
                spellings=((".jpg", ".jpeg"), (".tif", ".tiff")))
