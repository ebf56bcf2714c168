"""Outlook ``.msg`` (extract-msg, the optional extra ``lifededup[msg]``): like a mail, attachments as parts.

extract-msg pulls oletools and through it easygui, a GUI toolkit, into what
is otherwise a headless install; so it is an extra, and without it a .msg
is recorded as ``missing-tool`` with the command that installs it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from lifededup.extract.base import EmptyFile, Extracted, Format, MissingTool, Probe, Source, ole_data
from lifededup.extract.layout import clean_text
from lifededup.extract.mail import attachment_items, html_message_text, is_forward, is_reply, strip_quotes

INSTALL = "pip install 'lifededup[msg]'"


def extract_msg(source: Source) -> Extracted:
    """Quoted replies dropped, as for .eml; MAPI strings' NUL padding removed."""
    try:
        import extract_msg
    except ImportError as exc:
        raise MissingTool("extract-msg", "msg", "Outlook .msg", install=INSTALL) from exc

    message: Any = extract_msg.openMsg(ole_data(source))
    try:
        subject = " ".join((message.subject or "").replace("\x00", "").split())
        forward = is_forward(subject)
        # MAPI strings are often padded with NULs (Outlook, PST exports)
        body = (message.body or "").replace("\x00", "")
        if not body.strip() and message.htmlBody:
            body = html_message_text(message.htmlBody, forward=forward, reply=is_reply(subject))
        metadata = {k: " ".join(str(v).replace("\x00", "").split())
                    for k, v in (("from", message.sender), ("to", message.to), ("cc", message.cc),
                                 ("bcc", getattr(message, "bcc", None))) if v}
        # a signed message's parts are SignedAttachments, which have a name but no getFilename()
        attachments = [(getattr(a, "longFilename", None) or getattr(a, "name", None) or f"attachment-{i}", a.data)
                       for i, a in enumerate(message.attachments, start=1)
                       if isinstance(getattr(a, "data", None), bytes)]
        date = message.date if isinstance(message.date, datetime) else None
    finally:
        message.close()
    if not body.strip() and not subject and not attachments:
        raise EmptyFile(f"{source.name} is a message with no text")
    # as a mail's: only a reply loses its quote (a newsletter's rules and '> ' lines are its text)
    return Extracted(text=clean_text(strip_quotes(body, forward=forward, reply=is_reply(subject))),
                     title=subject, kind="email",
                     mime="application/vnd.ms-outlook", doc_date=date, metadata=metadata,
                     children=attachment_items(attachments, source))


def _is_msg(probe: Probe) -> bool:
    return any(s.startswith("__substg1.0_") for s in probe.ole_streams())


FORMAT = Format(name="msg", kind="email", extract=extract_msg, suffixes=(".msg",), magic=_is_msg, signed=True,
                opens_text=True)
