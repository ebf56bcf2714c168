"""Manual pages (roff: ``ls.1``, ``printf.3``, and gzipped through :mod:`compressed`), rendered by groff.

groff (Debian package ``groff-base``, which man-db needs anyway) renders the
page as ``man`` shows it, without its bold/underline codes; the running
header and footer lines are dropped and the paragraphs reflowed.  The title
is the NAME line ("ls - list directory contents").  A page that is only a
``.so`` link to another page is read as that link: lifededup never opens a
file it was not given.
"""

from __future__ import annotations

import re

from lifededup.extract.base import EmptyFile, Extracted, Format, Probe, Source
from lifededup.extract.layout import clean_text
from lifededup.extract.text import decode
from lifededup.extract.tool import run_tool

# A man(7) page's header, an mdoc(7) page's date or title, or a link to another page.
_ROFF_START = re.compile(rb"^\.(TH|Dd|Dt|so)\s", re.MULTILINE)
_COMMENT = re.compile(rb"^(\.\\\"|'\\\"|\.\s*$)")
_TH = re.compile(r'^\.TH\s+("[^"]*"|\S+)\s+("[^"]*"|\S+)', re.MULTILINE)
# groff: tables (-t), UTF-8 in and out (-k -K utf-8), one long page without hyphenation, no overstriking.
GROFF_ARGS = ["-t", "-k", "-K", "utf-8", "-mandoc", "-Tutf8", "-rLL=200n", "-rHY=0", "-rcR=1", "-P-cbou"]


def extract_man(source: Source) -> Extracted:
    roff, encoding = decode(source.read_bytes())
    if not roff.strip():
        raise EmptyFile(f"{source.name} is empty")
    link = re.fullmatch(r"\s*\.so\s+(\S+)\s*", roff)
    if link:
        return Extracted(text=f"see {link.group(1)}", title=source.name, kind="document", mime="text/troff",
                         metadata={"alias_of": link.group(1)})
    out = run_tool("groff", "groff-base", "manual pages", GROFF_ARGS, stdin=roff.encode("utf-8"))
    lines = out.decode("utf-8", "replace").splitlines()
    th = _TH.search(roff)
    name = th.group(1).strip('"') if th else ""
    filled = [i for i, ln in enumerate(lines) if ln.strip()]
    # the running header ("LS(1)  User Commands  LS(1)") and footer ("GNU coreutils 9.4  April 2024  LS(1)")
    edges = {i for i in (filled[:1] + filled[-1:]) if name and f"{name}(" in lines[i]} if filled else set()
    body = [ln for i, ln in enumerate(lines) if i not in edges]
    text = clean_text("\n".join(body))
    if not text:
        raise EmptyFile(f"{source.name} renders to no text")
    return Extracted(text=text, title=_name_line(body) or name, kind="document", mime="text/troff",
                     metadata={"section": th.group(2).strip('"') if th else "", "encoding": encoding})


def _name_line(lines: list[str]) -> str:
    """The NAME section's first paragraph, on one line."""
    for i, line in enumerate(lines):
        if line.strip() in ("NAME", "NOM", "NAMEN", "NOMBRE"):
            para: list[str] = []
            for following in lines[i + 1:]:
                if not following.strip():
                    if para:
                        break
                    continue
                para.append(following.strip())
            return " ".join(para)[:300]
    return ""


def _is_man(probe: Probe) -> bool:
    # roff from its first line (macro definitions by pod2man or rst2man may come before .TH), and a page header;
    # a text whose first line is not roff is left at that line (every file of no known name is asked: testing
    # every line of each one's head took 50 ms over /usr/share/doc's 1,424 such files, this 17)
    lines = (ln for ln in probe.head.splitlines() if ln.strip() and not _COMMENT.match(ln))
    first = next(lines, None)
    if first is None or not first.startswith((b".", b"'")):
        return False
    return _ROFF_START.match(first) is not None or any(_ROFF_START.match(ln) for ln in lines)


FORMAT = Format(name="man", extract=extract_man, suffixes=(".man",), looks_like=_is_man)
