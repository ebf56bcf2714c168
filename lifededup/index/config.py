"""What one indexing run may do: passed into :func:`lifededup.index.run`, never read globally."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from lifededup.config import FingerprintParams
from lifededup.extract import MAX_TEXT_CHARS, Limits
from lifededup.index.rules import FolderRules


def default_workers() -> int:
    """One extraction process per core (the issue's default)."""
    return max(1, os.cpu_count() or 1)


def max_workers() -> int:
    """The most extraction processes a run starts: more than a few per core
    only adds memory (each may use ``Limits.memory_mb``) and no speed."""
    return max(8, 4 * (os.cpu_count() or 1))


@dataclass(frozen=True)
class IndexConfig:
    """How to index.  ``params`` None means the store's own params (or the
    defaults for a new store)."""

    workers: int = field(default_factory=default_workers)
    limits: Limits = Limits()
    rules: FolderRules = FolderRules()
    params: FingerprintParams | None = None
    # Items per store transaction and per fingerprint_many call: large enough
    # that a commit and numpy's per-call cost are amortised, small enough that
    # a kill -9 loses little work and memory stays flat.
    batch_items: int = 256
    # A slow file (a large PDF) must not hold back the commit of the small
    # files read before it.
    batch_seconds: float = 2.0
    # The most text kept of one item (its cut recorded in items.text_cut):
    # what bounds the indexer's memory however large a file's text is.
    max_text_chars: int = MAX_TEXT_CHARS
    # Read every file again, changed or not (`index --reread`): what a newer
    # lifededup reads better in files indexed by an older one.
    reread: bool = False
