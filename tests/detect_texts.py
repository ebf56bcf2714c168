"""Synthetic documents for the detector tests: seeded, made of invented words
(no stop words, no numbers), so that every word is a term."""

from __future__ import annotations

import random

SYLLABLES = ["ka", "lo", "mi", "ren", "tus", "vo", "zan", "pel", "dri", "quo", "sil", "bar", "nex", "fo"]


def vocabulary(size: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    words: dict[str, None] = {}
    while len(words) < size:
        words["".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))] = None
    return list(words)


def document(rng: random.Random, vocab: list[str], length: int = 300) -> list[str]:
    return [rng.choice(vocab) for _ in range(length)]


def substitute(rng: random.Random, words: list[str], vocab: list[str], count: int) -> list[str]:
    """``words`` with ``count`` positions replaced by random vocabulary words."""
    changed = list(words)
    for position in rng.sample(range(len(words)), count):
        changed[position] = rng.choice(vocab)
    return changed
