"""Which extractor reads a file: sniffed content first, the extension second.

A PDF named ``.txt`` is read as a PDF (its content says ``%PDF-``); binary data
named ``.txt`` is refused rather than indexed as garbage.  Adding a format is
one module and one line in :data:`EXTRACTORS`.
"""

from __future__ import annotations

import importlib
import io
import zipfile
from collections.abc import Callable
from pathlib import Path

from lifededup.extract.base import (
    CorruptFile, EmptyFile, Extracted, ExtractionError, Limits, Source, TooLarge, UnsupportedFormat,
)
from lifededup.extract.text import looks_binary

Extractor = Callable[[Source], Extracted]

# format -> "module:function"; imported on first use so a worker loads only what it reads.
EXTRACTORS: dict[str, str] = {
    "text": "lifededup.extract.text:extract_text_file",
    "html": "lifededup.extract.html:extract_html",
    "pdf": "lifededup.extract.pdf:extract_pdf",
    "docx": "lifededup.extract.docx:extract_docx",
    "eml": "lifededup.extract.mail:extract_eml",
    "mbox": "lifededup.extract.mail:extract_mbox",
    "doc": "lifededup.extract.office:extract_doc",
    "rtf": "lifededup.extract.office:extract_rtf",
    "odt": "lifededup.extract.office:extract_odt",
    "pptx": "lifededup.extract.office:extract_pptx",
    "xlsx": "lifededup.extract.office:extract_xlsx",
    "xls": "lifededup.extract.office:extract_xls",
    "epub": "lifededup.extract.office:extract_epub",
    "msg": "lifededup.extract.office:extract_msg",
}
# Formats read as a stream: the size limit does not apply to them.
STREAMED = frozenset({"mbox"})
ZIPPED = frozenset({"docx", "pptx", "xlsx", "odt", "epub"})

TEXT_SUFFIXES = frozenset({".txt", ".text", ".md", ".markdown", ".csv", ".tsv", ".log", ".rst", ".ini",
                           ".json", ".xml", ".yaml", ".yml", ".tex", ".org", ".nfo", ""})
SUFFIX_FORMATS = {".html": "html", ".htm": "html", ".xhtml": "html", ".shtml": "html", ".eml": "eml",
                  ".mbox": "mbox", ".mbx": "mbox"}
SUPPORTED_SUFFIXES = frozenset(TEXT_SUFFIXES | set(SUFFIX_FORMATS) | {
    ".pdf", ".docx", ".doc", ".rtf", ".odt", ".pptx", ".xlsx", ".xls", ".epub", ".msg"})

_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ZIP_MAGIC = b"PK\x03\x04"
# A zip whose entries unpack to more than this many times their packed size is treated as a bomb
# once it passes 10 MiB unpacked (ordinary office files compress 2-20x).
_BOMB_RATIO = 100
_HEADER_NAMES = (b"from:", b"to:", b"subject:", b"date:", b"received:", b"return-path:", b"message-id:",
                 b"mime-version:", b"delivered-to:")


def _zip_format(source: Source) -> str:
    try:
        with _open_zip(source) as archive:
            names = set(archive.namelist())
            mimetype = archive.read("mimetype").strip() if "mimetype" in names else b""
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise CorruptFile(f"damaged zip container: {exc}") from exc
    if "word/document.xml" in names:
        return "docx"
    if any(n.startswith("ppt/") for n in names):
        return "pptx"
    if any(n.startswith("xl/") for n in names):
        return "xlsx"
    if mimetype == b"application/epub+zip":
        return "epub"
    if mimetype.startswith(b"application/vnd.oasis.opendocument.text"):
        return "odt"
    raise UnsupportedFormat(f"{source.name} is a zip archive, not a document format lifededup reads")


def _ole_format(source: Source) -> str:
    import olefile  # type: ignore[import-untyped]

    try:
        with olefile.OleFileIO(source.read_bytes()) as ole:
            streams = {"/".join(entry) for entry in ole.listdir()}
    except OSError as exc:
        raise CorruptFile(f"damaged OLE2 (old Office) file: {exc}") from exc
    if "WordDocument" in streams:
        return "doc"
    if "Workbook" in streams or "Book" in streams:
        return "xls"
    if any(s.startswith("__substg1.0_") for s in streams):
        return "msg"
    raise UnsupportedFormat(f"{source.name} is an old Office file of a kind lifededup does not read "
                            f"(for example PowerPoint 97-2003 .ppt)")


def _looks_like_mail(head: bytes) -> bool:
    lines = head.lstrip().split(b"\n", 12)[:12]
    return sum(ln.lower().startswith(_HEADER_NAMES) for ln in lines) >= 2


def sniff(source: Source) -> str:
    """The format of ``source``, by content first; :class:`UnsupportedFormat` when none fits."""
    head = source.head(8192)
    if b"%PDF-" in head[:1024]:
        return "pdf"
    if head.startswith(_ZIP_MAGIC):
        return _zip_format(source)
    if head.startswith(_OLE_MAGIC):
        return _ole_format(source)
    if head.startswith(b"{\\rtf"):
        return "rtf"
    if looks_binary(head):
        raise UnsupportedFormat(f"{source.name} holds binary data of no format lifededup reads"
                                + (f" (despite its {source.suffix} name)" if source.suffix else ""))
    if source.suffix in SUFFIX_FORMATS:
        return SUFFIX_FORMATS[source.suffix]
    if source.suffix in TEXT_SUFFIXES - {""}:
        return "text"
    if head.startswith(b"From ") and _looks_like_mail(head.split(b"\n", 1)[-1]):
        return "mbox"
    if _looks_like_mail(head):
        return "eml"
    if head.lstrip()[:200].lower().startswith((b"<!doctype html", b"<html")):
        return "html"
    if source.suffix:
        raise UnsupportedFormat(f"{source.name}: '{source.suffix}' files are not a format lifededup reads")
    return "text"


def _open_zip(source: Source) -> zipfile.ZipFile:
    return zipfile.ZipFile(source.path if source.path is not None else io.BytesIO(source.data or b""))


def check_zip(source: Source, limits: Limits) -> None:
    """Refuse a zip that would unpack to more than the limit (a zip bomb), before any parser opens it."""
    with _open_zip(source) as archive:
        infos = archive.infolist()
    unpacked = sum(i.file_size for i in infos)
    packed = sum(i.compress_size for i in infos) or 1
    if unpacked > limits.max_unpacked_bytes or (unpacked > 10 * 2**20 and unpacked / packed > _BOMB_RATIO):
        raise TooLarge(f"refused as a zip bomb: {source.name} would unpack to {unpacked / 2**20:.0f} MiB "
                       f"from {packed / 2**20:.1f} MiB (limit {limits.max_unpacked_bytes / 2**20:.0f} MiB, "
                       f"ratio {_BOMB_RATIO}x)")


def extractor_for(fmt: str) -> Extractor:
    module, _, name = EXTRACTORS[fmt].partition(":")
    function: Extractor = getattr(importlib.import_module(module), name)
    return function


def extract_source(source: Source, limits: Limits = Limits()) -> Extracted:
    """Read one file or part in this process; raises only :class:`ExtractionError`.

    For untrusted files in bulk use :func:`lifededup.extract.isolate.extract_many`,
    which adds the time and memory limits that only a separate process can enforce.
    """
    try:
        size = source.size()
    except OSError as exc:
        raise CorruptFile(f"cannot read {source.name}: {exc.strerror or exc}") from exc
    if size == 0:
        raise EmptyFile(f"{source.name} is empty (0 bytes)")
    try:
        fmt = sniff(source)
    except ExtractionError:
        raise
    except Exception as exc:  # sniffing opens zips and OLE files: their readers' errors too
        raise CorruptFile(f"damaged {source.name}: {type(exc).__name__}: {exc}"[:500]) from exc
    if size > limits.max_bytes and fmt not in STREAMED:
        raise TooLarge(f"{source.name} is {size / 2**20:.0f} MiB, over the {limits.max_bytes / 2**20:.0f} MiB limit")
    return extract_as(fmt, source, limits)


def extract_as(fmt: str, source: Source, limits: Limits = Limits()) -> Extracted:
    """Read ``source`` as format ``fmt`` (a key of :data:`EXTRACTORS`), whatever its content says."""
    try:
        if fmt in ZIPPED:
            check_zip(source, limits)
        return extractor_for(fmt)(source)
    except ExtractionError:
        raise
    except OSError as exc:
        raise CorruptFile(f"cannot read {source.name}: {exc.strerror or exc}") from exc
    except MemoryError as exc:
        raise TooLarge(f"{source.name} needs more memory than the limit allows") from exc
    except Exception as exc:  # the parsers' own errors are not a contract: wrap them
        raise CorruptFile(f"damaged {source.name}: {type(exc).__name__}: {exc}"[:500]) from exc


def extract(path: Path, limits: Limits = Limits()) -> Extracted:
    """Read one file on disk in this process (see :func:`extract_source`)."""
    return extract_source(Source.from_path(Path(path)), limits)
