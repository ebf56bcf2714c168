"""The query language people type (SQLite FTS5's; on a PostgreSQL store
``websearch_to_tsquery``'s, with FTS5's prefix term), and what to say when a
query does not parse."""

from __future__ import annotations

import re

from lifededup.store.searchable import CJK_CHARS

# Shown by ``lifededup search --help``, the README, and every syntax error.
SYNTAX = """\
Query syntax (SQLite FTS5; case and the accents of Latin letters do not matter):
  river survey          both words, anywhere (AND is implied)
  "river survey"        the words next to each other, in this order
  survey OR census      either word (or: the same)
  river NOT bank        river, but not bank (NOT needs a word on its left)
  river -bank           the same
  (river OR brook) AND survey
  surv*                 any word starting with surv
  title:report          the word in the title only (columns: title, text, people)
  people:alice          a mail from or to alice (her name or address)
  NEAR(river survey, 5) both words within 5 words of each other
A word with punctuation in it (e-mail, 2.0, c++, 14:30, a web address) and
pasted code (print(x):, (Pdb) p) are read as if quoted: "e-mail", "print(x):".
Chinese, Japanese and Korean words are found inside a sentence: 東京 is read
as the phrase of its characters, "東 京"."""

# The same for a PostgreSQL store (websearch_to_tsquery, search/query.py).
PG_SYNTAX = """\
Query syntax on a PostgreSQL store (websearch; case and accents do not matter):
  river survey          both words, anywhere (AND is implied; river AND survey the same)
  "river survey"        the words next to each other, in this order
  survey OR census      either word
  river -bank           river, but not bank (river NOT bank the same)
  surv*                 any word starting with surv
No parentheses, NEAR or column filters (title:); anything else is read as words.
A word with punctuation in it (e-mail, 2.0, setup.py, a web address) is the
phrase of its words, as on SQLite: e-mail finds "e mail" too.
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
_FTS_ERRORS = re.compile(r"fts5|no such column|unterminated string|malformed MATCH|unknown special query")


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
_COLUMN = re.compile(r"[(^]*(title|text|people)\s*:", re.IGNORECASE)
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
    is ``-word`` inside parentheses.  Read as typed in a query with groups
    or ``NEAR``.  A Chinese, Japanese or Korean word is the phrase of its
    characters (:func:`cjk_apart`)."""
    query = cjk_apart(query)
    chunks = _CHUNK.findall(query)
    near = _holds_near(query)
    grouped = any((c.startswith(("(", "NEAR")) or c.endswith(")")) and not _cannot_be_syntax(c, near, True)
                  for c in chunks)
    if grouped:
        if any(_EXCLUDED.fullmatch(c.lstrip("(").rstrip(")")) for c in chunks):
            raise syntax_error(query, "-word cannot leave a word out inside parentheses: write NOT word")
        return query
    branches: list[tuple[list[str], list[str]]] = [([], [])]
    for chunk in chunks:
        kept, left_out = branches[-1]
        excluded = _EXCLUDED.fullmatch(chunk)
        if excluded is not None:
            left_out.append(excluded.group(1))
        elif chunk in ("or", "OR") and (kept or left_out):
            branches.append(([], []))
        else:
            kept.append(chunk)
    if not (branches[-1][0] or branches[-1][1]):  # a dangling OR: FTS5 says so
        branches[-2][0].append("OR")
        branches.pop()
    said = []
    for kept, left_out in branches:
        while left_out and kept and kept[-1] in _OPERATORS:  # "river AND -bank": nothing on its right now
            kept.pop()
        if left_out and not [c for c in kept if c not in _OPERATORS]:
            raise syntax_error(query, "it only leaves words out (-word) where it should give one to find: "
                                      "FTS5 finds the items without a word only beside a word they hold")
        said.append(" ".join(kept + [f"NOT {word}" for word in left_out]))
    return " OR ".join(said)


def quoted_words(query: str) -> str:
    """The query with each bare word holding punctuation FTS5 cannot read
    (``5.3.5``, ``dpkg-buildpackage``, ``c++``, ``14:30``, ``http://x.org``)
    quoted, the rest as typed: ``pytest 5.3.5`` -> ``pytest "5.3.5"``; one
    ending in ``*`` a phrase prefix: ``debian.or*`` -> ``"debian.or"*``.
    So is code whose parentheses or double quotes cannot be FTS5's
    (:func:`_cannot_be_syntax`), without its own ``"``:
    ``app.register_error_handler(500`` -> ``"app.register_error_handler(500"``
    (the phrase app register error handler 500), ``Foo-Flask".`` ->
    ``"Foo-Flask."``.  Chunks that are FTS5's own syntax -- strings, groups,
    ``title:``, ``word*``, ``NEAR(``, operators -- are left alone."""
    chunks = _TEXT_CHUNK.findall(query)
    near = _holds_near(query)
    # parentheses group words only around an operator: (Pdb) n, object.__eq__(self, other) are text
    grouping = near or any(chunk in _OPERATORS or chunk == "or" for chunk in chunks)
    out = []
    for chunk in chunks:
        if (chunk in _OPERATORS or _BARE.fullmatch(chunk) or _COLUMN.match(chunk) or chunk.startswith("NEAR")
                or (_SYNTAX_CHARS.search(chunk) and not _cannot_be_syntax(chunk, near, grouping))):
            out.append(chunk)
            continue
        # a string cannot hold a bare ": dropped, a space where it parts two words ("a b"c: a b c, not a bc)
        words = _QUOTE_IN_WORDS.sub(" ", chunk).replace('"', "").replace("\0", "")
        if words.endswith("*") and words[:-1][-1:].isalnum():  # debian.or*: the phrase, its last word a prefix
            out.append('"' + words[:-1] + '"*')
        else:
            out.append('"' + words + '"')
    return " ".join(out)


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
    suggestion = quoted(query)
    return QuerySyntaxError(
        f"cannot understand the query {query!r} ({reason}).\n"
        f"To search for the words as typed, quote them: {suggestion}\n\n{syntax_of(postgres)}", reason
    )


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
