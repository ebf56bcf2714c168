"""A gzipped file (``ls.1.gz``, ``bash.info.gz``, ``notes.txt.gz``, ``.tar.gz``) is read as what it holds.

A ``.gz`` compresses one file: that file's text is the ``.gz``'s own text (a
man page and its gzipped copy are the same document), with ``compressed``
and ``member`` in its metadata.  A gzipped tar is an archive
(:mod:`lifededup.extract.archive`).  Unpacking stops at the zip-bomb limit.
"""

from __future__ import annotations

import gzip
import io
import zlib
from pathlib import PurePosixPath

from lifededup.extract.base import CorruptFile, Extracted, Format, Probe, Source, TooLarge

_INNER_SUFFIX = {".tgz": ".tar", ".svgz": ".svg"}


def gunzip(source: Source) -> bytes:
    """The unpacked bytes, refused past the limit on unpacked size."""
    limit = source.limits.max_unpacked_bytes
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(source.read_bytes()), mode="rb") as stream:
            data = stream.read(limit + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise CorruptFile(f"damaged gzip data: {exc}") from exc
    if len(data) > limit:
        raise TooLarge(f"refused as a bomb: {source.name} unpacks to more than {limit / 2**20:.0f} MiB")
    return data


def inner_name(name: str) -> str:
    """``ls.1.gz`` -> ``ls.1``; ``backup.tgz`` -> ``backup.tar``."""
    path = PurePosixPath(name)
    suffix = path.suffix.lower()
    if suffix in _INNER_SUFFIX:
        return path.stem + _INNER_SUFFIX[suffix]
    return path.stem if suffix == ".gz" else name


def extract_gzip(source: Source) -> Extracted:
    from lifededup.extract.registry import extract_source  # the registry imports this module

    if source.depth >= source.limits.max_depth:
        raise TooLarge(f"{source.name} is nested {source.depth} containers deep (limit {source.limits.max_depth})")
    name = inner_name(source.name)
    found = extract_source(source.child(name, gunzip(source)))
    return Extracted(text=found.text, title=found.title, kind=found.kind, mime=found.mime, doc_date=found.doc_date,
                     metadata={**found.metadata, "compressed": "gzip", "member": name}, children=found.children)


def _is_gzip(probe: Probe) -> bool:
    return probe.head.startswith(b"\x1f\x8b")


FORMAT = Format(name="gzip", extract=extract_gzip, suffixes=(".gz", ".tgz"), magic=_is_gzip)
