"""The ground truth an evaluation is scored against.

A truth file is JSON, its paths relative to the corpus folder (by default the
folder the truth file is in), as ``lifededup/eval/sample_truth.json`` (the
truth of a checkout's ``sample_corpus/``, shipped with the package) is written::

    {"clusters": [{"name": "report", "members": ["report.docx", "report.pdf"]},
                  ["memo.txt", "Mail/memo.eml"], ...],
     "pairs": [["a.txt", "b.txt", true], ["a.txt", "c.txt", false], ...]}

An item is a file, or a part inside one written ``"file [part]"`` (a message
of a mailbox, an attachment), as ``lifededup fingerprint`` prints it.  A
cluster is a list of items that are copies or near-copies of each other, or an
object with that list as ``members``; every item of the corpus not in a
cluster is a cluster of its own, so clusters say which pairs are duplicates
and which are not.  ``pairs`` instead labels chosen pairs; without
``clusters`` only those pairs are scored.  Other keys (``about``, ``bad``) are
for people and other tests.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

__all__ = ["SAMPLE_TRUTH", "Truth", "TruthError", "find_sample_corpus", "item_file", "load_truth"]

# The ground truth of sample_corpus/ (kept out of the corpus, so that indexing
# the sample does not index its answers), shipped inside the package.
SAMPLE_TRUTH = Path(__file__).resolve().parent / "sample_truth.json"


def find_sample_corpus(cwd: Path | None = None) -> Path | None:
    """A checkout's sample_corpus/: under the current folder, or beside the
    package when it runs from a checkout (an editable install)."""
    for candidate in ((cwd or Path.cwd()) / "sample_corpus", SAMPLE_TRUTH.parents[2] / "sample_corpus"):
        if candidate.is_dir():
            return candidate
    return None


class TruthError(ValueError):
    """A truth file that cannot be used; the message says what to fix."""


@dataclass(frozen=True)
class Truth:
    """Known duplicates in a corpus folder: ``duplicate`` and ``distinct``
    pairs of items (each pair sorted); ``exhaustive`` when every other pair
    of the corpus is distinct too (the truth gave clusters)."""

    path: Path
    corpus: Path
    clusters: tuple[tuple[str, ...], ...]
    duplicate: frozenset[tuple[str, str]]
    distinct: frozenset[tuple[str, str]]
    exhaustive: bool

    @property
    def named(self) -> frozenset[str]:
        """Every item the truth names."""
        pairs = self.duplicate | self.distinct
        return frozenset(item for pair in pairs for item in pair) | {m for c in self.clusters for m in c}


def item_file(item: str) -> str:
    """The file an item is in: ``"a.mbox [message 3]"`` is in ``"a.mbox"``."""
    return item.split(" [", 1)[0]


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def _members(cluster: Any) -> Any:
    return cluster.get("members") if isinstance(cluster, dict) else cluster


def _clusters(raw: Any, where: Path) -> list[list[str]]:
    clusters = [_members(c) for c in raw] if isinstance(raw, list) else None
    if clusters is None or not all(
        isinstance(c, list) and c and all(isinstance(p, str) for p in c) for c in clusters
    ):
        raise TruthError(
            f"{where}: 'clusters' must be a list of clusters, each a non-empty list of paths "
            "or an object with such a list as 'members'"
        )
    seen: dict[str, int] = {}
    for number, cluster in enumerate(clusters):
        for item in cluster:
            if item in seen:
                raise TruthError(f"{where}: {item!r} is in clusters {seen[item]} and {number}")
            seen[item] = number
    return clusters


def _pairs(raw: Any, where: Path) -> list[tuple[str, str, bool]]:
    if not isinstance(raw, list) or not all(
        isinstance(p, list) and len(p) == 3 and isinstance(p[0], str) and isinstance(p[1], str)
        and isinstance(p[2], bool)
        for p in raw
    ):
        raise TruthError(f"{where}: 'pairs' must be a list of [path, path, true|false]")
    return [(a, b, label) for a, b, label in raw]


def load_truth(path: Path, corpus: Path | None = None) -> Truth:
    """Read a truth file; ``TruthError`` if it is missing, malformed, or names
    a file that is not in the corpus folder."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise TruthError(f"cannot read the truth file {path}: {exc.strerror or exc}") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise TruthError(f"{path} is not JSON: {exc}") from exc
    if not isinstance(raw, dict) or not ({"clusters", "pairs"} & raw.keys()):
        raise TruthError(f"{path}: expected an object with 'clusters' and/or 'pairs'")
    corpus = corpus if corpus is not None else path.parent
    clusters = _clusters(raw["clusters"], path) if "clusters" in raw else None
    pairs = _pairs(raw["pairs"], path) if "pairs" in raw else []
    named = {m for c in clusters or [] for m in c} | {p for a, b, _ in pairs for p in (a, b)}
    missing = sorted(p for p in named if not (corpus / item_file(p)).is_file())
    if missing:
        raise TruthError(f"{path}: {len(missing):,} files not found under {corpus}: {', '.join(missing[:5])}")
    duplicate = {_pair(a, b) for c in clusters or [] for a, b in combinations(c, 2)}
    duplicate |= {_pair(a, b) for a, b, label in pairs if label}
    distinct = {_pair(a, b) for a, b, label in pairs if not label}
    if duplicate & distinct:
        raise TruthError(f"{path}: pairs labelled both ways: {sorted(duplicate & distinct)[:3]}")
    return Truth(
        path=path,
        corpus=corpus,
        clusters=tuple(tuple(c) for c in clusters or []),
        duplicate=frozenset(duplicate),
        distinct=frozenset(distinct),
        exhaustive=clusters is not None,
    )
