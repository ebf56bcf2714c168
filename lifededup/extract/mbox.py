"""Mailboxes (``.mbox``): each message an item of its own, read one at a time from a stream of lines.

A mailbox of hundreds of MB is never loaded whole; a damaged message is
recorded and the rest of the mailbox still comes through.  Messages are read
as :mod:`lifededup.extract.mail` reads an ``.eml``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from lifededup.extract.base import CorruptFile, EmptyFile, Extracted, Failure, Format, Limits, Probe, Source, nested
from lifededup.extract.mail import looks_like_mail, message_item


# An envelope line: "From " the sender and the date as asctime writes it
# ("From alex@example.org Mon Jun  3 09:30:00 2024", a zone before or after
# the year) -- a separator even with no blank line before it, as Eudora and
# others write mailboxes and Python's mailbox reads them
_ENVELOPE = re.compile(rb"From \S+ +[A-Za-z]{3},? +[A-Za-z]{3} +\d{1,2},? +\d{1,2}:\d\d(:\d\d)?"
                       rb"( +[-+]?[A-Za-z0-9]{1,5})? +\d{4}( +[-+]?[A-Za-z0-9]{1,5})?\s*$")
# A mailbox is read in pieces of at most this many bytes: a message of one
# line of hundreds of MB is never one allocation
_PIECE = 2**20


def whole_message_cap(limits: Limits) -> int:
    """The largest message read whole: what a file may be (``max_bytes``),
    and an eighth of the worker's memory -- a message is held as bytes, as
    the parsed message and as text at once (a 120 MiB one ran a 384 MiB
    worker out of memory, and the messages after it were lost)."""
    return min(limits.max_bytes, limits.memory_mb * 2**20 // 8)


def iter_mbox_messages(source: Source) -> Iterator[bytes | int]:
    """The raw bytes of each message, read line by line (mboxo/mboxrd "From "
    separators: after a blank line, or an envelope line after any) -- or, for a message over ``whole_message_cap``, its size:
    it is not assembled, which would run the worker out of memory and lose
    the messages after it."""
    def pieces() -> Iterator[tuple[bytes, bool]]:
        """(bytes, whether they start a line): lines, a long one in pieces."""
        if source.path is not None:
            with source.open() as handle:
                starts = True
                while piece := handle.readline(_PIECE):
                    yield piece, starts
                    starts = piece.endswith(b"\n")
        else:
            yield from ((line, True) for line in (source.data or b"").splitlines(keepends=True))

    cap = whole_message_cap(source.limits)
    current: list[bytes] = []
    size = 0
    previous_blank = True
    for piece, starts in pieces():
        if starts and piece.startswith(b"From ") and (previous_blank or _ENVELOPE.match(piece)):
            if size > cap:
                yield size
            elif current:
                yield b"".join(current)
            current, size = [], 0
        else:
            # mboxrd escapes "From " at the start of a body line as ">From "; undo one level.
            if starts and re.match(rb">+From ", piece):
                piece = piece[1:]
            size += len(piece)
            if size <= cap:
                current.append(piece)
            else:
                current = []  # too large to read whole: only its size is kept
        previous_blank = starts and not piece.strip()
    if size > cap:
        yield size
    elif current and any(ln.strip() for ln in current):
        yield b"".join(current)


def extract_mbox(source: Source) -> Extracted:
    head = source.head()
    if not head.strip():
        raise EmptyFile(f"{source.name} holds no messages")
    if not head.startswith(b"From "):
        raise CorruptFile(f"{source.name} is not an mbox mailbox (it does not start with 'From ')")

    def messages() -> Iterator[Extracted | Failure]:
        for number, data in enumerate(iter_mbox_messages(source), start=1):
            if isinstance(data, int):
                yield Failure("too-large", f"a message of {data / 2**20:.0f} MiB, over the "
                              f"{whole_message_cap(source.limits) / 2**20:.0f} MiB read whole (the smaller of "
                              f"{source.limits.max_bytes / 2**20:.0f} MiB and an eighth of the "
                              f"{source.limits.memory_mb} MiB memory limit): not read", f"message {number}", "email")
                continue
            try:
                yield nested(message_item(data, source), f"message {number}")
            except MemoryError:  # a message too large for the worker's memory, not a damaged one
                yield Failure("too-large", f"ran out of the {source.limits.memory_mb} MiB memory limit reading "
                              f"this message of {len(data) / 2**20:.0f} MiB (index --memory-mb MORE "
                              "reads the mailbox again with more)", f"message {number}", "email")
            except Exception as exc:  # one damaged message must not hide the rest of the mailbox
                yield Failure("corrupt", f"damaged message: {type(exc).__name__}: {exc}", f"message {number}",
                              "email")

    return Extracted(text="", title=source.name, kind="mailbox", mime="application/mbox", children=messages())


def _is_mbox(probe: Probe) -> bool:
    return probe.head.startswith(b"From ") and looks_like_mail(probe.head.split(b"\n", 1)[-1])


FORMAT = Format(name="mbox", kind="mailbox", extract=extract_mbox, suffixes=(".mbox", ".mbx"), looks_like=_is_mbox,
                streamed=True)
