"""A web page saved as one file (MHTML: Chrome's "Webpage, Single File", Internet Explorer's .mht; stdlib ``email``).

The page is a MIME message: its HTML, its stylesheets and images as parts.
It was read as a mail (its headers look like one): a mail from "<Saved by
Blink>", its stylesheet an item of its own.  It is a web page: the text of
its HTML, read as an .html file is, so that it clusters with the same page
saved as .html; the other parts are the page's furniture and are not read.
"""

from __future__ import annotations

from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

from lifededup.extract.base import EmptyFile, Extracted, Format, Probe, Source
from lifededup.extract.html import parse_html
from lifededup.extract.mail import message_date, part_text


def extract_mhtml(source: Source) -> Extracted:
    message = BytesParser(policy=policy.default).parsebytes(source.read_bytes())
    assert isinstance(message, EmailMessage)
    pages = [part for part in message.walk() if part.get_content_type() == "text/html"]
    if not pages:
        raise EmptyFile(f"{source.name} is a saved web page with no HTML in it")
    # the page itself, not a frame of it (an ad's): the root part (RFC 2387: the start, else the first)
    start = str(message.get_param("start", "", header="content-type"))
    page = next((p for p in pages if start and str(p.get("Content-ID", "")) == start), pages[0])
    # without a charset the page's own <meta charset> says it: its bytes are read as an .html file's
    payload = page.get_payload(decode=True)
    found = parse_html(part_text(page) if page.get_content_charset() or not isinstance(payload, bytes) else payload)
    if not found.text.strip() and not found.title:
        raise EmptyFile(f"{source.name} is a saved web page with no text")
    title = found.title or " ".join(str(message.get("Subject", "")).split())
    return Extracted(text=found.text, title=title, kind="web page", mime="multipart/related",
                     doc_date=found.date or message_date(message))


def _is_mhtml(probe: Probe) -> bool:
    """A MIME message of related parts that says it is a saved page (Chrome's
    Snapshot-Content-Location, Internet Explorer's "Saved by")."""
    headers = probe.head.lstrip().split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0].lower()
    return b"multipart/related" in headers and (b"snapshot-content-location:" in headers or b"<saved by " in headers)


FORMAT = Format(name="mhtml", kind="web page", extract=extract_mhtml, suffixes=(".mhtml", ".mht"), magic=_is_mhtml,
                spellings=((".mhtml", ".mht"),))
