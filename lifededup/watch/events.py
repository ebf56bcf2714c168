"""watchdog events to paths: what changed, as the debouncer wants it.

Modify events of folders are dropped (a folder "changes" whenever a file in
it does, and the file's own event says which); creation, deletion and moves
of folders are kept, so that a folder moved or deleted with its files in it
is handled as a whole.  Events on the store's own files are ignored, in case
the store lives inside a watched folder.
"""

from __future__ import annotations

import os
import queue
from collections.abc import Iterable

from watchdog.events import (
    DirAttribEvent,
    DirCreatedEvent,
    DirDeletedEvent,
    DirModifiedEvent,
    DirMovedEvent,
    FileAttribEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
    FileSystemMovedEvent,
)

# (path, partner, folder): partner is the other end of a move; folder: the event said it is one
Change = tuple[str, str | None, bool]

# The events asked of the system (watchdog's ``event_filter``, the inotify
# mask): those :class:`Changes` keeps -- a file written (its modify, its
# attributes, its close after writing), made, deleted or moved, and a folder
# made, deleted or moved.  Without it watchdog asked for every file opened
# and closed unwritten too, which Changes drops: a backup, `grep -r` or an
# IDE reading a tree of thousands of folders overflowed the kernel's queue
# (16,384 events), and watchdog's repair of its watches, a walk opening every
# folder, overflowed it again, for ever (a watcher at full CPU, indexing
# nothing, explorer E).
# A chmod or chown (IN_ATTRIB, which FileModifiedEvent asks the system for)
# comes as a File- or DirAttribEvent, which the filter keeps only if named:
# a file made readable again is read, a folder made listable again scanned.
WANTED = [FileCreatedEvent, DirCreatedEvent, FileModifiedEvent, FileAttribEvent, DirAttribEvent, FileClosedEvent,
          FileDeletedEvent, DirDeletedEvent, FileMovedEvent, DirMovedEvent]


def _text(path: str | bytes) -> str:
    # a name that is not UTF-8 keeps its bytes as surrogates (PEP 383), as os.listdir gives it
    return os.fsdecode(path)


class Changes(FileSystemEventHandler):
    """Puts each relevant event's paths on ``changes`` (thread-safe)."""

    def __init__(self, changes: queue.Queue[Change], ignore: Iterable[str] = ()) -> None:
        super().__init__()
        self.changes = changes
        self.ignore = tuple(ignore)

    def _put(self, path: str, partner: str | None = None, folder: bool = False) -> None:
        if not (self.ignore and path.startswith(self.ignore)):
            self.changes.put((path, partner, folder))

    def on_any_event(self, event: FileSystemEvent) -> None:
        if isinstance(event, DirModifiedEvent) or event.event_type in ("opened", "closed_no_write"):
            return
        src, folder = _text(event.src_path), event.is_directory
        if isinstance(event, FileSystemMovedEvent):
            dest = _text(event.dest_path)
            self._put(src, dest, folder)
            self._put(dest, src, folder)
        else:
            self._put(src, folder=folder)
