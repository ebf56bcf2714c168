"""Archives (``.zip``, ``.tar``, ``.tar.gz``/``.tgz``, ``.tar.bz2``, ``.tar.xz``): each member a part.

Like the messages of a mailbox, each file in an archive is a part of it,
read by the registry as if it were a file (an archive in an archive, a mail
with attachments, a gzipped man page).  Nothing is written to disk.  Limits:
at most ``Limits.max_members`` members, ``Limits.max_unpacked_bytes`` unpacked
in all, ``Limits.max_depth`` containers deep; past a limit the rest is
recorded as one ``too-large`` part, and what was read is kept.  The
members and bytes are counted for the whole file, across every archive in
it (``Source.budget``): nesting does not multiply them.
"""

from __future__ import annotations

import functools
import io
import tarfile
import zipfile
from collections.abc import Callable, Iterator

from lifededup.extract.base import (
    CorruptFile, EncryptedFile, Extracted, ExtractionError, Failure, Format, Probe, Source, TooLarge, nested,
    open_zip,
)


def _zip_members(source: Source) -> Iterator[tuple[str, int, zipfile.ZipFile, zipfile.ZipInfo]]:
    with open_zip(source) as archive:
        for info in archive.infolist():
            if not info.is_dir():
                yield info.filename, info.file_size, archive, info


def _read_zip_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int) -> bytes:
    if info.flag_bits & 0x1:
        raise EncryptedFile("the member is encrypted with a password")
    with archive.open(info) as stream:
        return stream.read(limit + 1)  # the declared size may lie (a bomb): read no more than the limit


def _members(source: Source) -> Iterator[tuple[str, int, Callable[[int], bytes]]]:
    """(name, declared size, a reader of at most so many bytes) for each regular file, in archive order."""
    if source.head(4).startswith((b"PK\x03\x04", b"PK\x05\x06")):
        for name, size, archive, info in _zip_members(source):
            yield name, size, functools.partial(_read_zip_member, archive, info)
        return
    fileobj = source.open()
    with fileobj, tarfile.open(fileobj=fileobj, mode="r:*") as tar:
        for member in tar:
            if member.isfile():
                def read(limit: int, m: tarfile.TarInfo = member) -> bytes:
                    stream = tar.extractfile(m)
                    return stream.read(limit + 1) if stream is not None else b""
                yield member.name, member.size, read


def _parts(source: Source) -> Iterator[Extracted | Failure]:
    from lifededup.extract.registry import extract_source  # the registry imports this module

    limits, budget = source.limits, source.budget  # the budget: the whole file's, every archive in it counted
    count = 0
    named: dict[str, int] = {}
    try:
        for stored, size, read in _members(source):
            count += 1
            budget.members += 1
            # a name the archive holds twice (a zip appended to, a tar of two
            # versions) names a part each: the second is "name (2)", not the
            # first one's part overwritten, its text lost without a word
            named[stored] = named.get(stored, 0) + 1
            name = stored if named[stored] == 1 else f"{stored} ({named[stored]})"
            if budget.members > limits.max_members:
                yield Failure("too-large", f"more than {limits.max_members} members in the file (its archives "
                              "within archives counted together): the rest are not read", f"member {count} on")
                return
            if budget.unpacked + size > limits.max_unpacked_bytes:
                yield Failure("too-large", f"a member of {size / 2**20:.0f} MiB would pass the limit of "
                              f"{limits.max_unpacked_bytes / 2**20:.0f} MiB unpacked for the file (its archives "
                              f"within archives counted together; {budget.unpacked / 2**20:.0f} MiB unpacked "
                              "before it): it and the rest are not read", name)
                return
            try:
                # no more than the budget left: a declared size may lie (a bomb)
                data = read(limits.max_unpacked_bytes - budget.unpacked)
            except ExtractionError as exc:
                yield Failure.from_error(exc, name)
                continue
            except Exception as exc:  # zipfile/tarfile/zlib on a damaged member: that member only
                yield Failure("corrupt", f"damaged member: {type(exc).__name__}: {exc}"[:500], name)
                continue
            budget.unpacked += len(data)
            if budget.unpacked > limits.max_unpacked_bytes:
                yield Failure("too-large", f"unpacked past the limit of {limits.max_unpacked_bytes / 2**20:.0f} MiB "
                              "for the file (its size in the archive was wrong): it and the rest are not read", name)
                return
            try:
                yield nested(extract_source(source.child(stored.rsplit("/", 1)[-1], data)), name)
            except ExtractionError as exc:
                yield Failure.from_error(exc, name)
    except Exception as exc:  # the archive's own structure is damaged past this member: keep what was read
        yield Failure("corrupt", f"damaged archive after {count} member(s): {type(exc).__name__}: {exc}"[:500],
                      f"member {count + 1}")


def extract_archive(source: Source) -> Extracted:
    if source.depth >= source.limits.max_depth:
        raise TooLarge(f"{source.name} is nested {source.depth} containers deep (limit {source.limits.max_depth})")
    is_zip = source.head(4).startswith((b"PK\x03\x04", b"PK\x05\x06"))
    if not is_zip:
        try:
            with source.open() as handle:
                tarfile.open(fileobj=handle, mode="r:*").close()
        except tarfile.TarError as exc:
            raise CorruptFile(f"damaged tar archive: {exc}") from exc
    return Extracted(text="", title=source.name, kind="archive",
                     mime="application/zip" if is_zip else "application/x-tar", children=_parts(source))


def _is_archive(probe: Probe) -> bool:
    # any zip no document format claimed (they come first), a POSIX/GNU tar, or a tar compressed by bzip2/xz
    compressed_tar = probe.head.startswith((b"BZh", b"\xfd7zXZ\x00")) and (
        ".tar." in probe.source.name.lower() or probe.source.suffix in (".tbz2", ".txz"))
    return probe.is_zip or probe.head[257:262] == b"ustar" or compressed_tar


FORMAT = Format(name="archive", kind="archive", extract=extract_archive, suffixes=(".zip", ".tar", ".tbz2", ".txz"),
                magic=_is_archive)
