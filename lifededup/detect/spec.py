"""Detectors by name: the ``--detectors`` and ``--dedup`` syntax.

A spec is a detector's name, optionally followed by ``:`` and its one
argument, as :attr:`Detector.spec` prints it::

    shingles[:T]         super-shingles, T shared features of 6 (default 2)
    bytes8[:T]           Broder's 8 one-byte features, T of 8 (default 3)
    imatch               I-Match
    imatch-lex[:K]       I-Match with K random lexicons (default 10)
    minhash[:BxR[:S]]    MinHash-LSH, B bands of R rows, resemblance S (20x5, 0.8)
    simhash[:K]          SimHash, Hamming distance K (default 3)
    verified[:D]         the store's default: candidates by sketch values or a
                         shared feature, admitted within D% word edit distance
                         (default 30) -- the store's own test
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lifededup.config import FingerprintParams
from lifededup.detect.base import Detector
from lifededup.detect.eightbytes import EightBytes
from lifededup.detect.imatch import IMatch, RandomizedIMatch
from lifededup.detect.minhash import MinHashLSH
from lifededup.detect.simhash import SimHash
from lifededup.detect.supershingle import SuperShingles
from lifededup.detect.verified import Verified
from lifededup.detect.terms import CollectionStatistics
from lifededup.fingerprint import DEFAULT_PARAMS
from lifededup.store.similarity import Rule

__all__ = ["DEFAULT_DETECTOR", "DETECTOR_NAMES", "make_detector", "needs_statistics"]

DEFAULT_DETECTOR = "verified"

Factory = Callable[[list[str], FingerprintParams, "CollectionStatistics | None"], Detector[Any]]


def _shingles(args: list[str], params: FingerprintParams, _: CollectionStatistics | None) -> Detector[Any]:
    if args:
        params = FingerprintParams.from_dict({**params.to_dict(), "threshold": int(args[0])})
    return SuperShingles(params)


def _bytes8(args: list[str], params: FingerprintParams, _: CollectionStatistics | None) -> Detector[Any]:
    return EightBytes(int(args[0]), params) if args else EightBytes(params=params)


def _imatch(args: list[str], params: FingerprintParams, stats: CollectionStatistics | None) -> Detector[Any]:
    if args:
        raise ValueError("imatch takes no argument (did you mean imatch-lex:K?)")
    return IMatch(stats, params=params)


def _imatch_lex(args: list[str], params: FingerprintParams, stats: CollectionStatistics | None) -> Detector[Any]:
    options: dict[str, Any] = {"lexicons": int(args[0])} if args else {}
    return RandomizedIMatch(stats, params=params, **options)


def _minhash(args: list[str], params: FingerprintParams, _: CollectionStatistics | None) -> Detector[Any]:
    options: dict[str, Any] = {}
    if args:
        bands, _x, rows = args[0].partition("x")
        if not _x:
            raise ValueError(f"minhash bands are written BxR, e.g. 20x5, not {args[0]!r}")
        options.update(bands=int(bands), rows=int(rows))
    if len(args) > 1:
        options["threshold"] = float(args[1])
    return MinHashLSH(params=params, **options)


def _simhash(args: list[str], params: FingerprintParams, _: CollectionStatistics | None) -> Detector[Any]:
    options: dict[str, Any] = {"distance": int(args[0])} if args else {}
    return SimHash(params=params, **options)


def _verified(args: list[str], params: FingerprintParams, _: CollectionStatistics | None) -> Detector[Any]:
    rule = Rule.parse("verified" + (":" + args[0] if args else ""))
    return Verified(rule, params=params)


_FACTORIES: dict[str, Factory] = {
    "verified": _verified,
    "shingles": _shingles,
    "bytes8": _bytes8,
    "imatch": _imatch,
    "imatch-lex": _imatch_lex,
    "minhash": _minhash,
    "simhash": _simhash,
}
DETECTOR_NAMES = tuple(_FACTORIES)
_MAX_ARGS = {"minhash": 2}


def needs_statistics(spec: str) -> bool:
    """Whether the detector uses collection statistics (I-Match's IDF cut)."""
    return spec.partition(":")[0] in ("imatch", "imatch-lex")


def make_detector(
    spec: str,
    statistics: CollectionStatistics | None = None,
    params: FingerprintParams = DEFAULT_PARAMS,
) -> Detector[Any]:
    """The detector a spec names; ``ValueError`` saying what is wrong otherwise."""
    name, *args = spec.strip().split(":")
    factory = _FACTORIES.get(name)
    if factory is None:
        raise ValueError(f"unknown detector {name!r}; choose from {', '.join(DETECTOR_NAMES)}")
    if len(args) > _MAX_ARGS.get(name, 1):
        raise ValueError(f"too many arguments in detector spec {spec!r}")
    try:
        return factory(args, params, statistics)
    except ValueError as exc:
        raise ValueError(f"bad detector spec {spec!r}: {exc}") from exc
