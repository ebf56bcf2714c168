"""Mailboxes (``.mbox``): each message an item of its own, read one at a time from a stream of lines.

A mailbox of hundreds of MB is never loaded whole; a damaged message is
recorded and the rest of the mailbox still comes through.  Messages are read
as :mod:`lifededup.extract.mail` reads an ``.eml``.  A mailbox that grew by
messages appended (as mail clients and delivery agents write) is read from
where it grew (:class:`Separators` tells it, :class:`GrownMailboxes` reads it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

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
# a body line an mboxrd writer escaped (">From ", ">>From " ...)
_ESCAPED_FROM = re.compile(rb">+From ")


def whole_message_cap(limits: Limits) -> int:
    """The largest message read whole: what a file may be (``max_bytes``),
    and an eighth of the worker's memory -- a message is held as bytes, as
    the parsed message and as text at once (a 120 MiB one ran a 384 MiB
    worker out of memory, and the messages after it were lost)."""
    return min(limits.max_bytes, limits.memory_mb * 2**20 // 8)


def _separates(line: bytes, previous_blank: bool) -> bool:
    """Whether a line (a piece that starts a line) starts a message: "From "
    after a blank line, or an envelope line after any."""
    return line.startswith(b"From ") and (previous_blank or _ENVELOPE.match(line) is not None)


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
            yield from ((line, True) for line in source.read_bytes().splitlines(keepends=True))

    cap = whole_message_cap(source.limits)
    current: list[bytes] = []
    size = 0
    previous_blank = True
    for piece, starts in pieces():
        if starts and _separates(piece, previous_blank):
            if size > cap:
                yield size
            elif current:
                yield b"".join(current)
            current, size = [], 0
        else:
            # mboxrd escapes "From " at the start of a body line as ">From "; undo one level.
            if starts and piece.startswith(b">") and _ESCAPED_FROM.match(piece):
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
    # a message saved alone as .mbox starts with its headers, no envelope line: it is the mailbox's first message
    if not head.startswith(b"From ") and not looks_like_mail(head):
        raise CorruptFile(f"{source.name} is not an mbox mailbox (it starts with neither 'From ' nor mail headers)")

    def messages() -> Iterator[Extracted | Failure]:
        for number, data in enumerate(iter_mbox_messages(source), start=source.parts_before + 1):
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
                streamed=True, spellings=((".mbox", ".mbx"),))


class Separators:
    """The messages a mailbox fed to it piece by piece holds, counted as
    :func:`iter_mbox_messages` splits them, and whether a message would
    start where the pieces end (:meth:`next_starts`): what tells a mailbox
    that grew by messages appended from one changed otherwise, without
    reading its messages.  ``messages`` counts the separators; a mailbox
    whose count is not what its reading stored (an empty message between
    two envelopes, a read that went past the bytes hashed) is read whole."""

    def __init__(self) -> None:
        self.messages = 0
        self._tail = b""  # the last line, unfinished
        self._blank_before = True  # whether the line before _tail is blank (a mailbox's start counts as one)

    def feed(self, data: bytes) -> None:
        buffer = self._tail + data
        end = buffer.rfind(b"\n") + 1  # buffer[:end]: whole lines, the first starting a line
        for at in self._line_starts_from(buffer, end):
            previous = self._blank_before if at == 0 else not buffer[buffer.rfind(b"\n", 0, at - 1) + 1:at].strip()
            self.messages += _separates(buffer[at:buffer.find(b"\n", at) + 1], previous)
        if end:
            last = buffer[buffer.rfind(b"\n", 0, end - 1) + 1:end]
            self._blank_before = not last.strip() and len(last) <= _PIECE
        # a line longer than a piece: only its start matters (a continued piece starts no message)
        self._tail = buffer[end:] if len(buffer) - end <= _PIECE else buffer[end:end + 8] + b"\0"

    @staticmethod
    def _line_starts_from(buffer: bytes, end: int) -> Iterator[int]:
        """Where the whole lines of ``buffer[:end]`` that start with "From " start."""
        if buffer.startswith(b"From ") and end > 0:
            yield 0
        at = buffer.find(b"\nFrom ")
        while at != -1 and at + 1 < end:
            yield at + 1
            at = buffer.find(b"\nFrom ", at + 1)

    def next_starts(self, line: bytes) -> bool:
        """Whether ``line``, following the bytes fed (which end a line), starts a message."""
        return not self._tail and _separates(line, self._blank_before)


@dataclass(frozen=True)
class GrownMailboxes:
    """The extract function (``extract_many``'s ``extractor``) that reads
    the mailboxes named, each from where it grew (``{path: (offset, end,
    messages before)}``), and every other file as the registry does."""

    grown: dict[str, tuple[int, int, int]]

    def __call__(self, source: Source, limits: Limits) -> Extracted:
        from lifededup.extract.registry import extract_as, extract_source  # the registry imports this module

        where = self.grown.get(str(source.path)) if source.path is not None else None
        if where is None:
            return extract_source(source, limits)
        offset, end, before = where
        return extract_as("mbox", replace(source, offset=offset, end=end, parts_before=before), limits)
