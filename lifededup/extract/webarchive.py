"""A web page saved by Safari (``.webarchive``): a binary property list (stdlib ``plistlib``).

Its ``WebMainResource`` holds the page's HTML (``WebResourceData``) and the
encoding Safari read it in (``WebResourceTextEncodingName``); the page's
images, stylesheets and frames (``WebSubresources``, ``WebSubframeArchives``)
are its furniture and are not read.  The HTML is read as an .html file is, so
the page saved by Safari and the page saved as .html are one text.  It was
indexed as text: ``bplist00`` and the raw markup.
"""

from __future__ import annotations

import codecs
import plistlib
from typing import Any

from lifededup.extract.base import CorruptFile, EmptyFile, Extracted, Format, Probe, Source
from lifededup.extract.html import parse_html


def extract_webarchive(source: Source) -> Extracted:
    try:
        archive: Any = plistlib.loads(source.read_bytes())
    except (plistlib.InvalidFileException, ValueError, TypeError, KeyError, IndexError, OverflowError) as exc:
        raise CorruptFile(f"damaged web archive (property list): {exc}") from exc
    main = archive.get("WebMainResource") if isinstance(archive, dict) else None
    if not isinstance(main, dict) or not isinstance(main.get("WebResourceData"), bytes):
        raise CorruptFile(f"{source.name} is a property list with no web page (WebMainResource) in it")
    data: bytes = main["WebResourceData"]
    mime = str(main.get("WebResourceMIMEType") or "text/html")
    if not data.strip():
        raise EmptyFile(f"{source.name} is a saved web page with no text")
    encoding = str(main.get("WebResourceTextEncodingName") or "")
    try:
        markup: bytes | str = data.decode(codecs.lookup(encoding).name, "replace") if encoding else data
    except LookupError:  # an encoding Python does not know: the page's own <meta charset> says it
        markup = data
    if mime == "text/plain":  # a text file Safari saved
        text = markup if isinstance(markup, str) else data.decode("utf-8", "replace")
        return Extracted(text=text, kind="web page", mime="application/x-webarchive")
    page = parse_html(markup)  # a page of no text and no title is empty: extract_as says so
    return Extracted(text=page.text, title=page.title, kind="web page", mime="application/x-webarchive",
                     doc_date=page.date, metadata={"url": str(main.get("WebResourceURL") or "")})


def _is_webarchive(probe: Probe) -> bool:
    return probe.head.startswith(b"bplist00") and b"WebMainResource" in probe.head


FORMAT = Format(name="webarchive", kind="web page", extract=extract_webarchive, suffixes=(".webarchive",),
                magic=_is_webarchive)
