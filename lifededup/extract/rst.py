"""reStructuredText read as its built page shows it: without the markup that
is words.

A Sphinx project ships each page twice -- its ``.rst`` source and the
``.html`` built from it -- and the source read as plain text kept what the
page never shows: the roles of interpreted text (``:meth:``, ``:class:``,
``:term:``), directives' names and options (``.. sourcecode:: pycon+sql``,
``:maxdepth: 2``), comments (a block of setup code ``.. not for display``),
link targets.  On the held-out real archive (benchmarks/README.md, "Session
28") SQLAlchemy 2.0.20's ``operators.rst`` was 19.9% of words from its own
``operators.html``, 565 of its words markup; read as shown, 7.3% (what is
left is mostly its ``{sql}`` and ``{stop}`` markers, SQLAlchemy's own).  What
a directive says to the reader stays: its body, and its argument where the
page shows one (a note's title, a version change's text, an API entry).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from lifededup.extract.base import title_line
from lifededup.model import without_roles

__all__ = ["RST_NAMES", "is_rst", "shown", "title"]

# A Sphinx build copies each source beside its pages as ``_sources/NAME.rst.txt``.
RST_NAMES = (".rst", ".rest", ".rst.txt")

# ```title <target>```: the title is shown
_TITLED = re.compile(r"`([^`<>\n]*[^\s`<>])\s*<[^`<>\n]+>`")
# explicit markup: a directive, comment, target, footnote or substitution (docutils' spec)
_EXPLICIT = re.compile(r"^( *)\.\.(?: +(.*))?$", re.MULTILINE)
_DIRECTIVE = re.compile(r"(?:[\w+-]+:)?([\w+-]+)::")
_OPTION = re.compile(r" +:[^:\n]+:")
# Directives whose argument names code, a file or a target, which the page does not show as words.
_ARGUMENT_UNSHOWN = frozenset({
    "code", "code-block", "sourcecode", "highlight", "literalinclude", "include", "image", "figure", "raw",
    "index", "currentmodule", "module", "automodule", "autosummary", "toctree", "rst-class", "class", "role",
    "default-role", "only", "ifconfig", "doctest", "testsetup", "testcode", "testoutput"})


# A section title: a line of text at the margin under an adornment -- one punctuation character repeated --
# and, if over one too, the same (docutils' spec); a simple table's border has spaces, a transition a blank
# line before it
_SECTION = re.compile(r"^(?:([!-/:-@\[-`{-~])\1{2,}[ \t]*\n)?(\S[^\n]*?)[ \t]*\n([!-/:-@\[-`{-~])\3+[ \t]*$",
                      re.MULTILINE)
_ADORNMENT = re.compile(r"([!-/:-@\[-`{-~])\1+")
_INLINE = re.compile(r"\*\*|\*|``|`|\|")


def is_rst(name: str) -> bool:
    """Whether a file's name says reStructuredText."""
    return name.lower().endswith(RST_NAMES)


def _lines(text: str, at: int) -> Iterator[tuple[str, int]]:
    """The lines from ``at`` (a line's start) on, each with where it ends."""
    while at <= len(text):
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        yield text[at:end], end
        at = end + 1


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _block_end(text: str, at: int, indent: int) -> int:
    """Where the block indented past ``indent`` that follows the line ending
    at ``at`` ends (blank lines inside it belong to it): ``at`` if none."""
    for line, end in _lines(text, at + 1):
        if line.strip():
            if _indent(line) <= indent:
                break
            at = end
    return at


def _options_end(text: str, at: int, indent: int) -> int:
    """Where a directive's options, after its line ending at ``at``, end."""
    for line, end in _lines(text, at + 1):
        if not (_OPTION.match(line) and _indent(line) > indent):
            break
        at = end
    return at


def _explicit(text: str, markup: re.Match[str], kept: list[str]) -> int:
    """What the page shows of one explicit markup: a directive's argument
    (where shown; its body is read on as text), a footnote's text; a
    comment, target or substitution and its block not at all.  Where the
    text reads on."""
    indent, rest = len(markup.group(1)), markup.group(2) or ""
    if rest.startswith("[") and "]" in rest:  # a footnote or citation: shown, without its label
        kept.append(" " * indent + rest.partition("]")[2])
        return markup.end()
    directive = _DIRECTIVE.match(rest)
    if directive is None:
        return _block_end(text, markup.end(), indent)
    if directive.group(1) not in _ARGUMENT_UNSHOWN:
        kept.append(" " * indent + rest[directive.end():])
    return _options_end(text, markup.end(), indent)


def shown(text: str) -> str:
    """``text``, reStructuredText, with what its built page does not show as words left out."""
    kept: list[str] = []
    last = 0
    for markup in _EXPLICIT.finditer(text):
        if markup.start() < last:  # inside a block left out already
            continue
        kept.append(text[last:markup.start()])
        last = _explicit(text, markup, kept)
    kept.append(text[last:])
    return _TITLED.sub(r"`\1`", without_roles("".join(kept)))


def title(text: str) -> str:
    """The title of a reStructuredText document, as Sphinx titles its page: its first section's title, its
    inline markup as the page shows it ("The ``Session`` API" is "The Session API"); "" where it has none."""
    for found in _SECTION.finditer(text):
        over, line, under = found.group(1), found.group(2), found.group(3)
        before = text[text.rfind("\n", 0, max(found.start() - 1, 0)) + 1:found.start()]
        if before.strip():  # a title stands after a blank line (a paragraph's last line over a rule is none)
            continue
        if (over is None or over == under) and not _ADORNMENT.fullmatch(line):  # two adornments are no title
            shown_line = _INLINE.sub("", _TITLED.sub(r"\1", without_roles(line)))
            return title_line(shown_line)
    return ""
