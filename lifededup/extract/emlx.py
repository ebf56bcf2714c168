"""Apple Mail's ``.emlx``: one message as Mail keeps it (``~/Library/Mail/V10/.../Messages/12345.emlx``).

The file is the message's length in bytes on a line of its own, the RFC 822
message, then a property list of Mail's own (flags, dates).  It was read as
text: its length, raw headers, quoted-printable and base64 lines and the
property list all words.  It is read as the .eml it holds, so that the same
message kept by Mail and saved elsewhere as .eml is one exact copy.  A
``.partial.emlx`` holds the message without its larger attachments, which Mail
keeps beside it (``Attachments/12345/2/``), where they are read as files.
"""

from __future__ import annotations

import re

from lifededup.extract.base import CorruptFile, EmptyFile, Extracted, Format, Probe, Source
from lifededup.extract.mail import looks_like_mail, message_item

# The first line: the message's length in bytes (Mail pads it with spaces)
_LENGTH = re.compile(rb"[ \t]*(\d{1,12})[ \t]*\r?\n")


def extract_emlx(source: Source) -> Extracted:
    data = source.read_bytes()
    found = _LENGTH.match(data)
    if found is None:
        raise CorruptFile(f"{source.name} is not an Apple Mail message: its first line is not the message's length")
    # the length as Mail wrote it; a file cut short holds less, which is read as far as it goes
    message = data[found.end():found.end() + int(found.group(1))]
    if not message.strip():
        raise EmptyFile(f"{source.name} is an Apple Mail message with nothing in it")
    return message_item(message, source)


def _is_emlx(probe: Probe) -> bool:
    found = _LENGTH.match(probe.head)
    return found is not None and looks_like_mail(probe.head[found.end():])


FORMAT = Format(name="emlx", kind="email", extract=extract_emlx, suffixes=(".emlx",), magic=_is_emlx)
