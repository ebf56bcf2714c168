"""A compressed file (``ls.1.gz``, ``bash.info.gz``, ``notes.txt.bz2``, ``gpl2.txt.xz``) is read as what it holds.

A ``.gz``, ``.bz2``, ``.xz`` or ``.lzma`` compresses one file: that file's text is the
compressed file's own text (a man page and its gzipped copy are the same
document), with ``compressed`` and ``member`` in its metadata.  A gzipped tar
is an archive (:mod:`lifededup.extract.archive`), and a tar compressed by
bzip2, xz or LZMA is left to it.  Unpacking stops at the limit on unpacked size
(a bomb: a few KiB that unpack to gigabytes), whatever the compression.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import zlib
from pathlib import PurePosixPath

from lifededup.extract.base import CorruptFile, Extracted, Format, Probe, Source, TooLarge, UnsupportedFormat

# A gzipped tar by a short name: .tgz, and .taz (GNU tar's, src/suffix.c), each holding NAME.tar
_INNER_SUFFIX = {".tgz": ".tar", ".taz": ".tar", ".svgz": ".svg"}
_COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz", ".lzma")
_XZ = b"\xfd7zXZ\x00"
# A tar compressed by bzip2, xz or LZMA by a short name of its own: GNU tar's (.tbz .tbz2 .tz2, .tlz, and
# Slackware's .txz: src/suffix.c) and .tb2.  Named so, or .tar.bz2, .tar.xz, .tar.lzma, it is the archive
# reader's, which streams its members; a gzipped tar (.tgz) is read here, unpacked, as the tar it holds.
COMPRESSED_TAR_SUFFIXES = (".tbz", ".tbz2", ".tz2", ".tb2", ".txz", ".tlz")
# The compressions of a tar left to the archive reader
STREAMED_TAR = ("bzip2", "xz", "lzma")


def is_compressed_tar(name: str) -> bool:
    """Whether ``name`` says a tar under compression (``x.tar.bz2``, ``x.tbz``), case aside."""
    return ".tar." in name.lower() or PurePosixPath(name).suffix.lower() in COMPRESSED_TAR_SUFFIXES


def compression(head: bytes) -> str:
    """``"gzip"``, ``"bzip2"``, ``"xz"``, ``"lzma"`` or ``"compress"`` by the data's signature; ``""`` for none."""
    if head.startswith(b"\x1f\x8b"):
        return "gzip"
    if head.startswith(b"\x1f\x9d"):  # compress(1)'s LZW: .Z, and a tar so (.tar.Z, .taZ; GNU tar's .taz)
        return "compress"
    # "BZh", the block size (1-9), then a block's magic (pi) or the end of an empty stream's (sqrt pi)
    if head[:3] == b"BZh" and head[3:4] in b"123456789" and head[4:10] in (b"1AY&SY", b"\x17rE8P\x90"):
        return "bzip2"
    if head.startswith(_XZ):
        return "xz"
    # LZMA's own (.lzma, lzma_alone) has no magic: the properties xz and 7-Zip write (lc=3 lp=0 pb=2: 0x5D),
    # a dictionary of whole 64 KiB (file(1)'s test), and the range coder's first byte, always 0 (LZMA SDK)
    return "lzma" if head[:3] == b"\x5d\x00\x00" and head[13:14] == b"\x00" else ""


def _open(kind: str, data: io.BytesIO) -> bz2.BZ2File | lzma.LZMAFile | gzip.GzipFile:
    if kind == "bzip2":
        return bz2.BZ2File(data)
    if kind in ("xz", "lzma"):
        return lzma.LZMAFile(data)  # FORMAT_AUTO: xz's container and LZMA's own
    return gzip.GzipFile(fileobj=data, mode="rb")


def unpack(source: Source) -> tuple[str, bytes]:
    """The compression and the unpacked bytes, refused past the limit on unpacked size."""
    kind = compression(source.head(16)) or "gzip"
    if kind == "compress":  # Python's library has no LZW; gzip -d has (a .taz may be either)
        raise UnsupportedFormat(f"{source.name} is compressed by compress (LZW, .Z), which lifededup does not "
                                "read: unpack a copy (gzip -dc, or uncompress) to index what it holds")
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
    """``ls.1.gz`` -> ``ls.1``; ``notes.txt.bz2`` -> ``notes.txt``; ``backup.tgz`` (``.taz``) -> ``backup.tar``."""
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
    kind = compression(probe.head)
    if kind == "lzma" and probe.source.suffix != ".lzma":  # a signature this weak needs its name too
        return False
    if kind in STREAMED_TAR:  # a tar compressed by them is the archive reader's, which streams its members
        return not is_compressed_tar(probe.source.name)
    return kind in ("gzip", "compress")  # compress: refused in words that say so (unpack)


# a gzipped tar's three names: each read as the tar it holds (inner_name)
FORMAT = Format(name="gzip", extract=extract_gzip, suffixes=(".gz", ".tgz", ".taz", ".bz2", ".xz", ".lzma"),
                magic=_is_compressed, signed=True, spellings=((".tar.gz", ".tgz", ".taz"),))
