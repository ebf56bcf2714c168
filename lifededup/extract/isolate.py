"""Extraction in worker processes, so one hostile file never stops or slows the rest.

Parsers of binary formats hang, crash in native code and eat memory on
malformed input.  Each worker process has an address-space limit
(``resource.RLIMIT_AS``); the parent stops a worker that goes quiet for longer
than the time limit, and replaces a worker that dies.  The file is then
recorded as a :class:`Failure` (``timeout``, ``crashed``) and the batch goes on.

The parent's memory is bounded too: a worker cuts an item's text at
``max_text_chars`` (the cut is recorded in ``metadata["text_cut"]``, the
length it had), so however large a file's text, the parent never holds more
than that of it.  A file that is not there by the time it is read is
``vanished``; one the process may not open is ``unreadable``; a FIFO, socket
or device is ``not-a-file`` (never opened: a FIFO would block the reader).
Paths are the store's form (``lifededup.model.stored_path``).
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import re
import resource
import shutil
import signal
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any, NamedTuple

from lifededup.extract.base import Crashed, Extracted, ExtractionError, Failure, Limits, Source, Timeout, TooLarge
from lifededup.extract.registry import FORMAT_MODULES, extract_source
from lifededup.extract import sandbox
from lifededup.model import fs_path

SourceExtractor = Callable[[Source, Limits], Extracted]

# The most text the parent takes of one item: a long book is 1-3 million
# characters; 8 Mi characters keep fingerprinting one item under ~1 GB
# (benchmarks/bench_memory.py) and leave room for every real document.
MAX_TEXT_CHARS = 8 * 2**20


class Outcome(NamedTuple):
    """One item of a batch: a file (``part == ""``) or a part inside it, read or failed.

    ``final`` is True on the last outcome of a file: the file is then fully read.
    """

    path: Path
    part: str
    result: Extracted | Failure
    final: bool


def _flatten(item: Extracted, send: Callable[[str, Extracted | Failure], None]) -> None:
    send(item.part, item.without_children())
    try:
        for child in item.children:
            if isinstance(child, Failure):
                send(child.part, child)
            else:
                _flatten(child, send)
    except ExtractionError as exc:
        send(item.part, Failure.from_error(exc, item.part))
    except Exception as exc:  # a child generator's parser failed: report it, keep the siblings sent so far
        send(item.part, Failure("corrupt", f"damaged part: {type(exc).__name__}: {exc}"[:500], item.part))


def _cut(result: Extracted | Failure, max_chars: int) -> Extracted | Failure:
    """The item with its text cut at ``max_chars`` (at a space when there is one near), the cut recorded."""
    if not isinstance(result, Extracted) or len(result.text) <= max_chars:
        return result
    end = result.text.rfind(" ", max_chars - 1000, max_chars)
    text = result.text[:end if end > 0 else max_chars]
    return replace(result, text=text, metadata={**result.metadata, "text_cut": str(len(result.text))})


# A surrogate that stands for no byte of a name (PEP 383's stand for bytes 0x80-0xFF as U+DC80-U+DCFF): half of
# a UTF-16 pair a parser gave alone
_NO_BYTE = re.compile("[\ud800-\udc7f\udd00-\udfff]")


def _utf8(text: str) -> str:
    """Text SQLite can hold: a file name that is not UTF-8 (surrogates, PEP 383)
    may reach a message or a title; its odd bytes become U+FFFD there, as does
    a lone half of a UTF-16 pair that a parser let through (it stopped the
    worker: "crashed")."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _NO_BYTE.sub("\ufffd", text).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return text


# Control characters that are not whitespace: a mail's base64 body or a PDF may hold them. They are no part of
# a word, and search marks matched words with two of them (search/snippet.py): each becomes a space.
_CONTROL = re.compile("[\x00-\x08\x0e-\x1f\x7f]")


def as_stored(text: str) -> str:
    """A title or text as the workers send it to be stored: its control characters spaces, a name's odd bytes U+FFFD."""
    return _CONTROL.sub(" ", _utf8(text))


def as_said(reason: str) -> str:
    """A failure's reason as the workers send it to be stored: a name's odd bytes U+FFFD."""
    return _utf8(reason)


def _clean(result: Extracted | Failure) -> Extracted | Failure:
    if isinstance(result, Failure):
        return replace(result, reason=as_said(result.reason))
    return replace(result, title=as_stored(result.title), text=as_stored(result.text),
                   metadata={_utf8(k): _utf8(v) for k, v in result.metadata.items()})


def _unreadable(path: Path, real: bool = False) -> Failure | None:
    """Why the file cannot be read at all, before any parser tries (None: it can).

    ``real``: ``path`` is the real path a scan found (links resolved, the
    link rule applied).  If it no longer is -- the file, or a folder on its
    way, replaced by a symbolic link since (a folder moved to another disk,
    a link left behind) -- it is not read, which would read wherever the
    link leads, outside the folders perhaps; the next run applies the link
    rule."""
    try:
        if real and os.path.realpath(path) != os.fspath(path):
            return Failure("vanished", "replaced by a symbolic link (it, or a folder on its way) after it was "
                           "found: not read; the next run follows the link rule")
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            return Failure("not-a-file", "not a regular file (a FIFO, socket or device): never read")
        with open(path, "rb"):
            pass
    except FileNotFoundError:
        return Failure("vanished", "the file was deleted or moved before it could be read")
    except PermissionError as exc:
        if real and _swapped_while_read(path):
            return _SWAPPED
        return _denied(path)
    except OSError as exc:
        return Failure("unreadable", f"cannot open the file: {exc.strerror or exc}")
    return None


def _denied(path: Path) -> Failure:
    """A file its permissions keep from lifededup's user, said with who owns
    it and its mode, and what lets it be read -- "permission denied:
    Permission denied" said neither.  lifededup never changes it: the
    person does, and the next run reads it (its item is kept)."""
    import pwd

    def name(uid: int) -> str:
        try:
            return pwd.getpwuid(uid).pw_name
        except KeyError:
            return str(uid)

    try:
        found = os.stat(path)
        whose = f" (owner {name(found.st_uid)}, {stat.filemode(found.st_mode)})"
    except OSError:
        whose = ""
    return Failure("unreadable", f"permission denied: {name(os.geteuid())} may not read it{whose}; it is read once "
                   "that user may (chmod a+r, or the file's group)")


_SWAPPED = Failure("vanished", "replaced by a symbolic link (it, or a folder on its way) as it was read: not read; "
                   "the next run follows the link rule")


def _swapped_while_read(path: Path) -> bool:
    """Whether a read of ``path`` refused as "permission denied" was refused
    by the confinement, not by the file's permissions: a folder on its way
    swapped for a link to outside the folders.  ``access`` asks the file's
    permissions alone (Landlock does not answer it), so a file its owner may
    read, refused all the same, was reached through such a link.  Asked
    again a few times: mid-swap the path is briefly not there at all, which
    ``access`` answers as a denial."""
    if not sandbox.available():
        return False
    for _ in range(3):
        if os.path.realpath(path) != os.fspath(path) or os.access(path, os.R_OK):
            return True
    return False


def _failure_of(error: ExtractionError, path: Path, real: bool = False) -> Failure:
    """The extractor's failure, unless the file vanished or became unreadable while it was read
    (``real``: as :func:`_unreadable`'s)."""
    cause = error.__cause__
    if isinstance(cause, FileNotFoundError) or not os.path.lexists(path):
        return Failure("vanished", f"the file was deleted or moved while it was read ({error})"[:500])
    if isinstance(cause, PermissionError) and real and _swapped_while_read(path):
        return _SWAPPED
    if isinstance(cause, PermissionError):
        other = cause.filename is not None and os.fspath(cause.filename) != os.fspath(path)
        if other and sandbox.available():  # a library or program the confinement did not allow
            return Failure("unreadable", f"{sandbox.REFUSED}: {cause.filename}; the next run reads it again")
        return _denied(path)
    return Failure.from_error(error)


def _memory_kib() -> tuple[int, int]:
    """This process's address space now and at its peak, in KiB (Linux's
    /proc/self/status; 0 and 0 elsewhere)."""
    found = {"VmSize:": 0, "VmPeak:": 0}
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:  # "VmPeak:\t  123456 kB"
                fields = line.split()
                if fields and fields[0] in found:
                    found[fields[0]] = int(fields[1])
    except (OSError, ValueError, IndexError):
        pass
    return found["VmSize:"], found["VmPeak:"]


def _out_of_memory(error: ExtractionError, limits: Limits, peak_before: int) -> Failure | None:
    """The failure as what it was, where a parser in C (lxml, PDFium) met
    the address-space limit and said something else -- lxml says
    "XMLSyntaxError: unknown error", which read as a damaged file and stuck
    as one: the file was never read again, even with more memory.  It is
    taken for the limit when the worker is at it now (a limit below what a
    worker starts with: --memory-mb 64), or this file took the worker's
    peak to within a tenth of it."""
    if isinstance(error, (TooLarge, Timeout, Crashed)):
        return None
    size, peak = _memory_kib()
    near = limits.memory_mb * 1024 * 0.9
    if size < near and not (peak > peak_before and peak >= near):
        return None
    return Failure("too-large", f"ran out of the {limits.memory_mb} MiB memory limit ({error})"[:500])


def _worker(conn: Connection, limits: Limits, extractor: SourceExtractor, max_chars: int, real: bool,
            walls: tuple[str, ...] | None = None, own: str = "") -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when workers stop
    limit = limits.memory_mb * 2**20
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))
    if walls is not None:
        sandbox.confine_worker(walls, own)
    try:
        _serve(conn, limits, extractor, max_chars, real)
    except (EOFError, OSError):
        # the parent is gone (killed, or closed the pipe): nothing to report to, exit quietly
        sys.exit(0)


# In a worker reading a file: tells the parent that its parser advances (see report_progress).
_progress: Callable[[], None] | None = None


def report_progress() -> None:
    """Tell the parent process that the file being read advances (OCR calls it after each page).

    The parent stops a worker silent for longer than the time limit; a parser
    slow on the whole but steady step by step (a 36-page scan OCR'd at a few
    seconds a page) reports each step, so only a step that hangs is stopped.
    Outside a worker (a file read in-process) it does nothing."""
    if _progress is not None:
        _progress()


def _serve(conn: Connection, limits: Limits, extractor: SourceExtractor, max_chars: int, real: bool) -> None:
    global _progress
    while (task := conn.recv()) is not None:
        index, name = task
        path = Path(fs_path(name))

        def send(part: str, result: Extracted | Failure) -> None:
            conn.send(("item", index, _utf8(part), _clean(_cut(result, max_chars))))

        def progress(index: int = index) -> None:
            conn.send(("progress", index, "", None))

        _progress = progress
        peak = _memory_kib()[1]
        try:
            failure = _unreadable(path, real)
            if failure is not None:
                send("", failure)
            else:
                _flatten(extractor(Source.from_path(path), limits), send)
        except ExtractionError as exc:
            send("", _out_of_memory(exc, limits, peak) or _failure_of(exc, path, real))
        except MemoryError:
            send("", Failure("too-large", f"ran out of the {limits.memory_mb} MiB memory limit"))
        finally:
            _progress = None
        conn.send(("done", index, "", None))


@dataclass
class _Worker:
    process: BaseProcess
    conn: Connection
    task: tuple[int, Path] | None = None
    last_seen: float = 0.0
    # The latest item is held back until the next arrives, so the last one can be marked final.
    held: tuple[str, Extracted | Failure] | None = None
    sent: int = field(default=0)
    max_chars: int = MAX_TEXT_CHARS
    real: bool = False  # its paths are real paths a scan found (see extract_many)
    walls: tuple[str, ...] | None = None  # the folders it may read in (see extract_many)
    own: str = ""  # its temporary folder when confined, removed when it stops


def _spawn(ctx: Any, limits: Limits, extractor: SourceExtractor, max_chars: int = MAX_TEXT_CHARS,
           real: bool = False, walls: tuple[str, ...] | None = None) -> _Worker:
    parent, child = ctx.Pipe()
    own = tempfile.mkdtemp(prefix=f"{_OWN_PREFIX}{os.getpid()}-") if walls is not None else ""
    process = ctx.Process(target=_worker, args=(child, limits, extractor, max_chars, real, walls, own), daemon=True)
    process.start()
    child.close()
    return _Worker(process=process, conn=parent, max_chars=max_chars, real=real, walls=walls, own=own)


# The forkserver listens on a socket in the temporary folder, TMPDIR/pymp-XXXXXXXX/listener-XXXXXXXX
# (multiprocessing.util.get_temp_dir, connection.arbitrary_address); a socket's path holds at most 107
# bytes on Linux (sun_path[108], with its NUL), 103 on macOS.  Under a longer TMPDIR the forkserver
# cannot start ("AF_UNIX path too long", a traceback at every index): workers are then spawned, a
# fresh interpreter each (slower to start, as safe: no fork of a threaded indexer either).
_SOCKET_PATH_MAX = 103
_SOCKET_IN_TEMP = os.path.join("pymp-xxxxxxxx", "listener-xxxxxxxx")


def _context() -> Any:
    """The way workers start: the forkserver, unless its socket's path would be too long.

    The forkserver imports the readers of every format before it forks a worker.  A worker imported them
    itself (the first file it sniffs loads them all), a quarter to half a second each: four times an index
    for four workers, and again for every batch a watcher reads."""
    socket = os.path.join(tempfile.gettempdir(), _SOCKET_IN_TEMP)
    if len(os.fsencode(socket)) > _SOCKET_PATH_MAX:
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["__main__", __name__, *FORMAT_MODULES])  # before it starts; later calls change nothing
    return ctx


# a confined worker's temporary folder: lifededup-worker-PID-XXXX, PID its indexer's
_OWN_PREFIX = "lifededup-worker-"


def _sweep_left_behind() -> None:
    """Remove the workers' temporary folders an indexer killed (kill -9, a
    power cut) left behind: those of a process that is gone."""
    for left in Path(tempfile.gettempdir()).glob(f"{_OWN_PREFIX}*-*"):
        pid = left.name[len(_OWN_PREFIX):].split("-", 1)[0]
        if not pid.isdecimal() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(left, ignore_errors=True)
        except OSError:
            pass  # another user's process: not ours to judge


def _stop(worker: _Worker) -> None:
    if worker.process.is_alive():
        worker.process.kill()
    worker.process.join(5)
    worker.conn.close()
    if worker.own:
        shutil.rmtree(worker.own, ignore_errors=True)


def _death_reason(worker: _Worker, limits: Limits) -> str:
    code = worker.process.exitcode
    how = f"killed by signal {signal.Signals(-code).name}" if code is not None and code < 0 else f"exit {code}"
    return (f"the parser crashed ({how}) after {worker.sent} item(s): a native-code crash, "
            f"or the {limits.memory_mb} MiB memory limit")


def extract_many(paths: Iterable[Path | str], limits: Limits = Limits(), workers: int | None = None,
                 extractor: SourceExtractor = extract_source, *,
                 max_text_chars: int = MAX_TEXT_CHARS, real: bool = False,
                 walls: Sequence[str] | None = None) -> Generator[Outcome, None, None]:
    """Read many files in ``workers`` processes; yield an :class:`Outcome` per file and per part.

    ``paths`` are stored paths (:func:`lifededup.model.stored_path`); an
    item's text longer than ``max_text_chars`` is cut (see the module doc).

    Outcomes of different files interleave in completion order; those of one
    file come in order, the file's own item first, the last marked ``final``.
    ``extractor`` is the function the workers run (the registry's by default).
    ``real``: the paths are the real paths a scan found (the indexer's); one
    that is no longer -- made a link since, or a folder on its way -- is
    not read (``vanished``).  ``walls``: the folders the files lie in; each
    worker may then read nothing else of the user's (:func:`.sandbox.confine_worker`),
    so a folder swapped for a link between that check and the read leads
    nowhere.  Closing the generator early stops the workers.
    """
    ctx = _context()
    count = max(1, workers or min(4, os.cpu_count() or 1))
    pending = enumerate(Path(p) for p in paths)
    pool: list[_Worker] = []
    try:
        confined = None if walls is None else tuple(walls)
        if confined is not None:
            _sweep_left_behind()
        pool = [_spawn(ctx, limits, extractor, max_text_chars, real, confined) for _ in range(count)]
        for worker in pool:
            _assign(worker, pending)
        while any(w.task for w in pool):
            yield from _step(pool, ctx, limits, extractor, pending)
    finally:
        for worker in pool:
            _stop(worker)


def _assign(worker: _Worker, pending: Iterator[tuple[int, Path]]) -> None:
    task = next(pending, None)
    worker.task, worker.held, worker.sent = task, None, 0
    worker.last_seen = time.monotonic()
    if task is not None:
        try:
            worker.conn.send((task[0], str(task[1])))
        except OSError:
            pass  # the worker died while idle: its sentinel fires next and _drain reports the file


def _step(pool: list[_Worker], ctx: Any, limits: Limits, extractor: SourceExtractor,
          pending: Iterator[tuple[int, Path]]) -> Iterator[Outcome]:
    busy = [w for w in pool if w.task]
    deadline = min(w.last_seen for w in busy) + limits.timeout_s
    ready = multiprocessing.connection.wait([w.conn for w in busy] + [w.process.sentinel for w in busy],
                                            timeout=max(0.0, deadline - time.monotonic()))
    for worker in busy:
        if worker.conn in ready or worker.process.sentinel in ready:
            yield from _drain(worker, pool, ctx, limits, extractor, pending)
        elif time.monotonic() - worker.last_seen > limits.timeout_s:
            yield from _replace(worker, pool, ctx, limits, extractor, pending, Timeout(
                f"stopped after {limits.timeout_s:g} s without progress: the parser hangs on this file"))


def _drain(worker: _Worker, pool: list[_Worker], ctx: Any, limits: Limits, extractor: SourceExtractor,
           pending: Iterator[tuple[int, Path]]) -> Iterator[Outcome]:
    assert worker.task is not None
    path = worker.task[1]
    try:
        while worker.conn.poll():
            kind, _, part, result = worker.conn.recv()
            worker.last_seen = time.monotonic()
            if kind == "progress":  # the parser advances: only the time since is counted (report_progress)
                continue
            if kind == "done":
                if worker.held:
                    yield Outcome(path, *worker.held, final=True)
                _assign(worker, pending)
                return
            if worker.held:
                yield Outcome(path, *worker.held, final=False)
            worker.held, worker.sent = (part, result), worker.sent + 1
    except (EOFError, OSError):
        pass
    if not worker.process.is_alive():
        worker.process.join(1)
        yield from _replace(worker, pool, ctx, limits, extractor, pending, Crashed(_death_reason(worker, limits)))


def _replace(worker: _Worker, pool: list[_Worker], ctx: Any, limits: Limits, extractor: SourceExtractor,
             pending: Iterator[tuple[int, Path]], error: ExtractionError) -> Iterator[Outcome]:
    assert worker.task is not None
    path = worker.task[1]
    if worker.held:
        yield Outcome(path, *worker.held, final=False)
    yield Outcome(path, "", Failure.from_error(error), final=True)
    _stop(worker)
    fresh = _spawn(ctx, limits, extractor, worker.max_chars, worker.real, worker.walls)
    pool[pool.index(worker)] = fresh
    _assign(fresh, pending)
