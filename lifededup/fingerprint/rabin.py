"""64-bit Rabin fingerprints: polynomial arithmetic over GF(2) modulo an
irreducible polynomial of degree 64 (Rabin '81, Broder '93; seeds/001).

A byte string ``A`` is read as a polynomial ``A(x)`` over Z_2, most significant
bit first, and its fingerprint is ``A(x) mod P(x)``.  A polynomial of degree 64
is stored as the integer of its low 64 coefficients; the ``x^64`` term is
implicit.

Two implementations live here and are tested against each other:

* ``rabin_reference`` -- bit at a time on Python integers, slow and obvious;
* the table-driven, numpy-vectorised one used by the fingerprint stage, which
  multiplies by ``x^64`` with eight byte-indexed tables (one table lookup + one
  xor per byte, as in the slides), over whole arrays at once.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

import numpy as np
import numpy.typing as npt

U64 = np.uint64
MASK64 = (1 << 64) - 1
DEGREE = 64


def clmul(a: int, b: int) -> int:
    """Carry-less product of two polynomials over GF(2)."""
    out = 0
    while b:
        low = b & -b
        out ^= a << (low.bit_length() - 1)
        b ^= low
    return out


def polymod(a: int, poly: int) -> int:
    """``a(x) mod P(x)`` for the degree-64 ``P`` whose low bits are ``poly``."""
    full = poly | (1 << DEGREE)
    while a.bit_length() > DEGREE:
        a ^= full << (a.bit_length() - DEGREE - 1)
    return a


def mulmod(a: int, b: int, poly: int) -> int:
    return polymod(clmul(a, b), poly)


def _gcd(a: int, b: int) -> int:
    while b:
        while a.bit_length() >= b.bit_length() and a:
            a ^= b << (a.bit_length() - b.bit_length())
        a, b = b, a
    return a


def is_irreducible(poly: int) -> bool:
    """Rabin's test for a degree-64 polynomial: ``x^(2^64) = x mod P`` and,
    since 64 = 2^6 has the single prime factor 2, ``gcd(x^(2^32) - x, P) = 1``."""
    if not poly & 1:
        return False  # divisible by x
    x = 2
    power = x
    for step in range(1, DEGREE + 1):
        power = mulmod(power, power, poly)  # x^(2^step)
        if step == DEGREE // 2 and _gcd(poly | (1 << DEGREE), power ^ x) != 1:
            return False
    return power == x


def find_polynomials(seed: int, count: int) -> tuple[int, ...]:
    """``count`` distinct irreducible polynomials, drawn deterministically.

    Broder wants ``P`` "chosen uar" among irreducibles; we draw candidates from
    SHA-1 of a counter (the same on every machine, unlike Python's ``hash``)
    and keep the first ``count`` that pass :func:`is_irreducible`.  About one
    candidate in 64 passes.
    """
    found: list[int] = []
    attempt = 0
    while len(found) < count:
        digest = hashlib.sha1(f"lifededup rabin {seed} {attempt}".encode()).digest()
        candidate = int.from_bytes(digest[:8], "big") | 1
        attempt += 1
        if candidate not in found and is_irreducible(candidate):
            found.append(candidate)
    return tuple(found)


# find_polynomials(1, 6), written out so that start-up does not search for
# them; tests/test_rabin.py checks that the search still gives these.
DEFAULT_POLYNOMIALS: dict[int, tuple[int, ...]] = {
    1: (
        0xCF1BFB3524B1EE61,
        0x7169FA957D12A8EF,
        0xE490706AFB7AD8E9,
        0x9EA7998430B8EF31,
        0x360C8EA4AB9CB4C9,
        0xE9F476894024E885,
    ),
}


@lru_cache(maxsize=8)
def polynomials(seed: int, count: int) -> tuple[int, ...]:
    known = DEFAULT_POLYNOMIALS.get(seed, ())
    if len(known) >= count:
        return known[:count]
    return find_polynomials(seed, count)


def rabin_reference(data: bytes, poly: int) -> int:
    """The fingerprint of ``data``, one bit at a time."""
    full = poly | (1 << DEGREE)
    value = 0
    for byte in data:
        for bit in range(7, -1, -1):
            value = (value << 1) | ((byte >> bit) & 1)
            if value >> DEGREE:
                value ^= full
    return value


@lru_cache(maxsize=32)
def times_x_tables(polys: tuple[int, ...], shift_bits: int) -> npt.NDArray[np.uint64]:
    """Tables for multiplying a fingerprint by ``x^shift_bits`` mod each ``P``.

    Multiplication by a fixed polynomial is linear over GF(2), so it is the xor
    of what each byte contributes: ``T[k, j, b] = (b * x^(8j)) * x^shift mod P_k``.
    Shape ``(len(polys), 8, 256)``.
    """
    tables = np.zeros((len(polys), 8, 256), dtype=U64)
    bits = np.arange(256)
    for k, poly in enumerate(polys):
        factor = polymod(1 << shift_bits, poly)
        for j in range(8):
            # linear in b: xor together what each set bit of b contributes
            for bit in range(8):
                unit = U64(mulmod(1 << (8 * j + bit), factor, poly))
                tables[k, j, (bits >> bit) & 1 == 1] ^= unit
    tables.setflags(write=False)
    return tables


def apply_tables(
    values: npt.NDArray[np.uint64], tables: npt.NDArray[np.uint64]
) -> npt.NDArray[np.uint64]:
    """Multiply every column ``k`` of ``values`` (shape ``(n, K)``) by the
    polynomial that ``tables[k]`` encodes."""
    n, k = values.shape
    if tables.shape != (k, 8, 256):
        raise ValueError(f"tables of shape {tables.shape} do not fit values with {k} columns")
    flat = tables.reshape(k * 8 * 256)
    base = (np.arange(k, dtype=np.intp) * (8 * 256))[None, :]
    out = np.zeros((n, k), dtype=U64)
    for j in range(8):
        byte = ((values >> U64(8 * j)) & U64(0xFF)).astype(np.intp)
        out ^= flat[base + j * 256 + byte]
    return out


def rabin_strings(
    encoded: list[bytes], polys: tuple[int, ...], shift64: npt.NDArray[np.uint64]
) -> npt.NDArray[np.uint64]:
    """Rabin fingerprints of many byte strings under every polynomial at once.

    Each string is padded in front with zero bytes to a multiple of 8 (leading
    zeros do not change a polynomial) and consumed 8 bytes at a time:
    ``F <- F * x^64 + chunk``.  Strings are processed longest first, so the
    strings still being read at step ``c`` are a prefix of the array.
    ``shift64`` is ``times_x_tables(polys, 64)``.  Returns shape ``(n, K)``.
    """
    n, k = len(encoded), len(polys)
    out = np.zeros((n, k), dtype=U64)
    if n == 0:
        return out
    lengths = np.fromiter(map(len, encoded), dtype=np.intp, count=n)
    chunks = (lengths + 7) // 8
    order = np.argsort(-chunks, kind="stable")
    width = int(chunks[order[0]]) * 8
    padded = np.zeros((n, width), dtype=np.uint8)
    flat = np.frombuffer(b"".join(encoded[i] for i in order), dtype=np.uint8)
    sorted_lengths = lengths[order]
    row = np.repeat(np.arange(n), sorted_lengths)
    starts = np.cumsum(sorted_lengths) - sorted_lengths
    column = np.arange(flat.size) - np.repeat(starts, sorted_lengths)
    column += np.repeat(chunks[order] * 8 - sorted_lengths, sorted_lengths)
    padded[row, column] = flat
    words = padded.view(">u8").astype(U64)  # (n, width/8), big-endian chunks
    sorted_chunks = chunks[order]
    state = np.zeros((n, k), dtype=U64)
    for c in range(width // 8):
        active = int(np.count_nonzero(sorted_chunks > c))
        head = state[:active]
        if c:
            head = apply_tables(head, shift64)
        state[:active] = head ^ words[:active, c][:, None]
    out[order] = state
    return out
