"""GNU info manuals (``bash.info``, ``find.info-2``, gzipped through :mod:`compressed`).

An info file is makeinfo's plain text, in nodes separated by the byte 0x1f;
each node starts with a ``File: ..., Node: ...`` navigation line, and index
entries carry NUL-backspace markers.  The navigation lines, markers, tag
tables and indirect tables are dropped; the nodes' text is kept in order.
"""

from __future__ import annotations

import re

from lifededup.extract.base import EmptyFile, Extracted, Format, Probe, Source
from lifededup.extract.layout import clean_text
from lifededup.extract.text import decode

_NODE_LINE = re.compile(r"^File: [^,]+,\s+Node: ([^,\n]+).*$", re.MULTILINE)
_MARKER = re.compile(r"\x00\x08\[[^\x00]*\x00\x08\]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f]")
_TABLES = ("Tag Table:", "Indirect:", "End Tag Table", "Local Variables:")
# A heading: a line underlined with *, =, - or . of its own length.
_HEADING = re.compile(r"^(\S[^\n]*)\n[*=\-.]{3,}$", re.MULTILINE)


def extract_info(source: Source) -> Extracted:
    raw, encoding = decode(source.read_bytes())
    nodes = []
    title = ""
    for block in raw.split("\x1f"):
        block = block.lstrip("\n\x0c")
        if not block.strip() or block.startswith(_TABLES):
            continue
        node = _NODE_LINE.match(block)
        body = _CONTROL.sub("", _MARKER.sub("", block[node.end():] if node else block))
        heading = _HEADING.search(body) if node else None
        if heading and (not title or node and node.group(1).strip() == "Top"):
            title = heading.group(1).strip()  # the Top node's, else the first node's (a split file has no Top)
        nodes.append(body)
    text = clean_text("\n\n".join(nodes))
    if not text:
        raise EmptyFile(f"{source.name} holds no info nodes")
    return Extracted(text=text, title=title, kind="document", mime="application/x-info",
                     metadata={"nodes": str(len(nodes)), "encoding": encoding})


def _is_info(probe: Probe) -> bool:
    # makeinfo's preamble, or a split file (find.info-2) that starts with a node
    return b"produced by makeinfo" in probe.head[:400] or probe.head.startswith(b"\x1f\nFile: ")


FORMAT = Format(name="info", extract=extract_info, suffixes=(".info",), magic=_is_info)
