"""SVG drawings (lxml): the words a person sees on the drawing, not its markup.

A drawing's text is in its ``<text>`` elements (their ``<tspan>`` and
``<textPath>`` pieces joined), Inkscape's flowed text (``<flowRoot>``), and
the ``<title>`` and ``<desc>`` its author gave it or its shapes. Read as
plain text (as it was before), an Inkscape icon was its path data: two
numbered callout circles were "26% of words apart" and clustered, and a
search for ``inkscape`` or ``circle`` found every drawing. A drawing of
shapes alone has no words: ``no-text``, as a blank scan is.

Its title is the drawing's own ``<title>``, else the one Inkscape keeps in
its metadata (``dc:title``). Entities are never resolved and the network is
never read (``parse_xml``); ``.svgz`` is unpacked first by the compressed
format, as any gzipped file is.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from lifededup.extract.base import Extracted, Format, NoText, Probe, Source, parse_xml

_SVG = "{http://www.w3.org/2000/svg}"
_DC_TITLE = "{http://purl.org/dc/elements/1.1/}title"
# Whole blocks of words: each one line, its pieces (tspan, flowPara, a
# foreignObject's XHTML) joined.
_BLOCKS = frozenset(f"{_SVG}{name}" for name in ("title", "desc", "text", "flowRoot", "foreignObject"))
# Pieces of a block that are lines of their own
_LINES = frozenset(f"{_SVG}{name}" for name in ("flowPara", "flowDiv"))
_TSPAN = f"{_SVG}tspan"
_PLACED = {"x", "y", "dy"}
# Never a person's words (a <defs> is read: <use> shows the text it holds).
_SKIPPED = frozenset(f"{_SVG}{name}" for name in ("style", "script", "metadata"))


def _words(element: Any) -> str:
    """The text of ``element`` and its pieces, on one line."""
    return " ".join("".join(_pieces(element)).split())


def _pieces(element: Any) -> Iterator[str]:
    """The text in ``element``, in order: an unresolved entity's name
    (``&ext;``), a comment and a style are not words, the text after them is."""
    if element.text and isinstance(element.tag, str):
        yield element.text
    for child in element:
        if isinstance(child.tag, str) and child.tag not in _SKIPPED:
            if child.tag in _LINES or (child.tag == _TSPAN and _PLACED & set(child.keys())):
                yield " "  # a line of its own (Inkscape's lines are tspans placed anew): not run on
            yield from _pieces(child)
        if child.tail:
            yield child.tail


def _blocks(element: Any) -> list[str]:
    """The lines of words of ``element``'s blocks, in document order; a
    block's inner blocks are in its own line (a ``<title>`` of a ``<text>``)."""
    lines: list[str] = []
    for child in element:
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag in _SKIPPED:
            continue
        if tag in _BLOCKS:
            line = _words(child)
            if line:
                lines.append(line)
        else:
            lines += _blocks(child)
    return lines


def _title(root: Any) -> str:
    own = root.find(f"{_SVG}title")
    if own is not None and _words(own):
        return _words(own)[:200]
    inkscape = next(root.iter(_DC_TITLE), None)
    return "" if inkscape is None else _words(inkscape)[:200]


def extract_svg(source: Source) -> Extracted:
    root = parse_xml(source.read_bytes(), "the SVG drawing")
    lines = _blocks(root)
    if not lines:
        raise NoText("a drawing (SVG) of shapes alone: no text in it")
    return Extracted(text="\n".join(lines), title=_title(root), kind="document", mime="image/svg+xml")


# An XML document whose root is <svg>, under another name: its declaration,
# comments and doctype may come first.
_SVG_ROOT = re.compile(rb"\A\s*(<\?xml[^>]*>\s*)?(<!--.*?-->\s*)*(<!DOCTYPE\s+svg[^>]*>\s*)?(<!--.*?-->\s*)*<svg[\s>]",
                       re.DOTALL)


def _is_svg(probe: Probe) -> bool:
    return _SVG_ROOT.match(probe.head.removeprefix(b"\xef\xbb\xbf")) is not None


FORMAT = Format(name="svg", extract=extract_svg, suffixes=(".svg",), looks_like=_is_svg)
