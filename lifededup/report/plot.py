"""Pictures of the reports, for a person who would rather look than read.
matplotlib is an optional extra: ``pip install "lifededup[plot]"``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from lifededup.report.counts import PAPER_KINDS, TOTAL

if TYPE_CHECKING:  # types only: the reports themselves stand on the store's engine and numpy
    from lifededup.report.stats import StatsReport
    from lifededup.report.verify import VerifyReport


class PlotUnavailable(RuntimeError):
    """matplotlib is not installed; the message says how to get it."""


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only: no display needed
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise PlotUnavailable(
            'plots need matplotlib: pip install "lifededup[plot]" (or pip install matplotlib)'
        ) from exc
    return plt


def require_matplotlib() -> None:
    """Raise :class:`PlotUnavailable` now if plots cannot be drawn, so that a
    report asked for a plot fails before its work, not after it."""
    _pyplot()


def plot_verify(report: VerifyReport, path: Path) -> None:
    """The distribution of member-to-representative distances (seeds/000
    Figures 2 and 4), with the threshold marked."""
    plt = _pyplot()
    bins = report.histogram()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.bar([low * 100 for low, _, _ in bins], [n for _, _, n in bins], width=100 / len(bins), align="edge",
           color="#4878a8", edgecolor="white")
    ax.axvline(report.threshold * 100, color="#c0392b", linestyle="--", label=f"threshold {report.threshold:.0%}")
    ax.set_xlim(0, 100)
    ax.set_xlabel("word edit distance to the representative (% of the longer document)")
    ax.set_ylabel("cluster members")
    ax.set_title(f"Word edit distance: max {report.max_to_representative:.0%} to a representative, "
                 f"{report.max_farthest:.0%} farthest pair\n({report.clustering})", fontsize="medium")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_stats(report: StatsReport, path: Path) -> None:
    """Table 2 as bars: per kind, the exact and near-duplicate shares and the
    total reduction, one group of bars per fingerprinting column."""
    plt = _pyplot()
    kinds = [*PAPER_KINDS, TOTAL]
    first = report.columns[0]
    series: list[tuple[str, list[float]]] = [("exact duplicates", [first.table2[k].exact_share for k in kinds])]
    for column in report.columns:
        series.append((f"near-duplicates, {column.label}", [column.table2[k].near_share for k in kinds]))
    series.append((f"reduction, {first.label}", [first.table2[k].reduction for k in kinds]))
    fig, ax = plt.subplots(figsize=(9, 4.5))
    width = 0.8 / len(series)
    for n, (label, values) in enumerate(series):
        ax.bar([k + n * width for k in range(len(kinds))], [v * 100 for v in values], width, label=label)
    ax.set_xticks([k + 0.4 - width / 2 for k in range(len(kinds))], kinds)
    ax.set_ylabel("% of items (near-duplicates: % of unique items)")
    ax.set_title(f"Duplicates in the store ({report.method} clustering; seeds/000 Table 2)")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
