"""HTML and saved web pages (beautifulsoup4 + lxml): the article, not the page around it.

Two saved copies of one page differ in banners, ads, cookie notices, navigation
and "saved on" stamps; those are dropped so the copies cluster.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from datetime import datetime

from bs4 import BeautifulSoup, MarkupResemblesLocatorWarning, Tag, XMLParsedAsHTMLWarning

from lifededup.extract.base import EmptyFile, Extracted, Source
from lifededup.extract.layout import clean_text

# Elements that never hold the article's text.
_DROP_TAGS = ("script", "style", "noscript", "template", "iframe", "svg", "canvas", "form", "button",
              "nav", "aside", "header", "footer", "select", "input", "object", "embed")
# class/id words that mark page furniture rather than content.
_BOILERPLATE = re.compile(
    r"(?:^|[-_\s])(?:ad|ads|advert|advertisement|adslot|banner|cookie|cookies|consent|promo|sponsor|"
    r"sponsored|sidebar|nav|navbar|menu|breadcrumbs?|share|social|newsletter|subscribe|related|"
    r"masthead|site-header|site-footer|popup|modal|comments?|timestamp|saved-by)(?:$|[-_\s])",
    re.IGNORECASE,
)
_NEVER_FURNITURE = ("html", "body", "main", "article")
# Above this share of the page's text, an element marked like furniture is a wrapper, not furniture.
FURNITURE_SHARE = 0.5
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
_BLOCKS = ("p", "div", "section", "article", "main", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6",
           "blockquote", "pre", "table", "ul", "ol", "dl", "dt", "dd", "br", "hr", "figcaption")
_DATE_META = ("article:published_time", "date", "dc.date", "dcterms.date", "pubdate", "og:published_time")


@dataclass(frozen=True)
class Page:
    title: str
    text: str
    date: datetime | None


def _is_furniture(tag: Tag) -> bool:
    if tag.attrs is None:
        return False
    if tag.has_attr("hidden") or tag.get("aria-hidden") == "true":
        return True
    if _HIDDEN_STYLE.search(str(tag.get("style", ""))):
        return True
    words = " ".join([*(str(c) for c in tag.get_attribute_list("class") if c), str(tag.get("id", "")), str(tag.get("role", ""))])
    return bool(words.strip()) and bool(_BOILERPLATE.search(words)) or tag.get("role") in ("banner", "navigation")


def _title(soup: BeautifulSoup) -> str:
    og = soup.find("meta", attrs={"property": "og:title"})
    if isinstance(og, Tag) and og.get("content"):
        return str(og["content"]).strip()
    if soup.title and soup.title.string:
        return " ".join(soup.title.string.split())
    h1 = soup.find("h1")
    return " ".join(h1.get_text(" ").split()) if h1 else ""


def _date(soup: BeautifulSoup) -> datetime | None:
    candidates = [str(m.get("content", "")) for m in soup.find_all("meta")
                  if str(m.get("property", m.get("name", ""))).lower() in _DATE_META]
    candidates += [str(t.get("datetime", "")) for t in soup.find_all("time")[:1]]
    for value in candidates:
        try:
            return datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            continue
    return None


def parse_html(markup: bytes | str) -> Page:
    """Title, article text and published date of an HTML document."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MarkupResemblesLocatorWarning)
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)  # XHTML (EPUB chapters) reads fine as HTML
        soup = BeautifulSoup(markup, "lxml")
    title, date = _title(soup), _date(soup)
    for tag in soup.find_all(_DROP_TAGS):
        tag.decompose()
    whole = len(soup.get_text())
    for tag in soup.find_all(True):
        if tag.decomposed or tag.name in _NEVER_FURNITURE or not _is_furniture(tag):
            continue
        # A class word on a wrapper ("page has-sidebar") must not take the article with it:
        # furniture is a minor part of the page.
        if len(tag.get_text()) <= FURNITURE_SHARE * whole:
            tag.decompose()
    root = soup.find("article") or soup.find("main") or soup.body or soup
    for block in root.find_all(_BLOCKS):
        block.insert_before("\n\n")
        block.insert_after("\n\n")
    return Page(title=title, text=clean_text(root.get_text()), date=date)


def extract_html(source: Source) -> Extracted:
    page = parse_html(source.read_bytes())
    if not page.text.strip() and not page.title:
        raise EmptyFile(f"{source.name} is a web page with no text")
    return Extracted(text=page.text, title=page.title, kind="web page", mime="text/html", doc_date=page.date)
