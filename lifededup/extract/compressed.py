"""A compressed file (``ls.1.gz``, ``bash.info.gz``, ``notes.txt.bz2``, ``gpl2.txt.xz``) is read as what it holds.

A ``.gz``, ``.bz2`` or ``.xz`` compresses one file: that file's text is the
compressed file's own text (a man page and its gzipped copy are the same
document), with ``compressed`` and ``member`` in its metadata.  A gzipped tar
is an archive (:mod:`lifededup.extract.archive`), and a tar compressed by
bzip2 or xz is left to it.  Unpacking stops at the limit on unpacked size
(a bomb: a few KiB that unpack to gigabytes), whatever the compression.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import zlib
from pathlib import PurePosixPath

from lifededup.extract.archive import is_compressed_tar
from lifededup.extract.base import CorruptFile, Extracted, Format, Probe, Source, TooLarge

_INNER_SUFFIX = {".tgz": ".tar", ".svgz": ".svg"}
_COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz")
_XZ = b"\xfd7zXZ\x00"


def _compression(head: bytes) -> str:
    """``"gzip"``, ``"bzip2"`` or ``"xz"`` by the data's signature; ``""`` for none of them."""
    if head.startswith(b"\x1f\x8b"):
        return "gzip"
    # "BZh", the block size (1-9), then a block's magic (pi) or the end of an empty stream's (sqrt pi)
    if head[:3] == b"BZh" and head[3:4] in b"123456789" and head[4:10] in (b"1AY&SY", b"\x17rE8P\x90"):
        return "bzip2"
    return "xz" if head.startswith(_XZ) else ""


def _open(kind: str, data: io.BytesIO) -> bz2.BZ2File | lzma.LZMAFile | gzip.GzipFile:
    if kind == "bzip2":
        return bz2.BZ2File(data)
    if kind == "xz":
        return lzma.LZMAFile(data)
    return gzip.GzipFile(fileobj=data, mode="rb")


def unpack(source: Source) -> tuple[str, bytes]:
    """The compression and the unpacked bytes, refused past the limit on unpacked size."""
    kind = _compression(source.head(16)) or "gzip"
    limit = source.limits.max_unpacked_bytes
    try:
        with _open(kind, io.BytesIO(source.read_bytes())) as stream:
            data = stream.read(limit + 1)
    except (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError) as exc:
        raise CorruptFile(f"damaged {kind} data: {exc}") from exc
    if len(data) > limit:
        raise TooLarge(f"refused as a bomb: {source.name} unpacks to more than {limit / 2**20:.0f} MiB")
    return kind, data


def gunzip(source: Source) -> bytes:
    """The unpacked bytes of a gzip (or bzip2, xz) file, refused past the limit on unpacked size."""
    return unpack(source)[1]


def inner_name(name: str) -> str:
    """``ls.1.gz`` -> ``ls.1``; ``notes.txt.bz2`` -> ``notes.txt``; ``backup.tgz`` -> ``backup.tar``."""
    path = PurePosixPath(name)
    suffix = path.suffix.lower()
    if suffix in _INNER_SUFFIX:
        return path.stem + _INNER_SUFFIX[suffix]
    return path.stem if suffix in _COMPRESSED_SUFFIXES else name


def extract_gzip(source: Source) -> Extracted:
    from lifededup.extract.registry import extract_source  # the registry imports this module

    if source.depth >= source.limits.max_depth:
        raise TooLarge(f"{source.name} is nested {source.depth} containers deep (limit {source.limits.max_depth})")
    name = inner_name(source.name)
    kind, data = unpack(source)
    found = extract_source(source.child(name, data))
    return Extracted(text=found.text, title=found.title, kind=found.kind, mime=found.mime, doc_date=found.doc_date,
                     metadata={**found.metadata, "compressed": kind, "member": name}, children=found.children)


def _is_compressed(probe: Probe) -> bool:
    kind = _compression(probe.head)
    if kind in ("bzip2", "xz"):  # a tar compressed by them is the archive reader's, which streams its members
        return not is_compressed_tar(probe.source.name)
    return kind == "gzip"


# a gzipped tar's two names: each read as the tar it holds (inner_name)
FORMAT = Format(name="gzip", extract=extract_gzip, suffixes=(".gz", ".tgz", ".bz2", ".xz"), magic=_is_compressed,
                spellings=((".tar.gz", ".tgz"),))
