"""Mailboxes (``.mbox``): each message an item of its own, read one at a time from a stream of lines.

A mailbox of hundreds of MB is never loaded whole; a damaged message is
recorded and the rest of the mailbox still comes through.  Messages are read
as :mod:`lifededup.extract.mail` reads an ``.eml``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from lifededup.extract.base import CorruptFile, EmptyFile, Extracted, Failure, Format, Probe, Source, nested
from lifededup.extract.mail import looks_like_mail, message_item


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
                yield nested(message_item(data, source), f"message {number}")
            except Exception as exc:  # one damaged message must not hide the rest of the mailbox
                yield Failure("corrupt", f"damaged message: {type(exc).__name__}: {exc}", f"message {number}")

    return Extracted(text="", title=source.name, kind="mailbox", mime="application/mbox", children=messages())


def _is_mbox(probe: Probe) -> bool:
    return probe.head.startswith(b"From ") and looks_like_mail(probe.head.split(b"\n", 1)[-1])


FORMAT = Format(name="mbox", extract=extract_mbox, suffixes=(".mbox", ".mbx"), looks_like=_is_mbox, streamed=True)
