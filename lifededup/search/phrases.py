"""A phrase on PostgreSQL in the texts too long for their ``tsvector`` (revision 0027).

A ``tsvector`` places no word past its 16,383rd and keeps at most 256
places of a word, so ``document @@ query`` misses a phrase standing past
either.  The items whose document lost places are kept in pieces too
(``items_fts_pieces``: piece 0 their title and people, then their text a
thousand words at a time), whose places are whole.  For a query holding a
phrase, those items are matched by their pieces, not their document:

* the query's tsquery, as PostgreSQL reads it (its text, read back once),
  is cut into what one piece must hold -- a word, or a phrase whole -- and
  the ``&``, ``|`` and ``!`` between them, which hold across pieces;
* each of those is found in the pieces through their GIN index, and the
  operators are the sets' ``INTERSECT``, ``UNION`` and ``EXCEPT``;
* every other item matches by its document as before.

So ``"Filesystem Hierarchy Standard"`` finds the Debian Policy manual,
whose mentions lie past its 16,383rd word, and ``"a b" -"c d"`` leaves out
a long text holding ``c d`` anywhere.  A phrase across the end of a piece
is found within the 50 words the next piece repeats.  A query without a
phrase reads the documents alone: a word is in the document wherever it
stands (in the text's first million characters).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lifededup.search.syntax import WEB_CHUNK
from lifededup.store.searchable import CJK

# a tsquery's text: a quoted lexeme ('it''s' doubles a quote) and its prefix
# or weight marks (group 1), a phrase operator (<-> and <N>), the other
# operators, a parenthesis, a space (search.bounded reads it too)
TOKEN = re.compile(r"'(?:[^']|'')*'(:[*A-D]+)?|<\d*-?>|[&|!()]|\s+")
# the runs of letters and digits PostgreSQL's parser reads as words apart
_RUN = re.compile(r"[^\W_]+")
# the pieced items (each has a piece 0: ix_items_fts_pieces_heads)
PIECED = "SELECT rowid FROM items_fts_pieces WHERE piece = 0"


def maybe_phrase(query: str) -> bool:
    """Whether websearch may read a phrase in ``query``: a quoted string or
    a run of the query that holds two words (``"river survey"``,
    ``e-mail``, ``debian.org``, ``14:30``, ``foo_bar``), or a Chinese,
    Japanese or Korean character (a word of them is the phrase of its
    characters).  Where it says no, no phrase is read; where it says yes,
    the tsquery says."""
    return CJK.search(query) is not None or any(len(_RUN.findall(c)) >= 2 for c in WEB_CHUNK.findall(query))


@dataclass(frozen=True)
class Node:
    """A tsquery cut at the operators that hold across pieces: ``op`` is
    ``&``, ``|`` or ``!`` over ``children``, or ``""`` for what one piece
    must hold, ``text`` (a word, or a phrase whole; ``phrase`` if so)."""

    op: str
    text: str = ""
    children: tuple[Node, ...] = ()
    phrase: bool = False

    def has_phrase(self) -> bool:
        return self.phrase or any(c.has_phrase() for c in self.children)


class _Reader:
    """A recursive descent over a tsquery's text, by PostgreSQL's
    precedence: ``!`` binds tightest, then the phrase operators, ``&``, ``|``."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, int, int]] = []  # token, start, end
        at = 0
        while at < len(text):
            found = TOKEN.match(text, at)
            if found is None:
                raise ValueError(f"not a tsquery's text: {text!r}")
            if not found.group(0).isspace():
                self.tokens.append((found.group(0), found.start(), found.end()))
            at = found.end()
        self.at = 0

    def peek(self) -> str | None:
        return self.tokens[self.at][0] if self.at < len(self.tokens) else None

    def take(self) -> tuple[str, int, int]:
        if self.at >= len(self.tokens):
            raise ValueError(f"a tsquery's text ends early: {self.text!r}")
        self.at += 1
        return self.tokens[self.at - 1]

    def either(self) -> Node:
        return self._chain("|", self.both)

    def both(self) -> Node:
        return self._chain("&", self.followed)

    def _chain(self, op: str, operand: Callable[[], Node]) -> Node:
        """``operand``s joined by ``op``: the one alone, or a node of them all."""
        nodes = [operand()]
        while self.peek() == op:
            self.take()
            nodes.append(operand())
        return nodes[0] if len(nodes) == 1 else Node(op, children=tuple(nodes))

    def followed(self) -> Node:
        start = self.tokens[self.at][1] if self.at < len(self.tokens) else len(self.text)
        node = self.unary()
        phrase = False
        while (token := self.peek()) is not None and token.startswith("<"):
            self.take()
            self.unary()
            phrase = True
        if not phrase:
            return node
        end = self.tokens[self.at - 1][2]
        return Node("", text=self.text[start:end], phrase=True)  # one piece must hold it whole

    def unary(self) -> Node:
        token, start, end = self.take()
        if token == "!":
            return Node("!", children=(self.unary(),))
        if token == "(":
            node = self.either()
            if self.take()[0] != ")":
                raise ValueError(f"an unclosed parenthesis: {self.text!r}")
            return node
        if not token.startswith("'"):
            raise ValueError(f"{token!r} where a word should stand: {self.text!r}")
        return Node("", text=token)


def parse(text: str) -> Node | None:
    """The tsquery whose text (``CAST(... AS text)``) is ``text``, cut as
    :class:`Node` says; None for an empty one."""
    if not text.strip():
        return None
    reader = _Reader(text)
    node = reader.either()
    if reader.peek() is not None:
        raise ValueError(f"a tsquery's text goes on past its end: {text!r}")
    return node


def _ids_sql(node: Node, params: dict[str, object], among: str = "", besides: str = "") -> str:
    """A SELECT of the pieced items that match ``node``, its tsqueries
    bound in ``params``; ``among``: of those whose id is in that SELECT
    (a few, whose pieces are read by their key, not the GIN index);
    ``besides``: of those whose id is not (their pieces' places are not
    compared: a common phrase's matches by document, which hold most long
    texts -- its pieces read 57,000 pieces' places in 230 ms at 92,000
    items of long texts)."""
    within = f" AND rowid IN ({among})" if among else ""
    if node.op == "":
        name = f"pieced_{len(params)}"
        params[name] = node.text
        if besides:  # driven by the pieced items left: their pieces read by key
            return (f"SELECT p.rowid FROM ({PIECED}{within} AND rowid NOT IN ({besides})) AS o "
                    f"JOIN items_fts_pieces p ON p.rowid = o.rowid WHERE p.document @@ CAST(:{name} AS tsquery)")
        return f"SELECT rowid FROM items_fts_pieces WHERE document @@ CAST(:{name} AS tsquery){within}"
    pieced = f"{PIECED}{within}"
    if node.op == "|":
        return " UNION ".join(f"({_ids_sql(c, params, among, besides)})" for c in node.children)
    if node.op == "!":
        return f"({pieced}) EXCEPT ({_ids_sql(node.children[0], params, among, besides)})"
    held = [c for c in node.children if c.op != "!"]
    left_out = [c.children[0] for c in node.children if c.op == "!"]
    sql = " INTERSECT ".join(f"({_ids_sql(c, params, among, besides)})" for c in held) if held else f"({pieced})"
    return "".join([f"({sql})"] + [f" EXCEPT ({_ids_sql(c, params, among, besides)})" for c in left_out])


# a phrase operator in a tsquery's text
_FOLLOWED = re.compile(r"<\d*-?>")


@dataclass(frozen=True)
class Pieced:
    """How the pieced items match ``tsquery``, a query holding a phrase
    whose text PostgreSQL reads as ``node``, its tsqueries bound in
    ``params``.  A query of no ``!`` matches wherever the document says so
    (its places are the text's, if not all of them): a pieced item is read
    from its pieces only where its document does not match (``positive``),
    few for a common phrase, which most long texts hold early on.  With a
    ``!``, a pieced item matches by its pieces alone.  Those read from their
    pieces are ranked by ``rank_tsquery``, the query with its phrases'
    words ANDed (the document holds the words, not all their places)."""

    tsquery: str
    node: Node
    positive: bool
    params: dict[str, object] = field(default_factory=dict)
    rank_tsquery: str = "CAST(:pieced_rank AS tsquery)"

    def by_documents(self, rowid: str) -> str:
        """What more the items matched by their documents (``document @@
        tsquery``) must be, ``rowid`` theirs: ``AND ...`` or nothing."""
        return "" if self.positive else f" AND {rowid} NOT IN ({PIECED})"

    def by_pieces(self, ranked: str = "", join: str = "", where: str = "", besides: str = "") -> str:
        """A SELECT of the items that match by their pieces (and not by
        their document): ``id``, then ``ranked`` (a column after a comma,
        of ``f``, their ``items_fts`` row), ``join``ed and filtered by
        ``where`` (`` AND ...``) as ``query.results_sql`` does; ``besides``:
        the name of a SELECT of the ``id`` of every match by document, which
        they are not (else their documents are read to say so: 800 of them
        0.05 ms each, at 92,000 items of long texts).  They are few: each row
        is read by its key (``OFFSET 0`` keeps PostgreSQL from hashing the
        table for them, whose estimate of a phrase's test misses a long
        document's cost: a scan of every document to find 3)."""
        alone, outside = "true", ""
        if self.positive and besides:
            outside = f"SELECT id FROM {besides}"
        elif self.positive:
            alone = f"NOT (f.document @@ {self.tsquery})"
        return (f"SELECT f.rowid AS id{ranked} FROM (SELECT DISTINCT p.rowid FROM "
                f"({_ids_sql(self.node, {}, besides=outside)}) AS p) "
                "AS s CROSS JOIN LATERAL (SELECT rowid, document FROM items_fts WHERE rowid = s.rowid OFFSET 0) AS f"
                f"{join} WHERE {alone}{where}")

    def shown_from(self, item: str) -> str:
        """Where a page's snippet of the item ``item`` (its id) starts: in
        a pieced item, its first piece (past piece 0) that holds one of the
        query's phrases (not one left out), whose place in the text the
        pieces keep (``text_at``) -- a phrase past the text's first 20,000
        characters showed its start, unmarked; else the text's start."""
        if "pieced_shown" not in self.params:
            return "1"
        return (f"coalesce((SELECT p.text_at FROM items_fts_pieces p WHERE p.rowid = {item} AND p.piece > 0 "
                "AND p.document @@ CAST(:pieced_shown AS tsquery) ORDER BY p.piece LIMIT 1), 1)")

    def found_among(self, rowid: str, among: str) -> str:
        """The condition that ``rowid``, one of the few pieced items
        ``among`` lists (or selects), matches by its pieces (by its
        document too or not): their pieces read by their key."""
        return f"{rowid} IN ({_ids_sql(self.node, {}, among)})"


def pieced(conn: Any, tsquery: str, params: dict[str, object]) -> Pieced | None:
    """How the pieced items match ``tsquery`` (an SQL expression, bound in
    ``params``); None where the documents alone answer: the query holds no
    phrase, or no item is pieced (or the store, opened as it is, predates
    revision 0027).  Made only for a query that may hold a phrase
    (:func:`maybe_phrase`): a round trip, and one more where it does."""
    text, kept = conn.execute(f"SELECT CAST({tsquery} AS text), to_regclass('items_fts_pieces') IS NOT NULL",
                              params).fetchone()
    node = parse(str(text)) if kept else None
    if node is None or not node.has_phrase() or not conn.execute(f"SELECT EXISTS ({PIECED})").fetchone()[0]:
        return None
    bound: dict[str, object] = {}
    _ids_sql(node, bound)  # names its tsqueries, as every later making of the SQL names them
    bound["pieced_rank"] = _FOLLOWED.sub("&", str(text))
    shown = _phrases_held(node)
    if shown:
        bound["pieced_shown"] = " | ".join(f"( {phrase} )" for phrase in shown)
    return Pieced(tsquery, node, "!" not in str(text), bound)


def _phrases_held(node: Node) -> list[str]:
    """The texts of ``node``'s phrases that a match holds or may hold (not those under a ``!``)."""
    if node.op == "!":
        return []
    if node.op == "":
        return [node.text] if node.phrase else []
    return [text for child in node.children for text in _phrases_held(child)]
