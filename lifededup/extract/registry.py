"""Which format reads a file: a signature in the content first, the name second, text content last.

The registry holds no knowledge of any format: each format's module declares
``FORMAT`` (see :mod:`lifededup.extract.base`), and this module only collects
them, in the order of :data:`FORMAT_MODULES` (which is the order signatures
are tried: the office zips before the plain zip archive).  A PDF named
``.txt`` is read as a PDF (its content says ``%PDF-``); binary data named
``.txt`` is refused rather than indexed as garbage; text with an unknown name
(``README.Debian``, ``NEWS``) is read as text.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import stat
from dataclasses import replace
from pathlib import Path

from lifededup.extract.base import (
    CONTAINER_KINDS, CorruptFile, EmptyFile, EncryptedFile, Extracted, ExtractionError, Format, Limits, NotAFile,
    Probe, Source, TooLarge, UnsupportedFormat, open_zip, pictures_said,
)
from lifededup.extract.text import looks_binary
from lifededup.model import a_kind

# One line per format; signatures are tried in this order.
FORMAT_MODULES = (
    "lifededup.extract.pdf",
    "lifededup.extract.docx",
    "lifededup.extract.pptx",
    "lifededup.extract.xlsx",
    "lifededup.extract.odt",
    "lifededup.extract.flatodf",
    "lifededup.extract.epub",
    "lifededup.extract.xps",
    "lifededup.extract.doc",
    "lifededup.extract.xls",
    "lifededup.extract.ppt",
    "lifededup.extract.msg",
    "lifededup.extract.tnef",
    "lifededup.extract.emlx",
    "lifededup.extract.rtf",
    "lifededup.extract.wordml",
    "lifededup.extract.spreadsheetml",
    "lifededup.extract.image",
    "lifededup.extract.compressed",
    "lifededup.extract.archive",
    "lifededup.extract.mhtml",
    "lifededup.extract.webarchive",
    "lifededup.extract.unread",
    "lifededup.extract.mbox",
    "lifededup.extract.mail",
    "lifededup.extract.html",
    "lifededup.extract.man",
    "lifededup.extract.info",
    "lifededup.extract.vcard",
    "lifededup.extract.icalendar",
    "lifededup.extract.svg",
    "lifededup.extract.text",
)
# A zip whose entries unpack to more than this many times their packed size is treated as a bomb
# once it passes 10 MiB unpacked (ordinary office files compress 2-20x).
_BOMB_RATIO = 100


@functools.cache
def formats() -> dict[str, Format]:
    """Every declared format by name, in the order signatures are tried."""
    found: dict[str, Format] = {}
    for module in FORMAT_MODULES:
        fmt: Format = importlib.import_module(module).FORMAT
        found[fmt.name] = fmt
    return found


@functools.cache
def _by_suffix() -> dict[str, str]:
    return {suffix: fmt.name for fmt in formats().values() for suffix in fmt.suffixes}


def supported_suffixes() -> frozenset[str]:
    """The suffixes some format claims (text by content is read whatever its suffix)."""
    return frozenset(_by_suffix())


def _suffix_format(name: str) -> str | None:
    """The format a name claims: its last suffix, or a numbered split suffix (``bash.info-2``)."""
    suffix = Path(name).suffix.lower()
    return _by_suffix().get(suffix) or _by_suffix().get(re.sub(r"-\d+$", "", suffix))


def kind_by_name(name: str) -> str:
    """The kind a file's name says it is (``letter.eml``: ``"email"``; ``notes.txt.gz``: ``"text"``), for a file
    that could not be read; ``"document"`` for a name no format claims."""
    named = _suffix_format(name)
    if named == "gzip":
        from lifededup.extract.compressed import inner_name

        return kind_by_name(inner_name(name))
    return formats()[named].kind if named is not None else "document"


def sniff(source: Source) -> str:
    """The format of ``source``; :class:`UnsupportedFormat` when none fits."""
    probe = Probe(source)
    for fmt in formats().values():
        if fmt.magic is not None and fmt.magic(probe):
            return fmt.name
    if probe.is_zip:
        raise UnsupportedFormat(f"{source.name} is a zip archive lifededup cannot open")
    if probe.is_ole:
        if {"EncryptedPackage", "EncryptionInfo"} <= probe.ole_streams():
            # Office 2007+ with a password: the .docx/.xlsx/.pptx zip is encrypted inside an OLE2 file
            raise EncryptedFile(f"{source.name} is an Office document protected by a password: its text cannot "
                                "be read without it (save a copy without the password to index it)")
        raise UnsupportedFormat(f"{source.name} is an old Office (OLE2) file of a kind lifededup does not read")
    if looks_binary(probe.head):
        mail = _mail_despite_binary(source, probe)
        if mail is not None:
            return mail
        # "despite" only where the name promised a format read (a .txt): a .wav or .deb promised none
        claimed = source.suffix.lower() in supported_suffixes()
        raise UnsupportedFormat(f"{source.name} holds binary data of no format lifededup reads"
                                + (f" (despite its {source.suffix} name)" if claimed else ""))
    named = _suffix_format(source.name)
    if named is not None and not formats()[named].signed:
        return named
    held = _held(probe)
    if named is None:
        return held
    if not formats()[named].opens_text:
        raise CorruptFile(_misnamed(source, probe, held))
    # a file of tags that is no whole page (a web application's table, Excel's XML spreadsheet) is read as a
    # web page is, for its words: under a binary format's name it is no plain text
    return "html" if held == "text" and probe.is_markup else held


def _held(probe: Probe) -> str:
    """The format of text by its content alone: ``"text"`` where no reading of it fits (README.Debian, NEWS,
    notes.2019)."""
    for fmt in formats().values():
        if fmt.looks_like is not None and fmt.looks_like(probe):
            return fmt.name
    return "text"


# What a file holds, by the format its content is read as, for the reason a misnamed one is refused with
_HOLDS = {"html": "a web page", "eml": "a mail", "mbox": "a mailbox", "vcard": "an address card",
          "icalendar": "a calendar", "svg": "a drawing", "man": "a manual page", "mhtml": "a saved web page"}
_TITLE = re.compile(rb"<title[^>]*>([^<]*)<", re.IGNORECASE)


def _misnamed(source: Source, probe: Probe, held: str) -> str:
    """Why a file of text named as a binary format that nothing opens as text (a .pdf, a .docx) is refused,
    quoting it: an HTML error page a download saved, a storage service's XML refusal, a cloud or Git LFS
    placeholder of the file."""
    import html

    markup = held not in _HOLDS and probe.is_markup
    what = _HOLDS.get(held) or ("markup (XML or HTML)" if markup else "text")
    found = _TITLE.search(probe.head) if held == "html" else None
    if found and found.group(1).strip():
        words = found.group(1)
    elif held == "html" or markup:
        words = re.sub(rb"<[^>]*>", b" ", re.sub(rb"(?is)<(script|style)\b.*?</\1\s*>", b" ", probe.head))
    else:
        words = next((line for line in probe.head.splitlines() if line.strip()), b"")
    first = " ".join(html.unescape(words.decode("utf-8", "replace")).split())
    quoted = f' ("{first[:60]}{"..." if len(first) > 60 else ""}")' if first else ""
    return (f"{source.name} holds {what}{quoted}, not the {Path(source.name).suffix} file its name says: a "
            "download that saved its error page, or a placeholder of the file, perhaps")


# The formats of mail, which a stray NUL byte or control character (a broken
# mailer's, an attachment sent raw) does not make binary
_MAIL_FORMATS = ("mbox", "eml")
# A header field's line, or an mbox's envelope line
_MAIL_FIRST_LINE = re.compile(rb"\s*(From |[!-9;-~]+:)")


def _mail_despite_binary(source: Source, probe: Probe) -> str | None:
    """The mail format of a file with a byte that looks binary: its head is
    mail headers or an mbox (a Maildir's message, Thunderbird's ``Inbox``),
    or its name says mail (``.eml``, ``.mbox``) and it starts as mail does."""
    for name in _MAIL_FORMATS:
        looks_like = formats()[name].looks_like
        if looks_like is not None and looks_like(probe):
            return name
    named = _suffix_format(source.name)
    if named in _MAIL_FORMATS and _MAIL_FIRST_LINE.match(probe.head):
        return named
    return None


def check_zip(source: Source, limits: Limits) -> None:
    """Refuse a zip that would unpack to more than the limit (a zip bomb), before any parser opens it."""
    with open_zip(source) as archive:
        infos = archive.infolist()
    unpacked = sum(i.file_size for i in infos)
    packed = sum(i.compress_size for i in infos) or 1
    if unpacked > limits.max_unpacked_bytes or (unpacked > 10 * 2**20 and unpacked / packed > _BOMB_RATIO):
        raise TooLarge(f"refused as a zip bomb: {source.name} would unpack to {unpacked / 2**20:.0f} MiB "
                       f"from {packed / 2**20:.1f} MiB (limit {limits.max_unpacked_bytes / 2**20:.0f} MiB, "
                       f"ratio {_BOMB_RATIO}x)")


def extract_source(source: Source, limits: Limits | None = None) -> Extracted:
    """Read one file or part in this process; raises only :class:`ExtractionError`.

    ``limits`` replace the source's own (a part made by :meth:`Source.child`
    keeps its parent's).  For untrusted files in bulk use
    :func:`lifededup.extract.isolate.extract_many`, which adds the time and
    memory limits that only a separate process can enforce.
    """
    if limits is not None:
        source = replace(source, limits=limits)
    try:
        size = source.size()
    except OSError as exc:
        raise CorruptFile(f"cannot read {source.name}: {exc.strerror or exc}") from exc
    if size == 0:
        raise EmptyFile(f"{source.name} is empty (0 bytes)")
    try:
        name = sniff(source)
    except ExtractionError:
        raise
    except Exception as exc:  # sniffing opens zips and OLE files: their readers' errors too
        raise CorruptFile(f"damaged {source.name}: {type(exc).__name__}: {exc}"[:500]) from exc
    if size > source.limits.max_bytes and not formats()[name].streamed:
        raise TooLarge(f"{source.name} is {size / 2**20:.0f} MiB, over the "
                       f"{source.limits.max_bytes / 2**20:.0f} MiB limit")
    read = extract_as(name, source)
    named = _suffix_format(source.name)
    if (named is not None and formats()[named].opens_text and not formats()[name].signed
            and read.kind not in CONTAINER_KINDS):
        # text under a name whose program opens it (a web page saved as .xls): of the kind its name says, but a
        # mailbox or an address book is what it is
        return replace(read, kind=formats()[named].kind)
    return read


def extract_as(name: str, source: Source, limits: Limits | None = None) -> Extracted:
    """Read ``source`` as the format called ``name`` (a key of :func:`formats`), whatever its content says."""
    if limits is not None:
        source = replace(source, limits=limits)
    fmt = formats()[name]
    try:
        if fmt.zipped:
            check_zip(source, source.limits)
        item = fmt.extract(source)
    except ExtractionError:
        raise
    except OSError as exc:
        raise CorruptFile(f"cannot read {source.name}: {exc.strerror or exc}") from exc
    except MemoryError as exc:
        raise TooLarge(f"{source.name} needs more memory than the {source.limits.memory_mb} MiB memory limit "
                       "allows") from exc
    except Exception as exc:  # the parsers' own errors are not a contract: wrap them
        raise _damaged(source, exc) from exc
    if _holds_nothing(item):
        raise EmptyFile(f"{source.name} is empty: {a_kind(item.kind)} with no text in it{pictures_said(source)}")
    return item


def _holds_nothing(item: Extracted) -> bool:
    """Whether an item read has nothing a search finds it by: no text, no title, no part.  A blank DOCX, ODT or
    RTF was stored ``ok`` with no text, where a blank ``.txt`` or PPTX is ``empty`` (README: "no text at all").  A
    mail is kept by its headers' people; a container's parts come lazily (a mailbox, an archive: each titled)."""
    return (item.kind != "email" and isinstance(item.children, (tuple, list)) and not item.children
            and not item.text.strip() and not item.title.strip())


def _damaged(source: Source, exc: Exception) -> CorruptFile:
    """The error a parser let escape as the reason recorded.  defusedxml (odfpy and openpyxl parse
    through it) refuses XML declaring entities, the shape of an attack: say so, not its repr."""
    if type(exc).__module__.startswith("defusedxml"):
        entity, where = getattr(exc, "name", None), getattr(exc, "sysid", None)
        declared = (f"the entity {entity!r}" if entity else "a document type") + (f" read from {where!r}" if where
                                                                                  else "")
        return CorruptFile(f"{source.name} is refused: its XML declares {declared}, as an XML attack does "
                           f"(to read files outside it, or to grow without end); lifededup expands no entity"[:500])
    return CorruptFile(f"damaged {source.name}: {type(exc).__name__}: {exc}"[:500])


def extract(path: Path, limits: Limits | None = None) -> Extracted:
    """Read one file on disk in this process (see :func:`extract_source`);
    a FIFO, socket or device is not opened (:class:`NotAFile`), as the
    indexer's workers do not open one."""
    try:
        regular = stat.S_ISREG(os.stat(path).st_mode)
    except OSError as exc:
        raise CorruptFile(f"cannot read {Path(path).name}: {exc.strerror or exc}") from exc
    if not regular:
        raise NotAFile(f"{Path(path).name} is not a regular file (a FIFO, socket or device): never read")
    return extract_source(Source.from_path(Path(path)), limits)
