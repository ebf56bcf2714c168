"""Markdown read as its page shows it (cmark-gfm, GitHub's reader): without
the words of its markup, and titled by its heading.

A Markdown file was read as plain text: its link targets (every
``[text](https://...)`` and each reference definition ``[text]: https://...``
at its end), its pictures' paths, its fences' language names and its HTML
tags' attributes were words of its, which the page made of it -- the
project's site, the HTML or PDF a note was exported as -- never shows.  On
the Node.js API reference that Debian's nodejs-doc (18.20.4) ships as both
(64 pages, ``NAME.md.gz`` beside ``NAME.html``; benchmarks/README.md,
"Markdown as its page shows it"), a page's source was a median 14.1% of words
from its own page, 15 of the 64 within 10%; read as shown, 8.7% and 37, and
none further than it was.  Its title was its first line, whatever that was:
``---`` of a note's front matter, a row of badges, a MyST fence
(````` ```{include} ../CHANGELOG.md `````).

Read now as cmark-gfm renders it (GitHub Flavored Markdown: tables,
strikethrough, task lists, footnotes, autolinks; raw HTML kept, so that the
text inside it stays), and the words of that page read with lxml.  An HTML
comment's text is kept as words, as it was: a generator may show it
(Node.js's ``<!-- YAML added: v0.1.21 -->`` is each page's history table),
and nothing is lost where it does not.  Its title is its front matter's
``title`` (YAML or TOML, which is not text of the page), else its first
level-one heading, else the first line of its first heading or paragraph
that shows words (past a row of badges and its comments).
"""

from __future__ import annotations

import html
import re

from lifededup.extract.base import title_line

__all__ = ["MARKDOWN_NAMES", "is_markdown", "shown"]

# The names GitHub reads as Markdown (its linguist's list, less the formats of other tools that extend it), and
# the copy of a MyST source a Sphinx build keeps beside its pages, as ``_sources/NAME.md.txt``
MARKDOWN_NAMES = (".md", ".markdown", ".mdown", ".mdwn", ".mkd", ".mkdn", ".mkdown", ".md.txt")
# Past this many characters a file is read as plain text: rendering and parsing the page costs memory a few
# times its size, and a file that long named .md is a log or a dump, not a note
MAX_RENDERED = 16 * 1024 * 1024

# Front matter (Jekyll, Hugo, Obsidian, Pandoc): a block of YAML between --- lines, or of TOML between +++,
# first in the file, its first line a key
_FRONT = re.compile(r"\A\ufeff?(?:---[ \t]*\n(?=[A-Za-z_][\w -]*:)(.*?)\n(?:---|\.\.\.)|"
                    r"\+\+\+[ \t]*\n(?=[A-Za-z_][\w-]*[ \t]*=)(.*?)\n\+\+\+)[ \t]*(?:\n|\Z)", re.DOTALL)
_FRONT_TITLE = re.compile(r"^title[ \t]*[:=][ \t]*(.*?)[ \t]*$", re.MULTILINE | re.IGNORECASE)
_H1 = re.compile(r"<h1\b[^>]*>(.*?)</h1\s*>", re.DOTALL | re.IGNORECASE)
# a block of the page's start, past its comments, where it is a heading or a paragraph
_FIRST = re.compile(r"(?:\s*<!--.*?-->)*\s*<(h[1-6]|p)\b[^>]*>(.*?)</\1\s*>", re.DOTALL | re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")
# what a page does not show, read by its tags: raw HTML's scripts and styles, cmark's footnote marks
_UNSHOWN = re.compile(r"<(script|style|template)\b.*?</\1\s*>|<sup class=\"footnote-ref\">.*?</sup>"
                      r"|<a [^>]*class=\"footnote-backref\".*?</a>", re.DOTALL | re.IGNORECASE)


def is_markdown(name: str) -> bool:
    """Whether a file's name says Markdown."""
    return name.lower().endswith(MARKDOWN_NAMES)


def shown(text: str) -> tuple[str, str]:
    """(text, title) of Markdown ``text`` (its lines ended by ``\\n``) as its page shows it."""
    from cmarkgfm import markdown_to_html_with_extensions  # type: ignore[import-untyped]
    from cmarkgfm.cmark import Options  # type: ignore[import-untyped]

    title = ""
    front = _FRONT.match(text)
    if front is not None:
        found = _FRONT_TITLE.search(front.group(1) or front.group(2))
        title = found.group(1).strip("'\"") if found else ""
        text = text[front.end():]
    page = str(markdown_to_html_with_extensions(text, options=Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_FOOTNOTES,
                                                extensions=["table", "strikethrough", "autolink", "tasklist"]))
    return _text(page), title_line(title or _title(page))


def _title(page: str) -> str:
    """The first level-one heading of cmark's page, else the first line of its first heading or paragraph
    that shows words: a row of badges (pictures, linked) first is passed over."""
    heading = _H1.search(page)
    if heading is not None:
        return _first_line(heading.group(1))
    at = 0
    while (block := _FIRST.match(page, at)) is not None:
        if line := _first_line(block.group(2)):
            return line
        at = block.end()
    return ""


def _first_line(markup: str) -> str:
    words = html.unescape(_TAG.sub("", markup))
    return next((line.strip() for line in words.splitlines() if line.strip()), "")


def _text(page: str) -> str:
    """The words of cmark's page, which puts each block on its own lines: lxml's text of the tree, without
    the scripts and styles of its raw HTML -- 33 MB/s over the Node.js reference, where reading it as any
    page (``html.parse_html``, which looks for furniture cmark never writes) was 4.9 MB/s and the whole
    command's cost (14 MB of /usr/share/doc is Markdown).  A page lxml will not take (control characters)
    or cuts short (elements nested past its depth of 256: 300 unclosed ``<a>`` in 28 KB of Markdown, which
    ``parse_html`` read in 5 s) is scanned for its text instead (``_scanned``)."""
    from lxml import etree  # type: ignore[import-untyped]

    from lifededup.extract.html import drop_element

    parser = etree.HTMLParser()
    try:
        root = etree.fromstring(f"<html><body>{page}</body></html>", parser)
    except (ValueError, etree.LxmlError):
        root = None
    if root is None or any(e.type_name == "ERR_RESOURCE_LIMIT" for e in parser.error_log):
        return _scanned(page)
    etree.strip_elements(root, "script", "style", "template", with_tail=False)
    if "<!--" in page:  # a comment's words stay words (cmark passes it through, and lxml's text leaves it out)
        for comment in list(root.iter(etree.Comment)):
            drop_element(comment, f" {comment.text or ''} ")
    if "data-footnote" in page:  # a footnote's number glued to its word ("anchor1"), and its way back ("↩")
        for marker in root.xpath("//sup[@class='footnote-ref'] | //a[@class='footnote-backref']"):
            drop_element(marker)
    return str(etree.tostring(root, method="text", encoding=str))


def _scanned(page: str) -> str:
    """The text of cmark's page by its tags alone, as ``_text`` reads it: its scripts, styles and footnote
    marks left out, its comments' words kept, its other tags gone and its entities read (36 MB/s)."""
    page = _UNSHOWN.sub(" ", page)
    return html.unescape(_TAG.sub("", page.replace("<!--", " ").replace("-->", " ")))
