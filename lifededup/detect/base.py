"""The one contract every near-duplicate detector keeps.

A detector turns a text into a :class:`Signature`, names the index keys under
which the signature is filed, and decides whether two signatures are
near-duplicates.  Finding candidates is always the same indexed lookup --
items that share at least one key -- whether the keys live in the in-memory
:class:`~lifededup.detect.index.CandidateIndex` or in a store table, so each
detector's keys are chosen so that every pair it would accept shares a key:

* super-shingles and the 8-byte variant: (feature position, feature value);
* MinHash-LSH: (band, hash of the band's rows);
* SimHash: (Manku block, block bits), k + 1 blocks for Hamming distance k;
* I-Match: (lexicon, SHA-1 of the lexicon's terms).

A key is two integers, ``(slot, value)`` with ``value`` a signed 64-bit number,
so that it stores unchanged in an indexed SQLite table.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

from lifededup.detect.prepared import PreparedText, Text, prepared

__all__ = ["EXACT_SLOT", "Detector", "IndexKey", "Signature", "as_signed64", "signed64"]

IndexKey = tuple[int, int]
Body = TypeVar("Body")

# Slot of the key every signature is also filed under: the first 8 bytes of the
# SHA-1 of the word stream, so that exact copies (seeds/000 step 6) are found by
# every detector, whatever its own signature makes of a short text.
EXACT_SLOT = -1


def as_signed64(value: int) -> int:
    """An unsigned 64-bit number as the signed one with the same bits."""
    return value - (1 << 64) if value >= 1 << 63 else value


def signed64(digest: bytes) -> int:
    """The first 8 bytes of a digest as a signed 64-bit integer (SQLite INTEGER)."""
    return int.from_bytes(digest[:8], "big", signed=True)


@dataclass(frozen=True)
class Signature(Generic[Body]):
    """What a detector keeps of one text.

    ``sha1`` identifies exact copies; ``body`` is the detector's own sketch, or
    ``None`` when the text is too short for it (it then matches exact copies
    only, as the paper does for texts with too few shingles).
    """

    sha1: str
    body: Body | None


class Detector(ABC, Generic[Body]):
    """Signature of a document, its index keys, and the near-duplicate decision."""

    #: short name used on the command line (``--detectors``) and in table names
    name: ClassVar[str]

    @abstractmethod
    def sketch(self, text: Text) -> Body | None:
        """The detector's own sketch of ``text`` (``None``: too short for it)."""

    @abstractmethod
    def body_keys(self, body: Body) -> list[IndexKey]:
        """Keys under which ``body`` is filed; every accepted pair shares one."""

    @abstractmethod
    def similar(self, a: Body, b: Body) -> bool:
        """The detector's near-duplicate decision on two sketches."""

    @abstractmethod
    def encode(self, body: Body) -> bytes:
        """The sketch as bytes, as a store keeps it; its length is the size."""

    @abstractmethod
    def decode(self, raw: bytes) -> Body:
        """Inverse of :meth:`encode`."""

    @property
    def spec(self) -> str:
        """How to ask for this very detector again (``name:args``)."""
        return self.name

    def prepare(self, texts: Sequence[PreparedText]) -> None:
        """Make at once, for every text, what :meth:`sketch` will ask of each
        (nothing, unless a detector has a faster way for many texts)."""

    def signature(self, text: Text) -> Signature[Body]:
        """The sketch, and the SHA-1 the fingerprint stage gives exact copies."""
        made = prepared(text)
        sha1 = hashlib.sha1(made.word_stream().encode("utf-8")).hexdigest()
        return Signature(sha1=sha1, body=self.sketch(made))

    def keys(self, signature: Signature[Body]) -> list[IndexKey]:
        exact = (EXACT_SLOT, signed64(bytes.fromhex(signature.sha1)))
        if signature.body is None:
            return [exact]
        return [exact, *self.body_keys(signature.body)]

    def is_near_duplicate(self, a: Signature[Body], b: Signature[Body]) -> bool:
        """Exact copies, or near-duplicates by the detector's own test."""
        if a.sha1 == b.sha1:
            return True
        if a.body is None or b.body is None:
            return False
        return self.similar(a.body, b.body)

    def size(self, signature: Signature[Body]) -> int:
        """Bytes the detector's sketch takes (the SHA-1 is the store's anyway)."""
        return 0 if signature.body is None else len(self.encode(signature.body))
