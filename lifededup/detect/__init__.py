"""Near-duplicate detectors side by side (seeds/001-004) behind one contract.

The store's verified rule (:class:`Verified`) is the default, the paper's
super-shingles its first stage; I-Match, its lexicon-randomized
variant, MinHash-LSH, SimHash with Manku's block tables and Broder's 8-byte
variant sit beside it so that they can be measured on the same documents.
Each detector gives a text a :class:`Signature`, files it under index keys,
and decides near-duplicates; :class:`CandidateIndex` is the in-memory lookup,
:func:`conservative_clusters` the store's clustering engine over it,
:func:`make_detector` builds one from a spec such as ``"simhash:3"``, and
:func:`dedup_results` de-duplicates a query's result set (seeds/004);
a :class:`PreparedText` is one text several detectors share, normalized,
fingerprinted and counted once.
"""

from lifededup.detect.base import EXACT_SLOT, Detector, IndexKey, Signature
from lifededup.detect.eightbytes import EightBytes
from lifededup.detect.imatch import IMatch, RandomizedIMatch
from lifededup.detect.index import CandidateIndex, conservative_clusters
from lifededup.detect.minhash import MinHashLSH
from lifededup.detect.prepared import PreparedText
from lifededup.detect.query import Deduplicated, dedup_results
from lifededup.detect.simhash import SimHash
from lifededup.detect.spec import DEFAULT_DETECTOR, DETECTOR_NAMES, make_detector, needs_statistics
from lifededup.detect.supershingle import SuperShingles
from lifededup.detect.terms import CollectionStatistics, collection_statistics
from lifededup.detect.verified import Verified, VerifiedSketch

__all__ = [
    "DEFAULT_DETECTOR",
    "DETECTOR_NAMES",
    "EXACT_SLOT",
    "CandidateIndex",
    "CollectionStatistics",
    "Deduplicated",
    "Detector",
    "EightBytes",
    "IMatch",
    "IndexKey",
    "MinHashLSH",
    "PreparedText",
    "RandomizedIMatch",
    "Signature",
    "SimHash",
    "SuperShingles",
    "Verified",
    "VerifiedSketch",
    "collection_statistics",
    "conservative_clusters",
    "dedup_results",
    "make_detector",
    "needs_statistics",
]
