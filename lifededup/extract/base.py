"""The written contract every extractor keeps (the iFilter stand-in, seeds/000 section 2.2 step 1).

An extractor is a function ``(Source) -> Extracted``.  It MUST:

- return the document's clean text (layout such as running headers, page
  numbers and end-of-line hyphens removed, see :mod:`lifededup.extract.layout`),
  a title ("" when the file has none), the document's own date when it records
  one (``doc_date``; None otherwise -- never the file's mtime), a ``kind``
  (``"document"``, ``"email"``, ``"web page"``, ``"text"``, ``"spreadsheet"``,
  ``"presentation"``, ``"mailbox"``), the MIME type it read, a flat
  ``metadata`` dict of strings, and ``children``: the items inside it (the
  messages of an mbox, the attachments of a mail), iterated lazily so that a
  mailbox of hundreds of MB streams;
- raise only :class:`ExtractionError` (one of its subclasses) for input it
  cannot read; its ``status`` is a short word recorded beside the file and its
  message says what happened in words a person can act on.

The registry (:mod:`lifededup.extract.registry`) wraps every extractor so that
any other exception a parser lets escape becomes :class:`CorruptFile`.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

KINDS = ("document", "email", "web page", "text", "spreadsheet", "presentation", "mailbox")


@dataclass(frozen=True)
class Extracted:
    """What an extractor returns for one item (a file, or a part inside one)."""

    text: str
    title: str = ""
    kind: str = "document"
    mime: str = "application/octet-stream"
    doc_date: datetime | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    # Lazily iterated; consumed once.  Each child's ``part`` names it inside its parent;
    # a child that cannot be read is a Failure, so the others still come through.
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
    """A PDF made of page images (a scan) with no text to read; OCR is not done."""

    status = "no-text-layer"


class EmptyFile(ExtractionError):
    """A file of zero bytes, or one whose format holds no text at all."""

    status = "empty"


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
    """A system program the format needs is not installed; ``package`` names the Debian package."""

    status = "missing-tool"

    def __init__(self, tool: str, package: str, fmt: str) -> None:
        super().__init__(f"reading {fmt} needs the program '{tool}': install it with "
                         f"'sudo apt-get install {package}' (or run scripts/install-system-deps.sh)")
        self.tool = tool
        self.package = package


@dataclass(frozen=True)
class Source:
    """Bytes to extract: a file on disk, or a part (an attachment) held in memory.

    ``name`` carries the extension the registry looks at; ``path`` is set for
    files on disk so that streaming extractors (mbox) and external tools can
    read them without a copy.
    """

    name: str
    path: Path | None = None
    data: bytes | None = None

    @classmethod
    def from_path(cls, path: Path) -> Source:
        return cls(name=path.name, path=path)

    @property
    def suffix(self) -> str:
        return Path(self.name).suffix.lower()

    def size(self) -> int:
        if self.data is not None:
            return len(self.data)
        assert self.path is not None
        return self.path.stat().st_size

    def read_bytes(self) -> bytes:
        if self.data is not None:
            return self.data
        assert self.path is not None
        return self.path.read_bytes()

    def head(self, n: int = 8192) -> bytes:
        if self.data is not None:
            return self.data[:n]
        assert self.path is not None
        with self.path.open("rb") as handle:
            return handle.read(n)

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
