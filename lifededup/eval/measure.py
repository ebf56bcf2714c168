"""Run detectors over a corpus with known duplicates and score them.

Every detector sees the same documents in the same order (sorted paths, as if
added one by one) and forms clusters the paper's conservative way; a pair of
documents is *accepted* when they end up in the same cluster, which is what
search would hide.  Scores are pairwise: precision and recall of the accepted
pairs against the truth's duplicate pairs.  The word edit distance of accepted
pairs is the paper's own check for false positives (seeds/000 section 3.1).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

from lifededup.detect import collection_statistics, conservative_clusters, make_detector, needs_statistics
from lifededup.eval.truth import Truth, TruthError
from lifededup.extract import Failure, Limits, extract_many
from lifededup.fingerprint.compare import word_edit_distance
from lifededup.normalize import word_stream

__all__ = ["Corpus", "Score", "evaluate", "read_corpus", "true_clusters", "true_pairs"]


@dataclass(frozen=True)
class Corpus:
    """The text of every item of a corpus folder (by item name, sorted), and
    why the others could not be read."""

    texts: dict[str, str]
    failed: dict[str, str]


@dataclass(frozen=True)
class Score:
    detector: str
    precision: float
    recall: float
    f1: float
    accepted_pairs: int
    clusters: int
    bytes_per_doc: float
    ms_per_doc: float
    max_edit_distance: float
    mean_edit_distance: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _files(truth: Truth) -> list[Path]:
    """Every file of the corpus folder but the truth file, in path order."""
    skip = truth.path.resolve()
    return sorted(p for p in truth.corpus.rglob("*") if p.is_file() and p.resolve() != skip)


def read_corpus(truth: Truth, limits: Limits = Limits(), workers: int | None = None) -> Corpus:
    """Extract every item of the corpus folder, as the indexer does (worker
    processes with limits); an item that fails is recorded, not fatal."""
    texts: dict[str, str] = {}
    failed: dict[str, str] = {}
    for outcome in extract_many(_files(truth), limits, workers):
        name = outcome.path.relative_to(truth.corpus).as_posix()
        name = f"{name} [{outcome.part}]" if outcome.part else name
        if isinstance(outcome.result, Failure):
            failed[name] = f"{outcome.result.reason} [{outcome.result.status}]"
        elif outcome.result.text.strip():  # a mailbox itself has no text: its messages follow
            texts[name] = outcome.result.text
    unknown = sorted(truth.named - texts.keys() - failed.keys())
    if unknown:
        raise TruthError(
            f"{truth.path}: {len(unknown):,} items are not in {truth.corpus}: {', '.join(unknown[:5])} "
            "(an item inside a file is written 'file [part]', as lifededup fingerprint prints it)"
        )
    return Corpus(texts=dict(sorted(texts.items())), failed=failed)


def _ratio(part: int, whole: int) -> float:
    # nothing to find and nothing claimed is a perfect score, not a division by zero
    return part / whole if whole else 1.0


def _score_pairs(accepted: set[tuple[str, str]], truth: Truth, documents: set[str]) -> tuple[float, float]:
    duplicate = {p for p in truth.duplicate if p[0] in documents and p[1] in documents}
    if truth.exhaustive:
        judged = accepted
    else:
        judged = accepted & (truth.duplicate | truth.distinct)
    found = len(judged & duplicate)
    return _ratio(found, len(judged)), _ratio(found, len(duplicate))


def score(spec: str, corpus: Corpus, truth: Truth) -> Score:
    """One detector's row of the table."""
    names = list(corpus.texts)
    streams = {n: word_stream(corpus.texts[n]) for n in names}
    statistics = collection_statistics(corpus.texts.values()) if needs_statistics(spec) else None
    detector = make_detector(spec, statistics)
    if names:
        # one untimed signature first: tables and polynomials are made once per
        # process, and would otherwise be charged to a small corpus
        detector.signature(corpus.texts[names[0]])
    started = time.perf_counter()
    signed = [(n, detector.signature(corpus.texts[n])) for n in names]
    cluster_of = conservative_clusters(detector, signed)
    elapsed = time.perf_counter() - started
    members: dict[str, list[str]] = {}
    for name in names:
        members.setdefault(cluster_of[name], []).append(name)
    # names are sorted, so each pair comes out sorted, as the truth's pairs are
    accepted = {pair for group in members.values() for pair in combinations(group, 2)}
    precision, recall = _score_pairs(accepted, truth, set(names))
    distances = [word_edit_distance(streams[a], streams[b]) for a, b in accepted]
    count = max(len(names), 1)
    return Score(
        detector=detector.spec,
        precision=precision,
        recall=recall,
        f1=2 * precision * recall / (precision + recall) if precision + recall else 0.0,
        accepted_pairs=len(accepted),
        clusters=len(members),
        bytes_per_doc=sum(detector.size(s) for _, s in signed) / count,
        ms_per_doc=1000 * elapsed / count,
        max_edit_distance=max(distances, default=0.0),
        mean_edit_distance=sum(distances) / len(distances) if distances else 0.0,
    )


def true_clusters(truth: Truth, corpus: Corpus) -> int | None:
    """How many clusters the truth says the readable items form (None when
    the truth only labels pairs)."""
    if not truth.exhaustive:
        return None
    listed = [sum(m in corpus.texts for m in c) for c in truth.clusters]
    return sum(1 for n in listed if n) + len(corpus.texts) - sum(listed)


def true_pairs(truth: Truth, corpus: Corpus) -> int:
    return sum(1 for a, b in truth.duplicate if a in corpus.texts and b in corpus.texts)


def evaluate(truth: Truth, specs: Sequence[str], corpus: Corpus | None = None) -> list[Score]:
    """Score each detector on the truth's corpus (extracted once for all)."""
    for spec in specs:
        make_detector(spec)  # a bad spec fails before any work is done
    corpus = corpus if corpus is not None else read_corpus(truth)
    return [score(spec, corpus, truth) for spec in specs]
