"""vCard address books (``.vcf``, vobject): one card an item; a file of many cards, one part per card."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from lifededup.extract.base import (
    CorruptFile, EmptyFile, Extracted, ExtractionError, Failure, Format, Probe, Source, UnsupportedFormat,
)
from lifededup.extract.text import decode

# What a person reads on a card, in this order.
FIELDS = ("fn", "n", "nickname", "org", "title", "role", "email", "tel", "adr", "url", "bday", "categories", "note")


def value_text(value: Any) -> str:
    """A vobject value (text, a list, a structured name or address) as words on one line."""
    if isinstance(value, (list, tuple)):
        return ", ".join(value_text(v) for v in value if value_text(v))
    return " ".join(str(value).split())


def field_lines(component: Any, fields: tuple[str, ...], clean: Callable[[str], str] = str) -> list[str]:
    """The component's values of ``fields``, in that order, each once, as lines of words."""
    lines: list[str] = []
    for field in fields:
        for line in component.contents.get(field, []):
            text = clean(value_text(line.value))
            if text and text not in lines:
                lines.append(text)
    return lines


def one_or_parts(entries: list[Any], read: Callable[[Any, int], Extracted], container: Extracted) -> Extracted:
    """A file of one entry is that entry; a file of several is ``container``
    with one part per entry (numbered from 1, as an mbox's messages are)."""
    if len(entries) == 1:
        return read(entries[0], 0)
    parts: Iterator[Extracted | Failure] = (read(entry, n) for n, entry in enumerate(entries, start=1))
    return replace(container, children=parts)


# vobject's loggers: base's has a handler of its own that prints to stderr (when the program has set
# up no logging), icalendar's reaches Python's last-resort handler, which prints too.
_VOBJECT_LOGGERS = ("vobject.base", "vobject.icalendar")
_LOGGERS_TAKEN = threading.Lock()


class _Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()  # "Skipped line 3, message: At line 3: Failed to parse line: ..."
        self.messages.append(message.partition(", message: ")[2] or message)


def read_components(text: str) -> tuple[list[Any], list[str]]:
    """vobject's top-level components in ``text``, and its messages about the lines it could not read
    and skipped: kept to say why a file holds no card or event, not printed on the indexer's terminal."""
    import vobject  # type: ignore[import-untyped]

    kept = _Kept()
    loggers = [logging.getLogger(name) for name in _VOBJECT_LOGGERS]
    # vobject.icalendar also calls logging.error() for a time zone it does not know (TZID="Central Standard
    # Time"): on a program that set up no logging that installs a handler printing to stderr, for good
    root, hush = logging.getLogger(), logging.NullHandler()
    with _LOGGERS_TAKEN:  # two threads' handlers swapped in turn could leave one's in place for good
        saved = [(logger.handlers, logger.propagate) for logger in loggers]
        for logger in loggers:
            logger.handlers, logger.propagate = [kept], False
        hushed = not root.handlers
        if hushed:
            root.addHandler(hush)
        try:
            return _readable(vobject, text, kept), kept.messages
        finally:
            for logger, (handlers, propagate) in zip(loggers, saved):
                logger.handlers, logger.propagate = handlers, propagate
            if hushed:
                root.removeHandler(hush)


def _readable(vobject: Any, text: str, kept: _Kept) -> list[Any]:
    """The components read, each value in Python's types; where one value cannot be (a DTSTART of
    "INVALID-DATE", an RDATE period of two dates) vobject gives up on the whole file, so it is read
    again as text and each value turned one by one, the bad ones left as the text they were.  A file
    cut short (a download or a sync interrupted) is read as far as it goes: vobject gave up on the
    whole of an address book whose last card was cut off ("Component VCARD was never closed")."""
    try:
        return list(vobject.readComponents(text, ignoreUnreadable=True))
    except Exception as exc:
        closed = _closed(text) if "never closed" in str(exc) else None
        if closed is not None:
            try:
                return _readable(vobject, closed, kept)
            except Exception:
                raise exc from None  # (what the file itself says, not the lines added to it)
        kept.messages.clear()
        try:
            components = list(vobject.readComponents(text, ignoreUnreadable=True, transform=False))
        except Exception:
            raise exc from None  # not one bad value: the file itself is damaged (never closed...)
    for component in components:
        _to_native(component)
    return components


def _closed(text: str) -> str | None:
    """``text`` with an ``END`` line for each component it begins and never ends, the innermost
    first; None where it ends every one it begins."""
    still_open: list[str] = []
    for line in text.splitlines():
        name, _, value = line.partition(":")
        name = name.rstrip().upper()  # (a line that starts with a space goes on the one before)
        if name == "BEGIN":
            still_open.append(value.strip())
        elif name == "END" and still_open and still_open[-1].upper() == value.strip().upper():
            still_open.pop()
    if not still_open:
        return None
    return text.rstrip("\r\n") + "".join(f"\r\nEND:{name}" for name in reversed(still_open)) + "\r\n"


def _to_native(component: Any) -> None:
    """vobject's Component.transformChildrenToNative (time zones first), going on past a value it cannot read."""
    for key in component.sortChildKeys():
        for child in component.contents[key]:
            try:
                child = child.transformToNative()
            except Exception:  # noqa: S112 - the value stays the text the file holds
                continue
            if hasattr(child, "sortChildKeys"):
                _to_native(child)


def none_read(source: Source, text: str, what: str, begin: str, unreadable: list[str]) -> ExtractionError:
    """Why a file holds no ``what``: nothing in it, not that format at all (no ``begin`` line:
    garbage named .vcf), or lines of it that cannot be read."""
    if not text.strip():
        return EmptyFile(f"{source.name} is empty: it holds no {what}")
    first = f"; {len(unreadable)} line(s) cannot be read, the first: {unreadable[0][:200]}" if unreadable else ""
    if begin not in text.upper():
        return UnsupportedFormat(f"{source.name} is not in the format its {source.suffix} name says: no {begin} "
                                 f"line{first}")
    return CorruptFile(f"{source.name} holds no readable {what}{first}")


def _card(component: Any, number: int = 0) -> Extracted:
    """One card; ``number`` > 0 names it as a part of an address book ("contact 3: Ada Lovelace")."""
    lines = field_lines(component, FIELDS)
    fn = component.contents.get("fn")
    title = value_text(fn[0].value) if fn else (lines[0] if lines else "")
    emails = [value_text(e.value) for e in component.contents.get("email", [])]
    return Extracted(text="\n".join(lines), title=title, kind="contact", mime="text/vcard",
                     metadata={"email": ", ".join(emails)} if emails else {},
                     part=f"contact {number}: {title}" if number else "")


def extract_vcard(source: Source) -> Extracted:
    text, _ = decode(source.read_bytes())
    components, unreadable = read_components(text)
    cards = [c for c in components if c.name.upper() == "VCARD"]
    if not cards:
        raise none_read(source, text, "vCard", "BEGIN:VCARD", unreadable)
    return one_or_parts(cards, _card, Extracted(text="", title=source.name, kind="address book", mime="text/vcard",
                                                metadata={"contacts": str(len(cards))}))


def _is_vcard(probe: Probe) -> bool:
    return probe.head.lstrip()[:11].upper() == b"BEGIN:VCARD"


FORMAT = Format(name="vcard", kind="address book", extract=extract_vcard, suffixes=(".vcf", ".vcard"),
                looks_like=_is_vcard)
