"""Reports: the paper's tables and its check for false positives, on the
user's own store (seeds/000 sections 3 and 4).  The store is only read.

Public API:

``stats(store, idf=()) -> StatsReport``
    Table 2 -- per kind (document, email, web page) and in total: the share
    of exact duplicates, of near-duplicates among the rest, and the total
    reduction in what a user must look at -- and Table 1 -- objects, unique
    objects, clusters under transitive and under conservative clustering.
    Each ``idf`` threshold adds a column: the texts fingerprinted again
    through the low-IDF filter and clustered apart (in memory).
``verify(store, threshold=0.30, clustering="store") -> VerifyReport``
    Word edit distance of every member to its representative and of each
    cluster's farthest pair (exact up to ``ALL_PAIRS_MAX`` distinct texts,
    bounded above it), its histogram, maximum, and the clusters over the
    threshold; ``clustering="transitive"`` measures the fully transitive
    clusters of the same fingerprints (seeds/000 Figure 2).
``plot_stats(report, path)``, ``plot_verify(report, path)``: PNG pictures
    (matplotlib, the ``plot`` extra); ``PlotUnavailable`` when it is missing
    (``require_matplotlib()`` says so before any work).
``Counts``, ``Table1``, ``table1``, ``table2``, ``Member``: the counting
    itself, over any clustering; ``cluster_apart(prints, params, methods)``
    clusters fingerprints in memory with the store's own engine and rule;
    ``cluster_store_apart(store, methods)`` the store's own fingerprints.
"""

from typing import TYPE_CHECKING

from lifededup import lazy_names
from lifededup.report.counts import PAPER_KINDS, TOTAL, Counts, Member, Table1, table1, table2
from lifededup.report.plot import PlotUnavailable, plot_stats, plot_verify, require_matplotlib

# The reports themselves (the store's clustering engine, numpy, rapidfuzz)
# are imported when first used: `stats --help` and `verify --help` start
# without them.
if TYPE_CHECKING:
    from lifededup.report.apart import Fingerprinted, cluster_apart, cluster_store_apart
    from lifededup.report.stats import Column, StatsReport, document_frequencies, stats
    from lifededup.report.verify import (
        ALL_PAIRS_MAX,
        DEFAULT_THRESHOLD,
        ClusterCheck,
        Clustering,
        VerifyReport,
        histogram_bin,
        verify,
    )

__getattr__ = lazy_names(__name__, {
    **{name: ("lifededup.report.apart", name) for name in ("Fingerprinted", "cluster_apart", "cluster_store_apart")},
    **{name: ("lifededup.report.stats", name) for name in ("Column", "StatsReport", "document_frequencies", "stats")},
    **{name: ("lifededup.report.verify", name) for name in ("ALL_PAIRS_MAX", "DEFAULT_THRESHOLD", "ClusterCheck",
                                                            "Clustering", "VerifyReport", "histogram_bin", "verify")},
})

__all__ = [
    "ALL_PAIRS_MAX", "Clustering", "ClusterCheck", "Column", "Counts", "DEFAULT_THRESHOLD", "Fingerprinted",
    "Member", "PAPER_KINDS", "PlotUnavailable", "StatsReport", "TOTAL", "Table1", "VerifyReport", "cluster_apart",
    "cluster_store_apart", "document_frequencies", "histogram_bin", "plot_stats", "plot_verify", "require_matplotlib",
    "stats", "table1", "table2", "verify",
]
