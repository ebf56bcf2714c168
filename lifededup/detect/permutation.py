"""Seeded random permutations of the 64-bit integers, vectorized.

Min-hashing needs "a random permutation sigma of [0..2^64)" per sample
(Broder, seeds/001; seeds/003).  A truly random one is undoable, so -- like the
"linear transformations [that] work reasonably well in practice" of the slides
-- we use an easy family: ``sigma_i(x) = mix(x xor key_i)``, where ``mix`` is
the SplitMix64 finalizer (Steele, Lea & Flood 2014).  Every step of ``mix`` is
invertible on 64 bits (xor-shift, multiplication by an odd constant), so each
``sigma_i`` is a true permutation, and the keys come from SHA-1 of a seed, so
they are the same on every machine.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

import numpy as np
import numpy.typing as npt

__all__ = ["U64", "mix64", "permutation_keys", "permute"]

U64 = np.uint64
# SplitMix64's finalizer constants (Steele, Lea & Flood, OOPSLA 2014).
_M1 = U64(0xBF58476D1CE4E5B9)
_M2 = U64(0x94D049BB133111EB)


def mix64(x: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """A bijection of the 64-bit integers that scatters nearby inputs."""
    x = x ^ (x >> U64(30))
    x = x * _M1
    x = x ^ (x >> U64(27))
    x = x * _M2
    return x ^ (x >> U64(31))


@lru_cache(maxsize=32)
def permutation_keys(seed: int, count: int, purpose: str) -> npt.NDArray[np.uint64]:
    """``count`` 64-bit keys, one per permutation, derived from ``seed``."""
    raw = b"".join(
        hashlib.sha1(f"lifededup {purpose} {seed} {i}".encode()).digest()[:8] for i in range(count)
    )
    keys = np.frombuffer(raw, dtype=">u8").astype(U64)
    keys.setflags(write=False)
    return keys


def permute(values: npt.NDArray[np.uint64], keys: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """``sigma_i(v)`` for every value and every key: shape ``(len(values), len(keys))``."""
    if values.dtype != U64 or keys.dtype != U64:
        raise ValueError(f"permute wants uint64 arrays, got {values.dtype} and {keys.dtype}")
    return mix64(values[:, None] ^ keys[None, :])

