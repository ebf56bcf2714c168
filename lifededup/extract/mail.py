"""Mail: ``.eml`` files and ``.mbox`` mailboxes (standard library ``email``).

Each message of a mailbox is an item of its own, read one at a time from a
stream of lines, so a mailbox of hundreds of MB is never loaded whole.  The
text of a message is what its author wrote: text/plain preferred, HTML
converted; the quoted earlier messages of a reply ("> ..." lines, "On ...
wrote:", an Outlook "-----Original Message-----" block) and the signature are
dropped, so a reply is not a near-copy of the message it answers.
Attachments are child items, read by the same registry as files.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from email import policy
from email.message import EmailMessage, MIMEPart
from email.parser import BytesParser
from email.utils import parsedate_to_datetime

from lifededup.extract.base import CorruptFile, EmptyFile, Extracted, ExtractionError, Failure, Source
from lifededup.extract.html import parse_html
from lifededup.extract.layout import clean_text
from lifededup.extract.text import decode

_ATTRIBUTION = re.compile(r"^(on\b.{0,200}\bwrote:|am\b.{0,200}\bschrieb.{0,40}:|le\b.{0,200}\ba écrit\s*:)\s*$",
                          re.IGNORECASE)
_OUTLOOK_QUOTE = re.compile(r"^\s*(-{2,}\s*original message\s*-{2,}|-{2,}\s*forwarded message\s*-{2,}|"
                            r"_{10,})\s*$", re.IGNORECASE)
_SIGNATURE = "-- "
# A line of quoted headers ("From: ... / Sent: ...") starts an Outlook-style quoted message.
_QUOTED_HEADER = re.compile(r"^\s*\*?(from|von|de)\s*:\*?\s+\S.*$", re.IGNORECASE)
_QUOTED_HEADER_NEXT = re.compile(r"^\s*\*?(sent|date|gesendet|envoyé)\s*:", re.IGNORECASE)


def strip_quotes(body: str) -> str:
    """The author's own words: no quoted replies, no attribution line, no signature."""
    lines = body.splitlines()
    kept: list[str] = []
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line == _SIGNATURE or _OUTLOOK_QUOTE.match(line) or (
                _QUOTED_HEADER.match(line) and _QUOTED_HEADER_NEXT.match(nxt)):
            break
        if line.lstrip().startswith(">"):
            continue
        if _ATTRIBUTION.match(line.strip()):
            continue
        kept.append(line)
    return "\n".join(kept)


def _part_text(part: MIMEPart) -> str:
    payload = part.get_payload(decode=True)
    raw = payload if isinstance(payload, bytes) else b""
    charset = part.get_content_charset()
    if charset:
        try:
            return raw.decode(charset, errors="replace")
        except LookupError:
            pass
    return decode(raw)[0]


def _body(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    text = _part_text(part)
    if part.get_content_subtype() == "html":
        return parse_html(text).text
    return text


def _date(message: EmailMessage) -> datetime | None:
    value = message.get("Date")
    if not value:
        return None
    try:
        return parsedate_to_datetime(str(value))
    except (TypeError, ValueError, IndexError):
        return None


def _attachments(message: EmailMessage, part_prefix: str) -> Iterator[Extracted | Failure]:
    pairs = []
    for number, attachment in enumerate(message.iter_attachments(), start=1):
        name = attachment.get_filename() or f"attachment-{number}"
        data = attachment.get_payload(decode=True)
        if not isinstance(data, bytes):  # a forwarded message (message/rfc822) is itself a mail
            inner = attachment.get_payload()
            data = inner[0].as_bytes() if isinstance(inner, list) and inner and not isinstance(inner[0], str) else b""
            name = name if "." in name else name + ".eml"
        pairs.append((name, data))
    return attachment_items(pairs, part_prefix)


def attachment_items(attachments: list[tuple[str, bytes]], part_prefix: str = "") -> Iterator[Extracted | Failure]:
    """(file name, bytes) attachments read by the registry, as lazily extracted parts."""
    from lifededup.extract.registry import extract_source  # the registry imports this module

    for number, (name, data) in enumerate(attachments, start=1):
        part = f"{part_prefix}attachment {number}: {name}"
        try:
            found = extract_source(Source(name=name, data=data))
        except ExtractionError as exc:
            # The failed attachment is still reported, with its reason, so nothing is lost silently.
            yield Failure.from_error(exc, part)
            continue
        yield Extracted(text=found.text, title=found.title or name, kind=found.kind, mime=found.mime,
                        doc_date=found.doc_date, metadata={**found.metadata, "filename": name},
                        children=found.children, part=part)


def message_item(data: bytes, part: str = "") -> Extracted:
    """One message as an item, its attachments as (lazy) children."""
    message = BytesParser(policy=policy.default).parsebytes(data)
    assert isinstance(message, EmailMessage)
    metadata = {key.lower(): " ".join(str(message.get(key, "")).split())
                for key in ("From", "To", "Cc", "Message-ID", "In-Reply-To") if message.get(key)}
    text = clean_text(strip_quotes(_body(message)))
    return Extracted(text=text, title=" ".join(str(message.get("Subject", "")).split()), kind="email",
                     mime="message/rfc822", doc_date=_date(message), metadata=metadata,
                     children=_attachments(message, f"{part} / " if part else ""), part=part)


def extract_eml(source: Source) -> Extracted:
    data = source.read_bytes()
    if not data.strip():
        raise EmptyFile(f"{source.name} is empty")
    return message_item(data)


def iter_mbox_messages(source: Source) -> Iterator[bytes]:
    """The raw bytes of each message, read line by line (mboxo/mboxrd "From " separators)."""
    def lines() -> Iterator[bytes]:
        if source.path is not None:
            with source.path.open("rb") as handle:
                yield from handle
        else:
            yield from (source.data or b"").splitlines(keepends=True)

    current: list[bytes] = []
    previous_blank = True
    for line in lines():
        if line.startswith(b"From ") and previous_blank:
            if current:
                yield b"".join(current)
            current = []
        else:
            # mboxrd escapes "From " at the start of a body line as ">From "; undo one level.
            current.append(line[1:] if re.match(rb">+From ", line) else line)
        previous_blank = not line.strip()
    if current and any(ln.strip() for ln in current):
        yield b"".join(current)


def extract_mbox(source: Source) -> Extracted:
    head = source.head()
    if not head.strip():
        raise EmptyFile(f"{source.name} holds no messages")
    if not head.startswith(b"From "):
        raise CorruptFile(f"{source.name} is not an mbox mailbox (it does not start with 'From ')")

    def messages() -> Iterator[Extracted | Failure]:
        for number, data in enumerate(iter_mbox_messages(source), start=1):
            try:
                yield message_item(data, part=f"message {number}")
            except Exception as exc:  # one damaged message must not hide the rest of the mailbox
                yield Failure("corrupt", f"damaged message: {type(exc).__name__}: {exc}", f"message {number}")

    return Extracted(text="", title=source.name, kind="mailbox", mime="application/mbox", children=messages())
