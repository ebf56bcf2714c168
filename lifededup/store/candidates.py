"""The candidate lookups of the verified rule, as SQL on the driver alone:
which items share a feature with a text, which representatives share its
sketch values.  The clustering engine places texts with them
(:mod:`lifededup.store.clustering`); ``lifededup show`` finds with them the
near copies a text has in other clusters, without SQLAlchemy."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from lifededup.store.dialect import Driver
from lifededup.store.settings import FEATURE_COLUMNS


def feature_union(only_representatives: bool) -> str:
    rep = " AND is_representative = TRUE" if only_representatives else ""
    return " UNION ALL ".join(
        f"SELECT item_id FROM fingerprints WHERE {f} = :{f}{rep}" for f in FEATURE_COLUMNS
    )


# A sketch value more representatives hold than this is boilerplate (a
# licence, a signature, a template's headings): it says nothing about which
# of them a text is a near copy of, and reading all its holders for every
# insert made an insert at a million items 15 times the cost of one at ten
# thousand (benchmarks/bench_backends.py).  The candidate lookup leaves such
# values out, as a search engine leaves out stop words; texts sharing them
# are still found through their other values and their features.
BOILERPLATE_HOLDERS = 256


@lru_cache(maxsize=8)
def minima_lookup(count: int, bound: int) -> str:
    """The representatives sharing at least ``:least`` of ``count`` sketch
    values ``:v0``...: each value's holders are read up to one past the
    boilerplate ``bound`` (an index range each), and a value with more is
    left out, so a lookup reads at most ``count`` x (bound + 1) keys however
    large the store."""
    probes = " UNION ALL ".join(
        f"SELECT * FROM (SELECT value, item_id FROM sketch_keys WHERE value = :v{i} LIMIT {bound + 1})"
        f" AS p{i}" for i in range(count))
    return (f"WITH probe AS MATERIALIZED ({probes}),"
            f" distinctive AS (SELECT value FROM probe GROUP BY value HAVING count(*) <= {bound})"
            " SELECT item_id, count(*) FROM probe WHERE value IN (SELECT value FROM distinctive)"
            " GROUP BY item_id HAVING count(*) >= :least ORDER BY count(*) DESC LIMIT :most")


# The same lookup on PostgreSQL, the values as one array (a probe of each by
# LATERAL): psycopg neither caches nor prepares a statement of more than 50
# parameters, so the server parsed and planned the 84 probes of
# minima_lookup anew for every insert -- 4.5 ms, against 0.3 ms to run them,
# most of an insert's time on a small store.
PG_MINIMA_LOOKUP = (
    "WITH probe AS MATERIALIZED (SELECT v.value, k.item_id FROM unnest(CAST(:values AS bigint[])) AS v(value)"
    " CROSS JOIN LATERAL (SELECT item_id FROM sketch_keys WHERE value = v.value LIMIT :probe) AS k),"
    " distinctive AS (SELECT value FROM probe GROUP BY value HAVING count(*) <= :bound)"
    " SELECT item_id, count(*) FROM probe WHERE value IN (SELECT value FROM distinctive)"
    " GROUP BY item_id HAVING count(*) >= :least ORDER BY count(*) DESC LIMIT :most")


def sharing_minima(db: Driver, postgres: bool, values: Iterable[int], least: int, most: int,
                   bound: int = BOILERPLATE_HOLDERS) -> dict[int, int]:
    """The representatives sharing at least ``least`` of the sketch
    ``values`` (a sketch's minima as signed 64-bit integers), the ``most``
    sharing most first, each with how many it shares; a value more than
    ``bound`` representatives hold is left out."""
    distinct = sorted({int(v) for v in values})
    if postgres:
        rows = db.execute(PG_MINIMA_LOOKUP, {"values": distinct, "probe": bound + 1, "bound": bound,
                                             "least": least, "most": most})
        return {int(r[0]): int(r[1]) for r in rows}
    params: dict[str, int] = {f"v{i}": v for i, v in enumerate(distinct)}
    params.update(least=int(least), most=int(most))
    return {int(r[0]): int(r[1]) for r in db.execute(minima_lookup(len(distinct), bound), params)}
