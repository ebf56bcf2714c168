"""Search: full-text queries over the store, each document shown once.

The paper's step 9 (seeds/000 section 2.2): a user's query gives a result
table; left-joined with the ``clusters`` table it shows one row per cluster,
the duplicates in the result set hidden behind it.

Public API:

``search(store, query, filters=Filters(), *, limit=20, collapse=True, cluster=None, dedup=None, offset=0) -> SearchResult``
    ``query`` is FTS5 syntax (``SYNTAX`` says it for people), ranked by
    bm25; on a PostgreSQL store websearch syntax (``PG_SYNTAX``) over the
    tsvector's GIN index, ranked by ts_rank, with the same rows, filters
    and collapse; ``None`` with filters or ``cluster`` lists by date, newest first.
    ``store``: a ``Store`` or ``open_reader()``'s ``Reader`` (any
    ``lifededup.store.Readable``); the results are the same.
    Collapsed: one :class:`Hit` per cluster (its best-ranked matching member)
    with ``hidden`` (how many other results it stands for) and ``copies``
    (where they live).  ``collapse=False`` gives every item; ``cluster=ID``
    the matching members of one cluster; ``dedup="simhash:K"`` de-duplicates
    the best-ranked results among themselves instead (seeds/004).
``Filters(kinds=(), since=None, until=None, path=None)``
    kinds of item, inclusive days of the item's own date (else its mtime),
    a glob over the stored path (``path_pattern`` says how it is read).
``Hit`` (``to_dict()``), ``Copy``, ``Snippet`` (``text``, ``spans`` of the
    matched words, ``parts()``), ``SearchResult`` (``hits``, ``rows``,
    ``matches``, ``to_dict()``); ``items_said(count, exact=...)``, a count
    of items as the CLI and web view say it.
``QuerySyntaxError``: a query FTS5 cannot parse; the message shows ``SYNTAX``
    (``PG_SYNTAX`` on a PostgreSQL store, whose query reads any text but a NUL;
    ``syntax_of(postgres)`` picks).
``results_sql(query, filters, postgres=False)``: the result set as SQL, for
    ``collapse_sql(results, postgres=False)``.
"""

from lifededup.search.query import Filters, path_pattern, results_sql
from lifededup.search.results import Copy, Hit, SearchResult, items_said, search
from lifededup.search.snippet import Snippet
from lifededup.search.syntax import PG_SYNTAX, SYNTAX, QuerySyntaxError, syntax_of
from lifededup.store.dates import ITEM_DATE

__all__ = ["Copy", "Filters", "Hit", "ITEM_DATE", "PG_SYNTAX", "QuerySyntaxError", "SYNTAX", "SearchResult",
           "Snippet", "items_said", "path_pattern", "results_sql", "search", "syntax_of"]
