"""The Rabin fingerprint's algebra (seeds/001), and the fast table-driven
implementation against the slow bit-at-a-time reference."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lifededup.fingerprint.rabin import (
    DEFAULT_POLYNOMIALS,
    find_polynomials,
    is_irreducible,
    mulmod,
    polymod,
    rabin_reference,
    rabin_strings,
)

POLYS = DEFAULT_POLYNOMIALS[1]
P = POLYS[0]


def test_written_out_polynomials_are_what_the_search_finds() -> None:
    assert find_polynomials(1, 6) == POLYS, "DEFAULT_POLYNOMIALS drifted from find_polynomials(1, 6)"


def test_polynomials_are_irreducible_and_reducible_ones_are_caught() -> None:
    for poly in POLYS:
        assert is_irreducible(poly), f"{poly:#x} should be irreducible"
    # x^64 + 1 = (x + 1)^64 and x^64 + x^32 + 1 = (x^32 + x^16 + 1)^2 ... both reducible
    assert not is_irreducible(1), "x^64 + 1 is (x+1)^64"
    assert not is_irreducible((1 << 32) | 1), "x^64 + x^32 + 1 is a square"
    assert not is_irreducible(0b10), "a polynomial without constant term is divisible by x"


def test_reference_is_polynomial_remainder() -> None:
    data = b"a rose is a rose is a rose"
    as_int = int.from_bytes(data, "big")
    assert rabin_reference(data, P) == polymod(as_int, P)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=40), st.binary(max_size=40))
def test_extension_property(a: bytes, b: bytes) -> None:
    """f(a . b) = f(f(a) . b): the fingerprint of a concatenation needs only
    the fingerprint of the prefix (Broder's "nice extra property")."""
    fa = rabin_reference(a, P)
    # f(a) . b as a polynomial: f(a) * x^(8|b|) + b
    via_prefix = polymod(mulmod(fa, polymod(1 << (8 * len(b)), P), P) ^ int.from_bytes(b, "big"), P)
    assert rabin_reference(a + b, P) == via_prefix


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=40), st.binary(max_size=40))
def test_linearity_over_gf2(a: bytes, b: bytes) -> None:
    """Equal-length strings: f(a xor b) = f(a) xor f(b)."""
    size = max(len(a), len(b))
    a, b = a.rjust(size, b"\0"), b.rjust(size, b"\0")
    xored = bytes(x ^ y for x, y in zip(a, b))
    assert rabin_reference(xored, P) == rabin_reference(a, P) ^ rabin_reference(b, P)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.binary(min_size=1, max_size=70), min_size=1, max_size=30))
def test_vectorised_strings_agree_with_reference(strings: list[bytes]) -> None:
    lengths = np.array([len(s) for s in strings], dtype=np.intp)
    starts = np.cumsum(lengths) - lengths
    buffer = np.frombuffer(b"".join(strings), dtype=np.uint8)
    got = rabin_strings(buffer, starts, lengths, POLYS)
    for k, poly in enumerate(POLYS):
        want = [rabin_reference(s, poly) for s in strings]
        assert got[k].tolist() == want, f"polynomial {k}: {got[k].tolist()} != {want}"
