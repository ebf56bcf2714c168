"""vCard address books (``.vcf``, vobject): one card an item; a file of many cards, one part per card."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from lifededup.extract.base import EmptyFile, Extracted, Failure, Format, Probe, Source
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
    import vobject  # type: ignore[import-untyped]

    text, _ = decode(source.read_bytes())
    cards = [c for c in vobject.readComponents(text, ignoreUnreadable=True) if c.name.upper() == "VCARD"]
    if not cards:
        raise EmptyFile(f"{source.name} holds no vCard")
    return one_or_parts(cards, _card, Extracted(text="", title=source.name, kind="address book", mime="text/vcard",
                                                metadata={"contacts": str(len(cards))}))


def _is_vcard(probe: Probe) -> bool:
    return probe.head.lstrip()[:11].upper() == b"BEGIN:VCARD"


FORMAT = Format(name="vcard", kind="address book", extract=extract_vcard, suffixes=(".vcf", ".vcard"),
                looks_like=_is_vcard)
