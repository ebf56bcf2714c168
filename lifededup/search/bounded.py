"""PostgreSQL's best matches without ranking every match (revision 0025).

A search ranks by ``ts_rank`` divided by ``log2(1 + L)``, ``L`` the text's
distinct words (``query.PG_RANK``).  ``ts_rank`` is bounded by 1 for every
query but a prefix's (which sums every word it starts):

* whose top operator is AND or a phrase of two words or more,
  ``calc_rank_and`` folds each pair of positions into ``1 - (1 - res)(1 -
  w)``, every ``w`` at most 1;
* for any other (a word, words ORed), ``calc_rank_or`` takes the mean over
  the query's words of ``(w_m + sum_j w_j / (j + 1)^2 - w_m / (m + 1)^2) /
  (pi^2 / 6)``, over each word's positions ``j`` in order, ``m`` the first
  of the heaviest weight ``w_m``.  A document is its title and people
  (weight A, 1.0) then its text (B, 0.4: revision 0016), so a word's first
  position is its heaviest, ``m = 0``, and each word's term is at most
  ``w_m``: 1, or 0.4 for an item whose title and people hold none of the
  query's words.  (Positions past 16,383 share the last: a title and people
  that long could put a text's position first, and rank such an item up
  to 1.6.)

So an item of ``L`` words ranks at most ``bound / log2(1 + L)``, and the
best ``k`` are found by reading the matches by length:

1. the matches whose title or people match (``ix_items_fts_heading``), the
   shortest first (``ix_items_fts_length``), until ``k`` are read: for a
   common word they hold the best (a title's word weighs most, and a title
   is short); their ``k``-th rank is the score to beat;
2. the rest of those short enough to beat it, for a query of words ORed;
3. every match short enough to beat it (0.4 or 1 over ``log2(1 + L)``),
   read through the length index alone, as the common words' lists in the
   GIN index are long (``the`` in 978,575 items of a million).

Those ``k`` best are the best of all: any other match ranks below the
score.  Where the titles hold fewer than ``k`` matches (a rarer word: few
matches, cheap to rank whole), the caller ranks every match as before.  At
100,000 items of real text a common word's 28,528 matches took 90 ms to
rank whole; no text was short enough to beat its best titles.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from lifededup.search.phrases import TOKEN, Pieced
from lifededup.search.query import PG_RANK
from lifededup.store.dialect import Driver

# ts_rank's bounds (above), a little over, for the float4 ts_rank computes in
_ANY = 1.0 * (1 + 1e-5)
_TEXT = 0.4 * (1 + 1e-5)  # words ORed, none in the title or people: every position of weight B



@dataclass(frozen=True)
class Bound:
    """What ``ts_rank`` of a query can reach: ``value`` for any match,
    ``text`` for one whose title and people do not match (the same but
    for words ORed); ``phrase``: whether the query holds a phrase (whose
    titles the planner estimates by its words ANDed, ``plan``)."""

    value: float
    text: float
    phrase: bool = False


def rank_bound(tsquery: str) -> Bound | None:
    """The bound on ``ts_rank`` of the tsquery whose text is ``tsquery``
    (``CAST(... AS text)``); None where there is none to use: a prefix term,
    or a top ``!`` (every match ranks 0)."""
    depth, top, operators, lexemes = 0, set(), set(), set()
    at = 0
    while at < len(tsquery):
        found = TOKEN.match(tsquery, at)
        if found is None:
            return None  # not a tsquery's text as this reads it: rank every match
        token = found.group(0)
        at = found.end()
        if token.startswith("'"):
            if found.group(1) and "*" in found.group(1):
                return None
            lexemes.add(token)
        elif token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
        elif not token.isspace():
            kind = "<>" if token.startswith("<") else token
            operators.add(kind)
            if depth == 0:
                top.add(kind)
    if not lexemes or "!" in top and not top - {"!"}:
        return None  # !word: every match ranks 0
    plain = operators <= {"|"}  # a word, or words ORed: matching the title and people is holding one of them there
    return Bound(_ANY, _TEXT if plain else _ANY, "<>" in operators)


# The longest text a bound lets through: past 2^40 words, every text
_WIDEST = 40.0


def longest_beating(bound: float, score: float) -> int | None:
    """The most distinct words a text may have and still rank ``score``
    (``ts_rank / log2(1 + L)``) with a ``ts_rank`` of ``bound``; None
    where that spares no text."""
    if score <= 0 or bound / score > _WIDEST:
        return None
    return math.floor(2 ** (bound / score) - 1)


def _window_sql(tsquery: str, heading: bool, pieced: Pieced | None = None) -> str:
    """The best ``:limit`` matches of more than ``:shortest`` and at most
    ``:longest`` distinct words, with their clusters; ``heading``: of those
    whose title or people match.  The document's match is a condition on
    the rows the length and heading indexes give (``IS TRUE`` keeps the
    planner from ANDing in the document's GIN lists, long for common
    words: a phrase with ``the`` at a million items, 176 ms of 180).
    ``pieced``: the items that match by their pieces alone are left out
    (``pieced_sql`` reads them)."""
    rank = PG_RANK.format(tsquery=tsquery)
    heading_matches = f"ts_filter(f.document, '{{a}}') @@ {tsquery} AND " if heading else ""
    by_documents = "" if pieced is None else pieced.by_documents("f.rowid")
    return (f"SELECT b.id, b.rank, (SELECT c.cluster_id FROM clusters c WHERE c.item_id = b.id) "
            f"FROM (SELECT f.rowid AS id, {rank} AS rank FROM items_fts f WHERE {heading_matches}"
            f"length(f.document) > :shortest AND length(f.document) <= :longest AND (f.document @@ {tsquery}) IS TRUE"
            f"{by_documents} ORDER BY rank, id LIMIT :limit) AS b ORDER BY b.rank, b.id")


def pieced_sql(pieced: Pieced) -> str:
    """The best ``:limit`` of the items kept in pieces that match a phrase
    (``search.phrases``), ranked as a page ranks them, with their clusters:
    they are few (the texts too long for a tsvector), and read whole."""
    ranked = pieced.by_pieces(f", {PG_RANK.format(tsquery=pieced.rank_tsquery)} AS rank")
    return (f"SELECT b.id, b.rank, (SELECT c.cluster_id FROM clusters c WHERE c.item_id = b.id) "
            f"FROM ({ranked} ORDER BY rank, id LIMIT :limit) AS b ORDER BY b.rank, b.id")


# The heading matches are read by windows of length: up to FIRST_WINDOW
# distinct words, then WIDER times as many each time, until ``k`` are read.
FIRST_WINDOW = 8
WIDER = 4


Row = tuple[int, float, "int | None"]

# When the reads are worth it, by the planner's estimates of the
# matches (its statistics of each word's share of the items):
# - fewer than MIN_MATCHES: ranking every match costs little (a rarer
#   word's few hundred, a few ms), and the count is exact;
# - fewer heading matches than the rows wanted: the windows would read
#   them all, and still rank every match;
# - the matches too sparse for the count: the first ``counted`` + 1 are
#   found by reading the table until that many match, ``counted`` times
#   the items over the matches, which is worth it where that costs less
#   than ranking the matches whole: ``matches^2 > SPARSE * counted *
#   items``.  A word's item is read for the count in 0.6 us, a match
#   ranked in 5 (``install`` in 8% of 100,000 items: 8 ms to count 1,001,
#   42 to rank its 8,059), so SPARSE_WORDS is 1/4.  A phrase's is read
#   in 1.9 (its positions compared), and the planner's estimate is of the
#   items holding all its words, more than hold the phrase (``"using
#   the"``: 19,478 for 5,323): 36 ms to count, 42 to rank, so SPARSE is
#   4 (``"of the"``, in 32%: 9 ms against 148).  At a million items the
#   same share is worth it: the count's cost stays, the ranking's grows.
MIN_MATCHES = 3_000
SPARSE_WORDS = 0.25
SPARSE = 4.0


def _planned_rows(plan: Any) -> float:
    """The rows the planner expects of an ``EXPLAIN (FORMAT JSON)``'s result."""
    if isinstance(plan, str):
        plan = json.loads(plan)
    return float(plan[0]["Plan"]["Plan Rows"])


@dataclass(frozen=True)
class Plan:
    """A PostgreSQL search by words as the reads see it: its tsquery, the
    bound on its rank, the most distinct words a text has, and whether the
    reads are worth it (``worth``)."""

    tsquery: str
    bound: Bound
    longest_text: int
    chosen: bool
    pieced: Pieced | None = None


def plan(conn: Driver, tsquery: str, params: dict[str, Any], k: int, counted: int, run_all: Any,
         pieced: Pieced | None = None) -> Plan | None:
    """What the reads need to know of ``tsquery``, and whether its best
    ``k`` matches are found sooner by them than by ranking every match, and
    the first ``counted`` + 1 counted (above); None where its rank has no
    bound.  ``run_all(conn, [(sql, params), ...])`` runs the statements at
    once, a list of rows each.  ``pieced``: how the items kept in pieces
    match the query's phrase; the reads leave them to ``pieced_sql``."""
    said, everything, heading, table = run_all(conn, [
        (f"SELECT CAST({tsquery} AS text)", params),
        (f"EXPLAIN (FORMAT JSON) SELECT 1 FROM items_fts f WHERE f.document @@ {tsquery}", params),
        (f"EXPLAIN (FORMAT JSON) SELECT 1 FROM items_fts f WHERE ts_filter(f.document, '{{a}}') @@ {tsquery}",
         params),
        ("SELECT reltuples, (SELECT max(length(document)) FROM items_fts) FROM pg_class "
         "WHERE oid = CAST('items_fts' AS regclass)", {}),
    ])
    bound = rank_bound(str(said[0][0]))
    if bound is None or not table or table[0][1] is None:
        return None
    matches, headed = _planned_rows(everything[0][0]), _planned_rows(heading[0][0])
    items = max(float(table[0][0]), matches)  # -1: never analyzed
    chosen = worth(bound, matches, headed, items, k, counted)
    if chosen and bound.phrase:  # the planner's estimate of its titles is of its words ANDed
        chosen = worth(bound, matches, _sampled_heading(conn, tsquery, params, items, run_all), items, k, counted)
    return Plan(tsquery, bound, int(table[0][1]), chosen, pieced)


# The items whose titles a phrase's heading estimate is sampled from, and
# the fewest of them that must hold it for the estimate to count.
SAMPLED_ITEMS = 5_000
MIN_SAMPLED = 5


def _sampled_heading(conn: Driver, tsquery: str, params: dict[str, Any], items: float, run_all: Any) -> float:
    """How many items' titles and people hold the phrase of ``tsquery``, from
    a sample of about SAMPLED_ITEMS of them (every item of a smaller store).
    The planner's estimate is of its words ANDed: at the real-text million
    288,954 titles for ``"the note"``, which 41 hold; read by windows of
    length the page took 978 ms against the 314 of ranking every match.
    The sample (a fixed one: the same query is planned the same way) holds
    0-1 of those, 12-21 of ``"using the"``'s 3,185, 8 ms.  Fewer than
    MIN_SAMPLED found in a part of the store say nothing: none."""
    share = min(100.0, 100.0 * SAMPLED_ITEMS / max(items, 1.0))
    [[found, read]] = run_all(conn, [(
        f"SELECT count(*) FILTER (WHERE ts_filter(f.document, '{{a}}') @@ {tsquery}), count(*) "
        f"FROM items_fts f TABLESAMPLE SYSTEM ({share:.6f}) REPEATABLE (0)", params)])[0]
    if share >= 100.0:
        return float(found)
    return 0.0 if found < MIN_SAMPLED else float(found) * items / max(float(read), 1.0)


def worth(bound: Bound, matches: float, headed: float, items: float, k: int, counted: int) -> bool:
    """Whether the reads are worth it for a query of ``bound``, by the
    planner's estimates of its ``matches`` and of those whose title or
    people match (``headed``), of ``items`` in all (above)."""
    sparse = SPARSE_WORDS if bound.text < bound.value else SPARSE
    return matches >= MIN_MATCHES and headed >= k and matches * matches > sparse * counted * items


def best(conn: Driver, planned: Plan, params: dict[str, Any], k: int, run: Any) -> list[Row] | None:
    """The best ``k`` matches of ``planned``'s tsquery (id, rank, cluster),
    best first, ties by id, as ranking every match gives them; None where
    the titles and people match fewer than ``k``.  ``run(conn, sql,
    params)`` runs a statement (the page's settings)."""
    tsquery, bound, pieced = planned.tsquery, planned.bound, planned.pieced
    found: dict[int, Row] = {}
    if pieced is not None:  # ranked whole; every other match is read as below
        found = {int(r[0]): (r[0], r[1], r[2]) for r in run(conn, pieced_sql(pieced), {**params, "limit": k})}

    def read(heading: bool, shortest: int, longest: int) -> list[Row]:
        for row in run(conn, _window_sql(tsquery, heading, pieced),
                       {**params, "limit": k, "shortest": shortest, "longest": longest}):
            found[int(row[0])] = (row[0], row[1], row[2])
        return sorted(found.values(), key=lambda r: (r[1], r[0]))[:k]

    shortest, longest = 0, FIRST_WINDOW
    while len(kept := read(True, shortest, longest)) < k:
        if longest >= planned.longest_text:
            return None  # fewer than k titles or people match
        shortest, longest = longest, longest * WIDER

    # every heading match that can beat the k-th so far, then every match that can
    reach = longest_beating(bound.value, -float(kept[-1][1]))
    if reach is None:
        return None
    if bound.text < bound.value and reach > longest:
        kept = read(True, longest, reach)
    reach = longest_beating(bound.text, -float(kept[-1][1]))
    if reach is None:
        return None
    return read(False, 0, reach)
