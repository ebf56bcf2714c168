"""``lifededup stats`` and ``verify``: the paper's tables and its check for
false positives, on your own store."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from lifededup.cli import main
from lifededup.cli.options import Finite, db_option, item_name, opened_store
from lifededup.report import PAPER_KINDS, TOTAL, PlotUnavailable, plot_stats, plot_verify, require_matplotlib

# the reports (the clustering engine, numpy) are imported by the commands that run them, not for --help
if TYPE_CHECKING:
    from lifededup.report import StatsReport, VerifyReport
    from lifededup.store import Store

# Width of the longest histogram bar, in characters.
BAR = 40


def _idf(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[float, ...]:
    if not value:
        return ()
    try:
        found = tuple(float(v) for v in value.split(",") if v.strip())
    except ValueError:
        raise click.BadParameter(f"{value!r}: give IDF thresholds separated by commas, e.g. 4.0,5.0") from None
    if not all(0 < t < math.inf for t in found):
        raise click.BadParameter("IDF thresholds are positive (the paper used 4.0 and 5.0)")
    return found


def _table(rows: Sequence[Sequence[str]]) -> list[str]:
    """Rows of cells, the first column left-aligned and the others right."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
            for r in rows]


def _pct(value: float) -> str:
    return f"{value:.1%}"


def _can_plot() -> None:
    try:
        require_matplotlib()
    except PlotUnavailable as exc:
        raise click.ClickException(str(exc)) from exc


def _plot(draw: Callable[[Any, Path], None], report: object, path: Path | None, as_json: bool = False) -> None:
    if path is None:
        return
    try:
        draw(report, path)
    except PlotUnavailable as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"plot written to {path}", err=as_json)  # stdout stays one JSON document


@main.command("stats")
@click.option("--idf", callback=_idf, metavar="T[,T...]",
              help="Also fingerprint the texts again through a low-IDF filter of each threshold "
              "(the paper tried 4.0,5.0) and show what it finds; the store is not changed.")
@click.option("--json", "as_json", is_flag=True, help="Both tables as one JSON object.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False, writable=True, path_type=Path),
              metavar="FILE.png", help='Draw Table 2 as bars (needs pip install "lifededup[plot]").')
@db_option
def stats_command(idf: tuple[float, ...], as_json: bool, plot_path: Path | None, db: str | None) -> None:
    """How much of your archive is copies: the paper's Tables 2 and 1 for
    your own store (seeds/000 sections 3.2 and 4).

    Table 2, per kind (document, email, web page) and in total: the share of
    items that are exact copies of another; the share of the rest that are
    near-copies (hidden behind a different text of their cluster); and the
    reduction in what you must look at (1 - clusters / items). Table 1:
    items, distinct texts, and clusters under fully transitive and under
    conservative clustering (the other method is computed apart, in
    memory, by the store's own engine). Only items with text count.

    \b
    Examples:
      lifededup stats
      lifededup stats --idf 4.0,5.0
      lifededup stats --json | jq '.columns[0].table2.total.reduction'
      lifededup stats --plot duplicates.png
    """
    if plot_path is not None:
        _can_plot()  # before the work, not after it
    from lifededup.report import stats

    with opened_store(db, readonly=True) as store:
        report = stats(store, idf)
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2))
    else:
        _print_stats(report)
    _plot(plot_stats, report, plot_path, as_json)


def _print_stats(report: StatsReport) -> None:
    labels = [c.label for c in report.columns]
    first = report.columns[0]
    click.echo(f"Table 2: duplicates in {report.location} ({report.method} clustering)")
    header = ["kind", "items", "exact dup."] + [f"near: {x}" for x in labels] + [f"reduction: {x}" for x in labels]
    rows = [header]
    for kind in [*PAPER_KINDS, TOTAL]:
        counts = first.table2[kind]
        rows.append([kind, f"{counts.items:,}", _pct(counts.exact_share)]
                    + [_pct(c.table2[kind].near_share) for c in report.columns]
                    + [_pct(c.table2[kind].reduction) for c in report.columns])
    for line in _table(rows):
        click.echo("  " + line)
    click.echo("  (near: share of the items left once exact copies are set aside; seeds/000 Table 2 on "
               "Bell's archive: 13% exact, 9% near, 21% reduction)")
    click.echo("")
    click.echo("Table 1: clusters under the two extremes of clustering")
    methods = [(c, m) for c in report.columns for m in ("transitive", "conservative")]
    rows = [[""] + [f"{m}{'' if len(labels) == 1 else ', ' + c.label}" for c, m in methods]]
    rows.append(["total objects"] + [f"{c.table1.objects:,}" for c, _ in methods])
    rows.append(["unique objects"] + [f"{c.table1.unique:,}" for c, _ in methods])
    rows.append(["clusters"] + [f"{getattr(c.table1, m):,}" for c, m in methods])
    for line in _table(rows):
        click.echo("  " + line)
    click.echo(_TRANSITIVE_NOTE)


# The two columns do not use one relation: a store's conservative rule (the
# verified one by default) also finds near copies through their sketch
# values, where transitive clustering links shared features alone -- so the
# transitive column can count more clusters, not fewer (a user's archive:
# 1,013 against 982).
_TRANSITIVE_NOTE = ("  (transitive: every two items sharing 2 of 6 features linked, as `recluster --method "
                    "transitive`; conservative: the store's rule, which may also find near copies by their "
                    "sketches -- then it can count fewer clusters)")


@main.command("verify")
@click.option("--threshold", type=Finite(0, 100), default=30.0, show_default=True, metavar="PERCENT",
              help="List the clusters whose farthest pair is further apart than this (the paper's bound for "
              "conservative clustering is 30%).")
@click.option("--clustering", type=click.Choice(["store", "conservative", "transitive"]), default="store",
              show_default=True,
              help="Measure the store's clusters, or its fingerprints clustered afresh one way or the other "
              "(in memory, by the store's own engine and rule; yours is not changed).")
@click.option("--json", "as_json", is_flag=True, help="Every distance and cluster as one JSON object.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False, writable=True, path_type=Path),
              metavar="FILE.png", help='Draw the histogram (needs pip install "lifededup[plot]").')
@db_option
def verify_command(threshold: float, clustering: str, as_json: bool, plot_path: Path | None, db: str | None) -> None:
    """Check the clusters for false positives: the word edit distance
    between the documents of each cluster (seeds/000 section 3.1).

    For every member, its distance to its representative (the document a
    collapsed search shows instead); for every cluster, its farthest pair.
    Distances are word edits as a share of the longer document. Prints their
    histogram (the paper's Figures 2 and 4), the maximum, and the clusters
    over the threshold. Exact copies are not compared (distance 0); the
    farthest pair is exact for clusters of up to 30 distinct texts and
    otherwise measured between the two members farthest from the
    representative, with an upper bound.

    \b
    Examples:
      lifededup verify
      lifededup verify --clustering transitive --threshold 50
      lifededup verify --plot distances.png
    """
    if plot_path is not None:
        _can_plot()
    from lifededup.report import verify

    with opened_store(db, readonly=True) as store:
        report = verify(store, threshold=threshold / 100, clustering=clustering)  # type: ignore[arg-type]
        names = _names(store, report)
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2))
    else:
        _print_verify(report, names)
    _plot(plot_verify, report, plot_path, as_json)


def _names(store: Store, report: VerifyReport) -> dict[int, str]:
    """Paths of the items named in the clusters over the threshold."""
    ids = {i for c in report.over + report.maybe_over for i in c.pair}
    if not ids:
        return {}
    _, rows = store.execute(
        f"SELECT id, path, part, machine FROM items WHERE id IN ({', '.join(str(i) for i in sorted(ids))})")
    return {int(str(r[0])): item_name(str(r[1]), str(r[2]), str(r[3])) for r in rows}


def _print_verify(report: VerifyReport, names: dict[int, str]) -> None:
    from lifededup.report import ALL_PAIRS_MAX, histogram_bin

    click.echo(f"Word edit distance within clusters ({report.clustering})")
    members = len(report.to_representative)
    click.echo(f"{report.clusters:,} clusters of two or more items, {members:,} members besides their "
               f"representatives; {report.exact_copies:,} of them repeat a text of their cluster "
               "(distance 0, not compared)")
    if not members:
        click.echo("nothing to measure: no cluster has two items")
        return
    bins = report.histogram()
    top = max(n for _, _, n in bins)
    # every bin up to the threshold's and the last one used; the empty rest in one line
    last = max([i for i, (_, _, n) in enumerate(bins) if n] + [histogram_bin(report.threshold, len(bins))])
    click.echo("member to representative:")
    for low, high, n in bins[: last + 1]:
        bar = "#" * max(1, round(n / top * BAR)) if n else ""
        click.echo(f"  {low:>4.0%}-{high:<4.0%} | {bar} {n:,}" if n else f"  {low:>4.0%}-{high:<4.0%} |")
    if last + 1 < len(bins):
        click.echo(f"  {bins[last + 1][0]:>4.0%}-100% | none")
    click.echo(f"largest distance to a representative: {_pct(report.max_to_representative)}")
    click.echo(f"farthest pair within a cluster: {_pct(report.max_farthest)}"
               f" (exact for clusters of up to {ALL_PAIRS_MAX} distinct texts)")
    over = report.over
    click.echo(f"clusters over {report.threshold:.0%}: {f'{len(over):,}' if over else 'none'}")
    for check in over:
        a, b = check.pair
        bound = "" if check.exact else f" (at least; at most {_pct(check.upper_bound)})"
        click.echo(f"  cluster {check.cluster_id} ({check.size:,} items): {_pct(check.farthest)}{bound} between")
        click.echo(f"    {names.get(a, a)}\n    {names.get(b, b)}")
    for check in report.maybe_over:
        click.echo(f"  cluster {check.cluster_id} ({check.size:,} items) may be: its farthest pair measured "
                   f"{_pct(check.farthest)}, bounded by {_pct(check.upper_bound)}")
