"""One text and what detectors make of it, each made once.

Detectors side by side (``lifededup eval``) read the same texts, and most of
their cost is not their own sketch but normalizing and shingling the text:
super-shingles and the verified rule both fingerprint it under the default
parameters, SimHash, I-Match, its lexicon variant and I-Match's collection
statistics all count its terms, and every detector hashes its word stream.
A :class:`PreparedText` keeps each of these the first time one is asked for,
so the next detector gets the very same value (the same function on the
same text) without the work.  A detector that can make its part for many
texts at once does so in :meth:`Detector.prepare` (the fingerprint, by
:func:`fingerprint_all`, a batch at a time).  A plain ``str`` given to a
detector is prepared for that one call, as before.
"""

from __future__ import annotations

from collections.abc import Sequence

from lifededup.config import FingerprintParams
from lifededup.detect.terms import TermCounts, term_counts
from lifededup.fingerprint import DEFAULT_PARAMS, fingerprint, fingerprint_many
from lifededup.model import Fingerprint
from lifededup.normalize import DocFrequencies, word_stream

__all__ = ["PreparedText", "Text", "fingerprint_all", "prepared"]


class PreparedText:
    """A text, with its word stream, fingerprints and term counts kept as
    they are made (one per set of parameters)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._stream: str | None = None
        self._fingerprints: dict[FingerprintParams, Fingerprint] = {}
        self._terms: dict[FingerprintParams, TermCounts] = {}

    def word_stream(self) -> str:
        if self._stream is None:
            self._stream = word_stream(self.text)
        return self._stream

    def fingerprint(self, params: FingerprintParams = DEFAULT_PARAMS,
                    doc_freq: DocFrequencies | None = None) -> Fingerprint:
        if doc_freq is not None:
            # not kept: statistics are not hashable, and no two detectors of
            # one run are given the same ones
            return fingerprint(self.text, params, doc_freq)
        if params not in self._fingerprints:
            self._fingerprints[params] = fingerprint(self.text, params)
        return self._fingerprints[params]

    def term_counts(self, params: FingerprintParams = DEFAULT_PARAMS) -> TermCounts:
        if params not in self._terms:
            self._terms[params] = term_counts(self.text, params)
        return self._terms[params]


def fingerprint_all(texts: Sequence[PreparedText], params: FingerprintParams = DEFAULT_PARAMS,
                    doc_freq: DocFrequencies | None = None) -> None:
    """Fingerprint every text not yet fingerprinted under ``params``, a batch
    at a time (:func:`~lifededup.fingerprint.fingerprint_many`, as the indexer
    does): one vectorised pass for many small texts, where one call a text
    pays numpy's fixed cost each time.  Each text's fingerprint is the one
    :func:`~lifededup.fingerprint.fingerprint` gives it alone."""
    if doc_freq is not None:
        return  # never kept (PreparedText.fingerprint)
    missing = [t for t in texts if params not in t._fingerprints]
    for text, made in zip(missing, fingerprint_many([t.text for t in missing], params)):
        text._fingerprints[params] = made


#: what a detector sketches: a text, or one prepared for several detectors
Text = str | PreparedText


def prepared(text: Text) -> PreparedText:
    """``text`` as a :class:`PreparedText` (a new one for a ``str``)."""
    return text if isinstance(text, PreparedText) else PreparedText(text)
