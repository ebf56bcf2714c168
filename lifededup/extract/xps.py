"""XPS and OpenXPS (``.xps``, ``.oxps``): what Windows' "Microsoft XPS Document Writer" prints a document to.

An XPS document is a zip of fixed pages, read here in their order: the
package's fixed representation (``_rels/.rels``) names its document sequence
(``.fdseq``), which names its documents (``.fdoc``), which name their pages
(``.fpage``).  A page's text is the ``UnicodeString`` of its ``Glyphs``, each a
run of characters drawn at one origin: the runs at one height are a line.
Read as the zip it is, such a file was its fonts (``unsupported`` parts) and
its thumbnail, and none of its words.
"""

from __future__ import annotations

import posixpath
import re
import zipfile
from typing import Any

from lifededup.extract.base import (
    CorruptFile, Extracted, Format, Probe, Source, iso_date, last_saved, open_zip, parse_xml,
)
from lifededup.extract.layout import clean_pages

_REPRESENTATION = re.compile(r"/fixedrepresentation$")
_RELATIONSHIPS = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"
_DC, _TERMS = "{http://purl.org/dc/elements/1.1/}", "{http://purl.org/dc/terms/}"
# a line's runs are a few hundredths of a unit apart in height at most; a new line is lower by a font's size
_SAME_LINE = 1.0


def extract_xps(source: Source) -> Extracted:
    with open_zip(source) as package:
        pages = _pages(package)
        texts = [_page_text(parse_xml(package.read(name), "the XPS page")) for name in pages]
        title, date = _properties(package)
    return Extracted(text=clean_pages(texts), title=title, kind="document", mime="application/vnd.ms-xpsdocument",
                     doc_date=date, metadata={"pages": str(len(pages))})


def _pages(package: zipfile.ZipFile) -> list[str]:
    """The pages' part names in reading order; every ``.fpage`` by its number where the package's
    references cannot be followed."""
    names = set(package.namelist())
    try:
        sequence = _target(package, "_rels/.rels", "", _REPRESENTATION)
        pages = [page for document in _sources(package, sequence, "DocumentReference")
                 for page in _sources(package, document, "PageContent")]
    except (KeyError, CorruptFile):  # a part missing, or its XML beyond repair
        pages = []
    if pages and all(page in names for page in pages):
        return pages
    numbered = [name for name in names if name.lower().endswith(".fpage")]
    return sorted(numbered, key=lambda name: [int(n) if n.isdigit() else n for n in re.split(r"(\d+)", name)])


def _target(package: zipfile.ZipFile, rels: str, base: str, kind: re.Pattern[str]) -> str:
    """The part a relationship of ``kind`` in ``rels`` leads to."""
    for relation in parse_xml(package.read(rels), "the XPS package").iter(_RELATIONSHIPS):
        if kind.search(relation.get("Type") or ""):
            return _resolved(base, relation.get("Target") or "")
    raise KeyError(rels)


def _sources(package: zipfile.ZipFile, part: str, element: str) -> list[str]:
    """The parts ``part``'s ``element`` elements name (a sequence's documents, a document's pages)."""
    root = parse_xml(package.read(part), "the XPS package")
    base = posixpath.dirname(part)
    return [_resolved(base, node.get("Source") or "") for node in root.iter(f"{{*}}{element}") if node.get("Source")]


def _resolved(base: str, target: str) -> str:
    """A part's name inside the zip: ``/Documents/1/FixedDoc.fdoc`` from the root, ``Pages/1.fpage`` from ``base``."""
    return posixpath.normpath(target.lstrip("/") if target.startswith("/") else posixpath.join(base, target))


def _page_text(page: Any) -> str:
    """A page's runs in the order drawn, a line each height: "Starten " + "evtl" is one line's."""
    lines: list[list[str]] = []
    height: float | None = None
    for glyphs in page.iter("{*}Glyphs"):
        text = _unicode_string(glyphs.get("UnicodeString") or "")
        if not text:
            continue
        y = _number(glyphs.get("OriginY"))
        if not lines or height is None or y is None or abs(y - height) > _SAME_LINE:
            lines.append([])
        lines[-1].append(text)
        height = y
    return "\n".join(_joined(runs) for runs in lines)


def _joined(runs: list[str]) -> str:
    """One line's runs: a run starts where a font or a style changes, a space apart from the one before it
    but within a word ("**Wo**rd": "Wo" then "rd") -- "•" then "Sind doof" is "• Sind doof"."""
    line = runs[0]
    for run in runs[1:]:
        within_word = line[-1:].isalnum() and run[:1].isalnum()
        line += run if within_word or line[-1:].isspace() or run[:1].isspace() else " " + run
    return line.strip()


def _unicode_string(value: str) -> str:
    """A ``UnicodeString``'s characters: ``{}`` before a string that starts with ``{`` is its escape."""
    return value[2:] if value.startswith("{}") else value


def _number(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _properties(package: zipfile.ZipFile) -> tuple[str, Any]:
    """The document's title and date, from its core properties where it has them."""
    core = next((name for name in package.namelist() if name.lower().endswith("docprops/core.xml")), None)
    if core is None:
        return "", None
    root = parse_xml(package.read(core), "the XPS properties")
    created, modified = (iso_date(root.findtext(f"{_TERMS}{name}") or "") for name in ("created", "modified"))
    return (root.findtext(f"{_DC}title") or "").strip(), last_saved(created, modified)


def _is_xps(probe: Probe) -> bool:
    return any(name.lower().endswith((".fdseq", ".fpage")) for name in probe.zip_names())


FORMAT = Format(name="xps", extract=extract_xps, suffixes=(".xps", ".oxps"), magic=_is_xps, zipped=True, signed=True)
