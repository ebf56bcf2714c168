"""The written contract every format keeps (the iFilter stand-in, seeds/000 section 2.2 step 1).

A format is one module of :mod:`lifededup.extract` that declares, at module
level, ``FORMAT = Format(...)``: its name, the file-name suffixes it claims,
how its content is recognised (``magic``: a signature that decides whatever
the name says; ``looks_like``: a reading of text content, asked only when the
name says nothing), whether it is a zip container (checked for zip bombs
first) or streamed (no size limit), and its extract function.  The registry
(:mod:`lifededup.extract.registry`) only collects these declarations: adding a
format is adding one module and its name in ``registry.FORMAT_MODULES``.  A
module imports its parsing libraries inside its functions, so that declaring
a format costs nothing until a file of it is read.

An extract function is ``(Source) -> Extracted``.  It MUST:

- return the document's clean text (layout such as running headers, page
  numbers and end-of-line hyphens removed, see :mod:`lifededup.extract.layout`),
  a title ("" when the file has none), the document's own date when it records
  one (``doc_date``; None otherwise -- never the file's mtime), a ``kind``
  (one of :data:`KINDS`), the MIME type it read, a flat ``metadata`` dict of
  strings, and ``children``: the items inside it (the messages of an mbox, the
  attachments of a mail, the members of an archive), iterated lazily so that
  a mailbox of hundreds of MB streams;
- read the parts it holds through :meth:`Source.child` and the registry, so
  that they keep the run's :class:`Limits` (OCR on or off, sizes) and their
  nesting depth, and name each with :func:`nested`
  (``nested(extract_source(child), "attachment 1: a.zip")``), so that the
  parts found inside that part are named under it and no two parts clash;
- raise only :class:`ExtractionError` (one of its subclasses) for input it
  cannot read; its ``status`` is a short word recorded beside the file and its
  message says what happened in words a person can act on.  A missing program
  or optional package is :class:`MissingTool`, whose message is the command
  that installs it -- never an ImportError or a crash.

The registry wraps every extractor so that any other exception a parser lets
escape becomes :class:`CorruptFile`.
"""

from __future__ import annotations

import contextlib
import errno
import io
import logging
import os
import re
import tempfile
import zipfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, BinaryIO

KINDS = ("document", "email", "web page", "text", "spreadsheet", "presentation", "mailbox", "contact", "event",
         "address book", "calendar", "archive")
# The kinds that hold parts and no text of their own: a mailbox's messages, an archive's members, a calendar's
# events, an address book's cards.  Such a whole file is titled by its name (renamed.titled_by_name), and
# `lifededup fingerprint` prints its parts alone.
CONTAINER_KINDS = frozenset({"mailbox", "archive", "calendar", "address book"})


@dataclass(frozen=True)
class Extracted:
    """What an extractor returns for one item (a file, or a part inside one)."""

    text: str
    title: str = ""
    kind: str = "document"
    mime: str = "application/octet-stream"
    doc_date: datetime | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    # Lazily iterated; consumed once.  Each child's ``part`` names its whole path of containers inside
    # the file or part the extract function read ("message 1 / attachment 2: a.zip / report.txt"): the
    # indexer finds a part's parent by taking off its last " / " level.  A part read from inside this one
    # is named under it by nested().  A child that cannot be read is a Failure, so the others still come through.
    children: Iterable[Extracted | Failure] = ()
    part: str = ""

    def without_children(self) -> Extracted:
        """A copy safe to pickle and to keep: children are reported separately."""
        return replace(self, children=())


@dataclass(frozen=True)
class Failure:
    """The recorded reason an item could not be read: an :class:`ExtractionError`'s status and message."""

    status: str
    reason: str
    part: str = ""
    # the kind it is known to be (a mailbox's message: "email"); None: the kind its name says
    kind: str | None = None

    @classmethod
    def from_error(cls, error: ExtractionError, part: str = "") -> Failure:
        return cls(status=error.status, reason=str(error), part=part)


@dataclass(frozen=True)
class Limits:
    """What one file may cost.  Defaults suit a desktop archive; the indexer may pass its own."""

    # Seconds a worker may go without producing an item before it is stopped.
    timeout_s: float = 60.0
    # Address-space limit of a worker process (resource.RLIMIT_AS), in MiB.
    memory_mb: int = 2048
    # Files read whole (all but mailboxes, which stream) larger than this are refused.
    max_bytes: int = 256 * 2**20
    # A zip (DOCX, XLSX, ODT, EPUB...) that would unpack to more than this is a zip bomb.
    max_unpacked_bytes: int = 512 * 2**20
    # An archive (.zip, .tar, .tar.gz) with more members than this is read up to here, the rest recorded.
    max_members: int = 10_000
    # Archives inside archives (inside mails) deeper than this are not opened.
    max_depth: int = 4
    # OCR of scans (PDFs without a text layer, PNG/JPEG/TIFF images) with Tesseract: slow, so off by default.
    ocr: bool = False
    # Tesseract languages ("eng", "eng+deu"): each needs its tesseract-ocr-LANG Debian package.
    ocr_languages: str = "eng"


class ExtractionError(Exception):
    """A file (or part) whose text cannot be read; ``status`` says which kind of failure."""

    status = "failed"


class UnsupportedFormat(ExtractionError):
    """Not a format lifededup reads (for instance binary data named ``.txt``)."""

    status = "unsupported"


class CorruptFile(ExtractionError):
    """The format is known but the file is damaged or truncated."""

    status = "corrupt"


class EncryptedFile(ExtractionError):
    """The file is protected by a password; lifededup does not guess passwords."""

    status = "encrypted"


class NoTextLayer(ExtractionError):
    """A scan (a PDF of page images, a photo of a page) with no text to read without OCR."""

    status = "no-text-layer"


class NoText(ExtractionError):
    """Read, and no words in it: a PDF whose pages give only page numbers or
    marks (which layout removal drops), a scan OCR found no words in.  Unlike
    ``no-text-layer``, reading it again (with OCR) would find nothing more."""

    status = "no-text"


class EmptyFile(ExtractionError):
    """A file of zero bytes, or one whose format holds no text at all."""

    status = "empty"


class NotAFile(ExtractionError):
    """A FIFO, socket or device: never opened (a FIFO would block)."""

    status = "not-a-file"


class LinkOutside(ExtractionError):
    """A symbolic link that leads out of what may be read -- the watched folders, or the archive that
    holds it (``/etc/passwd``, ``../../x``): never followed."""

    status = "link-outside"


class LinkLoop(ExtractionError):
    """A symbolic link that leads back to itself, or round a circle of links."""

    status = "link-loop"


class BrokenLink(ExtractionError):
    """A link to nothing: no such file, or no such member in its archive."""

    status = "broken-link"


# The statuses of what a path is -- a FIFO, a link out of the folders, round a circle or to
# nothing -- not of what its bytes say: a file being written never fails so.  The watcher said
# of a FIFO and of links dropped in a folder that each "is still being written", deferred them,
# and warned of them two seconds later.
PATH_STATUSES = frozenset({NotAFile.status, LinkOutside.status, LinkLoop.status, BrokenLink.status})


class TooLarge(ExtractionError):
    """Over the size limit, or a zip that would unpack to more than the limit (a zip bomb)."""

    status = "too-large"


class Timeout(ExtractionError):
    """The parser ran past the time limit and its worker was stopped."""

    status = "timeout"


class Crashed(ExtractionError):
    """The parser's worker died (a crash in native code, or the memory limit)."""

    status = "crashed"


class MissingTool(ExtractionError):
    """A program or optional package the format needs is not installed; the message says how to install it.

    ``package`` names the Debian package (the default ``install`` command), or
    the Python extra when ``install`` is given (``pip install 'lifededup[msg]'``).
    """

    status = "missing-tool"

    def __init__(self, tool: str, package: str, fmt: str, install: str | None = None) -> None:
        how = install or f"sudo apt-get install {package}' (or run scripts/install-system-deps.sh)"
        quote = "" if install is None else "'"
        super().__init__(f"reading {fmt} needs '{tool}': install it with '{how}{quote}")
        self.tool = tool
        self.package = package


@dataclass
class Budget:
    """What a file's archives have unpacked so far, counted across all of
    them: a zip of ten zips of ten zips, each container within its own
    limits, unpacked 10 GiB from 15 MB (a tester's store grew to a GiB).
    ``Limits.max_unpacked_bytes`` and ``max_members`` bound the whole file."""

    unpacked: int = 0
    members: int = 0


def open_quietly(path: Path | str) -> BinaryIO:
    """A file opened to read without updating its access time (``O_NOATIME``,
    which Linux allows a file's owner; else opened as usual)."""
    flags = os.O_RDONLY | os.O_CLOEXEC
    try:
        descriptor = os.open(path, flags | getattr(os, "O_NOATIME", 0))
    except PermissionError:  # not the owner: O_NOATIME is refused, the file may still be readable
        descriptor = os.open(path, flags)
    return os.fdopen(descriptor, "rb")


@dataclass(frozen=True)
class Source:
    """Bytes to extract: a file on disk, or a part (an attachment) held in memory.

    ``name`` carries the extension the registry looks at; ``path`` is set for
    files on disk so that streaming extractors (mbox) and external tools can
    read them without a copy.  ``limits`` are the run's (the registry sets
    them); ``depth`` counts the containers (archives, mails) around a part;
    ``budget`` is shared by a file and every part inside it.

    ``offset`` and ``end`` bound the bytes read (a mailbox that grew, read
    from where it grew up to the size whose SHA-1 the store keeps: see
    :class:`lifededup.extract.mbox.GrownMailboxes`); ``parts_before`` counts
    the parts before ``offset``, which the parts found are numbered after.
    Every way of reading keeps to the bounds but :meth:`as_path`, which names
    the whole file.
    """

    name: str
    path: Path | None = None
    data: bytes | None = None
    limits: Limits = Limits()
    depth: int = 0
    budget: Budget = field(default_factory=Budget, compare=False, repr=False)
    offset: int = 0
    end: int | None = None
    parts_before: int = 0

    @classmethod
    def from_path(cls, path: Path) -> Source:
        return cls(name=path.name, path=path)

    def child(self, name: str, data: bytes) -> Source:
        """A part held inside this source (an attachment, an archive member):
        same limits and budget, one level deeper."""
        return Source(name=name, data=data, limits=self.limits, depth=self.depth + 1, budget=self.budget)

    @property
    def suffix(self) -> str:
        return Path(self.name).suffix.lower()

    def size(self) -> int:
        if self.data is not None:
            whole = len(self.data)
        else:
            assert self.path is not None
            whole = self.path.stat().st_size
        return max(0, min(whole, self.end if self.end is not None else whole) - self.offset)

    def read_bytes(self) -> bytes:
        if self.data is not None:
            return self.data[self.offset:self.end]
        with self.open() as handle:
            return handle.read()

    def head(self, n: int = 8192) -> bytes:
        if self.data is not None:
            return self.data[self.offset:self.offset + n if self.end is None else min(self.end, self.offset + n)]
        with self.open() as handle:
            return handle.read(n)

    def open(self) -> BinaryIO:
        """The bytes as a binary file: a file on disk is opened without
        touching its access time where the system allows it (a mail reader
        tells new mail in an mbox by an access time older than the last
        write: reading it made mutt say there was none)."""
        if self.data is not None:
            return io.BytesIO(self.data[self.offset:self.end])
        assert self.path is not None
        handle = open_quietly(self.path)
        if self.offset == 0 and self.end is None:
            return handle
        handle.seek(self.offset)
        left = None if self.end is None else max(0, self.end - self.offset)
        return io.BufferedReader(_Window(handle, left))

    @contextlib.contextmanager
    def as_path(self) -> Iterator[Path]:
        """A path an external program can open; a temporary copy for in-memory parts."""
        if self.path is not None:
            yield self.path
            return
        fd, name = tempfile.mkstemp(suffix=self.suffix, prefix="lifededup-part-")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(self.data or b"")
            yield Path(name)
        finally:
            os.unlink(name)


class _Window(io.RawIOBase):
    """A file's bytes from where ``handle`` stands, ``left`` of them at most (None: to its end)."""

    def __init__(self, handle: BinaryIO, left: int | None) -> None:
        self.handle, self.left = handle, left

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        wanted = len(view) if self.left is None else min(len(view), self.left)
        got = self.handle.readinto(view[:wanted])  # type: ignore[attr-defined]
        if self.left is not None:
            self.left -= got
        return int(got)

    def close(self) -> None:
        self.handle.close()
        super().close()


_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
# A tag, a declaration or a processing instruction first, past a byte order mark and blank space
_MARKUP = re.compile(rb"(?:\xef\xbb\xbf)?\s*<[!?a-zA-Z]")


def _zip_damage(exc: BaseException) -> str:
    """What is wrong with a zip, as a person reads it: a directory that places a member before the file's
    start (bytes missing from it, or members that overlap: ocrmypdf's ``tagged.odt``, which ``unzip -t``
    calls "overlapped components") made Python's reader seek there, and say only "[Errno 22] Invalid argument"."""
    if isinstance(exc, OSError) and exc.errno == errno.EINVAL:
        return "its directory places a member outside the file (bytes missing, or members overlapping)"
    return str(exc)


class Probe:
    """What a format's recognisers look at: the first 8 KiB, and the names inside a zip or OLE2 container.

    The names are read once, on first asking, and shared by every format's
    ``magic``; a damaged container raises :class:`CorruptFile` from there.
    """

    def __init__(self, source: Source) -> None:
        self.source = source
        self.head = source.head(8192)
        self._zip: tuple[frozenset[str], bytes] | None = None
        self._ole: frozenset[str] | None = None

    @property
    def is_zip(self) -> bool:
        return self.head.startswith(_ZIP_MAGIC)

    @property
    def is_ole(self) -> bool:
        return self.head.startswith(_OLE_MAGIC)

    @property
    def is_markup(self) -> bool:
        """Whether the content opens with a tag, a declaration or a processing instruction (XML, HTML)."""
        return _MARKUP.match(self.head) is not None

    def _read_zip(self) -> tuple[frozenset[str], bytes]:
        if self._zip is None:
            try:
                with open_zip(self.source) as archive:
                    names = frozenset(archive.namelist())
                    mimetype = archive.read("mimetype").strip() if "mimetype" in names else b""
            except (zipfile.BadZipFile, OSError, EOFError, ValueError, KeyError) as exc:
                raise CorruptFile(f"damaged zip container: {_zip_damage(exc)}") from exc
            self._zip = (names, mimetype)
        return self._zip

    def zip_names(self) -> frozenset[str]:
        """The member names of a zip (empty for a file that is not one)."""
        return self._read_zip()[0] if self.is_zip else frozenset()

    def zip_mimetype(self) -> bytes:
        """The ``mimetype`` member of a zip (OpenDocument, EPUB), b"" when it has none."""
        return self._read_zip()[1] if self.is_zip else b""

    def ole_streams(self) -> frozenset[str]:
        """The stream paths of an OLE2 (old Office) file, "/"-joined (empty for a file that is not one)."""
        if not self.is_ole:
            return frozenset()
        if self._ole is None:
            import olefile  # type: ignore[import-untyped]

            try:
                with olefile.OleFileIO(ole_data(self.source)) as ole:
                    self._ole = frozenset("/".join(entry) for entry in ole.listdir())
            except OSError as exc:
                raise CorruptFile(f"damaged OLE2 (old Office) file: {exc}") from exc
        return self._ole


# The most of a title kept: a heading, a keyword or a first line may be a paragraph
TITLE_CHARS = 200


def title_line(words: str) -> str:
    """A title found in a document's text: on one line, its spaces one, at most ``TITLE_CHARS``."""
    return " ".join(words.split())[:TITLE_CHARS]


def hush_log(library: str) -> None:
    """A library's log goes nowhere: its warnings about the damage it reads past (pdfminer.six's "Data-loss
    while decompressing corrupted data", tnefparse's "Checksum: 797 != 753") name no file, and went to the
    indexer's terminal between its progress lines, through the handler Python's logging falls back on, or
    into the watcher's log.  What it cannot read past raises, and the file's reason says it.  Above every level,
    so that no record is even made: a damaged winmail.dat made tnefparse warn at each of its millions of
    objects, and making those records (for a NullHandler) took 81 s of a 3 KB file."""
    quiet = logging.getLogger(library)
    if quiet.propagate:
        quiet.addHandler(logging.NullHandler())
        quiet.propagate = False
        quiet.setLevel(logging.CRITICAL + 1)


def ole_data(source: Source) -> io.BytesIO:
    """An OLE2 file's bytes as olefile and extract-msg must be handed them.  Given bytes, both take fewer
    than 1,536 of them for a path to open: a 20-byte ``x.ppt`` holding ``/home/sam/other.ppt`` was that file
    read, outside the folders perhaps, and one holding a path to nothing was "deleted or moved while it was
    read".  A file object is always the content."""
    return io.BytesIO(source.read_bytes())


def parse_xml(data: bytes, what: str) -> Any:
    """lxml's tree of ``data`` (an EPUB's package, an SVG drawing), its
    entities never resolved (no billion laughs, no file read through an
    external entity), the network never read, damage recovered from;
    ``what`` names it in the error when nothing can be read."""
    from lxml import etree  # type: ignore[import-untyped]

    parser = etree.XMLParser(resolve_entities=False, no_network=True, recover=True, huge_tree=False)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:  # recover gives up on some damage (no element at all)
        raise CorruptFile(f"unreadable XML in {what}: {exc}") from exc
    if root is None:
        raise CorruptFile(f"unreadable XML in {what}")
    return root


def open_zip(source: Source) -> zipfile.ZipFile:
    """The zip in ``source``, from its path or its bytes."""
    return zipfile.ZipFile(source.open())


# Where an Office or OpenDocument file keeps its pictures (not its thumbnail, docProps/ or Thumbnails/)
_PICTURE_FOLDERS = ("word/media/", "ppt/media/", "xl/media/", "Pictures/")
_RTF_SHAPE_PICTURE, _RTF_PICTURE = re.compile(rb"\\shppict(?![a-z])"), re.compile(rb"\\pict(?![a-z])")


def pictures_said(source: Source) -> str:
    """What an Office, OpenDocument or RTF file of no text holds, for its ``empty`` reason -- a page scanned and
    pasted into Word, a deck of photos -- where "empty" alone read as if the file were blank: ", only 3
    pictures, which lifededup does not read", or ""."""
    try:
        head = source.head(5)
        if head.startswith(b"PK\x03\x04"):
            with open_zip(source) as archive:
                count = sum(name.startswith(_PICTURE_FOLDERS) and not name.endswith("/") for name in archive.namelist())
        elif head == b"{\\rtf":  # Word writes each picture twice: \shppict, and a \nonshppict fallback
            data = source.read_bytes()
            count = len(_RTF_SHAPE_PICTURE.findall(data)) or len(_RTF_PICTURE.findall(data))
        else:
            return ""
    except (OSError, zipfile.BadZipFile):
        return ""
    return f", only {count} picture{'s' if count > 1 else ''}, which lifededup does not read" if count else ""


def iso_date(value: str) -> datetime | None:
    """An ISO 8601 date or time as recorded in document metadata (ODF, EPUB, XPS, Office 2003 XML, a page's
    published date); None when unreadable.  A ``Z`` is UTC (Python 3.10's ``fromisoformat`` refuses it)."""
    try:
        return datetime.fromisoformat(value.strip().replace("Z", "+00:00")) if value.strip() else None
    except ValueError:
        return None


def last_saved(created: datetime | None, modified: datetime | None) -> datetime | None:
    """A document's date: when it was last saved -- a draft saved as another
    keeps its parent's creation date -- unless that is missing or before its
    creation (python-docx's template, say, keeps a 2013 save date)."""
    if created is None or modified is None:
        return modified or created

    def comparable(when: datetime) -> datetime:
        return when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)

    return modified if comparable(modified) >= comparable(created) else created


Recogniser = Callable[[Probe], bool]
ExtractFunction = Callable[[Source], Extracted]


@dataclass(frozen=True)
class Format:
    """A format's declaration: what its module tells the registry (see the module docstring)."""

    # The name recorded and accepted by extract_as ("pdf", "man").
    name: str
    extract: ExtractFunction
    # Lower-case suffixes that name the format when the content has no signature (".html", ".vcf").
    suffixes: tuple[str, ...] = ()
    # A signature in the content that decides whatever the name says (%PDF-, a zip holding word/document.xml).
    magic: Recogniser | None = None
    # A reading of text content, asked only when neither a signature nor the suffix decided (a man page's .TH).
    looks_like: Recogniser | None = None
    # A zip container: refused as a zip bomb before its parser opens it.
    zipped: bool = False
    # Read as a stream (mbox): the size limit does not apply.
    streamed: bool = False
    # The kind (one of KINDS) of a whole file of this format: a file that could not be read is recorded under it.
    kind: str = "document"
    # Its files are binary and open with its signature (``magic``): text under one of its names is not one of
    # them -- a web page or a table of text saved as .xls, a mail saved as .msg, a download's error page as .pdf.
    signed: bool = False
    # With ``signed``: its program opens such text all the same -- Word a web page named .doc, Excel a web
    # application's "export to Excel" (an HTML table, tab-separated text) named .xls, mail programs a message
    # saved as .msg --, so it is read as what it is, under this format's kind.  Without, it is refused as
    # corrupt, its reason saying what the file holds.
    opens_text: bool = False
    # Name endings that are spellings of one (".html", ".htm"): its extract function reads a file named by
    # any of a group as by the group's first, so a file renamed from one to another is not read again
    # (:func:`lifededup.extract.renamed.read_alike_here`), where this format reads it.  Each group's names
    # claim this format (``.tar.bz2``, the archive reader's, by its name and content: not by its last suffix).
    spellings: tuple[tuple[str, ...], ...] = ()


def nested(item: Extracted, part: str) -> Extracted:
    """``item``, read from a part of a container, named ``part``; every part inside it named under ``part``, lazily.

    ``item``'s descendants already name their whole path inside ``item``
    (its own nested() calls did that), so each gets ``part`` in front once;
    prefixing them level by level would repeat the inner levels.
    """
    return replace(item, part=part, children=_named_under(item.children, part))


def _named_under(children: Iterable[Extracted | Failure], prefix: str) -> Iterator[Extracted | Failure]:
    for child in children:
        if isinstance(child, Failure):
            yield replace(child, part=f"{prefix} / {child.part}")
        else:
            yield replace(child, part=f"{prefix} / {child.part}", children=_named_under(child.children, prefix))
