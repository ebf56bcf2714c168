"""HTML and saved web pages (lxml, beautifulsoup4 as fallback): the article, not the page around it.

Two saved copies of one page differ in banners, ads, cookie notices, navigation
and "saved on" stamps; those are dropped so the copies cluster.

Two readings give the same text.  The fast one parses with lxml alone and
drops furniture with XPath and ``strip_elements`` in C; it reproduces what
BeautifulSoup (with its lxml tree builder) makes of the page: the same
encoding guesses, the same parser, and BeautifulSoup's folding of
whitespace-only strings to one space or newline outside ``<pre>``.  Pages
where the two trees could differ are read the slow way, with BeautifulSoup,
as before: ruby annotations (whose text BeautifulSoup keeps apart), form
feeds (XPath does not see them as spaces), a second ``<html>`` after the
first, control characters lxml will not store back, markup lxml builds no
tree from, a tree as deep as libxml2 builds one (see :data:`LIBXML2_MAX_DEPTH`),
and a furniture length too close to its share of the page.  On
the 1,620 pages of sample_corpus/ and the indexing benchmark's folder the
fast reading takes 1.6 ms a page against 12.6 ms, and none went the slow way.
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from lxml import etree  # type: ignore[import-untyped]

from lifededup.extract.base import Extracted, Format, Probe, Source, iso_date
from lifededup.extract.layout import clean_text

# BeautifulSoup is imported where a page is read, not with the module: every
# process that sniffs a file's format imports each format's module, and bs4
# (with soupsieve) took 0.26 s of it -- in each of the fingerprint command's
# workers, for a folder of plain text (tests/test_startup.py).
if TYPE_CHECKING:
    from bs4 import BeautifulSoup, Tag
    from bs4.element import PageElement

# Elements that never hold the article's text.
_DROP_TAGS = ("script", "style", "noscript", "template", "iframe", "svg", "canvas", "form", "button",
              "nav", "aside", "header", "footer", "select", "input", "object", "embed")
# class/id words that mark page furniture rather than content: the site's chrome, and the readers' comments
_CHROME_WORDS = (
    r"ad|ads|advert|advertisement|adslot|banner|cookie|cookies|consent|promo|sponsor|"
    r"sponsored|sidebar|nav|navbar|navigation|menu|breadcrumbs?|share|social|newsletter|subscribe|related|"
    r"masthead|site-header|site-footer|footer|popup|modal|timestamp|saved-by|"
    # the generators of manuals: DocBook's navigation header and footer,
    # Sphinx's sidebar and its pilcrow anchors
    r"navheader|navfooter|sphinxsidebar|headerlink")
_BOILERPLATE = re.compile(rf"(?:^|[-_\s])(?:{_CHROME_WORDS}|comments?)(?:$|[-_\s])", re.IGNORECASE)
# A page whose words are all in comments (a comment thread saved alone) is read with them: the chrome alone
# still goes (a Sphinx page of no content of its own was its navigation and copyright line)
_CHROME = re.compile(rf"(?:^|[-_\s])(?:{_CHROME_WORDS})(?:$|[-_\s])", re.IGNORECASE)
_NEVER_FURNITURE = ("html", "body", "main", "article")
# Above this share of the page's text, an element marked like furniture is a wrapper, not furniture.
FURNITURE_SHARE = 0.5
# BeautifulSoup also keeps whitespace that lxml drops outside any element (after a stray end tag
# before <html>, say), one space or newline a string: a furniture length this close above its share
# of the page is decided by BeautifulSoup.
_OUTSIDE_SLACK = 16
# BeautifulSoup's split of a class attribute into words.
_CLASS_WORD = re.compile(r"\S+")
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
_BLOCKS = ("p", "div", "section", "article", "main", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6",
           "blockquote", "pre", "table", "caption", "ul", "ol", "dl", "dt", "dd", "br", "hr", "figcaption")
# A table's cells, a space apart within their row (a row is a block): "<td>fdisk</td><td>Partition</td>"
# read "fdiskPartition" where the PDF and text renderings of the page have two words.
_CELLS = ("td", "th")
# libxml2 builds a tree at most this many elements deep (xmlParserMaxDepth, without XML_PARSE_HUGE;
# 2,048 with it): at the next level it stops reading the page, the rest of it too, and says nothing
# (libxml2 2.14, lxml 6.0).  Mail clients and page generators nest <div>, <span> or <font> thousands
# deep; BeautifulSoup builds its own tree from lxml's parsing events, where this limit does not apply.
LIBXML2_MAX_DEPTH = 256
# The elements LIBXML2_MAX_DEPTH deep, found from the root (itself the first level) in C.
_AT_MAX_DEPTH = etree.XPath("/".join(["*"] * (LIBXML2_MAX_DEPTH - 1)))
_DATE_META = ("article:published_time", "date", "dc.date", "dcterms.date", "pubdate", "og:published_time")


@dataclass(frozen=True)
class Page:
    title: str
    text: str
    date: datetime | None


def _is_furniture(tag: Tag, marks: re.Pattern[str] = _BOILERPLATE) -> bool:
    """Whether ``tag`` is hidden, or marked as page furniture by its class, id or role (a word of ``marks``)."""
    if tag.attrs is None:
        return False
    if tag.has_attr("hidden") or tag.get("aria-hidden") == "true":
        return True
    if _HIDDEN_STYLE.search(str(tag.get("style", ""))):
        return True
    words = " ".join([*(str(c) for c in tag.get_attribute_list("class") if c), str(tag.get("id", "")), str(tag.get("role", ""))])
    return bool(words.strip()) and bool(marks.search(words)) or tag.get("role") in ("banner", "navigation")


def _title(soup: BeautifulSoup) -> str:
    from bs4 import Tag

    og = soup.find("meta", attrs={"property": "og:title"})
    if isinstance(og, Tag) and og.get("content"):
        return str(og["content"]).strip()
    if soup.title and soup.title.string:
        return " ".join(soup.title.string.split())
    h1 = soup.find("h1")
    return " ".join(h1.get_text(" ").split()) if h1 else ""


def _first_date(candidates: list[str]) -> datetime | None:
    """The first candidate that reads as an ISO date (a page's published date)."""
    return next((found for found in map(iso_date, candidates) if found is not None), None)


def _date(soup: BeautifulSoup) -> datetime | None:
    candidates = [str(m.get("content", "")) for m in soup.find_all("meta")
                  if str(m.get("property", m.get("name", ""))).lower() in _DATE_META]
    candidates += [str(t.get("datetime", "")) for t in soup.find_all("time")[:1]]
    return _first_date(candidates)


# A DOCTYPE with an internal subset (<!DOCTYPE html [ <!ENTITY ...> ]>): HTML parsers end the DOCTYPE at
# its first ">", and the rest ("]>") was read as the page's first words.
# (Anchored at the start, it gives up at a DOCTYPE's first ">" when there is no "[" before it.)
_INTERNAL_SUBSET = r"\A(\s*)<!DOCTYPE[^\[>]*\[.*?\]\s*>"
_SUBSET_IN_TEXT = re.compile(_INTERNAL_SUBSET, re.IGNORECASE | re.DOTALL)
_SUBSET_IN_BYTES = re.compile(_INTERNAL_SUBSET.encode(), re.IGNORECASE | re.DOTALL)


def _without_internal_subset(markup: bytes | str) -> bytes | str:
    if isinstance(markup, str):
        return _SUBSET_IN_TEXT.sub(r"\1", markup, count=1)
    return _SUBSET_IN_BYTES.sub(rb"\1", markup, count=1)


def parse_html(markup: bytes | str) -> Page:
    """Title, article text and published date of an HTML document.  A page whose words are all in its
    readers' comments -- a comment thread saved alone, each ``<li class="comment">`` -- is read with them,
    not as a page of no text."""
    markup = _without_internal_subset(markup)
    page = _parsed(markup, _BOILERPLATE)
    return page if _has_words(page.text) else _parsed(markup, _CHROME)


def _parsed(markup: bytes | str, marks: re.Pattern[str]) -> Page:
    """The page read by lxml where it reads it as BeautifulSoup would, without its hidden elements and
    those whose class, id or role holds a word of ``marks``."""
    root = _lxml_tree(markup)
    if root is None or not _like_soup(root):
        return _soup_page(markup, marks)
    try:
        page = _parse_tree(root, marks)
    except ValueError:  # control characters lxml parsed but will not store back: read it the slow way
        page = None
    return page if page is not None else _soup_page(markup, marks)


def _like_soup(root: etree._Element) -> bool:
    """Whether the fast reading gives what BeautifulSoup gives for this tree (see the module's doc)."""
    if root.find(".//rt") is not None or root.find(".//rp") is not None:
        return False
    if any(isinstance(other.tag, str) for other in root.itersiblings()):
        return False  # a second <html> after the first one closed: BeautifulSoup keeps both as one document
    return "\f" not in _text(root)


def _lxml_tree(markup: bytes | str) -> etree._Element | None:
    """The tree BeautifulSoup's lxml builder parses: same encoding guesses, in the same order."""
    attempts: Iterable[tuple[bytes | str, str | None]]
    if isinstance(markup, str):
        markup = markup[1:] if markup[:1] == "\N{BYTE ORDER MARK}" else markup
        attempts = [(markup, None), (markup.encode("utf8"), "utf8")]
    else:
        from bs4.dammit import EncodingDetector

        detector = EncodingDetector(markup, is_html=True, exclude_encodings=_unusable_encodings(markup))
        attempts = ((detector.markup, encoding) for encoding in detector.encodings)
    for data, encoding in attempts:
        try:
            parser = etree.HTMLParser(recover=True, encoding=encoding)
            parser.feed(data)
            root: etree._Element | None = parser.close()
            # a page as deep as the limit may have been cut there: only BeautifulSoup reads it whole
            return None if root is None or _AT_MAX_DEPTH(root) else root
        except (UnicodeDecodeError, LookupError, etree.ParserError):
            continue  # BeautifulSoup too tries its next guess
        except etree.XMLSyntaxError:
            return None  # no tree at all (an empty document): BeautifulSoup decides what that is
    return None


def _string(element: etree._Element) -> str | None:
    """BeautifulSoup's ``Tag.string``: the one string inside, through single children."""
    children: list[str | etree._Element] = [element.text] if element.text else []
    for child in element:
        children.append(child)
        if child.tail:
            children.append(child.tail)
    if len(children) != 1:
        return None
    only = children[0]
    if isinstance(only, str):
        return only
    if isinstance(only, etree._ProcessingInstruction):
        return f"{only.target} {only.text or ''}"
    if isinstance(only, etree._Comment):
        return only.text or " "  # BeautifulSoup folds an empty comment to " "
    return _string(only)


def _tree_title(root: etree._Element) -> str:
    for meta in root.iter("meta"):
        if meta.get("property") == "og:title":
            if meta.get("content"):
                return str(meta.get("content")).strip()
            break
    title = next(root.iter("title"), None)
    string = _string(title) if title is not None else None
    if string:
        return " ".join(string.split())
    h1 = next(root.iter("h1"), None)
    if h1 is None:
        return ""
    # BeautifulSoup keeps the strings of scripts, styles and templates apart from the text.
    strings = h1.xpath("descendant::text()[not(ancestor::script or ancestor::style or ancestor::template)]")
    return " ".join(" ".join(str(s) for s in strings).split())


def _tree_date(root: etree._Element) -> datetime | None:
    candidates = [str(m.get("content", "")) for m in root.iter("meta")
                  if str(m.get("property", m.get("name", ""))).lower() in _DATE_META]
    candidates += [str(t.get("datetime", "")) for t in root.iter("time")][:1]
    return _first_date(candidates)


# A page repeats a few class lists (code highlighting, list items) hundreds of times: judge each once.
@functools.lru_cache(maxsize=4096)
def _furniture_attributes(items: tuple[tuple[str, str], ...], marks: re.Pattern[str] = _BOILERPLATE) -> bool:
    """:func:`_is_furniture` for an lxml element's attributes."""
    attributes = dict(items)
    if "hidden" in attributes or attributes.get("aria-hidden") == "true":
        return True
    if _HIDDEN_STYLE.search(attributes.get("style", "")):
        return True
    role = attributes.get("role")
    words = " ".join([*_CLASS_WORD.findall(attributes.get("class", "")), attributes.get("id", ""), role or ""])
    return bool(words.strip()) and bool(marks.search(words)) or role in ("banner", "navigation")


def _text(element: etree._Element) -> str:
    """The strings inside ``element`` joined (not its tail), as ``Tag.get_text()`` (serialised in C)."""
    text: str = etree.tostring(element, method="text", encoding=str, with_tail=False)
    return text


def _attached(element: etree._Element, root: etree._Element) -> bool:
    top = element
    for top in element.iterancestors():
        pass
    return top is root


def drop_element(element: etree._Element, text: str = "") -> None:
    """Remove an element and what is inside it, but not the text after it (as ``Tag.decompose``), ``text``
    left before that in its place (a Markdown page's comment, as words)."""
    parent = element.getparent()
    assert parent is not None
    kept = text + (element.tail or "")
    if kept:
        previous = element.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + kept
        else:
            parent.text = (parent.text or "") + kept
    parent.remove(element)


def _parse_tree(root: etree._Element, marks: re.Pattern[str] = _BOILERPLATE) -> Page | None:
    """The page read from lxml's tree (``marks``: as :func:`_parsed`); None when only BeautifulSoup can say
    what it makes of it."""
    # BeautifulSoup stores a whitespace-only string as one newline (or one space) outside <pre>
    # and <textarea>; paragraphs are told apart by blank lines, so the fold changes the text.
    for blank in root.xpath("//text()[normalize-space(.)=''][not(ancestor::pre or ancestor::textarea)]"):
        folded = "\n" if "\n" in blank else " "
        if blank.is_tail:
            blank.getparent().tail = folded
        else:
            blank.getparent().text = folded
    title, date = _tree_title(root), _tree_date(root)
    etree.strip_elements(root, *_DROP_TAGS, with_tail=False)
    whole = len(_text(root))
    for element in root.xpath("//*[@hidden or @aria-hidden or @style or @class or @id or @role]"):
        if (element.tag in _NEVER_FURNITURE or not _furniture_attributes(tuple(element.items()), marks)
                or not _attached(element, root)):
            continue
        length = len(_text(element))
        if length <= FURNITURE_SHARE * whole:
            drop_element(element)
        elif length <= FURNITURE_SHARE * (whole + _OUTSIDE_SLACK):
            return None  # too close to call: BeautifulSoup may count a few more spaces in the page
    body = next(root.iter("article"), None)
    body = body if body is not None else next(root.iter("main"), None)
    body = body if body is not None else next(root.iter("body"), None)
    body = body if body is not None else root
    for block in body.iter(*_BLOCKS):
        if block is not body:
            block.text = "\n\n" + (block.text or "")
            block.tail = "\n\n" + (block.tail or "")
    for cell in body.iter(*_CELLS):
        if cell is not body:
            cell.tail = " " + (cell.tail or "")
    return Page(title=title, text=clean_text("".join(body.itertext())), date=date)


def _unusable_encodings(markup: bytes | str) -> list[str]:
    """Encodings a page declares that lxml cannot even be asked for (a damaged
    ``<meta charset>`` with control characters in it): skipped like unknown ones."""
    if isinstance(markup, str):
        return []
    from bs4.dammit import EncodingDetector

    declared = EncodingDetector(markup, is_html=True).encodings
    return [name for name in declared if name and not (name.isascii() and name.isprintable())]


def parse_html_with_soup(markup: bytes | str) -> Page:
    """:func:`parse_html` through BeautifulSoup: the reference, and the reading of pages lxml alone cannot match."""
    page = _soup_page(markup, _BOILERPLATE)
    return page if _has_words(page.text) else _soup_page(markup, _CHROME)


def _has_words(text: str) -> bool:
    """Whether ``text`` holds a word: what is left of a page of comments without them may be a dash."""
    return any(char.isalnum() for char in text)


def _soup_page(markup: bytes | str, marks: re.Pattern[str]) -> Page:
    """The page read by BeautifulSoup (``marks``: as :func:`_parsed`)."""
    from bs4 import BeautifulSoup, MarkupResemblesLocatorWarning, XMLParsedAsHTMLWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MarkupResemblesLocatorWarning)
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)  # XHTML (EPUB chapters) reads fine as HTML
        soup = BeautifulSoup(markup, "lxml", exclude_encodings=_unusable_encodings(markup))
    title, date = _title(soup), _date(soup)
    for tag in soup.find_all(_DROP_TAGS):
        tag.decompose()
    whole = len(soup.get_text())
    for tag in soup.find_all(True):
        # ``decomposed`` last: on a tag not decomposed, bs4 looks for a <_decomposed> tag in all that is
        # inside it, quadratic in the depth; one inside a decomposed tag has no attributes, so is no furniture.
        if tag.name in _NEVER_FURNITURE or not _is_furniture(tag, marks) or tag.decomposed:
            continue
        # A class word on a wrapper ("page has-sidebar") must not take the article with it:
        # furniture is a minor part of the page.
        if len(tag.get_text()) <= FURNITURE_SHARE * whole:
            tag.decompose()
    root = soup.find("article") or soup.find("main") or soup.body or soup
    return Page(title=title, text=clean_text(_soup_text(root)), date=date)


def _soup_text(root: Tag) -> str:
    """``root.get_text()`` with each block inside it set apart by blank lines and each cell followed
    by a space.  Inserting those strings into the tree, as before, made bs4 walk down to the block's
    last descendant and up to its ancestors' next sibling each time, quadratic in the depth (with the
    ``decomposed`` asked first above, 5,000 nested <div> took 4.05 s, now 0.05 s; load 0.8, 2 cores)."""
    from bs4 import Tag
    from bs4.element import NavigableString

    types = root.interesting_string_types or Tag.MAIN_CONTENT_STRING_TYPES  # what get_text() keeps
    parts: list[str] = []
    # what is still to read, last first; a plain str is what goes after a block or cell once inside it is read
    stack: list[PageElement | str] = list(reversed(root.contents))
    while stack:
        node = stack.pop()
        if type(node) is str:
            parts.append(node)
        elif isinstance(node, Tag):
            if node.name in _BLOCKS:
                parts.append("\n\n")
                stack.append("\n\n")
            elif node.name in _CELLS:
                stack.append(" ")
            stack.extend(reversed(node.contents))
        elif isinstance(node, NavigableString) and type(node) in types:
            parts.append(node)
    return "".join(parts)


def extract_html(source: Source) -> Extracted:
    page = parse_html(source.read_bytes())  # a page of no text and no title is empty: extract_as says so
    return Extracted(text=page.text, title=page.title, kind="web page", mime="text/html", doc_date=page.date)


def _is_html(probe: Probe) -> bool:
    return probe.head.lstrip()[:200].lower().startswith((b"<!doctype html", b"<html"))


FORMAT = Format(name="html", kind="web page", extract=extract_html, suffixes=(".html", ".htm", ".xhtml", ".shtml"),
                spellings=((".html", ".htm"),),
                looks_like=_is_html)
