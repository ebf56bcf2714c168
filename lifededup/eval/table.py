"""The evaluation as one table, in plain text or Markdown (for the README)."""

from __future__ import annotations

from collections.abc import Sequence

from lifededup.eval.measure import Score

__all__ = ["format_table"]

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
        str(row.accepted_pairs),
        str(row.clusters),
        f"{row.bytes_per_doc:.0f}",
        f"{row.ms_per_doc:.2f}",
        f"{row.max_edit_distance:.0%}",
        f"{row.mean_edit_distance:.0%}",
    )


def format_table(rows: Sequence[Score], markdown: bool = False) -> str:
    body = [_cells(row) for row in rows]
    if markdown:
        lines = [_HEADERS, tuple("---" if i == 0 else "---:" for i in range(len(_HEADERS))), *body]
        return "\n".join("| " + " | ".join(line) + " |" for line in lines)
    widths = [max(len(line[i]) for line in (_HEADERS, *body)) for i in range(len(_HEADERS))]
    return "\n".join(
        "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(line, widths)))
        for line in (_HEADERS, *body)
    )
