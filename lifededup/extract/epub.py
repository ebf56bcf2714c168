"""EPUB (EbookLib)."""

from __future__ import annotations

from lifededup.extract.base import Extracted, Format, Probe, Source, iso_date
from lifededup.extract.html import parse_html


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
                     doc_date=iso_date(dates[0][0]) if dates else None)


def _is_epub(probe: Probe) -> bool:
    return probe.zip_mimetype() == b"application/epub+zip"


FORMAT = Format(name="epub", extract=extract_epub, suffixes=(".epub",), magic=_is_epub, zipped=True)
