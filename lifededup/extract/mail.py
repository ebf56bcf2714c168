"""Mail: ``.eml`` files, and the reading of one message that mailboxes and ``.msg`` share (stdlib ``email``).

The text of a message is what its author wrote: text/plain preferred, HTML
converted; the quoted earlier messages of a reply ("> ..." lines, "On ...
wrote:", an Outlook "-----Original Message-----" or "From: / Sent:" block,
and in an HTML-only message the mail programs' quote markup: Gmail's
``gmail_quote``, Apple Mail's and Thunderbird's ``<blockquote type=cite>``,
Outlook's ``divRplyFwdMsg`` and what follows it) and the signature are
dropped, so a reply is not a near-copy of the message it answers.  A
forwarded message is kept: its text may be held nowhere else, and the
forward is a copy of it.  Attachments are child items, read by the same
registry as files.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime
from email import policy
from email.errors import HeaderParseError
from email.header import decode_header
from email.message import EmailMessage, MIMEPart
from email.parser import BytesParser
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING

from lifededup.extract.base import EmptyFile, Extracted, ExtractionError, Failure, Format, Probe, Source, nested
from lifededup.extract.html import parse_html
from lifededup.extract.layout import clean_text
from lifededup.extract.text import decode

if TYPE_CHECKING:  # imported where an HTML message is read (extract/html.py says why)
    from bs4 import Tag

# The line that introduces a reply's quote, as the mail programs write it in
# English ("On ... wrote:"), German ("Am ... schrieb NAME:"), French ("Le ...
# a écrit :"), Spanish ("El ... escribió:"), Italian ("Il ... ha scritto:"),
# Dutch ("Op ... schreef NAME:", Apple Mail's "... het volgende geschreven:")
# and Portuguese ("Em ... escreveu:")
_ATTRIBUTION = re.compile(r"^(on|am|le|el|il|op|em)\b.{0,200}\b(wrote|a écrit|escribió|ha scritto|escreveu|geschreven"
                          r"|(schrieb|schreef)\b.{0,80})\s*:\s*$", re.IGNORECASE)
# Any language's attribution, where the quote is marked: a line ending in a
# colon that names an address or a date or time ("02.04.2012 14:20 пользователь
# "bob@example.org" написал:", Android's Russian), followed by "> " lines
# (a phone wraps it: its first lines name the date and the address too)
_DATED_OR_ADDRESSED = re.compile(r"@|\d{1,4}[./-]\d{1,2}[./-]\d{2,4}|\b\d{1,2}:\d{2}\b")
_ATTRIBUTION_ANY = re.compile(rf"({_DATED_OR_ADDRESSED.pattern}).*:\s*$")
_OUTLOOK_QUOTE = re.compile(r"^\s*-{2,}\s*original message\s*-{2,}\s*$", re.IGNORECASE)
# Outlook's rule above the quoted message's header block ("From: ..." next):
# a rule alone is a newsletter's or a form's, not a quote
_OUTLOOK_RULE = re.compile(r"^\s*_{10,}\s*$")
# The words that announce a forwarded message, in the mail programs' languages
_FORWARDED = r"forwarded message|weitergeleitete nachricht|message transféré"
# Where a forwarded message begins (Gmail, Thunderbird, Apple Mail, Outlook):
# what follows is kept, as the forward's text
_FORWARD_MARK = re.compile(rf"^\s*(-{{2,}}\s*({_FORWARDED})\s*-{{2,}}|begin forwarded message\s*:)\s*$",
                           re.IGNORECASE)
# A subject that says the message forwards another (Outlook's "FW:" carries
# the forwarded message under the same "From: / Sent:" block as a reply's
# quote): Fwd, and its German (WG), French (TR), Spanish (RV), Finnish (VL)
# and Dutch (Doorst) forms
_FORWARD_SUBJECT = re.compile(r"^\s*(fwd?|wg|tr|rv|vl|doorst)\s*:", re.IGNORECASE)
_SIGNATURE = "-- "
# A line of quoted headers ("From: ... / Sent: ...") starts an Outlook-style quoted message.
_QUOTED_HEADER = re.compile(r"^\s*\*?(from|von|de|da|van|od|från|fra|от|差出人|expéditeur|remitente|mittente"
                            r"|afzender|lähettäjä|feladó)\s*:\*?\s+\S.*$", re.IGNORECASE)
_QUOTED_HEADER_NEXT = re.compile(r"^\s*\*?(sent|date|gesendet|envoyé|inviato|verzonden|enviado|enviada|skickat|sendt"
                                 r"|odesláno|wysłano|отправлено|送信日時|data|datum|fecha)\s*:", re.IGNORECASE)
# After Outlook's rule, its quoted header's first line in any language: a
# short label and a colon ("Da: Mario Rossi", "Van: Jan", "差出人: ...")
_ANY_HEADER = re.compile(r"^\s*\*?[^\W\d_][\w .-]{0,24}?\s*:\*?\s+\S")
# An HTML message's quote of the message it answers, by the markup of the
# mail programs that write it; Outlook's header block begins the quote, which
# runs to the end of the message
_HTML_QUOTES = "div.gmail_quote, blockquote.gmail_quote, blockquote[type=cite], div.moz-cite-prefix"
_HTML_QUOTE_FROM_HERE = "#divRplyFwdMsg, #appendonsend"


# A subject that says the message answers another: "Re:", and its German
# (AW), Scandinavian (SV), Finnish (VS), Dutch (Antw) and Italian (R) forms
_REPLY_SUBJECT = re.compile(r"^\s*(re|aw|sv|vs|antw|r)\s*(\[\d+\])?\s*:", re.IGNORECASE)


def is_reply(subject: str, in_reply_to: bool = False) -> bool:
    """Whether a message answers another (its subject, or an In-Reply-To or
    References header): only then is an HTML quote the message it answers.
    Gmail's Quote button puts the same markup in a new message, whose quote
    is its own text (a poem sent to a friend)."""
    return in_reply_to or bool(_REPLY_SUBJECT.match(subject))


def is_forward(subject: str) -> bool:
    """Whether a message's subject says it forwards another (``Fwd:``, Outlook's ``FW:``)."""
    return bool(_FORWARD_SUBJECT.match(subject))


def strip_quotes(body: str, *, forward: bool = False, reply: bool = True) -> str:
    """The author's own words: no quoted replies, no attribution line, no
    signature -- and a forwarded message, whole.  ``forward``: the subject
    says the message is a forward (``is_forward``): all of it is kept.
    ``reply``: the message answers another (``is_reply``); a message that
    does not quotes nothing, its "> " lines and rules are its own text (a
    newsletter's masthead rule, commands at a prompt): only its signature
    goes."""
    if forward:
        return body
    lines = body.splitlines()
    kept: list[str] = []
    signed = False
    for i, line in enumerate(lines):
        if _FORWARD_MARK.match(line):
            return "\n".join(kept + lines[i + 1:])  # the forwarded message, its own quotes and all
        # the next line with words: an HTML message's header block may have blank lines between
        nxt = next((later for later in lines[i + 1:i + 4] if later.strip()), "")
        if reply and (_OUTLOOK_QUOTE.match(line) or (_OUTLOOK_RULE.match(line) and _ANY_HEADER.match(nxt))
                      or (_QUOTED_HEADER.match(line) and _QUOTED_HEADER_NEXT.match(nxt))):
            break  # a quoted message, to the end (a forward in it is the quoted one's)
        if reply and _ATTRIBUTION.match(line.strip()) and not nxt.lstrip().startswith(">"):
            break  # the quote is not marked (Yahoo's, AOL's, a phone's): the original as is, to the end
        signed = signed or line == _SIGNATURE  # the signature, up to a forwarded message
        attributes = reply and nxt.lstrip().startswith(">") and _ATTRIBUTION_ANY.search(line) is not None
        while attributes and kept and kept[-1].strip() and _DATED_OR_ADDRESSED.search(kept[-1]):
            kept.pop()  # its wrapped first lines
        if signed or attributes or (reply and (line.lstrip().startswith(">") or _ATTRIBUTION.match(line.strip()))):
            continue
        kept.append(line)
    return "\n".join(kept)


# A declared charset read as the browsers read it (the WHATWG Encoding
# standard): mail programs label Windows-1252 text ISO-8859-1, GBK text
# GB2312, Korean Outlook's cp949 ks_c_5601-1987, Windows' Shift_JIS cp932
_AS_BROWSERS_READ = {"iso8859-1": "cp1252", "ascii": "cp1252", "gb2312": "gb18030", "gbk": "gb18030",
                     "euc_kr": "cp949", "shift_jis": "cp932", "iso8859-9": "cp1254", "tis-620": "cp874"}
# Labels of Western single-byte text: bytes valid as UTF-8 (and not ASCII) under them are UTF-8
_WESTERN = frozenset({"cp1252", "iso8859-1", "iso8859-15", "ascii"})


def decode_declared(raw: bytes, charset: str | None) -> str:
    """``raw`` in its declared ``charset`` -- strictly, the label read as
    browsers read it; UTF-8 when that fails (or the bytes are UTF-8 under a
    Western label); else the legacy code page they are in
    (:func:`lifededup.extract.text.decode`, which replaces bad bytes only last)."""
    try:
        declared = codecs.lookup(charset.strip().strip('"')).name if charset else None
    except (LookupError, ValueError):
        declared = None
    utf8 = None
    try:
        utf8 = raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    if declared is not None:
        if utf8 is not None and declared in _WESTERN and not raw.isascii():
            return utf8
        for name in dict.fromkeys((_AS_BROWSERS_READ.get(declared, declared), declared)):
            try:
                return raw.decode(name)
            except (UnicodeError, LookupError):  # bytes not in it, or a codec of no text (charset=base64)
                pass
    return utf8 if utf8 is not None else decode(raw)[0]


def part_text(part: MIMEPart) -> str:
    """A text part's text, in its charset (:func:`decode_declared`)."""
    payload = part.get_payload(decode=True)
    return decode_declared(payload if isinstance(payload, bytes) else b"", part.get_content_charset())


# What the email package makes of a header whose bytes it misread: a
# replaced byte, or a Windows-1252 quote read as an ISO-8859-1 C1 control
# (or an encoded word it left as it was, of a codec it could not use)
_MISREAD = re.compile("[\ufffd\x80-\x9f]")
# An RFC 2047 encoded word: =?charset(*language)?B|Q?text?=
_ENCODED_WORD = re.compile(r"=\?[^?\s*]+(\*[^?\s]*)?\?[bBqQ]\?[^?\s]*\?=")


def header_text(message: MIMEPart, name: str) -> str:
    """A header's value as text, its words on one line.  Where the email
    package misread it -- it trusts a label (an ISO-8859-1 word holding
    Windows-1252 quotes, a GB2312 one holding GBK) and replaces raw 8-bit
    bytes ("R\\xe9union") -- its encoded words and bytes are decoded as
    :func:`decode_declared` decodes a part."""
    raw = next((value for key, value in message.raw_items() if key.lower() == name.lower()), None)
    if raw is None:
        return ""
    parsed = " ".join(str(message.get(name, "")).split())
    if not _MISREAD.search(parsed) and not _ENCODED_WORD.search(parsed):
        return parsed  # the email package's reading (an address list's quoting made regular)
    try:
        value = decode_declared(raw.encode("ascii", "surrogateescape"), None)
    except UnicodeEncodeError:  # already text (a message built in Python)
        value = raw
    try:
        # the standard library splits the encoded words (those in a row of one
        # charset joined: a character split across two); each is decoded here
        chunks = decode_header(value)
    except HeaderParseError:
        return " ".join(value.split())  # a damaged encoded word: the header as it is
    pieces = [chunk if isinstance(chunk, str) else decode_declared(chunk, charset) for chunk, charset in chunks]
    return " ".join(" ".join(pieces).split())


# A text/plain part this short beside its HTML alternative is a stub ("This
# message is in HTML format. Please use an HTML-capable mail program."): under
# this many words, and under a quarter of the HTML's -- or saying "HTML"
_STUB_WORDS = 40
_STUB_SAYS = re.compile(r"\bhtml\b", re.IGNORECASE)


def _body(message: EmailMessage, *, forward: bool, reply: bool) -> str:
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    text = part_text(part)
    if part.get_content_subtype() == "html":
        return html_message_text(text, forward=forward, reply=reply)
    words = len(text.split())
    html = message.get_body(preferencelist=("html",)) if words < _STUB_WORDS else None
    if html is not None:
        markup = part_text(html)
        converted = html_message_text(markup, forward=forward, reply=reply)
        if words < len(converted.split()) / 4 or _STUB_SAYS.search(text):  # a stub: the HTML is the message
            return converted
    return text


def html_message_text(markup: bytes | str, *, forward: bool, reply: bool) -> str:
    """An HTML message's words (an .eml's HTML part, a .msg's or a winmail.dat's HTML body), without a reply's
    quote of the message it answers: a new message's quote, and a forward, are its own text."""
    return parse_html(without_html_quotes(markup) if reply and not forward else markup).text


def without_html_quotes(markup: bytes | str) -> bytes | str:
    """An HTML message without its quote of the message it answers (see
    the module's doc), which text/plain marks with "> " and HTML with
    markup; a quote that holds a forwarded message (after "Forwarded
    message" or "Begin forwarded message:") is kept."""
    seen = markup if isinstance(markup, str) else markup.decode("latin-1")
    if not any(mark in seen for mark in ("gmail_quote", "cite", "divRplyFwdMsg", "appendonsend")):
        return markup  # most messages: no second parse
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(markup, "lxml")
    for quote in soup.select(_HTML_QUOTES):
        if not quote.decomposed and not _forwards(quote):
            quote.decompose()
    start = soup.select_one(_HTML_QUOTE_FROM_HERE)
    if start is not None and not _forwards(start):
        rule = start.find_previous_sibling()
        if rule is not None and rule.name == "hr":
            rule.decompose()
        for later in list(start.find_next_siblings()):
            later.decompose()
        start.decompose()
    return str(soup)


def _forwards(quote: Tag) -> bool:
    """Whether a quote element holds a forwarded message: the words just
    before it, or its own first words, say so."""
    before = " ".join(reversed([str(s) for s in quote.find_all_previous(string=True, limit=6)]))
    return bool(re.search(_FORWARDED, before[-200:] + " " + quote.get_text(" ")[:200], re.IGNORECASE))


def message_date(message: EmailMessage) -> datetime | None:
    value = message.get("Date")
    if not value:
        return None
    try:
        return parsedate_to_datetime(str(value))
    except (TypeError, ValueError, IndexError):
        return None


def _attachments(message: EmailMessage, parent: Source) -> Iterator[Extracted | Failure]:
    pairs: list[tuple[str, bytes]] = []
    if message.get_content_maintype() == "message":  # the whole body a message (GroupWise's forward): a part
        pairs.extend(_attachment_pairs(message, message.get_filename() or "forwarded-message.eml"))
    elif _whole_body_attached(message):
        pairs.extend(_attachment_pairs(message, message.get_filename() or "attachment-1"))
    for number, attachment in enumerate(message.iter_attachments(), start=1):
        if _is_layout(attachment):
            continue
        pairs.extend(_attachment_pairs(attachment, attachment.get_filename() or f"attachment-{number}"))
    return attachment_items(pairs, parent)


def _whole_body_attached(message: EmailMessage) -> bool:
    """A mail of one part that is a file, not a body: a scanner's "Scan to
    e-mail" sends the PDF alone, a script a report marked as an attachment.
    Its body (none: ``get_body`` passes over an attachment) and its
    attachments (none: ``iter_attachments`` reads a multipart's) left the
    file's text unread, and nothing said so.  It is the mail's part now."""
    return (not message.is_multipart() and message.get_content_maintype() != "message"
            and message.get_body(preferencelist=("plain", "html")) is None)


def _is_layout(part: MIMEPart) -> bool:
    """An image the HTML body shows in place (inline, by its Content-ID: a
    newsletter's logo, a spacer, a signature's icon): the message's layout,
    as a PDF's running headers are, not a document sent. Each one was a
    failure ('no text without OCR'): 4,140 of them for a tester's 10,000
    messages. An image attached as a file is read as before."""
    return (part.get_content_maintype() == "image" and part.get("Content-ID") is not None
            and part.get_content_disposition() != "attachment")


def _attachment_pairs(attachment: MIMEPart, name: str) -> Iterator[tuple[str, bytes]]:
    """(file name, bytes) of an attachment: a forwarded message (message/rfc822)
    is itself a mail; a multipart one (a mailing list's MIME digest, its
    messages in a multipart/digest) is each of its parts, ``name-1``, ``name-2``..."""
    data = attachment.get_payload(decode=True)
    if isinstance(data, bytes):
        yield name, data
        return
    inner = attachment.get_payload()
    if not isinstance(inner, list):
        yield name, b""
    elif attachment.get_content_maintype() == "message":
        data = inner[0].as_bytes() if inner and not isinstance(inner[0], str) else b""
        yield (name if "." in name else name + ".eml"), data
    else:
        for number, part in enumerate(inner, start=1):
            if isinstance(part, MIMEPart):
                yield from _attachment_pairs(part, part.get_filename() or f"{name}-{number}")


def attachment_items(attachments: list[tuple[str, bytes]], parent: Source) -> Iterator[Extracted | Failure]:
    """(file name, bytes) attachments of ``parent`` read by the registry, as lazily extracted parts
    named ``attachment N: name``, the parts inside each (a zip's members) named under it."""
    from lifededup.extract.registry import extract_source  # the registry imports this module

    for number, (name, data) in enumerate(attachments, start=1):
        part = f"attachment {number}: {name}"
        try:
            found = extract_source(parent.child(name, data))
        except ExtractionError as exc:
            # The failed attachment is still reported, with its reason, so nothing is lost silently.
            yield Failure.from_error(exc, part)
            continue
        yield nested(replace(found, title=found.title or name, metadata={**found.metadata, "filename": name}), part)


def _parse(data: bytes) -> EmailMessage:
    """The message in ``data``; a multipart one whose boundary is missing or
    wrong (its parts one string) read with the boundary its body's lines
    show ("--B" ... "--B--"), else its body as text/plain."""
    message = BytesParser(policy=policy.default).parsebytes(data)
    assert isinstance(message, EmailMessage)
    if message.get_content_maintype() != "multipart" or not isinstance(message.get_payload(), str):
        return message
    body = str(message.get_payload())
    for found in re.finditer(r"^--([ -~]{1,70}?)[ \t]*$", body, re.MULTILINE):
        boundary = found.group(1)
        if f"\n--{boundary}--" in body and not boundary.endswith("--"):
            return _split(message, boundary) or _as_text(message)
    # no boundary closed: the body's own first line, where a part's headers follow it (a spammer's mail
    # declares one boundary, opens a second, closes a third: its base64 HTML was indexed as the text)
    opening = re.match(r"\s*--([ -~]{1,70}?)[ \t]*\r?\n(?=Content-)", body, re.IGNORECASE)
    return (_split(message, opening.group(1)) if opening else None) or _as_text(message)


def _split(message: EmailMessage, boundary: str) -> EmailMessage | None:
    """``message`` read again with ``boundary``; None when it gives no parts."""
    message.set_boundary(boundary)
    again = BytesParser(policy=policy.default).parsebytes(message.as_bytes())
    assert isinstance(again, EmailMessage)
    return again if isinstance(again.get_payload(), list) else None


def _as_text(message: EmailMessage) -> EmailMessage:
    message.replace_header("Content-Type", "text/plain")  # what the parser could not split: the text
    return message


def message_item(data: bytes, source: Source) -> Extracted:
    """One message (of ``source``) as an item, its attachments as (lazy) children."""
    message = _parse(data)
    metadata = {key.lower(): header_text(message, key)
                for key in ("From", "To", "Cc", "Bcc", "Message-ID", "In-Reply-To") if message.get(key)}
    subject = header_text(message, "Subject")
    forward = is_forward(subject)
    reply = is_reply(subject, bool(message.get("In-Reply-To") or message.get("References")))
    body = _body(message, forward=forward, reply=reply).replace("\x00", "")  # a broken mailer's NUL byte
    text = clean_text(strip_quotes(body, forward=forward, reply=reply))
    return Extracted(text=text, title=subject, kind="email",
                     mime="message/rfc822", doc_date=message_date(message), metadata=metadata,
                     children=_attachments(message, source))


def extract_eml(source: Source) -> Extracted:
    data = source.read_bytes()
    if not data.strip():
        raise EmptyFile(f"{source.name} is empty")
    return message_item(data, source)


_HEADER_NAMES = (b"from:", b"to:", b"subject:", b"date:", b"received:", b"return-path:", b"message-id:",
                 b"mime-version:", b"delivered-to:")


# A header line: a field name (printable ASCII but the colon) and a colon (RFC 5322 section 2.2).
_FIELD = re.compile(rb"[!-9;-~]+:")


def looks_like_mail(head: bytes) -> bool:
    """A block of header lines from the first line on, two of them mail
    headers (From:, Date:, ...) before any line that is no header.  The
    block, not any two lines: a git log (``commit 0dfab42``, ``Author:``,
    ``Date:``) has a Date: line a commit, and Debian ships hundreds of them
    as changelogs, which were read as mail."""
    known: set[bytes] = set()
    lines = head.lstrip().split(b"\n")
    if lines[0].startswith(b"From "):
        lines = lines[1:]  # an mbox's envelope line, kept by a message saved alone
    for line in lines:
        line = line.rstrip(b"\r")
        if not line:
            break  # the end of the header block
        if line[:1] in (b" ", b"\t"):
            continue  # a header folded onto this line
        field = _FIELD.match(line)
        if field is None:
            break
        if field.group(0).lower() in _HEADER_NAMES:
            known.add(field.group(0).lower())
            if len(known) >= 2:
                return True
    return False


def _is_eml(probe: Probe) -> bool:
    return looks_like_mail(probe.head)


FORMAT = Format(name="eml", kind="email", extract=extract_eml, suffixes=(".eml",), looks_like=_is_eml)
