"""Domain types shared by every stage (the only module besides ``config`` that
any stage may import)."""

from __future__ import annotations

import itertools
import math
import os
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from lifededup.config import FingerprintParams


@dataclass(frozen=True)
class Fingerprint:
    """What the fingerprint stage says about one text.

    ``sha1`` is the hex SHA-1 of the normalized word stream (exact copies);
    ``features`` are the super-shingle features as signed 64-bit integers (so
    they store unchanged in SQLite's INTEGER), or ``None`` when the text has too
    few shingles to sample (it is then matched by ``sha1`` only).
    """

    sha1: str
    features: tuple[int, ...] | None
    words: int
    shingles: int
    params: FingerprintParams
    # The 84 Rabin minima the features are hashed from (features x minima
    # big-endian uint64, polynomial by polynomial), kept as the sketch the
    # verified second stage estimates resemblance from; None with features.
    sketch: bytes | None = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "sha1": self.sha1,
            "features": list(self.features) if self.features is not None else None,
            "words": self.words,
            "shingles": self.shingles,
            "params": self.params.to_dict(),
        }


def shared_features(a: tuple[int, ...] | None, b: tuple[int, ...] | None) -> int:
    """How many feature positions two documents agree on (0 if either has none)."""
    if a is None or b is None:
        return 0
    if len(a) != len(b):
        raise ValueError(f"feature vectors differ in length: {len(a)} != {len(b)}")
    return sum(1 for x, y in zip(a, b) if x == y)


# File names are bytes on POSIX; Python gives an undecodable byte as a lone
# surrogate (U+DC80..U+DCFF, PEP 383), which SQLite's UTF-8 cannot hold.  The
# store therefore keeps a path in a text form that is valid UTF-8 and maps
# back to the bytes: a path that is valid UTF-8 and has no backslash is kept
# as it is; otherwise each byte that is not UTF-8 becomes ``\xNN`` and each
# backslash ``\\``.  Every such form has a backslash and no plain path has
# one, so two different file names never share a stored path.
_ESCAPED = re.compile(r"\\(\\|x[0-9a-f]{2})")


def stored_path(path: str) -> str:
    """The store's text for a file name as Python gives it (``os.fsdecode``)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        pass
    else:
        if "\\" not in path:
            return path
    return _escape_bytes(os.fsencode(path))


def _escape_bytes(raw: bytes) -> str:
    out: list[str] = []
    text = raw.decode("utf-8", "surrogateescape")
    for char in text:
        if char == "\\":
            out.append("\\\\")
        elif "\udc80" <= char <= "\udcff":
            out.append(f"\\x{ord(char) - 0xDC00:02x}")
        else:
            out.append(char)
    return "".join(out)


# A name the store holds as its bytes give it; a Mac writes names decomposed
# (NFD: "Re" U+0301), a keyboard types them composed (NFC: "\u00e9"), and a
# folder copied from one may hold files named on the other.  Each name of a
# path is tried either way while that makes at most this many paths (four
# names that differ); past it, only the whole path either way.
_MIXED_FORMS = 16


def name_forms(path: str) -> list[str]:
    """The texts a typed (or stored) path may be stored as: as it is first,
    then composed (NFC) and decomposed (NFD), whole and name by name.  A path
    whose forms are all one (ASCII, say) is itself alone."""
    if path.isascii():
        return [path]
    names = [list(dict.fromkeys([name, *_normal_forms(name)])) for name in path.split("/")]
    whole = [path, *_normal_forms(path)]
    if math.prod(len(n) for n in names) <= _MIXED_FORMS:
        whole += ["/".join(chosen) for chosen in itertools.product(*names)]
    return list(dict.fromkeys(whole))


def _normal_forms(text: str) -> tuple[str, str]:
    return unicodedata.normalize("NFC", text), unicodedata.normalize("NFD", text)


def fs_path(stored: str) -> str:
    """The file name a stored path stands for, ready for ``open()`` (the inverse of :func:`stored_path`)."""
    if "\\" not in stored:
        return stored
    return _ESCAPED.sub(_unescape, stored)


def _unescape(match: re.Match[str]) -> str:
    code = match.group(1)
    return "\\" if code == "\\" else chr(0xDC00 + int(code[1:], 16))


_CONTROLS = {code: f"\\x{code:02x}" for code in (*range(0x20), 0x7F)}
# The characters that reorder what follows them, embeddings, overrides and
# isolates (the Trojan Source list, CVE-2021-42574): "photo\u202egnp.txt" would
# print as "phototxt.png".  Shown as \uNNNN, which `show` takes back too; the
# plain marks of right-to-left text (U+200F) stay as they are.
BIDI_CONTROLS = frozenset({*range(0x202A, 0x202F), *range(0x2066, 0x206A)})
REORDERING = {code: f"\\u{code:04x}" for code in BIDI_CONTROLS}  # (the web view's pages too)
_CONTROLS.update(REORDERING)


def shown(name: str) -> str:
    """A stored name (or a title, a reason) with its control characters as
    ``\\xNN``, the store's escape for a byte (README, ``items.path``), and
    its marks of writing direction as ``\\uNNNN``: a file name holding a
    newline prints on one line, one holding an escape sequence does not
    drive the terminal or forge a log line, one holding a right-to-left
    override does not print as another name, and the name printed, pasted
    back (``lifededup show``), finds the item."""
    return name.translate(_CONTROLS)


# A stored escape: a backslash, or a byte; below 0x80 a control character as
# shown() prints it, at or above a byte that is not UTF-8; or a character
# that reorders text, as shown() prints it (BIDI_CONTROLS).
_PRINTED = re.compile(r"\\(\\|x[0-9a-f]{2}|u[0-9a-f]{4})")


def from_shown(printed: str) -> str:
    """The stored name a printed one stands for (the inverse of :func:`shown`,
    for a name pasted back: ``show``, ``folders remove``): a control
    character printed as ``\\x0a`` (or ``\\u202e``) is the character, a
    byte that is not UTF-8 and a backslash stay as the store escapes them."""
    def control(m: re.Match[str]) -> str:
        code = m.group(1)
        if code == "\\":
            return m.group(0)
        value = int(code[1:], 16)
        shown_as_control = value < 0x80 if code[0] == "x" else value in BIDI_CONTROLS
        return chr(value) if shown_as_control else m.group(0)

    return _PRINTED.sub(control, printed)


def a_kind(kind: str) -> str:
    """An item's kind with its article, as a sentence says it: "a web page", "an event", "an email"."""
    return f"{'an' if kind[:1] in ('a', 'e', 'i', 'o', 'u') else 'a'} {kind}"


def lasting(seconds: float) -> str:
    """How long, as a person says it: 42 s, 3 min 5 s, 2 h 10 min (the
    watcher's states, a store's upgrade revision by revision)."""
    whole = max(int(seconds), 0)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60} min"


# reStructuredText's roles: ``:role:`text``` (``:py:meth:`` too) and ```text`:role:``, of which a built page
# shows the text, not the role.  The reST reader leaves them out of a text (extract/rst.py), and a query pasted
# from a source leaves them out likewise (search/results.py), or ``:meth:`` was a word no stored text holds.
# No look-behind: a pattern that starts with its colon is sought as a literal (a look-behind before it made
# the substitution 25 times slower, 3 s over the two real archives' 31 MB of sources)
_RST_ROLE = re.compile(r":[A-Za-z][\w.+-]*(?::[A-Za-z][\w.+-]*)*:(?=`)")
_RST_ROLE_AFTER = re.compile(r"`:[A-Za-z][\w.+-]*:")


def without_roles(text: str) -> str:
    """``text`` without the reST roles around its interpreted text: ``:meth:`Flask.route``` -> ```Flask.route```."""
    return _RST_ROLE_AFTER.sub("`", _RST_ROLE.sub("", text))
