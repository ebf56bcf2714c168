"""The evaluation as one table, in plain text or Markdown (for the README)."""

from __future__ import annotations

from collections.abc import Sequence

from lifededup.eval.measure import Score

__all__ = ["format_table", "render"]

_HEADERS = (
    "detector", "precision", "recall", "F1", "accepted pairs", "clusters",
    "bytes/doc", "ms/doc", "max edit", "mean edit",
)


def _cells(row: Score) -> tuple[str, ...]:
    return (
        row.detector,
        f"{row.precision:.3f}",
        f"{row.recall:.3f}",
        f"{row.f1:.3f}",
        f"{row.accepted_pairs:,}",
        f"{row.clusters:,}",
        f"{row.bytes_per_doc:.0f}",
        f"{row.ms_per_doc:.2f}",
        f"{row.max_edit_distance:.0%}",
        f"{row.mean_edit_distance:.0%}",
    )


def format_table(rows: Sequence[Score], markdown: bool = False) -> str:
    return render(_HEADERS, [_cells(row) for row in rows], markdown)


def render(headers: Sequence[str], body: Sequence[Sequence[str]], markdown: bool = False) -> str:
    """A table with its first column left-aligned and the others right."""
    if markdown:
        lines = [tuple(headers), tuple("---" if i == 0 else "---:" for i in range(len(headers))), *body]
        return "\n".join("| " + " | ".join(line) + " |" for line in lines)
    widths = [max(len(line[i]) for line in (headers, *body)) for i in range(len(headers))]
    return "\n".join(
        "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(line, widths)))
        for line in (headers, *body)
    )
