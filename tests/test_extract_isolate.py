"""Worker processes: a parser that hangs, crashes or eats memory never stops the rest of a batch."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

from lifededup.extract import Extracted, Failure, Limits, Source, extract_many, extract_source
from lifededup.extract.registry import FORMAT_MODULES


def hanging_on_hang(source: Source, limits: Limits) -> Extracted:
    if source.name.startswith("hang"):
        time.sleep(3600)
    if source.name.startswith("crash"):
        os.kill(os.getpid(), signal.SIGSEGV)
    if source.name.startswith("greedy"):
        hog = bytearray(4 * 2**30)  # over the worker's address-space limit
        return Extracted(text=str(len(hog)))
    return extract_source(source, limits)


def advancing_then_hanging(source: Source, limits: Limits) -> Extracted:
    """Four steps of 1.2 s, each reported (OCR's pages); a file named "stuck..." then hangs on its last step."""
    from lifededup.extract.isolate import report_progress

    for _ in range(4):
        time.sleep(1.2)
        report_progress()
    if source.name.startswith("stuck"):
        time.sleep(3600)
    return extract_source(source, limits)


def readers_already_there(source: Source, limits: Limits) -> Extracted:
    """The format readers this worker had imported before it read its first file."""
    return Extracted(text=" ".join(sorted(name for name in sys.modules if name.startswith("lifededup.extract."))))


def test_a_worker_starts_with_every_formats_reader_imported(tmp_path: Path) -> None:
    """The forkserver imports the readers, once, before it forks the workers: each worker imported them
    itself as it sniffed its first file (a quarter to half a second each, for every worker of every batch)."""
    (tmp_path / "a.txt").write_text("a note\n")
    [outcome] = list(extract_many([tmp_path / "a.txt"], Limits(), workers=1, extractor=readers_already_there))
    assert isinstance(outcome.result, Extracted), outcome.result
    assert set(FORMAT_MODULES) <= set(outcome.result.text.split()), outcome.result.text


def test_a_parser_reporting_progress_runs_past_the_limit_and_one_that_then_hangs_is_stopped(tmp_path: Path) -> None:
    for name in ("steady.txt", "stuck.txt"):
        (tmp_path / name).write_text(f"the text of {name}")
    started = time.monotonic()
    got = {o.path.name: o.result for o in extract_many([tmp_path / "steady.txt", tmp_path / "stuck.txt"],
                                                       Limits(timeout_s=2), workers=2, extractor=advancing_then_hanging)}
    assert isinstance(got["steady.txt"], Extracted) and got["steady.txt"].text == "the text of steady.txt", got
    assert isinstance(got["stuck.txt"], Failure) and got["stuck.txt"].status == "timeout", got
    assert time.monotonic() - started < 30


def test_hostile_files_do_not_stop_the_batch(tmp_path: Path) -> None:
    names = ["a.txt", "hang.txt", "b.txt", "crash.txt", "greedy.txt", "c.txt"]
    for name in names:
        (tmp_path / name).write_text(f"the text of {name}")
    limits = Limits(timeout_s=2, memory_mb=512)
    started = time.monotonic()
    outcomes = {o.path.name: o for o in extract_many([tmp_path / n for n in names], limits, workers=2,
                                                      extractor=hanging_on_hang)}
    elapsed = time.monotonic() - started
    assert sorted(outcomes) == sorted(names), f"every file reported once: {sorted(outcomes)}"
    for name in ("a.txt", "b.txt", "c.txt"):
        result = outcomes[name].result
        assert isinstance(result, Extracted) and result.text == f"the text of {name}", result
    statuses = {n: getattr(outcomes[n].result, "status", "") for n in ("hang.txt", "crash.txt", "greedy.txt")}
    assert statuses == {"hang.txt": "timeout", "crash.txt": "crashed", "greedy.txt": "too-large"}, statuses
    assert elapsed < 30, f"the hanging file held the batch for {elapsed:.0f} s"
    assert all(o.final for o in outcomes.values())


def test_failures_are_recorded_with_reasons(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "binary.txt").write_bytes(bytes(range(256)) * 8)
    (tmp_path / "big.txt").write_text("word " * 1000)
    got = {o.path.name: o.result for o in extract_many(sorted(tmp_path.iterdir()), Limits(max_bytes=1000))}
    assert {n: r.status for n, r in got.items() if isinstance(r, Failure)} == {
        "empty.txt": "empty", "binary.txt": "unsupported", "big.txt": "too-large"}, got
    assert all(isinstance(r, Failure) and r.reason for r in got.values())
