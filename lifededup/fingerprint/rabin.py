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
def times_x_tables(polys: tuple[int, ...], shift_bits: int, count: int = 1) -> npt.NDArray[np.uint64]:
    """Tables for multiplying a fingerprint by ``x^(shift_bits * m)`` mod each
    ``P``, for ``m = 1 .. count`` at once.

    Multiplication by a fixed polynomial is linear over GF(2), so it is the xor
    of what each byte contributes:
    ``T[k, j, b, m-1] = (b * x^(8j)) * x^(shift_bits * m) mod P_k``.
    Shape ``(len(polys), 8, 256, count)``: one lookup of byte ``b`` fetches its
    contribution to all ``count`` products.
    """
    tables = np.zeros((len(polys), 8, 256, count), dtype=U64)
    bits = np.arange(256)
    for k, poly in enumerate(polys):
        for m in range(count):
            factor = polymod(1 << (shift_bits * (m + 1)), poly)
            for j in range(8):
                # linear in b: xor together what each set bit of b contributes
                for bit in range(8):
                    unit = U64(mulmod(1 << (8 * j + bit), factor, poly))
                    tables[k, j, (bits >> bit) & 1 == 1, m] ^= unit
    tables.setflags(write=False)
    return tables


def apply_tables(
    values: npt.NDArray[np.uint64], tables: npt.NDArray[np.uint64]
) -> npt.NDArray[np.uint64]:
    """Multiply row ``k`` of ``values`` (shape ``(K, n)``) by each of the
    ``count`` polynomials that ``tables[k]`` encodes (see
    :func:`times_x_tables`): one table lookup per byte, xored together.
    Returns shape ``(count, n, K)``: for each product, rows of ``K`` values."""
    k, n = values.shape
    if tables.shape[:3] != (k, 8, 256):
        raise ValueError(f"tables of shape {tables.shape} do not fit {k} rows of values")
    count = tables.shape[3]
    # byte j of every value, contiguous: shape (K, 8, n); little-endian, so
    # byte j holds the coefficients of x^(8j) .. x^(8j+7)
    by_byte = np.ascontiguousarray(
        np.ascontiguousarray(values, dtype="<u8").view(np.uint8).reshape(k, n, 8).transpose(0, 2, 1)
    )
    out = np.empty((count, n, k), dtype=U64)
    for row in range(k):
        acc = tables[row, 0].take(by_byte[row, 0], axis=0)  # (n, count)
        for j in range(1, 8):
            acc ^= tables[row, j].take(by_byte[row, j], axis=0)
        out[:, :, row] = acc.T
    return out


def _big_endian_at(buffer: npt.NDArray[np.uint8], offsets: npt.NDArray[np.intp]) -> npt.NDArray[np.uint64]:
    """The 8 bytes at each offset, read as a big-endian integer (zeros past the end)."""
    padded = np.zeros(buffer.size + 8, dtype=np.uint8)
    padded[: buffer.size] = buffer
    windows = np.ndarray((buffer.size + 1,), dtype=">u8", buffer=padded, strides=(1,))
    return windows[offsets].astype(U64)


def rabin_strings(
    buffer: npt.NDArray[np.uint8],
    starts: npt.NDArray[np.intp],
    lengths: npt.NDArray[np.intp],
    polys: tuple[int, ...],
) -> npt.NDArray[np.uint64]:
    """Rabin fingerprints of many byte strings (``buffer[start:start+length]``)
    under every polynomial at once; shape ``(len(polys), n)``.

    A string is read in 8-byte chunks, the first one short when the length is
    not a multiple of 8 (as if padded in front with zero bytes, which do not
    change a polynomial): ``F <- F * x^64 + chunk``.  A string of at most 8
    bytes is already reduced: its fingerprint is itself.
    """
    n, k = starts.size, len(polys)
    if n == 0:
        return np.zeros((k, 0), dtype=U64)
    chunks = (lengths + 7) // 8
    head = lengths - 8 * (chunks - 1)  # bytes in the first chunk, 1..8
    first = _big_endian_at(buffer, starts) >> (U64(8) * (8 - head).astype(U64))
    state = np.repeat(first[None, :], k, axis=0)
    shift = times_x_tables(polys, 64)
    longer = np.flatnonzero(chunks > 1)
    offset = starts + head
    while longer.size:
        chunk = _big_endian_at(buffer, offset[longer])
        state[:, longer] = apply_tables(state[:, longer], shift)[0].T ^ chunk
        offset[longer] += 8
        chunks[longer] -= 1
        longer = longer[chunks[longer] > 1]
    return state
