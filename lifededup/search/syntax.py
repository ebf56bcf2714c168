"""The query language people type (SQLite FTS5's; on a PostgreSQL store
``websearch_to_tsquery``'s, with FTS5's prefix term), and what to say when a
query does not parse."""

from __future__ import annotations

import re
from dataclasses import dataclass

from lifededup.store.searchable import CJK_CHARS

# Shown by ``lifededup search --help``, the README, and every syntax error.
SYNTAX = """\
Query syntax (SQLite FTS5; case and the accents of Latin letters do not matter):
  river survey          both words, anywhere (AND is implied)
  "river survey"        the words next to each other, in this order
  survey OR census      either word (or: the same)
  river NOT bank        river, but not bank (NOT needs a word on its left)
  river -bank           the same
  (river OR brook) dam  either word, and dam (AND is implied here too)
  surv*                 any word starting with surv
  title:report          the word in the title only (columns: title, text, people)
  people:alice          a mail from or to alice (her name or address)
  NEAR(river survey, 5) both words within 5 words of each other
A word with punctuation in it (e-mail, 2.0, c++, 14:30, a web address) and
pasted code (print(x):, (Pdb) p) are read as if quoted: "e-mail", "print(x):";
a quote never closed, in text with punctuation ("Harold's a), quotes the rest.
A reST role (:meth:`Flask.route`) is read without the role, as a .rst is read.
Chinese, Japanese and Korean words are found inside a sentence: 東京 is read
as the phrase of its characters, "東 京"."""

# The same for a PostgreSQL store (websearch_to_tsquery, search/query.py).
PG_SYNTAX = """\
Query syntax on a PostgreSQL store (websearch; case and accents do not matter):
  river survey          both words, anywhere (AND is implied; river AND survey the same)
  "river survey"        the words next to each other, in this order
  survey OR census      either word
  river -bank           river, but not bank (river NOT bank the same; -bank alone
                        is refused, as on SQLite: it has no word to find)
  surv*                 any word starting with surv
No parentheses, NEAR or column filters (title:); anything else is read as words.
A word with punctuation in it (e-mail, 2.0, setup.py, a web address) is the
phrase of its words, as on SQLite: e-mail finds "e mail" too.  A reST role
(:meth:`Flask.route`) is read without the role, as a .rst is read.
Chinese, Japanese and Korean words are found inside a sentence: 東京 is read as
the phrase of its characters, "東 京"."""


def syntax_of(postgres: bool) -> str:
    """The query syntax of a store's backend."""
    return PG_SYNTAX if postgres else SYNTAX


class QuerySyntaxError(ValueError):
    """A query FTS5 cannot parse; the message says why and shows the syntax (``reason``: why, alone)."""

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason


# The messages SQLite gives for a MATCH expression it cannot use.
# FTS5's words for a query it cannot read; "expected integer": NEAR's distance is no number (NEAR(a b, x))
_FTS_ERRORS = re.compile(r"fts5|no such column|unterminated string|malformed MATCH|unknown special query|"
                         r"expected integer, got")


def is_query_error(message: str) -> bool:
    """Whether an SQLite error message is about the MATCH expression."""
    return _FTS_ERRORS.search(message) is not None


def quoted(query: str) -> str:
    """The query with each run of non-space characters quoted (its own double
    quotes and NULs dropped): a query that always parses, for the error message to
    suggest."""
    # a NUL would end the query early inside SQLite
    words = (word.replace('"', "").replace("\0", "") for word in query.split())
    return " ".join(f'"{word}"' for word in words if word)


# What FTS5 reads in a query besides barewords: strings, groups, a column
# filter (title:), a prefix (word*), an initial token (^word), the operators.
_CHUNK = re.compile(r'-?"(?:[^"]|"")*"\*?|\S+')  # "a b"*: the phrase, its last word a prefix
_BARE = re.compile(r"\^?\w+\*?")
_SYNTAX_CHARS = re.compile(r'[()"]')
# Code and markup pasted into the box (``app.route('/``, ``int):``,
# ``Foo-Flask".``, ``(:issue:`649`):``), read in the pieces FTS5 reads: a
# string where FTS5 opens one -- at a chunk's start or after ( : ^ + - (a "
# elsewhere is text) --, a bareword (FTS5's: letters, digits, _ and any
# character past ASCII), or one character.
_OPENS_STRING = r'(?<![^\s(:^+-])"(?:[^"]|"")*"'
_TEXT_CHUNK = re.compile(rf"(?:{_OPENS_STRING}|\S)+")
_PIECE = re.compile(rf"{_OPENS_STRING}|[\w\x80-\U0010ffff]+|.", re.DOTALL)
_WORD = re.compile(r"[\w\x80-\U0010ffff]")
_QUOTE_IN_WORDS = re.compile(r'(?<=\w)"(?=\w)')
_COLUMNS = "title|text|people"  # the columns of items_fts a query may name
_OPERATORS = frozenset({"AND", "OR", "NOT"})
# A word left out, as web search engines and PostgreSQL's websearch read it: -bank, -"river bank", -surv*,
# and -debian.org (the phrase debian org, quoted by quoted_words, as debian.org is).
_EXCLUDED = re.compile(r'-(\w+\*?|"(?:[^"]|"")*"|\w[^\s"()]*)')


# A run of word characters holding a CJK character, and a * after it (a
# prefix), outside double quotes; or a quoted string, whose CJK characters
# are set apart where they stand.
_CJK_WORD = re.compile(f'"(?:[^"]|"")*"?|(\\w*[{CJK_CHARS}]\\w*)(\\*?)')
_CJK_APART = re.compile(f"([{CJK_CHARS}])")


def cjk_apart(query: str) -> str:
    """The query with each Chinese, Japanese or Korean word the phrase of
    its characters, as the store indexes them (``store/searchable.py``):
    ``東京`` -> ``"東 京"``, ``title:東京`` -> ``title:"東 京"``, ``-東京``
    -> ``-"東 京"``, ``"私は東京"`` -> ``"私 は 東 京"``, ``Tokyo東京`` ->
    ``"Tokyo 東 京"``.  A prefix after a CJK character is the phrase itself
    (each character is a whole word of the index: ``東京*`` finds ``東京``
    wherever it stands), after a Latin one the phrase's last word a prefix
    (``東京tow*`` -> ``"東 京 tow"*``).  Read by FTS5 and websearch alike."""
    if _CJK_APART.search(query) is None:
        return query

    def spaced(words: str) -> str:
        return " ".join(_CJK_APART.sub(r" \1 ", words).split())

    def read(found: re.Match[str]) -> str:
        word, star = found.group(1), found.group(2)
        if word is None:  # a quoted string
            piece = found.group(0)
            closed = piece.endswith('"') and len(piece) > 1
            return piece if _CJK_APART.search(piece) is None else f'"{spaced(piece[1:-1] if closed else piece[1:])}"'
        prefix = "*" if star and not _CJK_APART.fullmatch(word[-1]) else ""
        return f'"{spaced(word)}"{prefix}'

    return _CJK_WORD.sub(read, query)


def as_fts5(query: str) -> str:
    """What people type from web search engines (and a PostgreSQL store
    reads) in FTS5's terms: ``-word`` is ``NOT word`` and a lower-case
    ``or`` between two words is ``OR``, grouped as websearch groups them
    (``a -b or c``: a without b, or c).  FTS5's ``NOT`` needs a word on its
    left, so each branch between two ``OR`` puts its left-out words last; a
    branch of left-out words alone, which FTS5 cannot say, is refused, as
    is ``-word`` inside parentheses.  A group (parentheses beside an
    operator, or ``NEAR``) is read as typed, one word of its branch, with
    the ``AND`` FTS5 wants beside it, which websearch and FTS5 between two
    words imply: ``(river OR brook) survey -bank`` is ``(river OR brook) AND
    survey NOT bank``.  A hyphen right after a closing quote joins, as
    punctuation (:func:`strings_joined`).  A Chinese, Japanese or Korean word is
    the phrase of its characters (:func:`cjk_apart`).  A query of no words
    (spaces, a lone ``*``) is nothing, ``""``, as :func:`quoted` and
    :func:`quoted_words` give it.  A refusal names the query as typed."""
    try:
        return _in_fts5_terms(_LONE_STAR.sub(" ", strings_joined(cjk_apart(query))))
    except QuerySyntaxError as exc:  # raised about the query as read: -"東 京", "% -formatting"
        raise syntax_error(query, exc.reason or str(exc)) from None


def _in_fts5_terms(query: str) -> str:
    """:func:`as_fts5` of a query with its CJK words, strings and lone stars read."""
    atoms = _atoms(query)
    if not atoms:  # the dangling OR below reads the last atom
        return ""
    branches: list[tuple[list[_Atom], list[str]]] = [([], [])]
    for atom in atoms:
        kept, left_out = branches[-1]
        excluded = None if atom.group else _EXCLUDED.fullmatch(atom.text)
        if excluded is not None:
            left_out.append(excluded.group(1))
        elif atom.text in ("or", "OR") and (kept or left_out):
            branches.append(([], []))
        else:
            kept.append(atom)
    if not (branches[-1][0] or branches[-1][1]):  # a dangling OR: FTS5 says so; or is the word, as on websearch
        dangling = atoms[-1].text
        branches[-2][0].append(_Atom(dangling, dangling, dangling, False))
        branches.pop()
    said = []
    for kept, left_out in branches:
        while left_out and kept and kept[-1].text in _OPERATORS:  # "river AND -bank": nothing on its right now
            kept.pop()
        if _leaves_out_alone(kept, left_out):
            raise syntax_error(query, LEFT_OUT_ALONE)
        said.append(" ".join([_with_and(kept, _holds_near(query))] + [f"NOT {word}" for word in left_out]).strip())
    return " OR ".join(said)


def _leaves_out_alone(kept: list[_Atom], left_out: list[str]) -> bool:
    """Whether a branch leaves words out (``-river``, and the word after
    ``NOT``: ``-river NOT bank``, ``NOT bank``, which PostgreSQL reads as
    ``-bank``) with no word to find: punctuation alone finds nothing (an
    empty phrase), as on PostgreSQL (``___ -63``)."""
    after_not = [at and kept[at - 1].text == "NOT" for at in range(len(kept))]
    found = [atom for atom, excluded in zip(kept, after_not)
             if not excluded and atom.text not in _OPERATORS and _LETTER.search(atom.text)]
    return (bool(left_out) or any(after_not)) and not found


# a letter or digit (FTS5's tokenizer reads an underscore as punctuation)
_LETTER = re.compile(r"[^\W_]")
# Why a query of left-out words alone is refused, on both backends (search/query.py: leaves_out_alone).
LEFT_OUT_ALONE = ("it only leaves words out (-word) where it should give one to find: the items without a word "
                  "are found beside a word they hold")


# A * standing alone, after a space: nothing, as websearch reads it (FTS5 made
# ``Quan *`` the prefix Quan*; a prefix's * follows its word: ``surv*``).
_LONE_STAR = re.compile(r"(?<=\s)\*+(?=\s|\Z)")


@dataclass(frozen=True)
class _Atom:
    """A word of a query's branch: a chunk, or a group (``(a OR b)``,
    ``NEAR(a b, 5)``) as typed, with its first and last chunk."""

    text: str
    first: str
    last: str
    group: bool


def _atoms(query: str) -> list[_Atom]:
    """The query's chunks (:func:`_chunks`), each group one: in a query with
    an operator or ``NEAR`` (parentheses without one are text:
    ``object.__eq__(self, x) -y``), from a ``(`` FTS5 can read as opening a
    group to the ``)`` closing it, with ``AND`` beside the groups within
    (:func:`_with_and`) and ``or`` there ``OR``; ``-word`` in one is refused."""
    chunks = _chunks(query)
    near = _holds_near(query)
    # parentheses group words only around an operator (as quoted_words reads them)
    if not (near or any(chunk in _OPERATORS or chunk == "or" for chunk, _ in chunks)):
        return [_Atom(chunk, chunk, chunk, False) for chunk, _ in chunks]
    atoms: list[list[tuple[str, int]]] = []
    depth = 0
    for chunk, start in chunks:
        if depth:
            atoms[-1].append((chunk, start))
        else:
            atoms.append([(chunk, start)])
        if not _cannot_be_syntax(chunk, near, True):
            bare = _STRING.sub("", chunk)
            depth = max(0, depth + bare.count("(") - bare.count(")"))
    return [_group(query, atom, near) for atom in atoms]


def _group(query: str, chunks: list[tuple[str, int]], near: bool) -> _Atom:
    """The atom of a group's chunks (a chunk alone is one too)."""
    first, last = chunks[0][0], chunks[-1][0]
    group = len(chunks) > 1 or ((first.startswith(("(", "NEAR(")) or first.endswith(")"))
                                and not _cannot_be_syntax(first, near, True))
    if not group:
        return _Atom(first, first, last, False)
    if any(_EXCLUDED.fullmatch(chunk.lstrip("(").rstrip(")")) for chunk, _ in chunks):
        raise syntax_error(query, "-word cannot leave a word out inside parentheses: write NOT word")
    said, end = [], chunks[0][1]
    for at, (chunk, start) in enumerate(chunks):
        # or between two words is OR, but in NEAR, which holds phrases alone, the word
        if (chunk == "or" and 0 < at < len(chunks) - 1 and _operand(chunks[at - 1][0], chunks[at + 1][0])
                and not first.startswith("NEAR")):
            chunk = "OR"
        if at and _wants_and(chunks[at - 1][0], chunk, near):
            said.append(" AND")
        said.append(query[end:start] + chunk)
        end = start + len(chunks[at][0])
    return _Atom("".join(said), first, last, True)


def _operand(before: str, after: str) -> bool:
    """Whether an operator between two chunks of a group has a word on each side (``(a or b)``, not ``( or b)``)."""
    return not (before in _OPERATORS or after in _OPERATORS or before.endswith("(") or after.startswith(")"))


def _with_and(atoms: list[_Atom], near: bool) -> str:
    """A branch's atoms joined, with an ``AND`` where FTS5 wants one beside a group (:func:`_wants_and`)."""
    said: list[str] = []
    for at, atom in enumerate(atoms):
        if at and (atom.group or atoms[at - 1].group) and _wants_and(atoms[at - 1].last, atom.first, near):
            said.append("AND")
        said.append(atom.text)
    return " ".join(said)


def _chunks(query: str) -> list[tuple[str, int]]:
    """The query's chunks (:data:`_CHUNK`) and where each starts."""
    return [(found.group(0), found.start()) for found in _CHUNK.finditer(query)]


# A quoted string (its closing quote may be missing) or a bare run of the
# query, a " inside which is punctuation (RuntimeError("Something), as
# websearch and FTS5 read them (search/query.py splits a PostgreSQL query so).
WEB_CHUNK = re.compile(r'"[^"]*"?|(?:[^\s"]|(?<=[^\s-])")+')
# a hyphen and the run it starts, strings in it kept whole
_HYPHEN_RUN = re.compile(r'-(?:"[^"]*"|[^\s"])*')


def strings_joined(query: str) -> str:
    """The query with a hyphen right after a closing quote read as
    punctuation, on both backends (``as_fts5``, and ``query._as_spaces`` on
    PostgreSQL): the string and the run it starts are one phrase
    (``"%"-formatting`` -> ``"% -formatting"``, the phrase of % formatting,
    not ``"%"`` without formatting; ``"a"..."f"`` stays two, the words a and f)."""
    said, at = [], 0
    while (found := WEB_CHUNK.search(query, at)) is not None:
        piece, end = found.group(0), found.end()
        said.append(query[at:found.start()])
        run = _HYPHEN_RUN.match(query, end) if len(piece) > 1 and piece[0] == piece[-1] == '"' else None
        if run is not None:
            piece, end = f'"{piece[1:-1]} {run.group(0).replace(chr(34), " ")}"', run.end()
        said.append(piece)
        at = end
    return "".join(said) + query[at:]


# A chunk opening a group, maybe in one column (title:(a OR b)).
_OPENS_GROUP = re.compile(rf"(?:(?:{_COLUMNS})\s*:)?\(", re.IGNORECASE)


def _wants_and(before: str, after: str, near: bool) -> bool:
    """Whether FTS5 needs an ``AND`` between two chunks of a grouped query: one
    closes a group or the other opens one, and neither is an operator or
    part of a group's or a column's syntax around them (``(``, ``title:``, ``NEAR``, ``+``)."""
    if before in _OPERATORS or after in _OPERATORS or before in ("NEAR", "+") or after == "+":
        return False
    if before.endswith(("(", ":")) or after.startswith((")", "*")):
        return False
    closes = before.endswith(")") and not _cannot_be_syntax(before, near, True)
    opens = _OPENS_GROUP.match(after) is not None and not _cannot_be_syntax(after, near, True)
    return closes or opens


def quoted_words(query: str) -> str:
    """The query with each bare word holding punctuation FTS5 cannot read
    (``5.3.5``, ``dpkg-buildpackage``, ``c++``, ``14:30``, ``http://x.org``)
    quoted, the rest as typed: ``pytest 5.3.5`` -> ``pytest "5.3.5"``; one
    ending in ``*`` a phrase prefix: ``debian.or*`` -> ``"debian.or"*``.
    So is code whose parentheses or double quotes cannot be FTS5's
    (:func:`_cannot_be_syntax`, or a ``)`` closing no group), without its own ``"``:
    ``app.register_error_handler(500`` -> ``"app.register_error_handler(500"``
    (the phrase app register error handler 500), ``Foo-Flask".`` ->
    ``"Foo-Flask."``.  Chunks that are FTS5's own syntax -- strings, groups,
    ``title:``, ``word*``, ``NEAR(``, operators -- are left alone, and a
    word inside their edges quoted: ``(e-mail OR x)`` -> ``("e-mail" OR x)``,
    ``title:e-mail``, ``NEAR(built-in c, 5)``.  ``OR*`` is the prefix ``"OR"*``,
    as websearch reads it.  A quote never closed in pasted text (:func:`_pasted`:
    ``examples: "Harold's``, ``"isinstance(obj, int)``, ``an identifier, "help``)
    opens the phrase of the rest of the query, as websearch reads it; one in a
    query of words alone (``"river survey``) is a phrase left open, which FTS5's
    error teaches to close."""
    head, tail = _open_phrase(query)
    chunks = _TEXT_CHUNK.findall(head)
    near = _holds_near(query)
    # parentheses group words only around an operator: (Pdb) n, object.__eq__(self, other) are text
    grouping = near or any(chunk in _OPERATORS or chunk == "or" for chunk in chunks)
    said, unclosed = _read_chunks(chunks, near, grouping, frozenset())
    if unclosed:  # a ( never closed is text, as websearch reads it: "step" or "next" (all
        said, _ = _read_chunks(chunks, near, grouping, unclosed)
    return " ".join(said + ([_phrase(tail)] if tail else []))


def _read_chunks(chunks: list[str], near: bool, grouping: bool,
                 text: frozenset[int]) -> tuple[list[str], frozenset[int]]:
    """The chunks as FTS5 can read them (:func:`_read_chunk`), those numbered
    in ``text`` read as text; and the numbers of those opening a group never closed."""
    opened: list[tuple[bool, int]] = []
    said = [_phrase(chunk) if at in text else _read_chunk(chunk, at, near, grouping, opened)
            for at, chunk in enumerate(chunks)]
    return said, frozenset(at for _, at in opened)


# Where FTS5 opens a string (see _OPENS_STRING).
_OPENING_QUOTE = re.compile(r'(?<![^\s(:^+-])"')
# A chunk's edges that are FTS5's syntax around a word: groups and NEAR opened and
# columns named before it (``(``, ``NEAR(``, ``title:``), groups closed after it.
_LEAD = re.compile(rf"(?:\(|NEAR\(|(?i:{_COLUMNS})\s*:)*")
_CLOSES = re.compile(r"\)*\Z")
_NEAR_CLOSES = re.compile(r"(?:,\d*)?\)*\Z")  # inside NEAR also its comma and distance: c, 5)


def _open_phrase(query: str) -> tuple[str, str]:
    """The query split where a quote FTS5 reads as opening a string is never
    closed, in pasted text (:func:`_pasted`), and ``""`` for the rest if none.
    A quote opening a call's argument (``monkeypatch.setenv("USER``) is
    punctuation inside its run, as websearch reads it: the rest is split
    from the run's start, the phrase of the call's words and the argument's."""
    at = 0
    while (found := _OPENING_QUOTE.search(query, at)) is not None:
        closing = query.find('"', found.end())
        if closing < 0:
            if not _pasted(query):
                return query, ""
            start = found.start()
            if _CALL.search(query, 0, start):
                start = max(query.rfind(" ", 0, start), query.rfind("\t", 0, start)) + 1
            return query[:start], query[start:]
        at = closing + 1
    return query, ""


# a call's opening parenthesis, glued to its name: the quote after it opens an argument
_CALL = re.compile(r"\w\(\Z")


# Punctuation FTS5's syntax has no use for (a comma is NEAR's), a hyphen inside a word (e-mail, 1e-100), and a
# colon naming no column (parameters:)
_TEXT_MARKS = re.compile(r'[^\w\s"()*^+{}-]|(?<=\w)-(?=\w)')
_COLUMN_NAMED = re.compile(rf"\b(?:{_COLUMNS})\s*:", re.IGNORECASE)


def _pasted(query: str) -> bool:
    """Whether a query is text pasted, not FTS5's syntax typed: outside its
    strings it holds punctuation FTS5 reads as no syntax (``membership.``,
    ``Harold's``, ``isinstance(obj, int)``, ``1e-100``)."""
    marks = _TEXT_MARKS.findall(_COLUMN_NAMED.sub(" ", _STRING.sub("", query)))
    return any(mark != "," for mark in marks) or (bool(marks) and not _holds_near(query))


def _read_chunk(chunk: str, at: int, near: bool, grouping: bool, opened: list[tuple[bool, int]]) -> str:
    """The ``at``-th chunk of :func:`quoted_words` as FTS5 can read it;
    ``opened``, the groups open before it (whether each is NEAR's, and the
    chunk opening it), updated for those it opens and closes."""
    if chunk in _OPERATORS or _BARE.fullmatch(chunk) and chunk.rstrip("*") not in _OPERATORS:
        return chunk
    if chunk.rstrip("*") in _OPERATORS:  # OR*: websearch's prefix, FTS5's syntax error
        return f'"{chunk.rstrip("*")}"*'
    if _SYNTAX_CHARS.search(chunk) and _cannot_be_syntax(chunk, near, grouping):
        return _phrase(chunk)
    lead = _LEAD.match(chunk)
    assert lead is not None  # it matches the empty text
    opens = [(piece == "NEAR(", at) for piece in re.findall(r"NEAR\(|\(", lead.group(0))]
    rest = chunk[lead.end():]
    closes = (_NEAR_CLOSES if (opened + opens)[-1:] and (opened + opens)[-1][0] else _CLOSES).search(rest)
    assert closes is not None  # each matches the empty text at the end
    shut = closes.group(0).count(")")
    if shut > len(opened) + len(opens):  # a ) closing no group: key) in object.__getitem__(self, key) -x
        return _phrase(chunk)
    opened += opens
    del opened[len(opened) - shut:]
    core = rest[:closes.start()]
    if not core or _BARE.fullmatch(core) or _SYNTAX_CHARS.search(core):
        return chunk
    return lead.group(0) + _phrase(core) + closes.group(0)


def _phrase(text: str) -> str:
    """Text read as the phrase of its words, without its own ``"`` (a string
    cannot hold a bare one); a ``*`` after its last letter a prefix."""
    # a space where a " parts two words ("a b"c: a b c, not a bc)
    words = _QUOTE_IN_WORDS.sub(" ", text).replace('"', "").replace("\0", "")
    if words.endswith("*") and words[:-1][-1:].isalnum():  # debian.or*: the phrase, its last word a prefix
        return '"' + words[:-1] + '"*'
    return '"' + words + '"'


def _cannot_be_syntax(chunk: str, near: bool, grouping: bool) -> bool:
    """Whether a chunk's parentheses or double quotes cannot be FTS5's, read
    as FTS5 reads them (``fts5parse.y``): a ``(`` opens a group only after
    ``(``, a column's ``:`` or ``NEAR`` and before a word, a string, ``(``,
    ``^``, ``-`` or ``{`` (not ``func(``, ``('/``, ``(:issue:``); a ``)``
    closes one only after a word, a string, ``*`` or ``)`` and before
    nothing or ``)`` (not ``int):``, ``').``); a ``"`` opens a string only
    where :data:`_OPENS_STRING` says (not ``Foo-Flask".``), and a closed
    string is followed by nothing, ``*``, ``+``, ``)`` or, in a ``NEAR``
    group, ``,`` (not ``"breakpoint()",``); and there is no group at all
    in a query without an operator (not ``grouping``).  ``(a``, ``b)``,
    ``("a b"``, ``"unterminated`` and ``title:(a`` can be, and are left to
    FTS5 and its error message."""
    pieces = _PIECE.findall(chunk)
    if not grouping and ("(" in pieces or ")" in pieces):
        return True
    return any(not _may_follow(before, after, near) for before, after in zip(pieces, pieces[1:]))


def _may_follow(before: str, after: str, near: bool) -> bool:
    """Whether FTS5 can read the piece ``after`` right after ``before`` (pieces of :data:`_PIECE`)."""
    string = len(before) > 1 and before[0] == '"'  # a closed string (a " alone opens one left open)
    if before == "(":
        return _WORD.match(after) is not None or after[0] in '"(^-{'
    if after == "(":
        return before in ("(", ":", "NEAR")
    if before == ")":
        return after == ")"
    if after == ")":
        return _WORD.match(before) is not None or string or before in ("*", ")")
    if after == '"':  # a string left open: FTS5 reads one only where it may start
        return before in ("(", ":", "^", "+", "-")
    if string:
        return after in ("*", "+") or (near and after == ",")
    return True


def syntax_error(query: str, reason: str, *, postgres: bool = False) -> QuerySyntaxError:
    return QuerySyntaxError(
        f"cannot understand the query {query!r} ({reason}).\n{_what_works(query, reason)}\n\n{syntax_of(postgres)}",
        reason,
    )


def _what_works(query: str, reason: str) -> str:
    """The line of a syntax error that says what to type instead: the query
    quoted, which always parses -- but for a query that only leaves words
    out, whose quoted form (``"-river"``) finds the word it meant to leave
    out, a word to find beside them (``report -river``)."""
    if reason == LEFT_OUT_ALONE:
        return f"To find the items without a word, give a word they hold too, e.g.: {_beside_a_word(query)}"
    return f"To search for the words as typed, quote them: {quoted(query)}"


def _beside_a_word(query: str) -> str:
    """The words a query leaves out (``-river``, ``-"river bank"``, and after
    ``NOT``: ``-bank``) after a word to find, an example's: ``-river -bank``
    -> ``report -river -bank``."""
    chunks = [chunk for chunk, _ in _chunks(strings_joined(query))]
    left_out = [chunk if _EXCLUDED.fullmatch(chunk) else f"-{chunk}" for at, chunk in enumerate(chunks)
                if _EXCLUDED.fullmatch(chunk) or (at and chunks[at - 1] == "NOT" and chunk not in _OPERATORS)]
    # not the word left out itself: report -report finds nothing
    example = "letter" if "-report" in (word.lower() for word in left_out) else "report"
    return " ".join([example, *(left_out or ["-river"])])


# A double-quoted FTS5 string ("" inside is one quote).
_STRING = re.compile(r'"(?:[^"]|"")*"')


def has_prefix(query: str) -> bool:
    """Whether an FTS5 query holds a prefix term (``surv*``): a ``*`` outside
    quoted strings, where a bareword cannot hold one."""
    return "*" in _STRING.sub("", query)


_NEAR = re.compile(r"\bNEAR\s*\(")


def _holds_near(query: str) -> bool:
    """Whether an FTS5 query holds a ``NEAR`` group (outside its strings)."""
    return _NEAR.search(_STRING.sub("", query)) is not None


def has_phrase(query: str) -> bool:
    """Whether an FTS5 query holds a phrase -- a quoted string of two words
    or more (``"river survey"``, and ``"e-mail"``, which FTS5 reads as two) --
    or a ``NEAR`` group: their matches are found by comparing the words'
    positions in every item that holds them all."""
    if _holds_near(query):
        return True
    return any(len(re.findall(r"\w+", m.group(0))) >= 2 for m in _STRING.finditer(query))


# Barewords (FTS5's: letters, digits, ``_`` and any character past ASCII)
# joined by OR, and nothing else.
_ORED = re.compile(r"\w+(?:\s+OR\s+\w+)*")


def words_ored(query: str) -> bool:
    """Whether an FTS5 query is one word, or words joined by ``OR``: then
    one pass over its matches reads no more than the words' lists of items
    (where ``a b`` or ``"a b"`` reads both words' whole lists to find the
    few items holding both)."""
    return _ORED.fullmatch(query.strip()) is not None and not re.search(r"\b(AND|NOT|NEAR)\b", query)
