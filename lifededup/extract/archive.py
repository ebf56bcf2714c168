"""Archives (``.zip``, ``.tar``, a tar compressed: ``.tar.gz``/``.tgz``, ``.tar.bz2``/``.tbz``...): each member a part.

Like the messages of a mailbox, each file in an archive is a part of it,
read by the registry as if it were a file (an archive in an archive, a mail
with attachments, a gzipped man page).  Nothing is written to disk.  Limits:
at most ``Limits.max_members`` members, ``Limits.max_unpacked_bytes`` unpacked
in all, ``Limits.max_depth`` containers deep; past a limit the rest is
recorded as one ``too-large`` part, and what was read is kept.  The
members and bytes are counted for the whole file, across every archive in
it (``Source.budget``): nesting does not multiply them.  A tar's hard links
and the symbolic links of a tar or zip to its members are read as the members
they stand for, a link out of the archive never (see :class:`_TarLinks`).
"""

from __future__ import annotations

import functools
import io
import posixpath
import stat
import tarfile
import zipfile
from collections.abc import Callable, Iterator

from lifededup.extract.base import (
    BrokenLink, CorruptFile, EncryptedFile, Extracted, ExtractionError, Failure, Format, LinkLoop, LinkOutside, Probe,
    Source, TooLarge, nested, open_zip,
)
from lifededup.extract.compressed import COMPRESSED_TAR_SUFFIXES, STREAMED_TAR, compression, is_compressed_tar


Member = tuple[str, int, Callable[[int], bytes]]


def _zip_members(source: Source) -> Iterator[Member]:
    with open_zip(source) as archive:
        infos = archive.infolist()
        by_name = {posixpath.normpath(info.filename): info for info in infos}
        for info in infos:
            target = info
            if _is_zip_link(info):
                try:
                    target = _zip_target(archive, by_name, info)
                except ExtractionError as exc:
                    yield info.filename, 0, functools.partial(_refuse, exc)
                    continue
            if not target.is_dir():  # a link to a folder is passed over as the folder is: its files are members
                yield info.filename, target.file_size, functools.partial(_read_zip_member, archive, target)


def _is_zip_link(info: zipfile.ZipInfo) -> bool:
    """A symbolic link stored by a Unix zip (``zip -y``): its bytes are the path it leads to."""
    return info.create_system == 3 and stat.S_ISLNK(info.external_attr >> 16)


def _zip_target(archive: zipfile.ZipFile, by_name: dict[str, zipfile.ZipInfo], link: zipfile.ZipInfo,
                ) -> zipfile.ZipInfo:
    """The member a zip's symbolic link leads to through any chain of links (see :class:`_TarLinks`)."""
    member = link
    for _ in range(_MAX_LINK_HOPS):
        if not _is_zip_link(member):
            return member
        leads_to = _read_zip_member(archive, member, _MAX_LINK_BYTES).decode("utf-8", "replace")
        found = by_name.get(_inside_path(member.filename, leads_to))
        if found is None:
            raise BrokenLink(f"a symbolic link to {leads_to!r}, which the archive does not hold")
        member = found
    raise LinkLoop(f"a link round a circle of links in the archive (from {link.filename!r})")


def _inside_path(name: str, leads_to: str) -> str:
    """The member name a symbolic link stored as ``name`` leads to; :class:`LinkOutside` when out of the archive."""
    path = posixpath.normpath(posixpath.join(posixpath.dirname(name), leads_to))
    if leads_to.startswith("/") or path == ".." or path.startswith("../"):
        raise LinkOutside(f"a symbolic link out of the archive (to {leads_to!r}): never read")
    return path


def _read_zip_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int) -> bytes:
    if info.flag_bits & 0x1:
        raise EncryptedFile("the member is encrypted with a password")
    with archive.open(info) as stream:
        return stream.read(limit + 1)  # the declared size may lie (a bomb): read no more than the limit


def _members(source: Source) -> Iterator[Member]:
    """(name, declared size, a reader of at most so many bytes) for each regular file, in archive order."""
    if source.head(4).startswith((b"PK\x03\x04", b"PK\x05\x06")):
        yield from _zip_members(source)
        return
    fileobj = source.open()
    with fileobj, tarfile.open(fileobj=fileobj, mode="r:*") as tar:
        links = _TarLinks(tar)
        for member in tar:
            found = _tar_member(tar, links, member)
            links.saw(member)
            if found is not None:
                yield found


def _tar_member(tar: tarfile.TarFile, links: _TarLinks, member: tarfile.TarInfo) -> Member | None:
    """What :func:`_members` yields for a tar member; None for one passed over (a folder, a device)."""
    if member.islnk() or member.issym():
        try:
            target = links.target(member)
        except ExtractionError as exc:
            return member.name, 0, functools.partial(_refuse, exc)
        # a link to a folder (whose files are members of their own) or a device is passed over as they are
        return (member.name, target.size, functools.partial(_read_tar_member, tar, target)) if target.isfile() else None
    if member.isfile():
        return member.name, member.size, functools.partial(_read_tar_member, tar, member)
    return None


def _read_tar_member(tar: tarfile.TarFile, member: tarfile.TarInfo, limit: int) -> bytes:
    stream = tar.extractfile(member)
    return stream.read(limit + 1) if stream is not None else b""


def _refuse(error: ExtractionError, limit: int) -> bytes:
    raise error


# Links followed from one link at most: Linux's MAXSYMLINKS (path_resolution(7)); past it, a loop.
_MAX_LINK_HOPS = 40
# The longest path a zip's symbolic link is read for: Linux's PATH_MAX.
_MAX_LINK_BYTES = 4096


class _TarLinks:
    """The members a tar's links stand for, found by name inside the archive and never outside it.

    A hard link member holds no data: it names a member stored before it,
    whose bytes are its own (a copy the user has, read as that member).  A
    symbolic link names a path from its own folder; one that leads inside the
    archive is read as what it leads to, wherever that is stored; one that
    leads out of it (an absolute path, ``..`` past the top) is never followed,
    as the scan never follows one out of the watched folders.  Links in the
    path's folders are not resolved: a member is found by its whole name.
    """

    def __init__(self, tar: tarfile.TarFile) -> None:
        self.tar = tar
        self.before: dict[str, tarfile.TarInfo] = {}  # the members so far, the last of a name kept
        self.every: dict[str, tarfile.TarInfo] | None = None  # all of them, read on the first link forward

    def saw(self, member: tarfile.TarInfo) -> None:
        self.before[posixpath.normpath(member.name)] = member

    def target(self, link: tarfile.TarInfo) -> tarfile.TarInfo:
        """The member ``link`` leads to through any chain of links (a member that is not a link)."""
        member = link
        for _ in range(_MAX_LINK_HOPS):
            if not (member.islnk() or member.issym()):
                return member
            member = self._one_step(member)
        raise LinkLoop(f"a link round a circle of links in the archive (from {link.name!r})")

    def _one_step(self, link: tarfile.TarInfo) -> tarfile.TarInfo:
        if link.islnk():  # named from the archive's top, and stored before the link
            found = self.before.get(posixpath.normpath(link.linkname))
            if found is None:
                raise BrokenLink(f"a hard link to {link.linkname!r}, which the archive does not hold before it")
            return found
        name = _inside_path(link.name, link.linkname)
        found = self.before.get(name)
        if found is None:
            if self.every is None:
                self.every = {posixpath.normpath(m.name): m for m in self.tar.getmembers()}
            found = self.every.get(name)
        if found is None:
            raise BrokenLink(f"a symbolic link to {link.linkname!r}, which the archive does not hold")
        return found


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
    # any zip no document format claimed (they come first), a POSIX/GNU tar, or a tar compressed by bzip2, xz or
    # LZMA (a gzipped one is the compressed reader's, which comes first)
    compressed_tar = compression(probe.head) in STREAMED_TAR and is_compressed_tar(probe.source.name)
    return probe.is_zip or probe.head[257:262] == b"ustar" or compressed_tar


# a bzip2, xz or LZMA tar's names, each read as the others (renamed.read_alike_here): this reader reads the
# whole file under either, titled by it, its members the same parts (.tar.bz2 is this reader's, not the
# compressed reader's its last suffix names, by its content and its name: _is_archive).  .tb2 too, though
# the compressed reader read it before 8a6d927: such an item keeps that read's metadata (compressed, member)
# when renamed to another of these names, as it keeps it where it is -- a rename is no reason to read it again
FORMAT = Format(name="archive", kind="archive", extract=extract_archive,
                suffixes=(".zip", ".tar", *COMPRESSED_TAR_SUFFIXES), magic=_is_archive, signed=True,
                spellings=((".tbz2", ".tbz", ".tz2", ".tb2", ".tar.bz2"), (".txz", ".tar.xz"),
                           (".tlz", ".tar.lzma")))
