"""Flat OpenDocument (``.fodt``, ``.fods``, ``.fodp``, ``.fodg``): one XML file, read as its package would be.

LibreOffice saves a document as "Flat XML ODF" for those who keep documents
in version control or edit them as text: the package's content, styles and
metadata in one ``office:document`` element, pictures inline as base64.
Read as plain text before, a two-page report was 115 KB of markup -- style
names, namespaces, fonts -- and no copy of its ``.odt``.  Its XML is what a
package's ``content.xml`` holds, so it is handed to the OpenDocument reader
(odfpy, defusedxml: no entity resolved, no network) as the one part of a
package made in memory, and reads as the ``.odt`` saved from it does.
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import replace

from lifededup.extract.base import CorruptFile, Extracted, Format, Probe, Source
from lifededup.extract.odt import read_package

# The root of a flat document and its type, in the first bytes (past the declaration and its namespaces)
_ROOT = re.compile(rb"<office:document\s[^>]*?office:mimetype=\"(application/vnd\.oasis\.opendocument\.[a-z-]+)\"")
_MANIFEST = ('<?xml version="1.0" encoding="UTF-8"?><manifest:manifest '
             'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">'
             '<manifest:file-entry manifest:full-path="/" manifest:media-type="{mime}"/>'
             '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
             '</manifest:manifest>')


def extract_flat_odf(source: Source) -> Extracted:
    flat = source.read_bytes()
    found = _ROOT.search(flat, 0, 16384)
    if found is None:
        raise CorruptFile(f"{source.name} is no flat OpenDocument: its first element is not office:document")
    mime = found.group(1).decode("ascii")
    package = io.BytesIO()
    with zipfile.ZipFile(package, "w") as made:
        made.writestr("mimetype", mime)
        made.writestr("META-INF/manifest.xml", _MANIFEST.format(mime=mime))
        made.writestr("content.xml", flat)
    package.seek(0)
    return replace(read_package(package), mime=f"{mime}-flat-xml")  # its registered type, not the package's


def _is_flat_odf(probe: Probe) -> bool:
    return probe.is_markup and _ROOT.search(probe.head) is not None


FORMAT = Format(name="flat-odf", extract=extract_flat_odf, magic=_is_flat_odf,
                suffixes=(".fodt", ".fods", ".fodp", ".fodg"))
