"""Fingerprint and store stages: outcomes of extraction, a batch at a time,
fingerprinted in one ``fingerprint_many`` call and written in one transaction
(a kill -9 loses at most the batch in flight; the next run reads it again).

A mailbox read from where it grew (``ToRead.grown``) keeps its item and its
stored messages as they are: its new messages are added, and its file row
takes its new size, mtime and raw SHA-1 only in the transaction of its last
message -- until then the row still says the bytes whose messages are
stored, so a run interrupted before is done again by the next, from the
same place, over the messages it had stored (the same parts: none twice).

A file read whole again keeps each stored part's item where the part is
still there, renumbered or not: a part whose text, title and people a part
of the file already holds under another name takes that item (its id, its
cluster) with its new name, as a renamed file keeps its items.  Deleting
one message of a mailbox renumbers those after it; each keeps its item, so
an id (`show ID`, a link to the web view's item page) goes on naming the
same mail, and none of them is clustered again."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from lifededup.config import FingerprintParams
from lifededup.extract import PATH_STATUSES, Extracted, Failure, Outcome
from lifededup.extract.registry import kind_by_name
from lifededup.fingerprint import fingerprint_many
from lifededup.index.dates import date_in_name
from lifededup.index.plan import ToRead, message_number
from lifededup.index.progress import Progress
from lifededup.index.scan import Seen
from lifededup.model import Fingerprint
from lifededup.store import ItemRecord, Store
from lifededup.store.folders import files_as_stored

# by path: this machine's (revision 0009), every statement given the store's machine
# a file's row once its parts are stored: its stat, and the SHA-1 of the bytes they were read from
_ROOT_STAT = ("UPDATE items SET size = :size, mtime = :mtime, raw_sha1 = :sha1 "
              "WHERE path = :path AND part = '' AND machine = :machine")
_PARTS_OF = "SELECT id, part FROM items WHERE path = :path AND machine = :machine"
_FILE_ID = "SELECT id FROM items WHERE path = :path AND part = '' AND machine = :machine"
# how a file's own item failed, and the bytes it failed on
_FAILED_AS = ("SELECT id, status, error, kind, raw_sha1 FROM items WHERE path = :path AND part = '' "
              "AND machine = :machine")
# a file's stored parts, each with what names it beside its place: its text's SHA-1 (NULL: no text), title, people
_STORED_PARTS = ("SELECT i.id, i.part, c.sha1, i.title, i.people, i.status, i.parent_id, i.error, i.kind "
                 "FROM items i "
                 "LEFT JOIN clusters c ON c.item_id = i.id WHERE i.path = :path AND i.machine = :machine "
                 "AND i.part <> ''")
_RENAME = "UPDATE items SET part = :part WHERE id = :id"
IDENTIFY = ("UPDATE items SET device = :device, inode = :inode "
            "WHERE path = :path AND part = '' AND machine = :machine")


@dataclass
class Tally:
    """What a run did, counted as it goes (files; ``failed`` and ``items``:
    items, a mailbox's messages included; ``failed_files``: the files read
    that failed whole; ``vanished``: the files deleted or moved away before
    or while they were read -- not failures: a watched folder renamed
    mid-read is not 400 broken files -- so that new + updated + failed_files
    + vanished are the files read; ``bytes``: of the files read;
    ``no_text_layer``: of the failed items, the images and scans with no text
    but what OCR would read -- a photo library's thousands of them, which
    the summary says are not broken)."""

    new: int = 0
    updated: int = 0
    unchanged: int = 0
    moved: int = 0
    removed: int = 0
    failed: int = 0
    items: int = 0
    bytes: int = 0
    failed_files: int = 0
    vanished: int = 0
    no_text_layer: int = 0


def parent_part(part: str) -> str:
    """The part that holds this one: ``"message 3 / attachment 1: a.pdf"`` is
    inside ``"message 3"``, which is inside the file (``""``)."""
    return part.rsplit(" / ", 1)[0] if " / " in part else ""


def text_of(outcome: Outcome) -> str | None:
    """The text worth fingerprinting: None for failures and items with no words."""
    result = outcome.result
    if isinstance(result, Extracted) and result.text.strip():
        return result.text
    return None


def people_of(result: Extracted) -> str | None:
    """A mail's sender and recipients as ``items.people`` keeps them: ``from NAME <ADDRESS>; to ...; cc ...;
    bcc ...`` (a sent mail's blind copies: its author's own record)."""
    said = [f"{field} {result.metadata[field]}" for field in ("from", "to", "cc", "bcc")
            if result.metadata.get(field)]
    return "; ".join(said)[:10_000] if said and result.kind == "email" else None


Key = tuple[str, "str | None", "str | None"]  # a part's text SHA-1 ("" if it has no words), title and people
# A failed part's Key: this mark, the item it lies in, and its own name there ("attachment 1: scan.jpg")
_FAILED = "\x00failed"


def _key(record: ItemRecord, fingerprint: Fingerprint | None, result: Extracted | Failure) -> Key | None:
    """What a part read whole again is known by beside its name.  A part of no words keeps its title and
    people: else a mail that is only its attachment took, renumbered, the item its new number held -- a
    deleted mail's -- and left its own to the next such mail.  A part that failed has no text to be known by,
    but an attachment is known by its mail, which keeps its item, and its name in it: else every image of a
    renumbered mail was a new item, and warned of again.  (None: a failed mail, known by its name alone.)"""
    if isinstance(result, Failure):
        return _failed_key(record.parent_id, record.part)
    return ("" if fingerprint is None else fingerprint.sha1, record.title, record.people)


def _failed_key(parent: object, part: str) -> Key | None:
    """A failed part's key: the item it lies in, and its name there; None for one that lies in its file."""
    return None if parent is None or " / " not in part else (_FAILED, str(parent), part.rsplit(" / ", 1)[1])


def _stored_key(part: str, sha1: object, title: object, people: object, status: str, parent: object) -> Key | None:
    """A stored part's key (:func:`_key`): its text's SHA-1 ("": a part of no words), title and people, or
    failed."""
    if status != "ok":
        return _failed_key(parent, part)
    return ("" if sha1 is None else str(sha1), None if title is None else str(title),
            None if people is None else str(people))


@dataclass
class _Stored:
    """The parts of a file as stored when it began to be read again whole,
    kept up to date with the renames made as its parts are written: the
    item each name holds, and each item's key and name.  ``claimed``: the
    items whose name this read has written (a rename's target no more)."""

    by_name: dict[str, int]
    names: dict[int, str]
    keys: dict[int, Key]
    claimed: set[int] = field(default_factory=set)
    # the failed items, and how: (status, reason, kind)
    failed: dict[int, tuple[str, str, str]] = field(default_factory=dict)
    _by_key: dict[Key, list[int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for item, key in sorted(self.keys.items()):
            self._by_key.setdefault(key, []).append(item)

    def holding(self, key: Key) -> int | None:
        """An item not yet claimed whose part had this key (the oldest), if any."""
        items = self._by_key.get(key, [])
        while items and items[0] in self.claimed:
            items.pop(0)
        return items[0] if items else None

    def failed_so(self, item: int, key: Key | None, record: ItemRecord, failure: Failure) -> bool:
        """Whether ``item`` holds this part as it failed now: known by the same key (its mail, its name
        there) and recorded failed for the same status and reason, of the same kind."""
        return key is not None and self.keys.get(item) == key \
            and self.failed.get(item) == (failure.status, failure.reason, record.kind)


@dataclass
class BatchWriter:
    """Collects outcomes and writes them a batch at a time."""

    store: Store
    params: FingerprintParams
    to_read: dict[str, ToRead]
    tally: Tally
    progress: Progress
    batch_items: int
    batch_seconds: float
    clock: Callable[[], float] = time.monotonic
    # Characters of text per batch: a batch of large texts is written early,
    # so fingerprinting a batch never holds more than this (three batches at
    # most are in memory: buffered, queued, being written).
    batch_chars: int = 16 * 2**20
    _buffer: list[Outcome] = field(default_factory=list)
    _chars: int = 0
    _since: float = 0.0
    # ids of the parts written so far of files still being read (a mailbox
    # spans batches; its attachments need their message's id)
    _open: dict[str, dict[str, int]] = field(default_factory=dict)
    # the stored parts of the files being read whole again (_renumbered)
    _stored: dict[str, _Stored] = field(default_factory=dict)
    # batches waiting for the writer thread: two at most, so memory stays
    # bounded when the store is slower than extraction
    _batches: queue.Queue[list[Outcome] | None] = field(default_factory=lambda: queue.Queue(maxsize=2))
    _thread: threading.Thread | None = None
    _failure: BaseException | None = None
    # The folders whose files may be written, read in each batch's own
    # transaction (the watcher of the store's folders): a file under none of
    # them -- its folder removed while it was read -- is not written, so a
    # `folders remove --forget` is never undone by a batch committed after
    # it.  ``dropped`` is set once one is.
    watched: Callable[[], list[str]] | None = None
    dropped: threading.Event = field(default_factory=threading.Event)
    # Files still being written (the watcher's, taken while written to): one that cannot be read is
    # recorded nothing -- its stored item, if any, stays as it was -- and is put in ``deferred``
    # (path -> why) for the caller to read again once it is still.  Recorded, a download's first
    # partial read was listed by `lifededup failures`, and a good version being rewritten lost its text.
    unsettled: frozenset[str] = frozenset()
    deferred: dict[str, str] = field(default_factory=dict)
    # Whether a file that could not be read, as the scan found it, is still being written all the
    # same (the watcher's judgement: its rescan meets a download in progress, which no event marked):
    # deferred as the ``unsettled`` are.  Recorded, a rescan listed a download as "corrupt".
    changing: Callable[[Seen], bool] | None = None
    # the identities (device, inode) of the files the batch being written completed
    _identities: list[dict[str, object]] = field(default_factory=list)
    # New files another run (a second `index` of the same folder, the watcher) stored after this one's
    # plan: those it stored as these bytes are left as they are (unchanged), the others written over
    # (updated).  Both runs said "new" of every file, the store holding each once.
    _stored_meanwhile: set[str] = field(default_factory=set)
    _written_over: set[str] = field(default_factory=set)

    def add(self, outcome: Outcome) -> None:
        if not self._buffer:
            self._since = self.clock()
        self._buffer.append(outcome)
        self._chars += len(outcome.result.text) if isinstance(outcome.result, Extracted) else 0
        if (len(self._buffer) >= self.batch_items or self._chars >= self.batch_chars
                or self.clock() - self._since >= self.batch_seconds):
            self.flush()

    def flush(self) -> None:
        """Hand the buffered outcomes on to be written."""
        if self._failure is not None:
            raise self._failure
        if not self._buffer:
            return
        batch, self._buffer, self._chars = self._buffer, [], 0
        if self._thread is None:
            self._write_batch(batch)
        else:
            self._batches.put(batch)

    @contextmanager
    def in_background(self) -> Iterator[BatchWriter]:
        """Write batches in a thread of their own while the caller keeps the
        extraction workers fed (they would otherwise idle during each
        commit).  The store is used by that thread alone until the block
        ends; on leaving, the batches handed on are written (or, after an
        error, dropped) before the thread ends."""
        self._thread = threading.Thread(target=self._drain, name="lifededup-writer", daemon=True)
        self._thread.start()
        try:
            yield self
        finally:
            self._batches.put(None)
            self._thread.join()
            self._thread = None
        if self._failure is not None:
            raise self._failure

    def _drain(self) -> None:
        while (batch := self._batches.get()) is not None:
            if self._failure is None:
                try:
                    self._write_batch(batch)
                except BaseException as exc:  # re-raised in the caller's thread
                    self._failure = exc

    def _write_batch(self, batch: list[Outcome]) -> None:
        texts = [t for t in map(text_of, batch) if t is not None]
        prints = iter(fingerprint_many(texts, self.params))
        done: list[tuple[str, int]] = []
        with self.store.transaction():
            # the store's schema and this machine's name checked under the write lock, not only by an item's
            # write: a batch of stats alone (files that failed as before) would otherwise be written by an older
            # lifededup into a store a newer one upgraded meanwhile, its marks to read them again spent
            self.store.claim_machine()
            self._identities = []  # (none left by a batch the store refused)
            walls = None if self.watched is None else [folder.rstrip("/") + "/" for folder in self.watched()]
            self._look_for_stored(batch)
            for outcome in batch:
                fingerprint = next(prints) if text_of(outcome) is not None else None
                if walls is not None and not str(outcome.path).startswith(tuple(walls)):
                    self.dropped.set()  # its folder is no longer watched: not written
                    continue
                if self._write(outcome, fingerprint):
                    info = self.to_read[str(outcome.path)]
                    grown = info.grown
                    done.append((str(outcome.path), info.seen.size if grown is None else grown.end - grown.offset))
            # the completed files' identities, together: a statement a file was a round trip each to a server
            self.store.execute_many(IDENTIFY, self._identities)
        # counted once committed: an interrupted batch is not reported as done
        for path, size in done:
            self.tally.bytes += size
            self.progress.file_done(path, size)

    def _write(self, outcome: Outcome, fingerprint: Fingerprint | None) -> bool:
        """Write one outcome; True when it completed its file."""
        path, part = str(outcome.path), outcome.part
        info = self.to_read[path]
        if self._deferred(outcome) or self._already_stored(outcome, info) or self._gone_from_its_item(outcome, info):
            return outcome.final
        parts = self._open.setdefault(path, {})
        record = self._record(outcome, info, parts)
        result = outcome.result
        key = _key(record, fingerprint, result)
        if part != "" and not self._new(path, info) and info.grown is None:
            self._renumbered(path, part, key)
        if isinstance(result, Failure):
            parts[part] = self._failed(record, result, info, self._stored.get(path), key)
        elif part == "" and info.grown is not None and (kept := self._file_id(path)) is not None:
            parts[part] = kept  # a mailbox read from where it grew: its item stays as stored until complete
        else:
            parts[part] = self.store.upsert_item(record, fingerprint, new=self._new(path, info))
            self.tally.items += 1
        if not outcome.final:
            return False
        self._complete(path, info, parts, last=part, failed=isinstance(result, Failure) and part == "")
        return True

    def _failed(self, record: ItemRecord, failure: Failure, info: ToRead, stored: _Stored | None,
                key: Key | None) -> int:
        """Record a failure, and count it; its item.  One its item holds
        already, for the same content, is left as recorded
        (:meth:`_failed_before`)."""
        kept = self._failed_before(record, failure, info, stored, key)
        if kept is None:
            kept = self.store.record_failure(record, failure.reason, status=failure.status,
                                             new=self._new(record.path, info))
        if record.part == "" and failure.status == "vanished":
            self.tally.vanished += 1
        else:
            self.tally.failed += 1
            self.tally.failed_files += record.part == ""
            self.tally.no_text_layer += failure.status == "no-text-layer"
        return kept

    def _failed_before(self, record: ItemRecord, failure: Failure, info: ToRead, stored: _Stored | None,
                       key: Key | None) -> int | None:
        """The item that holds this failure already, for the same content,
        left as recorded -- its indexed_at kept, for the watcher names what
        failed since its run began: a part of a file read whole again (a
        mail deleted from its mbox before it) known by its mail and its name
        there, or a file of the same bytes (read again for a revision's mark,
        or ``--reread``), of the same status and reason.  The watcher warned
        again of every attachment still unreadable at each mail deleted."""
        if record.part:
            holder = None if stored is None else stored.by_name.get(record.part)
            same = holder is not None and stored is not None and stored.failed_so(holder, key, record, failure)
            return holder if same else None
        if failure.status == "vanished" or info.raw_sha1 is None:
            return None
        _, rows = self.store.execute(_FAILED_AS, {"path": record.path, "machine": self.store.machine})
        # (of the same kind: revision 0017 reads failed files again to give them theirs)
        if not rows or tuple(rows[0][1:]) != (failure.status, failure.reason, record.kind, info.raw_sha1):
            return None
        # its stat as read: not read again (it was marked so)
        self.store.execute(_ROOT_STAT, {"size": info.seen.size, "mtime": info.seen.mtime, "sha1": info.raw_sha1,
                                        "path": record.path, "machine": self.store.machine})
        return int(str(rows[0][0]))

    def _deferred(self, outcome: Outcome) -> bool:
        """Whether an outcome is a file still being written that could not be
        read (``unsettled``, or ``changing``): nothing of it is written."""
        path, result = str(outcome.path), outcome.result
        if not (outcome.part == "" and isinstance(result, Failure)
                and result.status != "vanished"  # (vanished: not a failure, and recorded to be read again)
                and result.status not in PATH_STATUSES):  # a FIFO, a link: what the path is, not half its bytes
            return False
        if path not in self.unsettled and (self.changing is None or not self.changing(self.to_read[path].seen)):
            return False
        self.deferred[path] = result.reason
        if outcome.final:
            self._open.pop(path, None)
            self._stored.pop(path, None)
        return True

    def _gone_from_its_item(self, outcome: Outcome, info: ToRead) -> bool:
        """Whether an outcome is a stored file, read again (changed, or moved
        to a name that reads otherwise), that vanished before or as it was
        read, none of its parts written yet: its item is left as it was, for
        the next run to follow where it went (:attr:`~lifededup.index.plan.Known.follows`)
        or remove.  Recorded vanished, it held no bytes to be found by, and a
        file renamed twice in a few seconds became a new item."""
        path, result = str(outcome.path), outcome.result
        if not (outcome.part == "" and isinstance(result, Failure) and result.status == "vanished"
                and not self._new(path, info) and path not in self._open):
            return False
        self.tally.vanished += 1
        self._stored.pop(path, None)
        return True

    def _look_for_stored(self, batch: list[Outcome]) -> None:
        """The new files whose first outcome is in ``batch`` that another run
        stored meanwhile, looked for in one statement in the batch's
        transaction -- writers take turns (SQLite's BEGIN IMMEDIATE,
        PostgreSQL's advisory lock), so no other run writes them between the
        look and the write.  Those stored as these same bytes (size, mtime
        and raw SHA-1, complete) go to ``_stored_meanwhile``, the others
        stored to ``_written_over``.  (A look a file cost a first index of a
        large archive a round trip each.)"""
        seen = self._stored_meanwhile | self._written_over
        new = list(dict.fromkeys(str(o.path) for o in batch if str(o.path) not in self._open
                                 and str(o.path) not in seen and self.to_read[str(o.path)].is_new))
        for path, size, mtime, sha1 in files_as_stored(self.store, new):
            info = self.to_read[str(path)]
            same = mtime is not None and (size, mtime, sha1) == (info.seen.size, info.seen.mtime, info.raw_sha1)
            (self._stored_meanwhile if same else self._written_over).add(str(path))

    def _already_stored(self, outcome: Outcome, info: ToRead) -> bool:
        """Whether a file read as new was stored meanwhile by another run as
        these same bytes (``_look_for_stored``): nothing of it is written,
        and it counts as unchanged.  Stored otherwise, it is written over,
        and counts as updated."""
        path = str(outcome.path)
        if path not in self._stored_meanwhile:
            return False
        if outcome.final:
            self._stored_meanwhile.discard(path)
            self.tally.unchanged += 1
        return True

    def _new(self, path: str, info: ToRead) -> bool:
        """Whether a file is new to the store (not one another run stored meanwhile)."""
        return info.is_new and path not in self._written_over

    def _record(self, outcome: Outcome, info: ToRead, parts: dict[str, int]) -> ItemRecord:
        part, result = outcome.part, outcome.result
        whole = part == ""
        # A file's own item gets its mtime only once all its parts are stored:
        # NULL marks it half-written, so the next run reads it again.
        stat = {"size": info.seen.size, "mtime": info.seen.mtime if outcome.final else None,
                "raw_sha1": info.raw_sha1} if whole else {}
        parent = None if whole else parts.get(parent_part(part), parts.get(""))
        if isinstance(result, Failure):
            if whole and result.status == "vanished":
                # its bytes were never read: no source for a move (it may have been
                # moved into another watched folder), and read again should it be back
                stat["mtime"] = None
            # a part is named by its path in the file ("mail.zip / attachment 2: report.pdf")
            name = outcome.path.name if whole else part.rsplit(" / ", 1)[-1].split(": ", 1)[-1]
            return ItemRecord(path=str(outcome.path), part=part, parent_id=parent,
                              kind=result.kind or kind_by_name(name), **stat)  # type: ignore[arg-type]
        # a format with no date of its own: the date in the file's name, if any, beats the mtime
        doc_date = result.doc_date or (date_in_name(outcome.path.name) if whole else None)
        return ItemRecord(
            path=str(outcome.path), part=part, parent_id=parent, kind=result.kind, mime_type=result.mime,
            doc_date=doc_date, title=result.title or None, text=text_of(outcome), people=people_of(result),
            text_cut=int(result.metadata["text_cut"]) if "text_cut" in result.metadata else None,
            **stat,  # type: ignore[arg-type]
        )

    def _renumbered(self, path: str, part: str, key: Key | None) -> None:
        """Before ``part`` of a file read whole again is written: where the
        item stored under that name holds other text and an item of the
        file not yet written in this read holds this text (same title and
        people), that item takes the name -- the two items swap names, so
        that every name stays unique and the item that held it may still be
        found under its own text later in the read.  The upsert that follows
        then finds the item with its text unchanged: no clustering again.
        A part of no words (a mail whose only content is an attachment) is
        known by its title and people alone, a failed attachment by its mail
        and its name there.  A mail that failed (``key`` None) takes its
        name's item as it is, which no later part may then take for its old
        text."""
        stored = self._stored.get(path)
        if stored is None:
            _, rows = self.store.execute(_STORED_PARTS, {"path": path, "machine": self.store.machine})
            keys = {int(r[0]): _stored_key(str(r[1]), r[2], r[3], r[4], str(r[5]), r[6])  # type: ignore[call-overload]
                    for r in rows}
            stored = self._stored[path] = _Stored(
                {str(r[1]): int(r[0]) for r in rows},  # type: ignore[call-overload]
                {int(r[0]): str(r[1]) for r in rows},  # type: ignore[call-overload]
                {item: found for item, found in keys.items() if found is not None},
                failed={int(r[0]): (str(r[5]), str(r[7] or ""), str(r[8])) for r in rows  # type: ignore[call-overload]
                        if r[5] != "ok"})
        holder = stored.by_name.get(part)
        moved = None if key is None or holder is not None and stored.keys.get(holder) == key else stored.holding(key)
        if moved is not None:
            old = stored.names[moved]
            if holder is not None:  # through a name no part has: (machine, path, part) is unique
                self.store.execute(_RENAME, {"part": f"\x01renumbering {moved}", "id": moved})
                self.store.execute(_RENAME, {"part": old, "id": holder})
                stored.by_name[old], stored.names[holder] = holder, old
            else:
                del stored.by_name[old]
            self.store.execute(_RENAME, {"part": part, "id": moved})
            stored.by_name[part], stored.names[moved] = moved, part
            holder = moved
        if holder is not None:
            stored.claimed.add(holder)  # written now: holds this part's text from here on

    def _file_id(self, path: str) -> int | None:
        _, rows = self.store.execute(_FILE_ID, {"path": path, "machine": self.store.machine})
        return int(rows[0][0]) if rows else None  # type: ignore[call-overload]

    def _complete(self, path: str, info: ToRead, parts: dict[str, int], *, last: str, failed: bool) -> None:
        del self._open[path]
        self._stored.pop(path, None)
        if info.identity is not None:  # written with the batch's last statements
            self._identities.append({"path": path, "device": info.identity[0], "inode": info.identity[1],
                                     "machine": self.store.machine})
        grown = None if failed else info.grown
        # the file's own item was written before its parts (a mailbox read from where it grew: kept as it was,
        # its row saying the old bytes): now complete, in the transaction of its last part
        if grown is not None or (last != "" and "" in parts):
            self.store.execute(_ROOT_STAT, {"size": info.seen.size, "mtime": info.seen.mtime, "sha1": info.raw_sha1,
                                            "path": path, "machine": self.store.machine})
        if not self._new(path, info):
            _, rows = self.store.execute(_PARTS_OF, {"path": path, "machine": self.store.machine})
            # read from where it grew, the messages before are kept: only those of an interrupted read may go
            stale = [int(r[0]) for r in rows if r[1] not in parts  # type: ignore[call-overload]
                     and (grown is None or (message_number(str(r[1])) or 0) > grown.messages)]
            if stale:
                self.store.remove_ids(stale)
        if not failed:
            if self._new(path, info):
                self.tally.new += 1
            else:
                self.tally.updated += 1
