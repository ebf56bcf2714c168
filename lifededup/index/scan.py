"""Scan stage: the files under the given paths that the rules admit, with
their size and mtime (one ``stat`` each: the cheap first test of "unchanged")."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePath

from lifededup.index.rules import FolderRules


_READ_BYTES = 1 << 20


@dataclass(frozen=True)
class Seen:
    """A file as found on disk."""

    path: str
    size: int
    mtime: float


def absolute(path: Path | str) -> Path:
    """Paths are stored absolute, with symlinks in the folders resolved, so a
    folder named two ways is indexed once."""
    return Path(path).expanduser().resolve()


def scan(root: Path, rules: FolderRules, base: Path | None = None) -> Iterator[Seen]:
    """Every admitted regular file at or under ``root`` (rules apply to the path
    relative to ``base``, the watched folder, when given).  Symlinks are not
    followed: a link into another folder would index that folder twice.
    Unreadable folders are skipped."""
    base = base or (root if root.is_dir() else root.parent)
    if root.is_symlink():
        return
    if root.is_file():
        seen = _stat(root)
        if seen is not None and rules.admits(_relative(root, base)):
            yield seen
        return
    if root.is_dir() and (root == base or rules.admits_folder(_relative(root, base))):
        yield from _walk(root, base, rules)


def _relative(path: Path, base: Path) -> PurePath:
    try:
        return path.relative_to(base)
    except ValueError:
        return PurePath(path.name)


def _stat(path: Path) -> Seen | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return Seen(str(path), st.st_size, st.st_mtime)


def _walk(folder: Path, base: Path, rules: FolderRules) -> Iterator[Seen]:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        path = Path(entry.path)
        relative = _relative(path, base)
        try:
            if entry.is_dir(follow_symlinks=False):
                if rules.admits_folder(relative):
                    yield from _walk(path, base, rules)
            elif entry.is_file(follow_symlinks=False) and rules.admits_file(relative):
                st = entry.stat(follow_symlinks=False)
                yield Seen(entry.path, st.st_size, st.st_mtime)
        except OSError:
            continue  # vanished or unreadable between listing and stat


def raw_sha1(path: str) -> str | None:
    """SHA-1 of the file's bytes (how a moved file is recognised), None if unreadable."""
    try:
        digest = hashlib.sha1()
        with open(path, "rb") as handle:
            while chunk := handle.read(_READ_BYTES):
                digest.update(chunk)
        return digest.hexdigest()
    except OSError:
        return None
