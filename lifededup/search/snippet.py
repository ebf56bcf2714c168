"""A few words around what matched, with the matched words marked."""

from __future__ import annotations

import bisect
import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

from lifededup.store.dialect import Driver
from lifededup.store.searchable import TS_CONFIG, pg_spaced, together

# FTS5's snippet() (and ts_headline) wrap each matched token in these; control characters
# cannot occur in stored text's words, so they cannot be confused with it.
OPEN, CLOSE = "\x02", "\x03"
ELLIPSIS = "…"
# Tokens of context FTS5 picks around the best match (its maximum is 64).
SNIPPET_TOKENS = 24
# A preview without a query: this many characters of the text.
PREVIEW_CHARS = 160

_MARKS = re.compile(f"([{OPEN}{CLOSE}])")

# PostgreSQL's ts_headline reads the whole text it is given, so it is given a
# bounded start of the text: a page of snippets costs the same whatever the
# texts' length (a text matched only past it is headlined again from where
# it matches, ``deep_headline_sql``: those rows alone pay for it).
# FTS5's snippet() weighs each match in the text against every other
# (fts5SnippetScore, once a match): a common word's snippet costs the square
# of its matches -- ``the`` in the Debian Policy's 478,130 characters 182 ms,
# in 10,123 characters 0.3 ms.  So a longer text's snippet on SQLite is made
# of its first HEADLINE_CHARS characters too (``fts5_snippets``), of the
# whole text only where the query matches past them alone.
HEADLINE_CHARS = 20_000

_SNIPPET_ARGS = f"char(2), char(3), '{ELLIPSIS}', {SNIPPET_TOKENS}"
# FTS5's snippet of an item ``i`` whose text is at most HEADLINE_CHARS long; NULL for a longer one
SNIPPET_SQL = (f"CASE WHEN length(coalesce(i.text_apart, i.text)) <= {HEADLINE_CHARS} "
               f"THEN snippet(items_fts, -1, {_SNIPPET_ARGS}) END")
# A PostgreSQL store's words are read with ASCII punctuation as spaces
# (revision 0028), so the headline is made over the text read so (``pg_spaced``):
# PostgreSQL's parser would keep ``setup.py`` whole and mark no ``setup``
# in it, and read ``<b>`` as a tag it leaves out.  The text shown is the
# text itself (``shown``, the same characters as the headline's but for
# the marks: a mark for a space, one for one), put back in
# ``from_headline``.
_HEADLINE_OPTIONS = (f"'StartSel=' || chr(2) || ', StopSel=' || chr(3) || "
                     f"', MaxWords={SNIPPET_TOKENS}, MinWords={SNIPPET_TOKENS - 4}, ShortWord=0'")
_UNMARKED = "translate({}, chr(2) || chr(3), '')"
# A headline that starts or ends on a match inside a word (the characters up
# to a space: ``pytest_collection_modifyitems`` is three words to the parser,
# and a headline of MaxWords showed ``…collection_modifyitems``) shows that
# word whole, WORD_END_CHARS at most on either side, every word of the query
# in it marked (HighlightAll), as the headline marks them.
WORD_END_CHARS = 64
_ALL_OPTIONS = "'StartSel=' || chr(2) || ', StopSel=' || chr(3) || ', HighlightAll=true'"
_word_before = (f"coalesce(CASE WHEN left(h, 1) = chr(2) THEN substring(right(left(body, found - 1), "
                f"{WORD_END_CHARS}) from '\\S+$') END, '')")
_word_after = (f"coalesce(CASE WHEN right(h, 1) = chr(3) THEN substring(substr(body, found + length(shown), "
               f"{WORD_END_CHARS}) from '^\\S+') END, '')")


def headline_sql(tsquery: str, ids: str, start: str = "1", chars: str = str(HEADLINE_CHARS),
                 checked: str = "goes_on") -> str:
    """PostgreSQL's counterpart of ``SNIPPET_SQL`` for the items ``ids``:
    rows of ``id``, the text's ``headline`` and the title's
    (``title_headline``), each over the text with punctuation as spaces;
    where the headline starts in the text (``found_at``, 1: at its start;
    0: not found); the end of the text read (``read``); and the text and
    title the headlines show (``shown``, ``title_shown``: NULL where not
    found); whether the text's headline holds a match of the query
    (``held``: ts_headline marks the query's words where no match is, the
    start of a text whose phrase stands further on); and whether the text
    goes on past what was read (``goes_on``); ``held`` is measured where
    ``checked`` says (an SQL condition: a text read whole holds its match
    somewhere in it, and a to_tsvector of each row's shown words cost a
    rare word's page a quarter of a millisecond), else true.  Each
    subquery is fenced (``OFFSET 0``): pulled up into the query around it,
    the headline was made twice, once for itself and once for ``found_at``
    (20 rows: 0.89 against 0.41 ms).  Made of the
    text as the index reads it (a CJK text's ``text_apart``, revision
    0022), whose separators ``Snippet.from_marked`` drops; from its
    character ``start`` on (an SQL expression of the item ``i``: where a
    long text's piece holding the phrase starts, ``search.phrases``), its
    ``chars`` characters (an SQL expression too: ``deep_headline_sql``).  A
    headline that starts or ends on a match inside a word is that word
    longer (``_word_before``, ``_word_after``), marked again whole."""
    found, title_found = (f"nullif(strpos({spaced}, {_UNMARKED.format(h)}), 0)"
                          for spaced, h in (("spaced", "h"), ("spaced_title", "th")))
    return (
        f"SELECT id, CASE WHEN before || after <> '' THEN ts_headline('{TS_CONFIG}', "
        f"{pg_spaced('before || shown || after')}, {tsquery}, {_ALL_OPTIONS}) ELSE h END AS headline, "
        "th AS title_headline, coalesce(at - 1 + found - length(before), 0) AS found_at, read, "
        "before || shown || after AS shown, title_shown, "
        f"CASE WHEN {checked} THEN coalesce(to_tsvector('{TS_CONFIG}', {pg_spaced('before || shown || after')}) "
        f"@@ {tsquery}, false) ELSE true END AS held, "
        "goes_on "
        "FROM ("
        f"SELECT id, h, th, at, found, read, shown, title_shown, goes_on, {_word_before} AS before, "
        f"{_word_after} AS after "
        "FROM (SELECT id, h, th, at, body, goes_on, "
        f"{found} AS found, at - 1 + length(rtrim(body)) AS read, substr(body, {found}, "
        f"length({_UNMARKED.format('h')})) AS shown, "
        f"substr(title, {title_found}, length({_UNMARKED.format('th')})) AS title_shown "
        "FROM (SELECT id, body, at, title, spaced, spaced_title, length(body) > chars AS goes_on, "
        f"ts_headline('{TS_CONFIG}', left(spaced, chars), {tsquery}, {_HEADLINE_OPTIONS}) AS h, "
        f"ts_headline('{TS_CONFIG}', spaced_title, {tsquery}, {_HEADLINE_OPTIONS}) AS th FROM ("
        f"SELECT id, body, at, chars, title, {pg_spaced('body')} AS spaced, {pg_spaced('title')} AS spaced_title "
        "FROM (SELECT i.id, substr(coalesce(i.text_apart, i.text), s.at, s.chars + 1) AS body, s.at, s.chars, "
        "coalesce(i.title_apart, i.title, '') AS title "
        f"FROM items i CROSS JOIN LATERAL (SELECT {start} AS at, {chars} AS chars) AS s "
        f"WHERE i.id IN ({ids}) OFFSET 0) AS texts "
        "OFFSET 0) AS read OFFSET 0) AS headlines OFFSET 0) AS placed OFFSET 0) AS edged"
    )


# A text that no piece holds is shorter than this (revision 0027 pieces a
# text of 100,000 characters or more): its deep headline reads it to its
# end, from this many characters before the end of its start's headline
# (a phrase across HEADLINE_CHARS is read whole).
WHOLE_CHARS = 100_000
BACK_CHARS = 1_000


def deep_headline_sql(tsquery: str, ids: str) -> str:
    """``headline_sql`` for the items ``ids`` whose headline over their first
    HEADLINE_CHARS characters holds no match (their text matches past them
    alone: ``pytest_collection_modifyitems`` at character 23,566 of the
    26,269 of pytest's ``markers.rst`` showed its start, unmarked, and at
    21,113 of ``output.rst`` its start with one ``pytest`` marked): from the
    first of a long text's pieces (revision 0027) that the query matches,
    HEADLINE_CHARS characters; a text without such a piece (one no piece
    holds is shorter than WHOLE_CHARS) read past its start to its end (up
    to WHOLE_CHARS), BACK_CHARS before.  Its pieces are read by their key,
    and only a page's rows whose headline holds no match pay."""
    piece = ("(SELECT p.text_at FROM items_fts_pieces p WHERE p.rowid = i.id AND p.piece > 0 "
             f"AND p.document @@ {tsquery} ORDER BY p.piece LIMIT 1)")
    return headline_sql(tsquery, ids, f"coalesce({piece}, {HEADLINE_CHARS - BACK_CHARS})",
                        f"CASE WHEN {piece} IS NULL THEN {WHOLE_CHARS} ELSE {HEADLINE_CHARS} END", "true")


def rare_headline_sql(tsquery: str, rare: str, ids: str) -> str:
    """``deep_headline_sql`` of the query's rarest word alone (``rare``, a
    tsquery of it) for the items ``ids`` whose deep headline holds no match
    of the whole query ``tsquery``: an AND of words far apart (``keeper``
    in the text's start, ``lighthouse`` past it), or a word whose headline
    window held the query's other words alone (``lighthouse`` in a table
    with no ``the`` near it: ts_headline's cover of both is longer than
    MaxWords).  Where the headline holds the word, every word of the query
    in it is marked (HighlightAll), as ``headline_sql``'s word ends are."""
    return (f"SELECT id, CASE WHEN held THEN ts_headline('{TS_CONFIG}', {pg_spaced('shown')}, {tsquery}, "
            f"{_ALL_OPTIONS}) ELSE headline END AS headline, title_headline, found_at, read, shown, title_shown, "
            f"held, goes_on FROM ({deep_headline_sql(rare, ids)}) AS rare")


def _shown(marked: str, text: str | None) -> str:
    """A headline's ``marked`` characters with ``text``'s put back where the
    two differ (a space for a punctuation mark), the marks kept."""
    if not text:
        return marked
    out: list[str] = []
    at = 0
    for piece in _MARKS.split(marked):
        if piece in (OPEN, CLOSE) or not piece:
            out.append(piece)
        else:
            out.append(text[at:at + len(piece)])
            at += len(piece)
    return "".join(out)


@dataclass(frozen=True)
class Snippet:
    """Plain ``text`` and the ``(start, end)`` character spans of the matched
    words in it."""

    text: str
    spans: tuple[tuple[int, int], ...] = ()

    @classmethod
    def from_marked(cls, marked: str) -> Snippet:
        """Read FTS5's marked snippet (``OPEN`` word ``CLOSE``) on one line,
        made of the text as the index reads it: without the separators
        between CJK characters (``store/searchable.py``), and a word marked
        character by character (ts_headline's ``東`` ``京``) marked whole."""
        flat = " ".join(together(marked).split()) if marked else ""
        text, spans = _plain(flat, joined=True)
        return cls(text, tuple(spans))

    @classmethod
    def from_headline(cls, text: str | None, title: str | None, start: int, length: int,
                      shown: str | None = None, title_shown: str | None = None) -> Snippet:
        """Read a row of :func:`headline_sql`: the text's headline, with an
        ellipsis where the text goes on (as FTS5 writes it), else the
        title's when only the title matched; each with the characters of
        the text it shows (``shown``, ``title_shown``)."""
        text, title = _shown(text or "", shown), _shown(title or "", title_shown)
        if OPEN not in text and OPEN in title:
            return cls.from_marked(title)
        shown_chars = len(text) - text.count(OPEN) - text.count(CLOSE)
        before = ELLIPSIS if start != 1 else ""
        after = ELLIPSIS if start < 1 or start - 1 + shown_chars < length else ""
        return cls.from_marked(before + text + after if text else "")

    @classmethod
    def preview(cls, text: str | None) -> Snippet:
        """The start of a text, on one line, cut at a word."""
        flat = " ".join((text or "")[: PREVIEW_CHARS * 2].split())
        if len(flat) <= PREVIEW_CHARS:
            return cls(flat)
        cut = flat[:PREVIEW_CHARS].rsplit(" ", 1)[0]
        return cls(cut + ELLIPSIS)

    def parts(self) -> list[tuple[str, bool]]:
        """The text in pieces, each with whether it matched."""
        pieces: list[tuple[str, bool]] = []
        at = 0
        for start, end in self.spans:
            if start > at:
                pieces.append((self.text[at:start], False))
            pieces.append((self.text[start:end], True))
            at = end
        if at < len(self.text):
            pieces.append((self.text[at:], False))
        return pieces

    @property
    def matched(self) -> list[str]:
        return [self.text[s:e] for s, e in self.spans]


def fts5_snippets(conn: Driver, query: str, marked: dict[int, str | None]) -> dict[int, str]:
    """The marked snippets of the items ``marked`` that an FTS5 ``query``
    matches: ``SNIPPET_SQL``'s, and of an item whose is NULL (a text past
    HEADLINE_CHARS), the snippet of its first HEADLINE_CHARS characters
    where the query matches there (``_bounded_snippets``), else of
    HEADLINE_CHARS characters around where the query's rarest word stands
    in it (``_deep_snippets``), else of its whole text; each with
    the match its window ends on shown to the end of its word
    (``whole_matches``).

    snippet() over a whole long text costs the square of a common word's
    matches (``the debconf``: 150 ms for the Debian Policy); indexing the
    text's pieces in memory cost a rare word more than snippet()'s two
    reads of the text (benchmarks/README.md, "Session 26"), where finding
    the rare word by highlight() is one read of it ("Session 27")."""
    shown = whole_matches(conn, "items_fts", query, {i: m for i, m in marked.items() if m is not None})
    long = [i for i, m in marked.items() if m is None]
    if not long:
        return shown
    bounded = _bounded_snippets(conn, query, long)
    past = [i for i in long if i not in bounded]
    if past:
        found = conn.execute(f"SELECT rowid, snippet(items_fts, -1, {_SNIPPET_ARGS}) FROM items_fts "
                             f"WHERE items_fts MATCH ? AND rowid IN ({_listed(past)})", (query,))
        bounded.update(whole_matches(conn, "items_fts", query, {int(r[0]): str(r[1]) for r in found}))
    return {**shown, **bounded}


def _listed(ids: Iterable[int]) -> str:
    return ", ".join(str(int(i)) for i in ids)


def _bounded_snippets(conn: Driver, query: str, ids: list[int]) -> dict[int, str]:
    """The snippets of the items ``ids`` made of their first HEADLINE_CHARS
    characters (cut at a space), in an index of those alone (in memory, its
    words read as the store's ``items_fts`` reads them), for those the
    query matches there; of those it does not, ``_deep_snippets``'s."""
    rows = [(i, title, _cut(text), people) for i, title, text, people in conn.execute(
        f"SELECT id, title, substr(text, 1, {HEADLINE_CHARS + 1}), people FROM items_searched "
        f"WHERE id IN ({_listed(ids)})")]
    scratch = sqlite3.connect(":memory:")
    try:
        tokenize = _tokenizer(conn)
        scratch.execute(f"CREATE VIRTUAL TABLE part USING fts5(title, text, people, tokenize={tokenize})")
        scratch.executemany("INSERT INTO part (rowid, title, text, people) VALUES (?, ?, ?, ?)", rows)
        found = {int(r[0]): str(r[1]) for r in scratch.execute(
            f"SELECT rowid, snippet(part, -1, {_SNIPPET_ARGS}) FROM part WHERE part MATCH ?", (query,))}
        found = whole_matches(scratch, "part", query, found)
        texts = {i: text for i, _, text, _ in rows}
        shown = {i: _going_on(marked, texts[i]) for i, marked in found.items()}
        past = [row for row in rows if row[0] not in found]
        return {**shown, **(_deep_snippets(conn, scratch, tokenize, query, past) if past else {})}
    finally:
        scratch.close()


def _deep_snippets(conn: Driver, scratch: sqlite3.Connection, tokenize: str, query: str,
                   rows: list[tuple[int, str | None, str, str | None]]) -> dict[int, str]:
    """The snippets of ``rows`` (id, title, start of the text, people), long
    texts whose start the query does not match but holds a word of: each
    of HEADLINE_CHARS characters of its text around where the query's
    rarest word stands (``_placed``), indexed in ``scratch``'s ``deep``;
    where those characters do not hold the whole query (an AND of words
    far apart), the snippet of the query's words there, the rarest among
    them (snippet() over the whole text showed the word of the most
    repeats near each other: ``keeper``).  A row whose start
    holds none of the query's words is left out, snippet() over its whole
    text costs it no more (its words are found nowhere else: ``debconf``
    alone, 3.3 ms in the Debian Policy, where highlight() finds it in
    3.0); so is one whose start lacks none (a phrase or NEAR of words each
    there)."""
    words = _words(query)
    absent = {i: lacks for i, lacks in _absent(scratch, words, [row[0] for row in rows]).items()
              if 0 < len(lacks) < len(words)}
    if not absent:
        return {}
    rows_of = {word: _rows_of(conn, word) for word in words}
    placed = _placed(conn, {i: _sought(lacks, words, rows_of) for i, lacks in absent.items()})
    if not placed:
        return {}
    # made here, not with ``part``: a page with no such row pays nothing for them (0.4 ms a rare word's page)
    scratch.execute(f"CREATE VIRTUAL TABLE deep USING fts5(title, text, people, tokenize={tokenize})")
    scratch.execute(f"CREATE VIRTUAL TABLE shown USING fts5(text, tokenize={tokenize})")
    scratch.executemany("INSERT INTO deep (rowid, title, text, people) VALUES (?, ?, ?, ?)",
                        [(i, title, placed[i].window, people) for i, title, _, people in rows if i in placed])
    found: dict[int, str] = {}
    for matched in (query, " OR ".join(words)):
        left = _listed(i for i in placed if i not in found)
        found.update(whole_matches(scratch, "deep", matched, {int(r[0]): str(r[1]) for r in scratch.execute(
            f"SELECT rowid, snippet(deep, 1, {_SNIPPET_ARGS}) FROM deep WHERE deep MATCH ? AND rowid IN ({left})",
            (matched,))}))
    return {i: _in_window(marked if placed[i].shows(marked) else _rarest_shown(scratch, i, placed[i].word, words),
                          placed[i]) for i, marked in found.items()}


def _rarest_shown(scratch: sqlite3.Connection, rowid: int, rarest: str, words: list[str]) -> str:
    """The snippet of ``scratch``'s ``deep`` row ``rowid`` around its
    ``rarest`` word, each of the query's ``words`` marked in it: where
    snippet() of the query showed the others alone (it weighs a window by
    the words after its first match, and a table's cell held ``python``
    and no ``the`` after it)."""
    window = str(scratch.execute(f"SELECT snippet(deep, 1, '', '', '{ELLIPSIS}', {SNIPPET_TOKENS}) FROM deep "
                                 f"WHERE deep MATCH ? AND rowid = {int(rowid)}", (rarest,)).fetchone()[0])
    body = window.removeprefix(ELLIPSIS).removesuffix(ELLIPSIS)
    scratch.execute("INSERT INTO shown (rowid, text) VALUES (?, ?)", (rowid, body))
    marked = scratch.execute(f"SELECT highlight(shown, 0, char(2), char(3)) FROM shown WHERE shown MATCH ? "
                             f"AND rowid = {int(rowid)}", (" OR ".join(words),)).fetchone()
    return window.replace(body, str(marked[0]), 1) if marked else window


# A word in this many items or more is as common as any: counting them
# all costs a common word's whole list of items in a large store.
COMMON_ROWS = 1_000


def _rows_of(conn: Driver, word: str) -> int:
    """How many items hold a word (a query of its own), up to COMMON_ROWS."""
    return int(conn.execute(f"SELECT count(*) FROM (SELECT 1 FROM items_fts WHERE items_fts MATCH ? "
                            f"LIMIT {COMMON_ROWS})", (word,)).fetchone()[0])


def _sought(lacks: list[str], words: list[str], rows_of: dict[str, int]) -> list[str]:
    """The words to find in a text whose start ``lacks`` some of the query's
    ``words``, the rarest first (``rows_of``: in how many items each
    stands): those it lacks, and before them the rarest word of its start
    where that is rarer than they (two as common as any: the one it lacks,
    whose first place is past the start)."""
    ranked = sorted(lacks, key=rows_of.__getitem__)
    rarer = [w for w in words if w not in lacks and rows_of[w] < rows_of[ranked[0]]]
    return [min(rarer, key=rows_of.__getitem__), *ranked] if rarer else ranked


def _absent(scratch: sqlite3.Connection, words: list[str], ids: list[int]) -> dict[int, list[str]]:
    """Of each item ``ids``, the ``words`` its start (``scratch``'s
    ``part``: title, people and the text's first HEADLINE_CHARS characters)
    lacks."""
    absent = {i: list(words) for i in ids}
    for word in words:
        for (rowid,) in scratch.execute(f"SELECT rowid FROM part WHERE part MATCH ? AND rowid IN ({_listed(ids)})",
                                        (word,)):
            absent[int(rowid)].remove(word)
    return absent


@dataclass(frozen=True)
class _Place:
    """Where a long text's snippet is made: HEADLINE_CHARS characters of
    its ``text``, ``start`` to ``end``, around an occurrence of its rarest
    word ``word`` (where each stands: ``found``)."""

    text: str
    start: int
    end: int
    word: str
    found: list[int]

    @property
    def window(self) -> str:
        return self.text[self.start:self.end]

    def shows(self, marked: str) -> bool:
        """Whether a snippet of the window holds an occurrence of the word."""
        plain = _MARKS.sub("", marked).removeprefix(ELLIPSIS).removesuffix(ELLIPSIS)
        at = self.window.find(plain)
        first = bisect.bisect_left(self.found, self.start + at)
        return at >= 0 and first < len(self.found) and self.found[first] < self.start + at + len(plain)


def _placed(conn: Driver, sought: dict[int, list[str]]) -> dict[int, _Place]:
    """Where to show each row of ``sought`` (item: the query's words to
    find in its text, the rarest first): HEADLINE_CHARS characters of it
    cut at spaces around an occurrence of the rarest of them found there
    (``_around``).  Each word's occurrences are found by ``highlight()``
    of it alone (one read of the text, where snippet() of the query weighs
    every match against every other)."""
    texts: dict[int, str] = {}
    found: dict[int, dict[str, list[int]]] = {}
    for word in dict.fromkeys(w for ws in sought.values() for w in ws):
        rows = [i for i, ws in sought.items() if word in ws]
        for rowid, highlighted in conn.execute(
                "SELECT rowid, highlight(items_fts, 1, char(2), char(3)) FROM items_fts "
                f"WHERE items_fts MATCH ? AND rowid IN ({_listed(rows)})", (word,)):
            # the k-th mark opens 2k characters of marks after where it stands in the text
            stands = [m.start() - 2 * k for k, m in enumerate(_OPENED.finditer(highlighted or ""))]
            if stands:
                texts.setdefault(int(rowid), str(highlighted).replace(OPEN, "").replace(CLOSE, ""))
                found.setdefault(int(rowid), {})[word] = stands
    placed = {}
    for i, where in found.items():
        ranked = [(w, where[w]) for w in sought[i] if w in where]
        center = _around([at for _, at in ranked])
        placed[i] = _Place(texts[i], *_window(texts[i], center), ranked[0][0], ranked[0][1])
    return placed


_OPENED = re.compile(OPEN)


def _around(found: list[list[int]]) -> int:
    """Of the occurrences of a row's words (each word's, in order, the
    rarest first), one of the first word's: the first with the most of the
    others within half HEADLINE_CHARS of it (snippet() weighs each word of
    its window a thousand times a repeat; a common word stands near any)."""
    rarest, *others = found
    half = HEADLINE_CHARS // 2
    return max(rarest, key=lambda at: sum(bisect.bisect_right(o, at + half) > bisect.bisect_left(o, at - half)
                                          for o in others))


def _window(text: str, at: int) -> tuple[int, int]:
    """The start and end of HEADLINE_CHARS characters of ``text`` around
    character ``at``, cut at a space on either side where one is."""
    start = max(0, min(at - HEADLINE_CHARS // 2, len(text) - HEADLINE_CHARS))
    end = min(len(text), start + HEADLINE_CHARS)
    if start > 0:
        first = _SPACE.search(text, start, at)
        start = first.end() if first else start
    if end < len(text):
        last = max(text.rfind(c, at, end) for c in " \t\n\r")
        end = last if last > at else end
    return start, end


def _in_window(marked: str, place: _Place) -> str:
    """A snippet of a ``place``'s window, with an ellipsis where the text
    goes on before or after it (FTS5 writes none at the ends of the text
    it was given)."""
    marked = _going_on(marked, place.window) if place.end < len(place.text) else marked
    return ELLIPSIS + marked if place.start > 0 and not marked.startswith(ELLIPSIS) else marked


# A query as FTS5 reads it (``syntax.py``): strings, barewords (letters,
# digits, _, \x1a and any character past ASCII), and single characters.
_BAREWORD = r"[\w\x1a\x80-\U0010ffff]+"
_QUERY_PIECE = re.compile(rf'"(?:[^"]|"")*"|{_BAREWORD}|\S')


def _words(query: str) -> list[str]:
    """The words and phrases of an FTS5 query a matching row may hold, each
    a query of its own (quoted, a prefix's star kept): not its operators,
    column names, NEAR's distance, nor what NOT leaves out."""
    pieces = _QUERY_PIECE.findall(query)
    words: list[str] = []
    depth, negated, left_out = 0, False, None  # left_out: the depth of a group NOT leaves out
    for k, piece in enumerate(pieces):
        after = pieces[k + 1] if k + 1 < len(pieces) else ""
        if piece in ("(", "{"):
            depth += 1
            if negated or piece == "{":  # {title text}: names columns
                left_out = depth if left_out is None else left_out
            negated = False
        elif piece in (")", "}"):
            left_out = None if left_out == depth else left_out
            depth -= 1
        elif piece == "NOT":
            negated = True
        elif piece in ("AND", "OR") or (piece == "NEAR" and after == "(") or after == ":" \
                or (k and pieces[k - 1] == ","):
            continue
        elif piece[0] == '"' or re.fullmatch(_BAREWORD, piece):
            if not negated and left_out is None:
                words.append((piece if piece[0] == '"' else f'"{piece}"') + ("*" if after == "*" else ""))
            negated = False
    return list(dict.fromkeys(w for w in words if w.strip('"*')))


def _tokenizer(conn: Driver) -> str:
    """How the store's ``items_fts`` reads words: its ``tokenize`` option, quoted."""
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'items_fts'").fetchone()[0]
    found = re.search(r"tokenize\s*=\s*('(?:[^']|'')*')", str(sql))
    return found.group(1) if found else "'unicode61'"


def _cut(text: str | None) -> str:
    """The first HEADLINE_CHARS characters of ``text`` (of which one more is
    given), cut at its last space there: no word is cut in two."""
    text = text or ""
    if len(text) <= HEADLINE_CHARS:
        return text
    head = text[:HEADLINE_CHARS]
    space = max(head.rfind(c) for c in " \t\n\r")
    return head[:space] if space > 0 else head


def _going_on(marked: str, cut: str) -> str:
    """A snippet of a text's start ``cut`` at HEADLINE_CHARS: an ellipsis
    after, where its window reached the cut's end (FTS5 writes none at the
    end of the text it was given)."""
    if not marked or marked.endswith(ELLIPSIS) or not cut.endswith(_MARKS.sub("", marked).removeprefix(ELLIPSIS)):
        return marked
    return marked + ELLIPSIS


def whole_matches(conn: Driver, table: str, query: str, marked: dict[int, str]) -> dict[int, str]:
    """``marked``, FTS5 snippets of the rows of ``table`` that ``query``
    matches, each whose window ends on a match shown to the end of its word
    (``_to_word_end``): snippet() counts a phrase that starts in its window
    and closes the window after its own tokens -- the identifier
    ``pytest_collection_modifyitems``, three words, showed as ``pytest``
    (a window from a sentence's start, the identifier its last word).  The
    row's ``highlight()`` says where its matches end."""
    cut = [i for i, m in marked.items() if m.endswith(CLOSE + ELLIPSIS)]
    if not cut:
        return marked
    columns = ", ".join(f"highlight({table}, {c}, char(2), char(3))" for c in range(3))
    whole = dict(marked)
    for rowid, *highlighted in conn.execute(f"SELECT rowid, {columns} FROM {table} WHERE {table} MATCH ? "
                                            f"AND rowid IN ({_listed(cut)})", (query,)):
        whole[int(rowid)] = _to_word_end(marked[int(rowid)], [h for h in highlighted if h])
    return whole


_SPACE = re.compile(r"\s")


def _plain(marked: str, *, joined: bool = False) -> tuple[str, list[tuple[int, int]]]:
    """A marked text's characters and the spans of its marked runs in them;
    ``joined``: a run touching the one before is one with it (a word marked
    character by character)."""
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    length = start = 0
    for piece in _MARKS.split(marked):  # the marks, and the text between them
        if piece == OPEN:
            start = length
        elif piece == CLOSE:
            if joined and spans and spans[-1][1] == start:
                start = spans.pop()[0]
            spans.append((start, length))
        elif piece:
            out.append(piece)
            length += len(piece)
    return "".join(out), spans


def _word_end(plain: str, spans: list[tuple[int, int]], end: int) -> int:
    """Where the word (the characters up to a space) that ``plain[end]``
    goes on ends, past any match it holds (``spans``, a phrase across a
    space too), at most WORD_END_CHARS characters on."""
    limit = min(len(plain), end + WORD_END_CHARS)
    stop = end
    while stop < limit:
        going_on = [e for s, e in spans if s < stop < e]
        if going_on:
            stop = max(going_on)
        elif plain[stop].isspace():
            break
        else:
            space = _SPACE.search(plain, stop, limit)
            stop = space.start() if space else limit
    return min(stop, limit)


def _to_word_end(marked: str, highlighted: list[str]) -> str:
    """A snippet whose window ends on a match (``OPEN`` word ``CLOSE`` and
    the ellipsis) shown to the end of that word, marked as ``highlighted``
    (its row's columns, whole) marks it: the window found in the column
    that holds it."""
    body = marked[:-len(CLOSE + ELLIPSIS)]  # its last mark left open
    window = _plain(body.removeprefix(ELLIPSIS))[0]
    for column in highlighted:
        plain, spans = _plain(column)
        at = plain.find(window)
        if at < 0:
            continue
        end = at + len(window)
        stop = _word_end(plain, spans, end)
        inside = [any(s <= k < e for s, e in spans) for k in range(end, stop)]
        out, is_open = [body], True
        for char, mark in zip(plain[end:stop], inside):
            if mark != is_open:
                out.append(OPEN if mark else CLOSE)
                is_open = mark
            out.append(char)
        return "".join(out) + (CLOSE if is_open else "") + (ELLIPSIS if stop < len(plain) else "")
    return marked
