"""Extraction stage: every common format to clean text (the iFilter stand-in, seeds/000 section 2.2 step 1).

Public API
----------
In bulk, for untrusted files (what the indexer calls)::

    from lifededup.extract import Limits, extract_many
    for outcome in extract_many(paths, Limits(timeout_s=60, memory_mb=2048), workers=4):
        outcome.path      # the file
        outcome.part      # "" for the file itself, "message 3 / attachment 1: a.pdf" for a part
        outcome.result    # Extracted (text, title, kind, mime, doc_date, metadata) or Failure(status, reason)
        outcome.final     # True on the last outcome of that file

Workers are separate processes with a memory limit; a file whose parser goes
quiet past ``timeout_s`` or crashes becomes ``Failure("timeout"|"crashed")``
and the batch carries on.  A mailbox yields a ``kind == "mailbox"`` item with
no text, then one item per message (and per attachment), streamed.

Workers start through multiprocessing's "forkserver" (no fork of a threaded
indexer; "spawn" under a TMPDIR too long for the forkserver's socket), so a
script that calls ``extract_many`` at top level needs the usual
``if __name__ == "__main__":`` guard.

One file, in this process (trusted input, tests, the CLI)::

    extract(path) -> Extracted          # raises ExtractionError (see its subclasses)
    walk(extracted) -> Iterator[Extracted | Failure]   # the item and all its parts, flattened
    extract_text(path) -> str           # a file's own text (a mailbox, an archive: its parts' texts)
    extract_as(fmt, Source(name, data=...)) -> Extracted   # bytes read as a given format
    formats() -> {name: Format}         # every format: its suffixes, recognisers, extract function

A format is one module that declares ``FORMAT = Format(...)``; the contract
it keeps is written in :mod:`lifededup.extract.base`.

Statuses recorded for files that cannot be read: ``unsupported``, ``corrupt``,
``encrypted``, ``no-text-layer``, ``no-text``, ``empty``, ``too-large`` (also
zip bombs), ``timeout``, ``crashed``, ``missing-tool``; and, from the worker,
``vanished``, ``unreadable``, ``not-a-file``; a link in an archive, as one
the scan finds, ``link-outside``, ``link-loop``, ``broken-link``.  An item's
text is cut at ``max_text_chars`` (the cut in ``metadata["text_cut"]``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from lifededup.extract.base import (
    PATH_STATUSES, BrokenLink, Crashed, CorruptFile, EmptyFile, EncryptedFile, Extracted, ExtractionError, Failure,
    Format, Limits, LinkLoop, LinkOutside, MissingTool, NoText, NoTextLayer, Probe, Source, Timeout, TooLarge,
    UnsupportedFormat,
)
from lifededup.extract.isolate import MAX_TEXT_CHARS, Outcome, extract_many
from lifededup.extract.registry import extract, extract_as, extract_source, formats, sniff, supported_suffixes

__all__ = [
    "MAX_TEXT_CHARS", "PATH_STATUSES", "BrokenLink", "Crashed", "CorruptFile", "EmptyFile", "EncryptedFile", "Extracted",
    "ExtractionError", "Failure", "Format", "Limits", "LinkLoop", "LinkOutside", "MissingTool", "NoText",
    "NoTextLayer", "Outcome", "Probe", "Source", "Timeout", "TooLarge", "UnsupportedFormat", "extract", "extract_as",
    "extract_many", "extract_source", "extract_text", "formats", "sniff", "supported_suffixes", "walk",
]


def walk(item: Extracted) -> Iterator[Extracted | Failure]:
    """The item, then each of its parts depth-first (children consumed lazily, so mailboxes stream)."""
    yield item
    for child in item.children:
        if isinstance(child, Failure):
            yield child
        else:
            yield from walk(child)


def extract_text(path: Path) -> str:
    """The text of one file as the store keeps and clusters it: its own (a mail's without its attachments,
    which are parts of their own -- `compare` of two mails of one body found them unlike when their
    attachments differed); a container of no text of its own (a mailbox, an archive), its parts' texts one
    after another."""
    item = extract(path)
    if item.text.strip():
        return item.text
    return "\n\n".join(part.text for part in walk(item) if isinstance(part, Extracted) and part.text)
