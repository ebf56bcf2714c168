"""The ground truth an evaluation is scored against.

A truth file is JSON, paths relative to the corpus folder (by default the
folder the truth file is in)::

    {"clusters": [["report.txt", "report.pdf"], ["memo.txt"], ...],
     "pairs": [["a.txt", "b.txt", true], ["a.txt", "c.txt", false], ...]}

``clusters`` lists every document of the corpus in exactly one cluster of
documents that are copies or near-copies of each other (a lone document is a
cluster of one); every pair inside a cluster is a duplicate pair and every
other pair is not.  ``pairs`` instead labels chosen pairs only; precision and
recall are then measured on those pairs.  A file may give either or both.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

__all__ = ["Truth", "TruthError", "load_truth"]


class TruthError(ValueError):
    """A truth file that cannot be used; the message says what to fix."""


@dataclass(frozen=True)
class Truth:
    """Known duplicates of a corpus: ``documents`` (relative paths, the order
    they are fed to the detectors), ``duplicate`` and ``distinct`` pairs (each
    pair sorted).  ``exhaustive`` when every pair not in ``duplicate`` is
    distinct (the truth gave clusters)."""

    corpus: Path
    documents: tuple[str, ...]
    duplicate: frozenset[tuple[str, str]]
    distinct: frozenset[tuple[str, str]]
    exhaustive: bool
    clusters: int | None


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def _clusters(raw: Any, where: Path) -> list[list[str]]:
    if not isinstance(raw, list) or not all(
        isinstance(c, list) and c and all(isinstance(p, str) for p in c) for c in raw
    ):
        raise TruthError(f"{where}: 'clusters' must be a list of non-empty lists of paths")
    seen: dict[str, int] = {}
    for number, cluster in enumerate(raw):
        for path in cluster:
            if path in seen:
                raise TruthError(f"{where}: {path!r} is in clusters {seen[path]} and {number}")
            seen[path] = number
    return raw


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
    a document that is not in the corpus folder."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise TruthError(f"cannot read the truth file {path}: {exc.strerror or exc}") from exc
    except json.JSONDecodeError as exc:
        raise TruthError(f"{path} is not JSON: {exc}") from exc
    if not isinstance(raw, dict) or not ({"clusters", "pairs"} & raw.keys()):
        raise TruthError(f"{path}: expected an object with 'clusters' and/or 'pairs'")
    corpus = corpus if corpus is not None else path.parent
    clusters = _clusters(raw["clusters"], path) if "clusters" in raw else None
    pairs = _pairs(raw["pairs"], path) if "pairs" in raw else []
    documents = {p: None for c in clusters or [] for p in c}
    documents.update({p: None for a, b, _ in pairs for p in (a, b)})
    missing = [p for p in documents if not (corpus / p).is_file()]
    if missing:
        raise TruthError(f"{path}: {len(missing)} documents not found under {corpus}: {', '.join(missing[:5])}")
    duplicate = {_pair(a, b) for c in clusters or [] for a, b in combinations(c, 2)}
    duplicate |= {_pair(a, b) for a, b, label in pairs if label}
    distinct = {_pair(a, b) for a, b, label in pairs if not label}
    if duplicate & distinct:
        raise TruthError(f"{path}: pairs labelled both ways: {sorted(duplicate & distinct)[:3]}")
    return Truth(
        corpus=corpus,
        documents=tuple(sorted(documents)),
        duplicate=frozenset(duplicate),
        distinct=frozenset(distinct),
        exhaustive=clusters is not None,
        clusters=len(clusters) if clusters is not None else None,
    )
