"""Text in, SHA-1 and super-shingle features out (seeds/000 section 2.2 steps
4-7, after Broder, seeds/001).

- :mod:`.engine` -- the fingerprint of a text, or of many at once
  (:func:`fingerprint`, :func:`fingerprint_many`): shingles, min-wise samples
  under six Rabin polynomials, features;
- :mod:`.rabin` -- the 64-bit Rabin fingerprints they are made of;
- :mod:`.compare` -- how alike two texts are, measured three ways;
- :mod:`.sources` -- many files fingerprinted on every core, in order.
"""

from lifededup.fingerprint.engine import (
    DEFAULT_PARAMS, Shingled, features_of, fingerprint, fingerprint_many, is_near_duplicate, shingle, shingle_values,
    text_sha1,
)
from lifededup.model import Fingerprint, shared_features

__all__ = [
    "DEFAULT_PARAMS",
    "Fingerprint",
    "Shingled",
    "features_of",
    "fingerprint",
    "fingerprint_many",
    "is_near_duplicate",
    "shared_features",
    "shingle",
    "shingle_values",
    "text_sha1",
]
