"""EPUB, read from its zip: the chapters in spine (reading) order; a missing image or page is skipped.

The OPF package document (found through ``META-INF/container.xml``) lists
the book's files (the manifest) and their reading order (the spine).  Only
the spine's XHTML documents are read, in that order, as HTML; a manifest
entry missing from the zip (an image, a chapter) is noted in ``metadata``
and the rest of the book still comes through.
"""

from __future__ import annotations

import posixpath
import zipfile
from typing import Any

from lifededup.extract.base import (
    CorruptFile, EmptyFile, Extracted, Format, Probe, Source, iso_date, open_zip, parse_xml,
)
from lifededup.extract.html import parse_html

_OPF = "{http://www.idpf.org/2007/opf}"
_DC = "{http://purl.org/dc/elements/1.1/}"
_CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_DOCUMENTS = ("application/xhtml+xml", "text/html", "application/x-dtbook+xml")


def _xml(data: bytes) -> Any:
    return parse_xml(data, "the EPUB")


def _opf_path(book: zipfile.ZipFile) -> str:
    try:
        container = _xml(book.read("META-INF/container.xml"))
        rootfile = container.find(f".//{_CONTAINER}rootfile")
        if rootfile is not None and rootfile.get("full-path"):
            return str(rootfile.get("full-path"))
    except KeyError:
        pass
    opfs = [n for n in book.namelist() if n.lower().endswith(".opf")]
    if not opfs:
        raise CorruptFile("an EPUB with no package document (.opf)")
    return opfs[0]


def extract_epub(source: Source) -> Extracted:
    with open_zip(source) as book:
        opf_path = _opf_path(book)
        opf = _xml(book.read(opf_path))
        base = posixpath.dirname(opf_path)
        manifest = {item.get("id"): item for item in opf.iter(f"{_OPF}item")}
        names = set(book.namelist())
        chapters, missing = [], []
        for ref in opf.iter(f"{_OPF}itemref"):
            item = manifest.get(ref.get("idref"))
            if item is None or item.get("media-type") not in _DOCUMENTS:
                continue
            href = posixpath.normpath(posixpath.join(base, (item.get("href") or "").split("#")[0]))
            if href not in names:
                missing.append(href)
                continue
            text = parse_html(book.read(href)).text
            if text:
                chapters.append(text)
        missing += sorted({posixpath.normpath(posixpath.join(base, i.get("href") or "")) for i in manifest.values()}
                          - names - set(missing))
    if not chapters:
        raise EmptyFile(f"{source.name} has no readable chapter"
                        + (f" ({len(missing)} missing from the zip)" if missing else ""))
    title = opf.findtext(f".//{_DC}title") or ""
    date = opf.findtext(f".//{_DC}date") or ""
    metadata = {"chapters": str(len(chapters))}
    if missing:
        metadata["missing"] = ", ".join(missing)[:500]
    return Extracted(text="\n\n".join(chapters), title=title.strip(), kind="document", mime="application/epub+zip",
                     doc_date=iso_date(date), metadata=metadata)


def _is_epub(probe: Probe) -> bool:
    names = probe.zip_names()
    return probe.zip_mimetype() == b"application/epub+zip" or (
        "META-INF/container.xml" in names and any(n.endswith(".opf") for n in names))


FORMAT = Format(name="epub", extract=extract_epub, suffixes=(".epub",), magic=_is_epub, zipped=True, signed=True)
