"""Outlook's TNEF wrapper (``winmail.dat``, ``application/ms-tnef``; tnefparse): its attachments as parts.

Outlook sending "rich text" mail wraps the message's attachments, and its
text as RTF, in one attachment, ``winmail.dat``, which no other mail program
opens.  It was "binary data of no format lifededup reads": the documents in it
were never read.  They are its parts now, read as any attachment is, and its
text (plain, HTML, or the compressed RTF, decompressed by tnefparse's optional
``compressed_rtf``) is its own, a reply's quote dropped as a mail's is.
"""

from __future__ import annotations

import struct
from typing import Any

from lifededup.extract.base import CorruptFile, EmptyFile, Extracted, Format, Probe, Source, hush_log
from lifededup.extract.layout import clean_text
from lifededup.extract.mail import attachment_items, html_message_text, is_forward, is_reply, strip_quotes
from lifededup.extract.rtf import rtf_text

# TNEF's signature, 0x223E9F78 little-endian
_SIGNATURE = b"\x78\x9f\x3e\x22"
# its Subject attribute (attSubject)
_SUBJECT = 0x8004


def extract_tnef(source: Source) -> Extracted:
    from tnefparse import TNEF  # type: ignore[import-untyped]

    hush_log("tnefparse")
    try:
        # Outlook's own checksums are often wrong (tnefparse's bad_checksum.tnef): not asked
        tnef: Any = TNEF(source.read_bytes(), do_checksum=False)
    except (ValueError, struct.error, IndexError, KeyError, UnicodeDecodeError) as exc:
        raise CorruptFile(f"damaged Outlook TNEF ({source.name}): {type(exc).__name__}: {exc}"[:500]) from exc
    subject = next((" ".join(str(p.data).split()) for p in tnef.msgprops if p.name == _SUBJECT), "")
    attachments = [(a.long_filename() or f"attachment-{number}", a.data)
                   for number, a in enumerate(tnef.attachments, start=1) if isinstance(a.data, bytes) and a.data]
    forward, reply = is_forward(subject), is_reply(subject)
    text = clean_text(strip_quotes(_body(tnef, forward=forward, reply=reply), forward=forward, reply=reply))
    if not text.strip() and not subject and not attachments:
        raise EmptyFile(f"{source.name} is an Outlook TNEF wrapper with no text and no attachment")
    return Extracted(text=text, title=subject, kind="email", mime="application/ms-tnef",
                     children=attachment_items(attachments, source))


def _body(tnef: Any, *, forward: bool, reply: bool) -> str:
    """The message's text: plain, else its HTML's (as a mail's: a reply's quote markup dropped), else its
    RTF's."""
    if tnef.body:
        body = tnef.body.decode("latin-1") if isinstance(tnef.body, bytes) else str(tnef.body)
        return body.replace("\x00", "")
    if tnef.htmlbody:
        page = tnef.htmlbody.decode("utf-8", "replace") if isinstance(tnef.htmlbody, bytes) else str(tnef.htmlbody)
        return html_message_text(page, forward=forward, reply=reply)
    rtf = tnef.rtfbody
    if isinstance(rtf, bytes) and rtf.startswith(b"{\\rtf"):  # decompressed: compressed_rtf is there
        return rtf_text(rtf.decode("latin-1")).replace("\n", "\n\n")
    return ""


def _is_tnef(probe: Probe) -> bool:
    return probe.head.startswith(_SIGNATURE)


FORMAT = Format(name="tnef", kind="email", extract=extract_tnef, suffixes=(".tnef",), magic=_is_tnef)
