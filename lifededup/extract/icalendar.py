"""iCalendar (``.ics``, vobject): events, to-dos and journal entries; several in a file, one part each."""

from __future__ import annotations

from datetime import date, datetime, time, timezone
from typing import Any

from lifededup.extract.base import EmptyFile, Extracted, Format, Probe, Source
from lifededup.extract.text import decode
from lifededup.extract.vcard import field_lines, none_read, one_or_parts, read_components, value_text

COMPONENTS = ("VEVENT", "VTODO", "VJOURNAL")
FIELDS = ("summary", "location", "description", "organizer", "attendee", "categories", "comment", "url")


def _when(component: Any) -> datetime | None:
    """When the entry starts (or is due): a local time keeps its offset, but as a plain fixed offset -- vobject's
    time zones (built from the file's VTIMEZONE) hold a lock, and cannot be pickled back from the worker process."""
    start = component.contents.get("dtstart") or component.contents.get("due")
    value = start[0].value if start else None
    if isinstance(value, datetime):
        try:
            offset = value.utcoffset()
        except Exception:  # a time zone the file defines badly: the wall-clock time is still the entry's
            offset = None
        return value.replace(tzinfo=timezone(offset) if offset is not None else None)
    if isinstance(value, date):
        return datetime.combine(value, time())
    return None


def _entry(component: Any, number: int = 0) -> Extracted:
    """One event, to-do or journal entry; ``number`` > 0 names it as a part ("event 2: Dentist")."""
    lines = field_lines(component, FIELDS, lambda text: text.removeprefix("mailto:").removeprefix("MAILTO:"))
    summary = component.contents.get("summary")
    title = value_text(summary[0].value) if summary else ""
    return Extracted(text="\n".join(lines), title=title, kind="event", mime="text/calendar",
                     doc_date=_when(component), part=f"event {number}: {title}" if number else "",
                     metadata={"component": component.name.upper()})


def _entries(components: list[Any]) -> list[Any]:
    """The events, to-dos and journal entries of the file's calendars, and those standing alone: an
    event copied out of a calendar (icalendar's test files hold 34 such) is a file of one BEGIN:VEVENT."""
    found = []
    for component in components:
        if component.name.upper() in COMPONENTS:
            found.append(component)
        elif component.name.upper() == "VCALENDAR":
            found.extend(c for c in component.getChildren() if c.name.upper() in COMPONENTS)
    return found


def extract_icalendar(source: Source) -> Extracted:
    text, _ = decode(source.read_bytes())
    calendars, unreadable = read_components(text)
    entries = _entries(calendars)
    if not entries:
        if calendars and not unreadable:  # a calendar read whole, of time zones only, say
            raise EmptyFile(f"{source.name} holds no events, to-dos or journal entries")
        raise none_read(source, text, "events, to-dos or journal entries", "BEGIN:VCALENDAR", unreadable)
    return one_or_parts(entries, _entry, Extracted(text="", title=source.name, kind="calendar", mime="text/calendar",
                                                   metadata={"entries": str(len(entries))}))


def _is_icalendar(probe: Probe) -> bool:
    return probe.head.lstrip()[:15].upper() == b"BEGIN:VCALENDAR"


FORMAT = Format(name="icalendar", kind="calendar", extract=extract_icalendar, suffixes=(".ics", ".ical", ".ifb"),
                looks_like=_is_icalendar)
