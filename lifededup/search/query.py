"""The result set of a search as SQL: an FTS5 MATCH ranked by bm25 (on
PostgreSQL: the GIN-indexed tsvector matched by ``websearch_to_tsquery``,
ranked by ``ts_rank``), narrowed by filters on the items table.  Its rows
are ``id, rank`` (lower rank is better), the shape the store's
``collapse_sql`` expects (seeds/000 section 2.2 step 9: the user's query gives
a result table, which is then joined with the clusters table).

The functions take ``postgres``: the SQL is spelled for that backend where
the two differ (dates, globs, full-text matching), and is the same elsewhere."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING

from lifededup.model import name_forms, stored_path
from lifededup.search.syntax import WEB_CHUNK, cjk_apart, strings_joined
from lifededup.store.dates import ITEM_DATE, PG_ITEM_DATE, item_date
from lifededup.store.searchable import MARKS, TS_CONFIG

if TYPE_CHECKING:
    from lifededup.search.phrases import Pieced

@dataclass(frozen=True)
class Filters:
    """What narrows a search besides its words.

    ``since``/``until`` are inclusive days of the item's date (``ITEM_DATE``);
    ``path`` is a glob over the stored (absolute) path, see :func:`path_pattern`;
    its names match stored either composed or decomposed (``name_forms``).
    """

    kinds: tuple[str, ...] = ()
    since: date | None = None
    until: date | None = None
    path: str | None = None

    def __post_init__(self) -> None:
        if self.since is not None and self.until is not None and self.since > self.until:
            raise ValueError(f"--since {self.since} is after --until {self.until}: nothing can match")

    @property
    def active(self) -> bool:
        return bool(self.kinds) or self.since is not None or self.until is not None or self.path is not None

    def where(self, *, postgres: bool = False) -> tuple[list[str], dict[str, object]]:
        """SQL conditions on ``items i`` and their parameters."""
        conditions: list[str] = []
        params: dict[str, object] = {}
        day = item_date(postgres)
        if self.kinds:
            names = [f"kind{n}" for n in range(len(self.kinds))]
            conditions.append(f"i.kind IN ({', '.join(':' + n for n in names)})")
            params.update(zip(names, self.kinds))
        if self.since is not None:
            conditions.append(f"{day} >= :since")
            params["since"] = self.since.isoformat()
        if self.until is not None and self.until < date.max:
            # the whole of the --until day: before the next one begins
            conditions.append(f"{day} < :until")
            params["until"] = (self.until + timedelta(days=1)).isoformat()
        if self.path is not None:
            # a name typed composed matches it stored decomposed (copied from a Mac), and the reverse
            matches: list[str] = []
            for n, pattern in enumerate(name_forms(path_pattern(self.path))):
                name = "path_glob" + (str(n) if n else "")
                like = glob_like(pattern) if postgres else None
                if like is not None:  # LIKE is many times faster than a regular expression
                    matches.append(f"i.path LIKE :{name}")
                else:
                    matches.append(f"i.path ~ :{name}" if postgres else f"i.path GLOB :{name}")
                params[name] = like or (glob_regex(pattern) if postgres else pattern)
            conditions.append(matches[0] if len(matches) == 1 else f"({' OR '.join(matches)})")
        return conditions, params


def path_pattern(glob: str) -> str:
    """A ``--path`` glob as matched against stored paths, which are absolute.

    ``~`` is expanded; a pattern that starts with neither ``/`` nor ``*`` may
    match anywhere in the path, so ``Mail/*`` means ``*/Mail/*``.  ``*``
    matches any characters, ``/`` included (SQLite's GLOB, case-sensitive).
    """
    pattern = os.path.expanduser(glob)
    if any("\udc80" <= char <= "\udcff" for char in pattern):
        pattern = stored_path(pattern)  # typed with a name's own bytes: stored names are escaped
    if not pattern.startswith(("/", "*")):
        pattern = "*/" + pattern
    return pattern


def glob_like(glob: str) -> str | None:
    """A GLOB pattern without character classes as the LIKE pattern that
    matches the same strings (``*`` is ``%``, ``?`` is ``_``; LIKE's own
    wildcards and escape are escaped); None for a pattern with a class."""
    if "[" in glob:
        return None
    escaped = glob.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped.replace("*", "%").replace("?", "_")


def glob_regex(glob: str) -> str:
    """A GLOB pattern (SQLite's: ``*``, ``?``, ``[a-z]``, ``[^a-z]``,
    case-sensitive) as the anchored regular expression with which
    PostgreSQL's ``~`` matches the same strings."""
    out, at = ["^"], 0
    while at < len(glob):
        char = glob[at]
        end = _class_end(glob, at) if char == "[" else -1
        if char == "[" and end < 0:
            # SQLite reads a class that never closes as matching no character,
            # so the whole pattern matches nothing (`'[' GLOB '['` is false)
            return NO_MATCH
        if char == "*":
            out.append(".*")
        elif char == "?":
            out.append(".")
        elif end > 0:
            # a backslash and a [ are members as they are: escaped, since a
            # regular expression's class reads \ as an escape and [. [= [: as
            # the start of a collating element, an equivalence class or a
            # named class ('[[.a]' was "brackets [] not balanced")
            out.append("[" + glob[at + 1 : end].replace("\\", "\\\\").replace("[", "\\[") + "]")
            at = end
        else:
            out.append(re.escape(char))
        at += 1
    return "".join(out) + "$"


# A regular expression no string matches (an empty negative lookahead).
NO_MATCH = "(?!)"


def _class_end(glob: str, start: int) -> int:
    """Where the character class opened at ``start`` closes (a ``]`` right
    after ``[`` or ``[^`` is a member), or -1: it never closes."""
    at = start + 1
    if glob[at : at + 1] == "^":
        at += 1
    if glob[at : at + 1] == "]":
        at += 1
    return glob.find("]", at)


# websearch_to_tsquery reads any text (what it cannot read it leaves out: it
# never fails), with the configuration the store's documents are made with.
TSQUERY = f"websearch_to_tsquery('{TS_CONFIG}', :query)"
# A prefix term (``surv*``) is not websearch syntax: the word is sent with
# this mark on its end instead, and the mark is made the prefix match
# (``'surv':*``) in the tsquery's text, which the cast reads back.
PREFIX_MARK = "qqprefixqq"
PG_PREFIX_TSQUERY = f"CAST(replace(CAST({TSQUERY} AS text), '{PREFIX_MARK}''', ''':*') AS tsquery)"
# a word ending in * outside double quotes (inside them a * is a character),
# or a phrase its last word a prefix ("東 京 tow"*, as FTS5 reads it)
_PREFIX_TERM = re.compile(r'"([^"]*\w)"\*|"[^"]*"?|(\w+)\*')


# The rank on PostgreSQL, lower is better: ts_rank's term frequency (a
# title's words weigh more) divided by log2(1 + the text's distinct words),
# as bm25 too favours the shorter text.  ts_rank's own normalization 1
# divides by the log of every word's positions counted, a walk over the
# whole tsvector per match: 260 against 166 ms over the common word's
# 294,000 matches at a million items, where length() is the count the
# tsvector keeps.  Not ts_rank_cd: cover density took 50 of that word's 74 ms
# at 100,000 items.  An empty tsvector (``-word`` alone matches one) is
# divided by 1, as ts_rank does.
PG_RANK = ("-ts_rank(f.document, {tsquery}) * 0.6931471805599453 "
           "/ ln(greatest(length(f.document), 1) + 1)")


# a bare run: a word left out (one hyphen before it: -bank, not --upgrade), the run, a prefix's *
_BARE = re.compile(r"(-(?!-))?(.*?)(\*?)", re.DOTALL)


def _as_spaces(query: str) -> str:
    """The query with ASCII punctuation read as spaces, as the store's
    documents read it (revision 0028) and FTS5 reads a query: a quoted
    phrase's marks are spaces (``"setup.py file"`` is ``"setup py file"``),
    a bare word of several parts is their phrase (``debian.org``,
    ``e-mail``, ``-x.y``, ``x.y*``: ``"debian org"``, ``"e mail"``,
    ``-"x y"``, ``"x y"*``), and one hyphen before a word or a quote leaves
    it out (``-bank``, ``-"river bank"``; not ``--upgrade`` or ``- when``,
    whose hyphens are punctuation, as on SQLite).  A run of punctuation
    alone is nothing (websearch read ``..`` as a word, and ``_*`` made a
    prefix of no word)."""

    def read(found: re.Match[str]) -> str:
        piece, text = found.group(0), found.string
        if piece.startswith('"'):
            closed = len(piece) > 1 and piece.endswith('"')
            return '"' + MARKS.sub(" ", piece[1 : -1 if closed else None]) + ('"' if closed else "")
        bare = _BARE.fullmatch(piece)
        assert bare is not None
        # a prefix's * after a letter or digit, as SQLite reads it (i.* is the word i)
        left_out, prefix = bare.group(1) or "", bare.group(3) if bare.group(2)[-1:].isalnum() else ""
        parts = MARKS.sub(" ", bare.group(2)).split()
        if not parts:  # but a - before a quote, a * after one: -"river bank", "debian or"*
            if piece == "-" and text[found.end():found.end() + 1] == '"':
                return piece
            # else nothing, which websearch reads _ as (an OR beside it then joins nothing: "_ OR werkzeug")
            return piece if piece == "*" and text[found.start() - 1:found.start()] == '"' else " _ "
        if len(parts) == 1:
            return f"{left_out}{parts[0]}{prefix}"
        return f' {left_out}"{" ".join(parts)}"{prefix} '

    return WEB_CHUNK.sub(read, strings_joined(query))


def _prefix_marked(query: str) -> str:
    def mark(found: re.Match[str]) -> str:
        if found.group(1):
            return f'"{found.group(1)}{PREFIX_MARK}"'
        return found.group(2) + PREFIX_MARK if found.group(2) else found.group(0)

    return _PREFIX_TERM.sub(mark, query)


def _websearch_operators(query: str) -> str:
    """FTS5's ``AND`` and ``NOT`` in websearch's terms: ``river AND bank``
    is ``river bank``, ``river NOT bank`` is ``river -bank`` (websearch
    reads both as words: on a store moved to a server, `river NOT bank`
    found the texts holding bank, where SQLite left them out).  A quoted
    phrase is left as it is; ``OR`` websearch reads itself."""
    pieces = list(WEB_CHUNK.finditer(query))
    if not any(p.group(0) in ("AND", "NOT") for p in pieces[1:]):
        return query
    said: list[str] = []
    end, leave_out = 0, False
    for number, piece in enumerate(pieces):
        word = piece.group(0)
        if word in ("AND", "NOT") and number > 0:  # an operator needs a word on its left, as in FTS5
            leave_out = leave_out or word == "NOT"
            said.append(query[end:piece.start()])
            end = piece.end()
            continue
        said.append(query[end:piece.start()] + ("-" if leave_out and word[0] != "-" else "") + word)
        end, leave_out = piece.end(), False
    return "".join(said) + query[end:]


def leaves_out_alone(query: str) -> bool:
    """Whether a PostgreSQL query only leaves words out (``-river``,
    ``-"river bank" -x``, ``___ -63``: punctuation alone is nothing), with
    no word to find, in the whole query or in a branch of its ``or``
    (``survey or -river``): websearch reads it as every item without them,
    a scan of the whole store (2.7 s at a million items; 1,902 of a real
    archive's 1,909 items for ``werkzeug or -routing``), where SQLite
    refuses it (``syntax.as_fts5``); refused alike.  So is FTS5's ``NOT``
    opening a branch (``NOT bank``), which SQLite reads as leaving the word
    out and websearch as the word "not"."""
    pieces = WEB_CHUNK.findall(_websearch_text(query))
    left_out = found = negated = False  # in the branch read so far
    for at, piece in enumerate(pieces):
        if piece.lower() == "or":  # a branch ends
            if left_out and not found:
                return True
            left_out = found = negated = False
        elif negated or piece.startswith("-") or (piece.startswith('"') and at and pieces[at - 1] == "-"):
            left_out, negated = True, False  # -word, a - and the phrase it leaves out, or NOT's word
        elif piece == "NOT" and not (left_out or found):  # opening its branch
            negated = True
        elif piece != "_":
            found = True  # a word or a phrase to find
    return left_out and not found


def _websearch_text(query: str) -> str:
    """``query`` as websearch is to read it: FTS5's AND and NOT in its terms,
    ASCII punctuation as spaces (``_as_spaces``), a Chinese, Japanese or
    Korean word the phrase of its characters (``cjk_apart``)."""
    return _as_spaces(_websearch_operators(cjk_apart(query)))


def pg_query(query: str) -> tuple[str, str]:
    """The tsquery expression for ``query`` on PostgreSQL, and the text to
    bind as ``:query`` (``_websearch_text``), ``word*`` a prefix."""
    query = _websearch_text(query)
    marked = _prefix_marked(query)
    return (TSQUERY if marked == query else PG_PREFIX_TSQUERY), marked


def results_sql(
    query: str | None, filters: Filters, *, cluster: int | None = None, ranked: bool = True,
    postgres: bool = False, pieced: Pieced | None = None,
) -> tuple[str, dict[str, object]]:
    """A SELECT of ``id, rank`` (``id`` alone when not ``ranked``) for the
    items that match ``query`` and ``filters`` (and belong to ``cluster``).

    With a query, rank is FTS5's bm25 (lower is better); on PostgreSQL minus
    ts_rank, where a title's words weigh more than the text's.  Without
    one -- a search by date, kind or path alone, or the listing of a cluster
    -- the newest item comes first.  ``pieced``: how the PostgreSQL items
    kept in pieces match a query's phrase (``search.phrases``), where their
    documents do not say."""
    conditions, params = filters.where(postgres=postgres)
    if cluster is not None:
        conditions.append("i.id IN (SELECT item_id FROM clusters WHERE cluster_id = :cluster)")
        params["cluster"] = cluster
    where = "".join(f" AND {c}" for c in conditions)
    # the join only when a condition reads the item: the full-text index alone is faster
    if query is not None and postgres:
        tsquery, params["query"] = pg_query(query)
        rank = f", {PG_RANK.format(tsquery=tsquery)} AS rank" if ranked else ""
        join = " JOIN items i ON i.id = f.rowid" if conditions else ""
        found = f"SELECT f.rowid AS id{rank} FROM items_fts f{join} WHERE f.document @@ {tsquery}{where}"
        if pieced is None:
            return found, params
        params.update(pieced.params)
        rank = f", {PG_RANK.format(tsquery=pieced.rank_tsquery)} AS rank" if ranked else ""
        if pieced.positive:  # the matches by document, and those by pieces besides
            return (f"WITH found AS MATERIALIZED ({found}) SELECT * FROM found UNION ALL "
                    f"{pieced.by_pieces(rank, join, where, besides='found')}", params)
        return f"{found}{pieced.by_documents('f.rowid')} UNION ALL {pieced.by_pieces(rank, join, where)}", params
    if query is not None:
        params["query"] = query
        rank = ", bm25(items_fts) AS rank" if ranked else ""
        join = " JOIN items i ON i.id = items_fts.rowid" if conditions else ""
        return f"SELECT items_fts.rowid AS id{rank} FROM items_fts{join} WHERE items_fts MATCH :query{where}", params
    if postgres:  # the Julian day, as SQLite's julianday() counts
        day = f"date_part('epoch', CAST({PG_ITEM_DATE} AS timestamp)) / 86400.0 + 2440587.5"
    else:
        day = f"julianday({ITEM_DATE})"
    # a float either way (no date: 0.0), as bm25 and ts_rank are: a batch's rows are kept as the driver gives them
    rank = f", coalesce(-({day}), 0.0) AS rank" if ranked else ""
    return f"SELECT i.id AS id{rank} FROM items i WHERE {' AND '.join(conditions) or '1 = 1'}", params
