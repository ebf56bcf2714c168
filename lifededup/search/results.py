"""Running a search: the result set, collapsed through the clusters table (or
not), one page of it, and for each row its snippet and the copies it hides."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Generator, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from lifededup.model import without_roles
from lifededup.search.query import PREFIX_MARK, Filters, leaves_out_alone, pg_query, results_sql
from lifededup.search.snippet import (
    COMMON_ROWS, OPEN, SNIPPET_SQL, Snippet, deep_headline_sql, fts5_snippets, headline_sql, rare_headline_sql,
)
from lifededup.search.syntax import (
    LEFT_OUT_ALONE, QuerySyntaxError, as_fts5, has_phrase, has_prefix, is_query_error, quoted_words, syntax_error,
    words_ored,
)
from lifededup.store.dates import file_dated, item_date
from lifededup.store.dialect import Driver as Connection
from lifededup.store.dialect import PgDriver, pyformat
from lifededup.store.reader import Readable

if TYPE_CHECKING:
    from lifededup.search.bounded import Plan
    from lifededup.search.phrases import Pieced

Mode = Literal["collapsed", "all", "cluster", "dedup"]

# Words a query may hold (a pasted sentence is 20 or 30).  The snippets'
# cost grows with the square of the words (FTS5's snippet() weighs every
# match of every word): "the" 25 times ORed took 45 s on a 1,000-item store
# holding a 3 MB changelog, 50 times 191 s, and a web request of 2,000 terms
# held a core past any wait; on 100,000 items of real text 32 times took
# 1.8 s and 64 times 5.9 s.
MAX_QUERY_WORDS = 32
_OPERATORS = frozenset({"AND", "OR", "NOT", "NEAR"})

# Copies listed under a collapsed row; the count is always exact.
COPIES_LISTED = 50
# A collapsed search counts the clusters of up to this many matching items;
# of more, it counts those of the first EXACT_ROWS + 1 (a lower bound, shown
# as "at least"; ``SearchResult.rows_exact``), as Elasticsearch counts hits
# exactly up to 10,000 by default: the cluster of every match is a join and
# a DISTINCT over all of them, at a million items 130 ms for a common word,
# as much as ranking them, for one number of the footer.  (An estimate from
# the first ones was tried and dropped: an archive's copies sit next to each
# other, indexed folder by folder, so the first matches hold more copies
# than the rest -- a third of the true count on sample_corpus.)
EXACT_ROWS = 10_000
# --dedup de-duplicates this many best-ranked results per result shown: the
# detector reads their texts, so the window is bounded (seeds/004 likewise
# de-duplicates the top of a ranked list, not the whole result set).
DEDUP_WINDOW_PER_ROW = 10
# On PostgreSQL a page found without ranking every match (search.bounded)
# counts the first PG_COUNTED + 1 of them, and their clusters, not all: each
# is its row read from the table, as ranking it was (a common word's 28,528
# matches at 100,000 items of real text, 90 ms to count; the first 1,001
# with their clusters, 8-15 ms).  Past it the footer says "more than 1,000
# matching items", as web search engines do.
PG_COUNTED = 1_000


# Copy and Hit are plain dataclasses, not frozen ones: a frozen one sets
# each field through object.__setattr__, and a hit (17 fields) took 8.2 us
# to make that way against 1.3 (timeit, the machine loaded): a page's 20,
# 165 against 27 us, where a rare word's whole page at a million items is
# 0.9 ms.  A page makes each once (``_hit``, then ``replace`` with its
# copies); nothing changes one after.
@dataclass
class Copy:
    """A result hidden under a row: where it lives."""

    id: int
    path: str
    part: str
    # similarity to the cluster's representative (the pivot), as stored
    resemblance: float | None = None
    word_distance: float | None = None
    machine: str = ""  # the machine whose file it is (revision 0009)
    # its date (``ITEM_DATE``): copies are listed newest first, so the latest
    # draft is named even where an older one ranks best and is the row shown
    date: str | None = None
    # the date is the file's mtime (its format records none): when it was
    # last copied, perhaps, not written
    file_date: bool = False


@dataclass
class Hit:
    """One row of a search: an item, and (collapsed) the results of its
    cluster it stands for."""

    id: int
    path: str
    part: str
    kind: str
    title: str | None
    date: str | None
    rank: float
    cluster_id: int | None
    cluster_size: int
    hidden: int
    copies: tuple[Copy, ...] = ()
    snippet: Snippet = field(default_factory=lambda: Snippet(""))
    # this item's similarity to its cluster's representative (1 and 0 for the
    # representative itself and exact copies; None without a cluster)
    resemblance: float | None = None
    word_distance: float | None = None
    machine: str = ""  # the machine whose file it is (revision 0009)
    people: str | None = None  # a mail's sender and recipients (revision 0016)
    file_date: bool = False  # the date is the file's mtime, as Copy.file_date

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["copies"] = [asdict(c) for c in self.copies]
        data["snippet"] = self.snippet.text
        data["highlights"] = [list(s) for s in self.snippet.spans]
        return data


@dataclass(frozen=True)
class SearchResult:
    """A page of ``hits``; ``rows`` is how many rows the whole result has
    (clusters when collapsed) and ``matches`` how many items matched.
    ``rows_exact`` is False where ``rows`` is a lower bound: of more than
    ``EXACT_ROWS`` matching items, the clusters of the first ``EXACT_ROWS``
    + 1 are counted, or the rows up to the page's if more; exact again
    where the page read every match anyway.  ``matches`` is exact but on
    PostgreSQL past ``PG_COUNTED`` matches (``matches_exact``)."""

    query: str | None
    mode: Mode
    hits: list[Hit]
    rows: int
    matches: int
    rows_exact: bool = True
    # False where ``matches`` is a lower bound: on PostgreSQL, a page found
    # without ranking every match (``search.bounded``) counts the first
    # PG_COUNTED + 1 of them, and ``matches`` is that many
    matches_exact: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {"query": self.query, "mode": self.mode, "rows": self.rows, "rows_exact": self.rows_exact,
                "matches": self.matches, "matches_exact": self.matches_exact,
                "hits": [h.to_dict() for h in self.hits]}


def items_said(count: int, what: str = "matching", *, exact: bool = True) -> str:
    """``count`` items in words, as the CLI's footer and the web view say
    them ("19,827 matching items"); not ``exact``, a lower bound of that
    many (PostgreSQL counts the first PG_COUNTED + 1 matches of a page it
    found without ranking them all): "more than 1,000 matching items"."""
    if not exact:
        return f"more than {count - 1:,} {what} items"
    return f"{count:,} {what} item{'' if count == 1 else 's'}"


def search(
    store: Readable,
    query: str | None,
    filters: Filters = Filters(),
    *,
    limit: int = 20,
    collapse: bool = True,
    cluster: int | None = None,
    dedup: str | None = None,
    offset: int = 0,
) -> SearchResult:
    """Search the store, best match first.

    Collapsed (the default), each cluster shows once -- its best-ranked
    matching member -- with the other matching members as its ``copies``
    (seeds/000 section 2.2 step 9).  ``collapse=False`` shows every item;
    ``cluster`` shows the matching members of one cluster; ``dedup`` (a
    detector spec such as ``"simhash:3"``) ignores the stored clusters and
    de-duplicates the best-ranked results themselves (seeds/004).  ``offset``
    skips that many rows: the next page (not with ``dedup``).

    On a PostgreSQL store the query is ``websearch_to_tsquery``'s (which
    reads any text) with ``word*`` a prefix, ranked by ``ts_rank``; the
    rows, filters and collapse are the same.

    Raises :class:`QuerySyntaxError` for a query FTS5 cannot parse,
    ``ValueError`` for a bad detector spec or an empty search.
    """
    if query is not None and not query.strip():
        query = None
    if query is None and cluster is None and not filters.active:
        raise ValueError("give a query, a filter (--kind, --since, --until, --path) or --cluster")
    if offset and dedup is not None:
        raise ValueError("--dedup de-duplicates the best-ranked results only: it has no next page")
    postgres = store.location.url is not None
    if query is not None and "\0" in query:  # SQLite would end the query there; PostgreSQL text cannot hold it
        raise syntax_error(query, "a query cannot hold a NUL character", postgres=postgres)
    if query is not None and query.strip() and not re.search(r"\w", query):  # *, ., "": "no matches" said nothing
        raise QuerySyntaxError(f"the query {query!r} has no words to find (letters or digits)", "no words")
    words = 0 if query is None else len([w for w in re.findall(r"\w+", query) if w not in _OPERATORS])
    if words > MAX_QUERY_WORDS:
        raise QuerySyntaxError(f"the query has {words} words; a query takes at most {MAX_QUERY_WORDS}")
    typed = query
    if query is not None:  # a reST source's `:meth:` is not in its text, which the reader stored without it
        query = without_roles(query)
    if query is not None and not postgres:  # -word and "or", as websearch reads them on PostgreSQL
        query = as_fts5(query)
    elif query is not None and leaves_out_alone(query):  # as as_fts5 refuses it
        raise syntax_error(query, LEFT_OUT_ALONE, postgres=True)
    try:
        return replace(_search(store, query, filters, limit, collapse, cluster, dedup, offset, postgres), query=typed)
    except QuerySyntaxError as exc:
        # words with punctuation typed bare (pytest 5.3.5, dpkg-buildpackage,
        # "Apache License 2.0"), which FTS5 cannot read: searched for as the
        # phrases the error would tell the user to quote them as
        lenient = None if query is None else quoted_words(query)
        if lenient is None or lenient == query:
            raise _as_typed(exc, typed, query) from exc.__cause__
        try:
            found = _search(store, lenient, filters, limit, collapse, cluster, dedup, offset, postgres)
        except QuerySyntaxError:
            pass
        else:
            return replace(found, query=typed)
        raise _as_typed(exc, typed, query) from exc.__cause__


def _as_typed(error: QuerySyntaxError, typed: str | None, query: str | None) -> QuerySyntaxError:
    """The error about the query the user typed, not the FTS5 form it was searched as."""
    if typed == query or typed is None or error.reason is None:
        return error
    return syntax_error(typed, error.reason)


def _search(store: Readable, query: str | None, filters: Filters, limit: int, collapse: bool, cluster: int | None,
            dedup: str | None, offset: int, postgres: bool) -> SearchResult:
    with store.reading() as conn:
        try:
            pieced = _pieced(conn, query) if postgres else None
            if dedup is not None:
                return _deduplicated(conn, query, filters, limit, dedup, postgres, pieced)
            collapse = collapse and cluster is None
            mode: Mode = "cluster" if cluster is not None else ("collapsed" if collapse else "all")
            return _page(conn, query, filters, limit, cluster, mode, offset, postgres, pieced)
        except sqlite3.Error as exc:
            reason = str(exc)
            if query is not None and is_query_error(reason):
                raise syntax_error(query, reason) from exc
            if reason.startswith("no such index"):  # search reads INDEXED BY one (_sample_sql)
                from lifededup.store.errors import MissingIndex

                raise MissingIndex(f"{store.location} has lost an index a search reads through ({reason}): "
                                   "`lifededup check` names it and the statement that makes it again") from exc
            raise
        except Exception as exc:  # a PostgreSQL store's text search configuration dropped by hand
            from lifededup.store.check import LOST_CONFIGURATION, lost_configuration

            if postgres and lost_configuration(exc):
                from lifededup.store.errors import MissingIndex

                raise MissingIndex(f"{store.location} {LOST_CONFIGURATION}") from exc
            raise


def _pieced(conn: Connection, query: str | None) -> Pieced | None:
    """How the items kept in pieces match a PostgreSQL query holding a
    phrase (``search.phrases``); None where the documents answer alone."""
    from lifededup.search.phrases import maybe_phrase, pieced

    if query is None or not maybe_phrase(query):
        return None
    tsquery, marked = pg_query(query)
    return pieced(conn, tsquery, {"query": marked})


def _item_columns(postgres: bool) -> str:
    """What a row of a page shows of its item (``_hit`` reads them, in this
    order, after the rank), from ``items i LEFT JOIN clusters c``: the item,
    its date, its cluster, how many items the cluster holds, its
    similarity to the cluster's representative, its machine, its people,
    and whether its date is the file's."""
    return (f"i.id, i.path, i.part, i.kind, i.title, {item_date(postgres)}, c.cluster_id, "
            "(SELECT count(*) FROM clusters c2 WHERE c2.cluster_id = c.cluster_id), "
            f"c.resemblance, c.word_distance, i.machine, i.people, {file_dated(postgres)}")


def _page_sql(results: str, *, counted: bool = False) -> str:
    """One page of items (not collapsed), best first: id and rank each;
    ``counted``: each row also with how many items match (the matches are
    found once, not again for the count, see ``_page`` -- from the matches
    kept as they are ranked, where ``count(*) OVER ()`` kept every row
    whole and took 3x as long).  Their items come after (``_shown``)."""
    if counted:
        ranked, count = f"WITH r AS MATERIALIZED ({results}), page", ", (SELECT count(*) FROM r) AS matches"
        results = "SELECT id, rank FROM r"
    else:
        ranked, count = "WITH page", ""
    return (f"{ranked} AS MATERIALIZED (SELECT id, rank FROM ({results}) AS r ORDER BY rank, id "
            f"LIMIT :limit OFFSET :offset) SELECT id, rank{count} FROM page ORDER BY rank, id")


# Ranked results read at first while looking for a page's clusters (at least
# twice the clusters wanted): most pages fill from the first read; a page
# whose best results are many copies of one document reads on, four times
# as many each time.  Where the first read holds every match (a rare word),
# the page's totals and copies come from it, with no query of their own.
_READ_ROWS = 256

# A ranked row's cluster, looked up by its key (a join let PostgreSQL hash
# the whole clusters table for a few hundred ids).
_CLUSTER_OF = "(SELECT c.cluster_id FROM clusters c WHERE c.item_id = b.id)"


def _sample_sql(matching: str, postgres: bool, cap: int | None = None) -> str:
    """How many of the first EXACT_ROWS + 1 of ``matching``'s ids there are,
    and their clusters.  A representative's cluster is its own id, so each
    id is looked up among the members that are not (``ix_clusters_members``,
    revision 0012: a word in 7,614 items of a million, scattered, 3.4 ms
    against 6.2 through the clusters table's key, which SQLite's planner
    picks unless told); on SQLite by a join (a subquery per id, 6.8 ms), on
    PostgreSQL by a subquery (a join hashed the whole table, see
    ``_CLUSTER_OF``).  ``cap``: of the first ``cap`` + 1 instead."""
    sample = f"(SELECT id FROM ({matching}) AS s LIMIT {(EXACT_ROWS if cap is None else cap) + 1}) AS m"
    if postgres:
        return ("SELECT count(*) AS sampled, count(DISTINCT coalesce((SELECT c.cluster_id FROM clusters c "
                f"WHERE c.item_id = m.id AND {_MEMBER}), m.id)) AS clusters FROM {sample}")
    return (f"SELECT count(*) AS sampled, count(DISTINCT coalesce(c.cluster_id, m.id)) AS clusters FROM {sample} "
            f"LEFT JOIN clusters c INDEXED BY ix_clusters_members ON c.item_id = m.id AND {_MEMBER}")


# What ix_clusters_members holds (its WHERE, which a query repeats to use it).
_MEMBER = "c.cluster_id <> c.item_id"


def _batch_sql(ordered: str) -> str:
    """A batch of ``ordered`` (ranked ids) with each id's cluster, looked up
    for the batch's rows alone: the batch is a subquery of its own (SQLite
    computes a row's columns before it sorts, so a lookup beside the
    ``ORDER BY`` would run for every match), not a materialized CTE, which
    cost SQLite 12 ms more for the common word's 294,000 matches at a
    million items (186 against 179 ms)."""
    return (f"SELECT b.id, b.rank, {_CLUSTER_OF} FROM ({ordered} LIMIT :limit OFFSET :offset) AS b "
            "ORDER BY b.rank, b.id")


def _counted_sql(results: str, postgres: bool) -> str:
    """The first batch of ranked results, each row with its cluster and the
    totals: how many items match, and the clusters of the first
    EXACT_ROWS + 1 of them (the matches are found once -- on PostgreSQL
    index, recheck and rank of every one -- not again for the totals; see
    ``_page``).  The clusters are counted only where the batch is not every
    match (NULL where it is: the page counts them from the batch itself,
    ``_Read``); counted anyway, they were half of the statement's time for
    a rare word on PostgreSQL at a million items (0.7 of 1.4 ms)."""
    sample = _sample_sql("SELECT id FROM r", postgres)
    return (f"WITH r AS MATERIALIZED ({results}), b AS MATERIALIZED (SELECT id, rank FROM r ORDER BY rank, id "
            f"LIMIT :limit) SELECT b.id, b.rank, {_CLUSTER_OF}, n.matches, "
            f"CASE WHEN n.matches >= :limit THEN (SELECT t.clusters FROM ({sample}) AS t) END "
            "FROM b CROSS JOIN (SELECT count(*) AS matches FROM r) AS n ORDER BY b.rank, b.id")


# For the rest of a page's transaction on PostgreSQL (set_config's third
# argument: local to it), three settings for the query that keeps a page's
# matches (_counted_sql, _page_sql):
# - parallel workers find and rank them too.  At the default cost of
#   handing a worker's row to the leader (0.1) the planner keeps the
#   materialized CTE of a common word's 294,000 rows serial; in parallel
#   the word's first batch took 193 against 214 ms at a million items, a
#   phrase's 247 against 435.
# - and at a tenth of the default cost of starting the workers (1000),
#   which kept a 100,000-item store of real text (117 MB of tsvectors)
#   to one process scanning them: a common word's page 119 -> 80 ms, a
#   phrase's 105 -> 75; the synthetic 100,000's common word 55 -> 48.  A
#   million items was parallel already, and a word in a few hundred items
#   is read through the index, not scanned: neither changed.
# - no JIT compiling.  Each search is planned for its own words
#   (plan_cache_mode), so the 7-17 ms the server spends compiling a plan
#   over jit_above_cost is spent on every page and never paid back: the
#   common word 268 -> 250 ms, the phrase 188 -> 165.
# The page's other statements read a few rows by id, far below any parallel
# plan's setup cost or JIT's threshold.
_PAGE_SETTINGS = ("SELECT set_config('parallel_tuple_cost', '0.001', true), "
                  "set_config('parallel_setup_cost', '100', true), set_config('jit', 'off', true)")


def _settled(conn: Connection, sql: str, params: dict[str, object], postgres: bool) -> list[Any]:
    """The rows of ``sql``, on PostgreSQL run under ``_PAGE_SETTINGS``: both
    sent at once (``_pipelined``), one round trip where a statement each
    waited for the server's answer to the settings (on a rare word's page,
    one of four)."""
    if not postgres:
        return list(conn.execute(sql, params).fetchall())
    if isinstance(conn, PgDriver):
        return _pipelined(conn, [(_PAGE_SETTINGS, {}), (sql, params)])[1]
    conn.execute(_PAGE_SETTINGS)
    return list(conn.execute(sql, params).fetchall())


def _pipelined(conn: Connection, statements: list[tuple[str, dict[str, object]]]) -> list[list[Any]]:
    """The rows of each of ``statements`` on PostgreSQL, sent at once: one
    query of the simple protocol, its parameters bound by psycopg on this
    side (a ``ClientCursor``, which quotes them as the server would), one
    round trip.  psycopg's pipeline sent the same statements in one round
    trip too, but as a parse, bind and execute each, their answers read one
    by one: the bound's four statements (``bounded.plan``) took 0.60 ms
    there, 0.30 so, and a rare word's page at a million items 0.6 ms less
    (6.1 -> 5.5 and 4.7 -> 4.0 in two runs; benchmarks/README.md, "Session
    19").  The statements' parameters share one namespace (the page's)."""
    if not isinstance(conn, PgDriver):
        return [list(conn.execute(sql, params).fetchall()) for sql, params in statements]
    import psycopg

    merged: dict[str, object] = {}
    for _, params in statements:
        clash = [name for name in params if name in merged and merged[name] != params[name]]
        if clash:
            raise ValueError(f"statements sent at once give {clash} two values")
        merged.update(params)
    joined = ";\n".join(sql for sql, _ in statements)
    query = pyformat(joined)
    cursor = psycopg.ClientCursor(conn.conn)
    try:
        # a statement without parameters goes as it is (its % are not markers), as PgDriver.execute sends it
        cursor.execute(query, merged if query != joined else None)
        found = [list(cursor.fetchall())]
        while cursor.nextset():
            found.append(list(cursor.fetchall()))
    finally:
        cursor.close()
    return found


@dataclass
class _Read:
    """What a collapsed page read of the ranked results: the rows read (id,
    rank, cluster or None), and whether they are every match."""

    rows: list[tuple[int, float, int | None]] = field(default_factory=list)
    complete: bool = False
    # a read found the best rows without ranking every match (search.bounded): no totals came with it
    bounded: bool = False

    def clusters(self) -> int:
        """How many clusters the items read are in (an item of none stands
        for itself).  A set of the keys, not the members of each: grouping
        a rare word's 187 matches by cluster was a twentieth of its page,
        for the members of the page's few clusters (``members``)."""
        return len({item_id if cluster is None else cluster for item_id, _, cluster in self.rows})

    def members(self, clusters: Sequence[int]) -> list[int]:
        """The items read that are in ``clusters``, in the order read."""
        wanted = set(clusters)
        return [item_id for item_id, _, cluster in self.rows if cluster in wanted]


def _ranked(conn: Connection, results: str, params: dict[str, object], wanted: int, read: _Read,
            totals: list[Any] | None = None, postgres: bool = False,
            best: Plan | None = None) -> Generator[list[tuple[int, float, int | None]], int, None]:
    """The ranked results with their clusters, best first, a batch at a
    time, each batch a query of its own (``LIMIT``: a top-N sort, where
    stepping a cursor through ``ORDER BY`` sorts every match first -- 291
    against 348 ms for the common word at a million items, one run under
    load); each batch is added to ``read``, which is ``complete`` once a
    batch comes short.  The caller sends back how many clusters the rows
    so far hold: the next batch is four times longer than the one before,
    or, where the rows held few clusters (a cluster of thousands ranked
    first), twice what their share of clusters says the ``wanted`` need --
    each batch ranks every match again (a newsletter kept 5,000 times read
    past in 2 batches, not 3).  Given ``totals``, the first one fills it
    with the matches and their clusters (``_counted_sql``).

    ``best``: a PostgreSQL search whose best rows each batch finds without
    ranking every match (``_best``), while that spares enough; its reads
    are shorter (twice the ``wanted``: each is the best of the whole
    ranking so far, whose last sets the bound) and count nothing."""
    ordered = f"SELECT id, rank FROM ({results}) AS r ORDER BY rank, id"
    start, size = 0, (2 * wanted if best is not None else max(_READ_ROWS, 2 * wanted))
    while True:
        top = None if best is None else _best(conn, best, params, start + size)
        got: list[Any]
        if top is not None:
            got = list(top[start:])
            read.bounded = True
        elif best is not None:  # the bound spares too little: every match is ranked from here on
            best = None
            size = max(size, _READ_ROWS) if start == 0 else size
            continue
        elif start == 0 and totals is not None:
            got = _settled(conn, _counted_sql(results, postgres), {**params, "limit": size}, postgres)
            if not got or got[0][4] is not None:  # else every match is in the batch: _page counts from it
                totals[:] = [int(got[0][3]), int(got[0][4]), int(got[0][3]) <= EXACT_ROWS] if got else [0, 0, True]
            got = [r[:3] for r in got]
        else:
            got = conn.execute(_batch_sql(ordered), {**params, "limit": size, "offset": start}).fetchall()
        # (id, rank, cluster) as the driver gives them: ints and a float
        # (results_sql's rank is one on both backends); converting each
        # row was a tenth of a rare word's page
        rows: list[tuple[int, float, int | None]] = got
        read.rows += rows
        read.complete = len(rows) < size
        seen = (yield rows) if rows else 0
        if read.complete:
            return
        start += size
        size = max(size * 4, 2 * wanted * start // max(seen, 1) - start)


def _best(conn: Connection, planned: Plan, params: dict[str, object],
          k: int) -> list[tuple[int, float, int | None]] | None:
    """The best ``k`` matches of a PostgreSQL search, found by
    ``search.bounded`` (None where it spares too little), each read under
    the page's settings."""
    from lifededup.search import bounded

    return bounded.best(conn, planned, params, k, lambda c, sql, p: _settled(c, sql, p, True))


def _collapsed_page(conn: Connection, results: str, params: dict[str, object], limit: int,
                    offset: int = 0, totals: list[Any] | None = None, postgres: bool = False,
                    best: Plan | None = None) -> tuple[list[tuple[int, float, int]], _Read]:
    """The ``limit`` clusters after the first ``offset`` of the ranked
    results, each shown by its best-ranked result (lowest id among equals),
    as the store's ``collapse_sql`` gives them: (item, rank, cluster) each
    (an item of no cluster is its own), and what was read of the ranked
    results.  The results are read best first only
    until ``limit`` clusters have appeared, rather than grouped all by
    cluster first."""
    wanted = offset + limit
    read = _Read()
    ranked = _ranked(conn, results, params, wanted, read, totals, postgres, best)
    shown: dict[int, tuple[int, float]] = {}  # cluster (or the item, without one) -> (item, rank)
    try:
        rows = next(ranked, None)
        while rows is not None:
            for item_id, rank, cluster in rows:
                shown.setdefault(item_id if cluster is None else cluster, (item_id, rank))
                if len(shown) == wanted:
                    break
            if len(shown) >= wanted:
                break
            rows = ranked.send(len(shown))
    except StopIteration:  # every match read
        pass
    finally:
        ranked.close()
    return [(item_id, rank, key) for key, (item_id, rank) in list(shown.items())[offset:]], read


def _totals(conn: Connection, query: str | None, filters: Filters, cluster: int | None,
            mode: Mode, postgres: bool, cap: int | None = None,
            pieced: Pieced | None = None) -> tuple[int, int, bool, bool]:
    """How many items match, how many clusters they are in (collapsed;
    otherwise the matches again), and whether each is exact (see
    EXACT_ROWS).  ``cap``: counted among the first ``cap`` + 1 matches
    alone, past which neither is (PG_COUNTED)."""
    matching, params = results_sql(query, filters, cluster=cluster, ranked=False, postgres=postgres, pieced=pieced)
    if cap is not None:
        if mode == "collapsed":
            sampled, clusters = (int(n) for n in conn.execute(_sample_sql(matching, postgres, cap), params).fetchone())
        else:
            sampled = clusters = int(conn.execute(f"SELECT count(*) FROM (SELECT 1 FROM ({matching}) AS r "
                                                  f"LIMIT {cap + 1}) AS s", params).fetchone()[0])
        return sampled, clusters, sampled <= cap, sampled <= cap
    count = f"SELECT count(*) FROM ({matching}) AS r"
    if mode != "collapsed":  # the clusters are not counted: a join per match saved
        matches = int(conn.execute(count, params).fetchone()[0])
        return matches, matches, True, True
    sampled, clusters = (int(n) for n in conn.execute(_sample_sql(matching, postgres), params).fetchone())
    matches = sampled if sampled <= EXACT_ROWS else int(conn.execute(count, params).fetchone()[0])
    return matches, clusters, matches <= EXACT_ROWS, True


def _page(conn: Connection, query: str | None, filters: Filters, limit: int, cluster: int | None,
          mode: Mode, offset: int = 0, postgres: bool = False, pieced: Pieced | None = None) -> SearchResult:
    """One page and its totals.  The totals come from the ranked results
    the page read where those were every match (a rare word); else from
    the page's first ranked query, which keeps the matches it finds, on
    PostgreSQL and for an FTS5 phrase or NEAR (finding those matches --
    comparing positions in every item holding all the words -- costs more
    than keeping them: the phrase at a million items 197 against 268 ms);
    otherwise from a query of their own after the page (keeping a common
    word's 294,000 matches cost more than finding them again: 276 against
    221 ms).

    On PostgreSQL, a search by words alone finds its best rows without
    ranking every match where it can (``search.bounded``), and then counts
    the first PG_COUNTED + 1 matches alone.  ``pieced``: how the items
    kept in pieces match a PostgreSQL phrase (``search.phrases``)."""
    results, params = results_sql(query, filters, cluster=cluster, postgres=postgres, pieced=pieced)
    once = postgres or (query is not None and has_phrase(query))
    tsquery, best = _bounded(query, filters, cluster, postgres), None
    if tsquery is not None:
        from lifededup.search import bounded as bounding

        wanted = 2 * (offset + limit) if mode == "collapsed" else offset + limit
        planned = bounding.plan(conn, tsquery, params, wanted, PG_COUNTED, _pipelined, pieced)
        best = planned if planned is not None and planned.chosen else None
    totals: list[Any] = []  # matches, rows, rows exact: when the page's first query counts them
    read = None
    bounded = False  # the page was found without ranking every match: the totals are counted up to PG_COUNTED
    page: Sequence[tuple[int, float, int | None]]  # item, rank, and its row's cluster when collapsed
    if mode == "collapsed":
        page, read = _collapsed_page(conn, results, params, limit, offset, totals if once else None, postgres,
                                     best)
        bounded = read.bounded
        if read.complete:  # every match read, with its cluster: exact, past EXACT_ROWS too
            totals = [len(read.rows), read.clusters(), True]
    else:
        top = None if best is None else _best(conn, best, params, offset + limit)
        if top is not None:
            page, bounded = [(int(r[0]), float(r[1]), None) for r in top[offset:]], True
        else:
            rows = _settled(conn, _page_sql(results, counted=once), {**params, "limit": limit, "offset": offset},
                            postgres)
            page = [(int(r[0]), float(r[1]), None) for r in rows]
            if once and rows:
                totals = [int(rows[0][2])] * 2 + [True]  # the count, after the id and rank
    matches, rows_shown, exact, matches_exact = (
        (*totals, True) if totals else
        _totals(conn, query, filters, cluster, mode, postgres, PG_COUNTED if bounded else None, pieced))
    # each hit made once, with its snippet (dataclasses.replace() of a hit
    # costs 5 us: at a million items a third of a rare word's page)
    # given every match, the copies are known before the page's items are:
    # their statement goes with the items', one round trip for both
    known = _known_copies(page, read, postgres) if mode == "collapsed" and read and read.complete else None
    hits, copied = _shown(conn, page, query, postgres, matches, pieced, known)
    if mode == "collapsed" and hits and not exact:
        # the sample is the first matches in the order they are stored, not
        # ranked: a cluster of thousands stored first may fill it, below the
        # rows this page and those before it show (20,000 copies of a
        # newsletter indexed first: "20 of at least 1 results")
        rows_shown = max(rows_shown, offset + len(hits))
    if not hits:
        _check_kinds(conn, filters)
        if cluster is not None:
            _check_cluster(conn, cluster)
    if mode == "collapsed":
        hits = (_copied(hits, copied) if read and read.complete else
                _with_copies(conn, hits, query, filters, postgres, matches, pieced))
    return SearchResult(query, mode, hits, rows_shown, matches, exact, matches_exact)


def _bounded(query: str | None, filters: Filters, cluster: int | None, postgres: bool) -> str | None:
    """The tsquery whose best rows a page finds without ranking every match
    (``search.bounded``): on PostgreSQL, a search by its words alone (a
    filter or a cluster reads the items too), no prefix (unbounded)."""
    if not postgres or query is None or filters.active or cluster is not None:
        return None
    tsquery, marked = pg_query(query)
    return None if PREFIX_MARK in marked else tsquery


def _shown(conn: Connection, page: Sequence[tuple[int, float, int | None]], query: str | None, postgres: bool,
           matches: int, pieced: Pieced | None = None,
           also: tuple[str, dict[str, object]] | None = None) -> tuple[list[Hit], list[Any]]:
    """The hits of a page, (item, rank, its row's cluster or None) each:
    their items and snippets in one statement (``_shown_sql``; a statement
    of each cost a rare word's page at a million items a sixth of its time),
    of a search of ``matches`` items; and the rows of ``also``, a statement
    sent with it (``_pipelined``), or none."""
    if not page:
        return [], []
    sql, params = _shown_sql([item_id for item_id, _, _ in page], query, postgres, matches, pieced)
    if also is None:
        found, beside = conn.execute(sql, params), []
    else:
        found, beside = _pipelined(conn, [(sql, params), also])
    items = {r[0]: r for r in found}
    if query is not None and postgres:
        items = _deep_headlines(conn, query, items)
    if query is not None and not postgres:
        marked = fts5_snippets(conn, query, {i: r[_SNIPPET_AT] for i, r in items.items()})
        items = {i: (*r[:_SNIPPET_AT], marked.get(i, "")) for i, r in items.items()}
    snippet = (Snippet.preview if query is None else
               (lambda r: Snippet.from_headline(r[0], r[1], int(r[2] or 0), int(r[3] or 0), *r[4:6])) if postgres else
               (lambda r: Snippet.from_marked(r[0] or "")))
    return [_hit(row, rank, snippet(row[_SNIPPET_AT] if query is None else row[_SNIPPET_AT:]), cluster)
            for row, rank, cluster in ((items[item_id], rank, cluster) for item_id, rank, cluster in page)], beside


# Where a row of _shown_sql has its snippet's columns, after _item_columns.
_SNIPPET_AT = 13


def _deep_headlines(conn: Connection, query: str, items: dict[int, Any]) -> dict[int, Any]:
    """``items``, rows of ``_shown_sql`` on PostgreSQL, each whose text
    goes on past the characters its headline read (HEADLINE_CHARS), whose
    headline holds no match and whose title's marks nothing, given the
    headline made where the text matches (``deep_headline_sql``) where
    that one holds it: a statement more, for those rows alone -- a page
    whose rows all show a match pays nothing."""
    unheld = [i for i, r in items.items()
              if not r[_SNIPPET_AT + 6] and OPEN not in (r[_SNIPPET_AT + 1] or "")
              and r[_SNIPPET_AT + 7]]
    if not unheld:
        return items
    tsquery, marked = pg_query(query)
    deep = {r[0]: r[1:] for r in conn.execute(deep_headline_sql(tsquery, _ids(unheld)), {"query": marked})}
    left = [i for i in unheld if not (i in deep and deep[i][6])]
    if left:
        deep.update(_rarest_headlines(conn, tsquery, marked, left))
    return {i: (*r[:_SNIPPET_AT], *deep[i]) if i in deep and deep[i][6] else r for i, r in items.items()}


# A word of a tsquery's text ('lighthous'), not one it leaves out (!'bank') nor a prefix ('surv':*)
_LEXEME = re.compile(r"(!?)('(?:[^']|'')+')(:\*)?")


def _rarest_headlines(conn: Connection, tsquery: str, marked: str, ids: list[int]) -> dict[int, Any]:
    """Rows of ``rare_headline_sql`` for the items ``ids``, whose deep
    headline holds no match of the query either: of each, the word of the
    query in the fewest items (up to COMMON_ROWS: two as common as any, the
    fewer in the item's words) headlined from where it stands.  Statements
    for those rows alone: a page whose rows show a match pays nothing."""
    text = [str(r[0]) for r in conn.execute(f"SELECT CAST({tsquery} AS text)", {"query": marked})][0]
    words = list(dict.fromkeys(m.group(2) for m in _LEXEME.finditer(text) if not m.group(1) and not m.group(3)))
    if not words:  # prefixes alone
        return {}
    rows_of = {w: int([r[0] for r in conn.execute(
        f"SELECT count(*) FROM (SELECT 1 FROM items_fts WHERE document @@ CAST(:word AS tsquery) "
        f"LIMIT {COMMON_ROWS}) AS c", {"word": w})][0]) for w in words}
    held: dict[int, dict[str, int]] = {}
    for rowid, word, count in conn.execute(
            "SELECT f.rowid, quote_literal(u.lexeme), coalesce(array_length(u.positions, 1), 1) FROM items_fts f "
            f"CROSS JOIN LATERAL unnest(f.document) AS u WHERE f.rowid IN ({_ids(ids)}) "
            "AND quote_literal(u.lexeme) = ANY(:words)", {"words": words}):
        held.setdefault(int(rowid), {})[str(word)] = int(count)
    rarest: dict[str, list[int]] = {}
    for i, counts in held.items():
        rarest.setdefault(min(counts, key=lambda w: (rows_of[w], counts[w])), []).append(i)
    return {r[0]: r[1:] for word, group in rarest.items() for r in conn.execute(
        rare_headline_sql(tsquery, "CAST(:rare AS tsquery)", _ids(group)), {"query": marked, "rare": word})}


def _shown_sql(ids: Sequence[int], query: str | None, postgres: bool, matches: int,
               pieced: Pieced | None = None) -> tuple[str, dict[str, object]]:
    """The ``_item_columns`` of the items ``ids`` and their snippets' columns:
    the start of the text without a query; PostgreSQL's headlines
    (``headline_sql``); FTS5's ``snippet()``, from a MATCH of ``matches``
    items that picks the rows by one pass over the matches or by seeks
    (``_rowid``; the CROSS JOIN keeps SQLite from driving the join from
    ``items``, a seek into the full-text index each)."""
    listed = _ids(ids)
    items = "items i LEFT JOIN clusters c ON c.item_id = i.id"
    if query is None:
        return (f"SELECT {_item_columns(postgres)}, substr(i.text, 1, 400) FROM {items} WHERE i.id IN ({listed})",
                {})
    if postgres:
        tsquery, marked = pg_query(query)
        start = "1" if pieced is None else pieced.shown_from("i.id")
        return (f"SELECT {_item_columns(postgres)}, h.headline, h.title_headline, h.found_at, h.read, h.shown, "
                f"h.title_shown, h.held, h.goes_on FROM {items} JOIN ({headline_sql(tsquery, listed, start)}) AS h ON h.id = i.id "
                f"WHERE i.id IN ({listed})", {"query": marked, **({} if pieced is None else pieced.params)})
    return (f"SELECT {_item_columns(postgres)}, {SNIPPET_SQL} FROM items_fts CROSS JOIN {items} "
            f"WHERE i.id = items_fts.rowid AND items_fts MATCH :query "
            f"AND {_rowid(query, matches, len(ids))} IN ({listed})", {"query": query})


def _hit(row: Sequence[Any], rank: float, snippet: Snippet, cluster: int | None = None) -> Hit:
    """A hit of the ``_item_columns`` of a row, its rank and snippet; in the
    cluster ``cluster`` of a collapsed page (the item itself, without one),
    else in its own."""
    if cluster is None:
        cluster = None if row[6] is None else int(row[6])
    return Hit(id=int(row[0]), path=str(row[1]), part=str(row[2]), kind=str(row[3]), title=row[4], date=row[5],
               rank=rank, cluster_id=cluster, cluster_size=max(int(row[7]), 1),
               hidden=0, snippet=snippet, resemblance=row[8], word_distance=row[9], machine=str(row[10]),
               people=row[11], file_date=bool(row[12]) and row[5] is not None)


def _ids(ids: Sequence[int]) -> str:
    return ", ".join(str(int(i)) for i in ids)


# A seek into the full-text index costs about as much as a pass over this
# many matches of a word (30 against 0.06 us at a million items, _one_pass).
_PASS_PER_SEEK = 500


def _one_pass(query: str, matches: int, rows: int) -> bool:
    """Whether ``rows`` of a MATCH of ``matches`` items are picked by one
    pass over the matches rather than a seek each.  A seek costs 15-45 us
    at a million items (FTS5 looks the terms up in every segment of the
    index), and FTS5 expands a prefix term (merges the lists of every word
    it starts) on every one -- 20 rows of ``w199*`` cost 17 ms at 100,000
    items, one pass over its matches 1 ms; a pass costs about 0.06 us a
    match of a word, or of words joined by OR: 20 rows of a word in 7,614
    items of a million, 0.44 against 0.94 ms by seeks, of one in 187, 0.08
    against 0.30.  A pass over words that must all match reads every
    word's whole list (``"w1 w2 w3"``: 61 ms for 1,389 matches, by seeks
    1.6 ms), so those are sought."""
    return has_prefix(query) or (words_ored(query) and matches <= rows * _PASS_PER_SEEK)


def _rowid(query: str, matches: int, rows: int) -> str:
    """How to pick ``rows`` rows of a MATCH of ``matches`` items
    (``_one_pass``): ``items_fts.rowid IN (...)`` seeks each row;
    ``+items_fts.rowid IN`` (the plus keeps the rowid from FTS5) reads every
    match once and keeps those."""
    return "+items_fts.rowid" if _one_pass(query, matches, rows) else "items_fts.rowid"


def _known_copies(page: Sequence[tuple[int, float, int | None]], read: _Read,
                  postgres: bool) -> tuple[str, dict[str, object]] | None:
    """The statement of the other results of a collapsed page's clusters,
    given every match (``read``): the matches of the rows' clusters that
    the page does not show; None where there are none."""
    shown = {item_id for item_id, _, _ in page}
    clusters = [cluster for _, _, cluster in page if cluster is not None]
    others = [i for i in read.members(clusters) if i not in shown]
    if not others:
        return None
    return _copies_sql(clusters, shown, [f"i.id IN ({_ids(others)})"], postgres), {}


def _with_copies(conn: Connection, hits: list[Hit], query: str | None, filters: Filters,
                 postgres: bool, matches: int, pieced: Pieced | None = None) -> list[Hit]:
    """The other results of each collapsed row's cluster: how many (``hidden``)
    and where they live, found by a query (the search has ``matches``
    items); ``_known_copies`` where every match was read."""
    # only a cluster of more than one can hide results
    shared = [h.cluster_id for h in hits if h.cluster_id is not None and h.cluster_size > 1]
    if not shared:
        return hits
    conditions, params = filters.where(postgres=postgres)
    if query is not None and postgres:
        tsquery, params["query"] = pg_query(query)
        members = f"SELECT m.item_id FROM clusters m WHERE m.cluster_id IN ({_ids(shared)})"
        long = [] if pieced is None else [int(r[0]) for r in conn.execute(
            f"SELECT p.rowid FROM items_fts_pieces p WHERE p.piece = 0 AND p.rowid IN ({members})")]
        if pieced is None or not long:  # no member is pieced: their documents say
            conditions.append(f"EXISTS (SELECT 1 FROM items_fts f WHERE f.rowid = i.id AND f.document @@ {tsquery})")
        else:
            # the members' documents, and the pieced members' pieces, read by
            # their keys (beside an OR, PostgreSQL made the EXISTS above a
            # hash of every match, and read every piece holding the words)
            params.update(pieced.params)
            conditions.append(f"(i.id IN (SELECT f.rowid FROM items_fts f WHERE f.rowid IN ({members}) "
                              f"AND f.document @@ {tsquery}{pieced.by_documents('f.rowid')}) "
                              f"OR {pieced.found_among('i.id', _ids(long))})")
    elif query is not None:
        matching = "SELECT rowid FROM items_fts WHERE items_fts MATCH :query"
        # one index seek per member rather than the whole result set again,
        # unless the seeks would cost more than a pass (_one_pass: a prefix,
        # or a cluster of thousands -- a newsletter kept 5,000 times, 224 ms
        # of seeks against 1 ms for its word's 6,000 matches): then the
        # members are checked against one pass (the plus keeps SQLite from
        # walking the matches instead of the page's clusters)
        seeks = sum(h.cluster_size - 1 for h in hits if h.cluster_id is not None and h.cluster_size > 1)
        conditions.append(f"+i.id IN ({matching})" if _one_pass(query, matches, seeks)
                          else f"EXISTS ({matching} AND rowid = i.id)")
        params["query"] = query
    return _copied(hits, conn.execute(_copies_sql(shared, {h.id for h in hits}, conditions, postgres), params))


def _copies_sql(clusters: Sequence[int], shown: set[int], conditions: Sequence[str], postgres: bool) -> str:
    """The members of ``clusters`` but those ``shown``, meeting
    ``conditions``: a row each, as ``_copied`` reads them."""
    return ("SELECT c.cluster_id, i.id, i.path, i.part, c.resemblance, c.word_distance, i.machine, "
            f"{item_date(postgres)} AS dated, {file_dated(postgres)} "
            "FROM clusters c JOIN items i ON i.id = c.item_id "
            f"WHERE c.cluster_id IN ({_ids(clusters)}) "
            f"AND i.id NOT IN ({_ids(list(shown))}) {''.join(' AND ' + c for c in conditions)} "
            "ORDER BY c.cluster_id, dated DESC NULLS LAST, i.mtime DESC NULLS LAST, i.path, i.part")


def _copied(hits: list[Hit], rows: Iterable[Sequence[Any]]) -> list[Hit]:
    """``hits`` with their clusters' other results (``_copies_sql``'s
    ``rows``): how many each row hides, and the first COPIES_LISTED."""
    copies: dict[int, list[Copy]] = {}
    hidden: dict[int, int] = {}
    for cluster_id, item_id, path, part, resemblance, distance, machine, when, undated in rows:
        listed = copies.setdefault(int(cluster_id), [])
        hidden[int(cluster_id)] = hidden.get(int(cluster_id), 0) + 1
        if len(listed) < COPIES_LISTED:  # counted, not made, past those listed: a cluster may hold thousands
            listed.append(Copy(int(item_id), str(path), str(part), resemblance, distance, str(machine),
                               None if when is None else str(when), bool(undated) and when is not None))
    return [replace(h, hidden=hidden[key], copies=tuple(copies[key])) if key in copies else h
            for h, key in ((h, h.cluster_id or h.id) for h in hits)]


def _check_kinds(conn: Connection, filters: Filters) -> None:
    """An empty result because of a kind no item has is a typo: say so."""
    if not filters.kinds:
        return
    from lifededup.store.listing import KINDS_HELD

    known = sorted(str(r[0]) for r in conn.execute(KINDS_HELD))
    unknown = [k for k in filters.kinds if k not in known]
    if unknown:
        raise ValueError(f"no item of kind {', '.join(map(repr, unknown))} in the store; "
                         f"its kinds are: {', '.join(known) or '(none: the store is empty)'}")


def _check_cluster(conn: Connection, cluster: int) -> None:
    """An empty cluster is an id that is no cluster's: say whose item it is."""
    row = conn.execute("SELECT i.id, c.cluster_id FROM items i LEFT JOIN clusters c ON c.item_id = i.id "
                       "WHERE i.id = :id", {"id": cluster}).fetchone()
    if row is None:
        raise ValueError(f"no cluster {cluster}: there is no item {cluster} (the ID a collapsed row or "
                         "`lifededup dups` gives)")
    if row[1] is None:
        raise ValueError(f"{cluster} is an item but not a cluster: it has no text, so no cluster")
    if int(row[1]) != cluster:
        raise ValueError(f"{cluster} is an item but not a cluster: it is in cluster {int(row[1])} "
                         f"(lifededup search --cluster {int(row[1])})")


def _deduplicated(conn: Connection, query: str | None, filters: Filters, limit: int, spec: str,
                  postgres: bool, pieced: Pieced | None = None) -> SearchResult:
    """seeds/004's query-biased de-duplication: the stored clusters are not
    used; the best-ranked results are de-duplicated among themselves."""
    from lifededup.detect import dedup_results  # the detectors' numpy, only for --dedup

    window = _page(conn, query, filters, limit * DEDUP_WINDOW_PER_ROW, None, "all", postgres=postgres, pieced=pieced)
    texts = {
        int(r[0]): str(r[1] or "")
        for r in conn.execute(f"SELECT id, text FROM items WHERE id IN ({_ids([h.id for h in window.hits])})")
    } if window.hits else {}
    found = dedup_results([(h.id, texts[h.id]) for h in window.hits], spec)
    by_id = {h.id: h for h in window.hits}
    copies: dict[int, list[Copy]] = {}
    for item, kept in found.hidden.items():
        hidden = by_id[item]
        copies.setdefault(kept, []).append(Copy(hidden.id, hidden.path, hidden.part, machine=hidden.machine,
                                                date=hidden.date))
    hits = [replace(by_id[i], cluster_id=None, cluster_size=1, hidden=len(copies.get(i, [])),
                    copies=tuple(copies.get(i, [])[:COPIES_LISTED])) for i in found.kept[:limit]]
    return SearchResult(query, "dedup", hits, len(found.kept), len(window.hits))
