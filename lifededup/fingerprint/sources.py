"""Fingerprinting many sources (files, say) on every core, in order.

:func:`fingerprint_sources` gives each worker process a run of consecutive
sources; the worker reads them with the caller's ``read`` function (which
turns one source into texts, each with a label of the caller's), fingerprints
the texts a batch at a time with :func:`fingerprint_many`, and sends back
labels and fingerprints.  The caller gets them in the order of the sources,
a run at a time, as they come -- so it can print them as ``fingerprint_many``
over everything in one process would have, only sooner.

Workers are forked on Linux: they start in about a
millisecond with the caller's modules already imported, where a fresh
interpreter would spend a tenth of a second importing numpy; elsewhere the
platform's default start method is used.  So call it from a process that
runs no other threads (a command, not the watcher).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from typing import TypeVar

from lifededup.config import FingerprintParams
from lifededup.fingerprint.engine import DEFAULT_PARAMS, fingerprint_many
from lifededup.model import Fingerprint
from lifededup.normalize import DocFrequencies

S = TypeVar("S")
L = TypeVar("L")

# Text a worker holds before fingerprinting it: many batches of
# fingerprint_many's size, few enough to bound a worker's memory however large
# a mailbox it reads.
_FLUSH_CHARS = 1 << 23
# Bytes of source per run handed to a worker: small enough that the last runs
# keep every core busy to the end, large enough that each run fills whole
# batches.
_RUN_BYTES = 1 << 20
# Below this much input one process does it all: starting workers would cost
# more than they save.
_SERIAL_BYTES = 1 << 20


def available_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


# The collection statistics of a worker's low-IDF filter: handed over once,
# when the worker starts, rather than pickled with every run.
_worker_doc_freq: DocFrequencies | None = None


def _start_worker(doc_freq: DocFrequencies | None) -> None:
    global _worker_doc_freq
    _worker_doc_freq = doc_freq
    # Ctrl-C reaches the whole process group: the caller stops the pool, and a
    # worker's own KeyboardInterrupt would only add a traceback per worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _fingerprint_run_in_worker(
    sources: Sequence[S], read: Callable[[S], Iterable[tuple[L, str | None]]], params: FingerprintParams
) -> list[tuple[L, Fingerprint | None]]:
    return _fingerprint_run(sources, read, params, _worker_doc_freq)


def _fingerprint_run(
    sources: Sequence[S], read: Callable[[S], Iterable[tuple[L, str | None]]], params: FingerprintParams,
    doc_freq: DocFrequencies | None = None,
) -> list[tuple[L, Fingerprint | None]]:
    out: list[tuple[L, Fingerprint | None]] = []
    waiting: list[tuple[int, str]] = []  # (index in out, text)
    size = 0

    def flush() -> None:
        nonlocal size
        found = fingerprint_many([text for _, text in waiting], params, doc_freq)
        for (at, _), fingerprint in zip(waiting, found):
            out[at] = (out[at][0], fingerprint)
        waiting.clear()
        size = 0

    for source in sources:
        for label, text in read(source):
            out.append((label, None))
            if text is not None:
                waiting.append((len(out) - 1, text))
                size += len(text)
                if size >= _FLUSH_CHARS:
                    flush()
    flush()
    return out


def _runs(sources: Sequence[S], sizes: Sequence[int], run_bytes: int) -> Iterator[Sequence[S]]:
    start, total = 0, 0
    for i, size in enumerate(sizes):
        total += size
        if total >= run_bytes:
            yield sources[start : i + 1]
            start, total = i + 1, 0
    if start < len(sources):
        yield sources[start:]


def fingerprint_sources(
    sources: Sequence[S],
    read: Callable[[S], Iterable[tuple[L, str | None]]],
    *,
    sizes: Sequence[int] | None = None,
    params: FingerprintParams = DEFAULT_PARAMS,
    workers: int | None = None,
    doc_freq: DocFrequencies | None = None,
) -> Iterator[tuple[L, Fingerprint | None]]:
    """Each label ``read`` gives for each source, in order, with the
    fingerprint of its text (``None`` where ``read`` gave no text).

    ``read`` runs in a worker process: it must be a module-level function,
    and its labels must pickle.  ``sizes`` (bytes per source, e.g. file
    sizes) lets the work be split evenly; ``workers`` defaults to every core
    this process may use, and 1 runs everything here.  ``doc_freq``: the
    collection statistics a low-IDF filter in ``params`` needs."""
    if sizes is None:
        sizes = [_RUN_BYTES] * len(sources)
    total = sum(sizes)
    workers = available_cores() if workers is None else workers
    if workers <= 1 or len(sources) <= 1 or total < _SERIAL_BYTES:
        yield from _fingerprint_run(sources, read, params, doc_freq)
        return
    # about four runs per worker at least, so that no core waits long at the end
    runs = list(_runs(sources, sizes, min(_RUN_BYTES, max(total // (4 * workers), 1))))
    # fork where it is safe (Linux); macOS lists it but its frameworks are not fork-safe
    context = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else None)
    # The caller's objects out of the collector's reach while the workers run
    # (the gc.freeze() the Python documentation advises before a fork):
    # collections in a worker then never write to the pages it shares with
    # the caller, and here they walk only the fingerprints coming back, not
    # everything the caller holds -- a report holding 100,000 items spent
    # more time collecting than the workers took to fingerprint.
    gc.freeze()
    try:
        with context.Pool(min(workers, len(runs)), initializer=_start_worker, initargs=(doc_freq,)) as pool:
            for found in pool.imap(partial(_fingerprint_run_in_worker, read=read, params=params), runs):
                yield from found
    finally:
        gc.unfreeze()
