"""Texts and fingerprints with known relationships, for the store's tests."""

from __future__ import annotations

import hashlib
import random

from lifededup.config import FingerprintParams
from lifededup.fingerprint import fingerprint
from lifededup.model import Fingerprint

PARAMS = FingerprintParams()

VOCAB = [f"{a}{b}" for a in ("bud", "lan", "mor", "tel", "vas", "quo", "ren", "pix")
         for b in ("get", "tern", "ish", "ola", "umbra", "ex", "ford", "ine")]


def prose(seed: int, words: int = 300) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(VOCAB) for _ in range(words))


def revised(text: str, seed: int, changes: int = 1) -> str:
    """The same text with ``changes`` words replaced near the end: a near copy."""
    words = text.split()
    rng = random.Random(seed)
    for _ in range(changes):
        words[len(words) - 1 - rng.randrange(10)] = "revisedword"
    return " ".join(words)


def synthetic(sha1_seed: object, features: tuple[int, ...] | None, words: int = 100) -> Fingerprint:
    """A fingerprint with chosen features: the store's ``features`` rule only
    compares them (``words`` decides who is elected: the longest text)."""
    sha1 = hashlib.sha1(repr(sha1_seed).encode()).hexdigest()
    return Fingerprint(sha1=sha1, features=features, words=words, shingles=97, params=PARAMS)


def fp(text: str) -> Fingerprint:
    return fingerprint(text, PARAMS)
