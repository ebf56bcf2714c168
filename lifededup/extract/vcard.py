"""vCard address books (``.vcf``, vobject): one card an item; a file of many cards, one part per card."""

from __future__ import annotations

from collections.abc import Iterator
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


def _card(component: Any, number: int = 0) -> Extracted:
    """One card; ``number`` > 0 names it as a part of an address book ("contact 3: Ada Lovelace")."""
    lines = []
    for field in FIELDS:
        for line in component.contents.get(field, []):
            text = value_text(line.value)
            if text and text not in lines:
                lines.append(text)
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
    if len(cards) == 1:
        return _card(cards[0])
    parts: Iterator[Extracted | Failure] = (_card(card, n) for n, card in enumerate(cards, start=1))
    return Extracted(text="", title=source.name, kind="address book", mime="text/vcard",
                     metadata={"contacts": str(len(cards))}, children=parts)


def _is_vcard(probe: Probe) -> bool:
    return probe.head.lstrip()[:11].upper() == b"BEGIN:VCARD"


FORMAT = Format(name="vcard", extract=extract_vcard, suffixes=(".vcf", ".vcard"), looks_like=_is_vcard)
