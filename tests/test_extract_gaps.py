"""Files whose text was lost, or that should never be read: the gaps earlier readings left."""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

import pytest

from lifededup.extract import extract
from lifededup.extract.html import LIBXML2_MAX_DEPTH, parse_html, parse_html_with_soup

# --- HTML nested deeper than libxml2 builds a tree -------------------------------------------------


def nested_page(depth: int, tags: tuple[str, ...] = ("div", "span", "font")) -> str:
    """A generated page: ``depth`` elements nested, the words at the bottom, a paragraph after them."""
    opening = "".join(f"<{tags[level % len(tags)]}>" for level in range(depth))
    closing = "".join(f"</{tags[level % len(tags)]}>" for level in reversed(range(depth)))
    return (f"<html><head><title>Ferry notice</title></head><body>{opening}The harbour ferry timetable "
            f"changed in March.{closing}<p>Tickets are sold on board.</p></body></html>")


@pytest.mark.parametrize("depth", [LIBXML2_MAX_DEPTH - 2, LIBXML2_MAX_DEPTH - 1, 3000])
def test_a_deeply_nested_page_is_read_whole(tmp_path: Path, depth: int) -> None:
    """libxml2 stops building its tree 256 elements deep and reads no further, silently: the page
    (the words inside the nest and the paragraph after it) was an "empty" failure.  Two levels
    (<html>, <body>) stand above the nest, so a nest LIBXML2_MAX_DEPTH - 1 deep was the first lost."""
    path = tmp_path / "notice.html"
    path.write_text(nested_page(depth), encoding="utf-8")
    got = extract(path)
    for words in ("ferry timetable changed in March", "Tickets are sold on board"):
        assert words in got.text, f"{depth} deep: {words!r} lost from {got.text!r}"
    assert parse_html(path.read_bytes()) == parse_html_with_soup(path.read_bytes()), f"{depth} deep: readings differ"


def test_a_deeply_nested_html_mail_keeps_its_body(tmp_path: Path) -> None:
    """A mail client's HTML-only message nested 400 deep was an item read "ok" with no body at all."""
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "alex@example.org", "sam@example.org", "Deep mail"
    message.set_content(nested_page(400), subtype="html")
    path = tmp_path / "deep.eml"
    path.write_bytes(bytes(message))
    got = extract(path)
    assert "ferry timetable changed in March" in got.text, f"the body was lost: {got.text!r}"


def test_a_page_twenty_thousand_deep_is_read(tmp_path: Path) -> None:
    """Read the slow way, BeautifulSoup's, which set blocks apart by inserting strings into its tree,
    each insertion a walk down and up the nest: 20,000 nested <div> took 70 s (past the worker's
    timeout), 5,000 took 4 s; walking the tree once takes 0.5 s and 0.1 s.  No clock here (speed is
    not asserted in tests): a reading quadratic again would show as this test's minute."""
    path = tmp_path / "generated.html"
    path.write_text(nested_page(20_000, ("div",)), encoding="utf-8")
    got = extract(path)
    assert "ferry timetable changed in March.\n\nTickets are sold on board." in got.text, got.text[-200:]
