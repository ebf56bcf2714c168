"""Markdown beside the HTML built from it (``real_archive.build_markdown()``):
Debian's nodejs-doc, the Node.js API reference as shipped, each page as its
Markdown source and its HTML page.  Are the two read alike, and do they share
a cluster?

``lifededup index`` of the folder into a fresh store (a separate process, as
a user runs it), then for each page: whether its source and its HTML page are
in one cluster, and how far apart their stored texts are
(``fingerprint.compare``'s word edit distance, this code's measure for both
columns); and the source's stored title.  ``--before DIR`` does the same, in
the same run, with a lifededup package kept in DIR (``DIR/lifededup``, e.g.
``git archive`` of an earlier commit), and prints both.

    python benchmarks/bench_markdown.py [--store /tmp/md-store] [--before /tmp/old]
"""

from __future__ import annotations

import sqlite3
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from real_archive import before_and_now, build_markdown, indexed, markdown_pages  # noqa: E402

from lifededup.fingerprint.compare import compare  # noqa: E402


def measure(folder: Path, store: Path, code: Path | None) -> dict[str, tuple[bool, float, str]]:
    """Each page: (source and page in one cluster, their word distance, the source's title)."""
    db = indexed(folder, store, code)
    found: dict[str, tuple[bool, float, str]] = {}
    with sqlite3.connect(db) as conn:
        def item(path: Path) -> tuple[int, str, str]:
            row = conn.execute("SELECT i.id, coalesce(c.cluster_id, i.id), i.text, coalesce(i.title, '') FROM "
                               "items i LEFT JOIN clusters c ON c.item_id = i.id WHERE i.path = ? AND i.part = ''",
                               (str(path),)).fetchone()
            return int(row[1]), str(row[2] or ""), str(row[3])
        for name, (source, page) in markdown_pages(folder).items():
            (left, text, title), (right, html, _) = item(source), item(page)
            found[name] = (left == right, compare(text, html).word_edit_distance, title)
    return found


def main() -> None:
    runs = before_and_now(__doc__, lambda store, code: measure(build_markdown(), store, code))
    pages = len(next(iter(runs.values())))
    print(f"\n{pages} pages, each as Markdown and as the HTML built from it ({build_markdown()})\n")
    print("| measure | " + " | ".join(runs) + " |\n|---|" + "---:|" * len(runs))
    rows = {
        "source and page in one cluster": lambda r: str(sum(joined for joined, _, _ in r.values())),
        "median word distance": lambda r: f"{statistics.median(d for _, d, _ in r.values()):.1%}",
        "within 10%": lambda r: str(sum(d <= 0.10 for _, d, _ in r.values())),
        "within 30%": lambda r: str(sum(d <= 0.30 for _, d, _ in r.values())),
        "sources titled": lambda r: str(sum(bool(t) for _, _, t in r.values())),
    }
    for label, figure in rows.items():
        print(f"| {label} | " + " | ".join(figure(r) for r in runs.values()) + " |")
    if "before" in runs:
        moved = [(name, runs["before"][name], runs["now"][name]) for name in runs["now"]
                 if runs["before"][name][:2] != runs["now"][name][:2]]
        print("\npages whose pair moved (joined, distance, title: before -> now):")
        for name, old, new in sorted(moved, key=lambda m: m[2][1] - m[1][1])[:80]:
            print(f"  {name}: {old[0]} {old[1]:.1%} {old[2]!r} -> {new[0]} {new[1]:.1%} {new[2]!r}")


if __name__ == "__main__":
    main()
