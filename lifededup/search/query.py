"""The result set of a search as SQL: an FTS5 MATCH ranked by bm25, narrowed
by filters on the items table.  Its rows are ``id, rank`` (lower rank is
better), the shape the store's ``collapse_sql`` expects (seeds/000 section 2.2
step 9: the user's query gives a result table, which is then joined with the
clusters table)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import date

from lifededup.model import stored_path

# The date a person would file a document under: its own (a mail's Date
# header, a PDF's creation date) when the extractor found one, else the file's
# modification time.  datetime() turns both into one comparable UTC text
# (ISO dates with offsets included) and gives NULL for a date it cannot read,
# which then falls back to the mtime.
ITEM_DATE = "coalesce(datetime(i.doc_date), datetime(i.mtime, 'unixepoch'))"


@dataclass(frozen=True)
class Filters:
    """What narrows a search besides its words.

    ``since``/``until`` are inclusive days of the item's date (``ITEM_DATE``);
    ``path`` is a glob over the stored (absolute) path, see :func:`path_pattern`.
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

    def where(self) -> tuple[list[str], dict[str, object]]:
        """SQL conditions on ``items i`` and their parameters."""
        conditions: list[str] = []
        params: dict[str, object] = {}
        if self.kinds:
            names = [f"kind{n}" for n in range(len(self.kinds))]
            conditions.append(f"i.kind IN ({', '.join(':' + n for n in names)})")
            params.update(zip(names, self.kinds))
        if self.since is not None:
            conditions.append(f"{ITEM_DATE} >= :since")
            params["since"] = self.since.isoformat()
        if self.until is not None:
            # the whole of the --until day
            conditions.append(f"{ITEM_DATE} < date(:until, '+1 day')")
            params["until"] = self.until.isoformat()
        if self.path is not None:
            conditions.append("i.path GLOB :path_glob")
            params["path_glob"] = path_pattern(self.path)
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


def results_sql(
    query: str | None, filters: Filters, *, cluster: int | None = None, ranked: bool = True
) -> tuple[str, dict[str, object]]:
    """A SELECT of ``id, rank`` (``id`` alone when not ``ranked``) for the
    items that match ``query`` and ``filters`` (and belong to ``cluster``).

    With a query, rank is FTS5's bm25 (lower is better); without one -- a
    search by date, kind or path alone, or the listing of a cluster -- the
    newest item comes first."""
    conditions, params = filters.where()
    if cluster is not None:
        conditions.append("i.id IN (SELECT item_id FROM clusters WHERE cluster_id = :cluster)")
        params["cluster"] = cluster
    if query is not None:
        params["query"] = query
        rank = ", bm25(items_fts) AS rank" if ranked else ""
        # the join only when a condition reads the item: FTS5 alone is faster
        join = " JOIN items i ON i.id = items_fts.rowid" if conditions else ""
        where = "".join(f" AND {c}" for c in conditions)
        return f"SELECT items_fts.rowid AS id{rank} FROM items_fts{join} WHERE items_fts MATCH :query{where}", params
    rank = f", -coalesce(julianday({ITEM_DATE}), 0) AS rank" if ranked else ""
    where = " AND ".join(conditions) or "1"
    return f"SELECT i.id AS id{rank} FROM items i WHERE {where}", params
