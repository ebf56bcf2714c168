"""Random and mutated bytes at every extractor: only the typed ExtractionError escapes, nothing hangs.

Mutations start from a real file of each format in sample_corpus/ (bytes
flipped, cut, spliced), so the parsers get past their magic numbers and into
the code that hostile files reach.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lifededup.extract import Extracted, ExtractionError, Failure, Limits, Source, extract_as, formats, \
    extract_many, walk

CORPUS = Path(__file__).resolve().parent.parent / "sample_corpus"
SEEDS = {
    "text": "Journal/2023/2023-01-04.md", "html": "Web/Saved pages/lighthouse-walk.html",
    "pdf": "Documents/residents-minutes/PDF/residents-minutes-v1.pdf",
    "docx": "Letters/Hartwell & Penrose/2023-02-06-probate.docx", "eml": "Mail/Kitchen/Fwd kitchen quotes.eml",
    "mbox": "Mail/archive-2024.mbox", "doc": "Documents/Other formats/garden-club-report-v3.doc",
    "rtf": "Documents/Other formats/garden-club-report-v3.rtf",
    "odt": "Documents/Other formats/garden-club-report-v3.odt",
    "pptx": "Documents/kitchen-quotes/kitchen-plan-slides.pptx",
    "xlsx": "Documents/river-survey/river-readings.xlsx",
    "xls": "Documents/river-survey/Old Excel/river-readings.xls", "epub": "Books/portugal-trip.epub",
    # No real .msg can be made here (nothing free writes Outlook files): mutate an OLE2 file instead.
    "msg": "Documents/Other formats/garden-club-report-v3.doc",
    # Formats sample_corpus/ does not hold: real files Debian ships, and other projects' test data.
    "man": "/usr/share/man/man1/ls.1.gz", "info": "/usr/share/info/sed.info.gz", "gzip": "/usr/share/man/man1/ls.1.gz",
    "vcard": "../tests/fixtures/vcard/vcard40_full.vcf", "icalendar": "../tests/fixtures/calendar/mozilla.ics",
    "svg": "../tests/fixtures/svg/harbour-festival-poster.svg", "xps": "../tests/fixtures/xps/presentation.xps",
    "ppt": "Documents/Other formats/garden-club-report-v3.doc",
    "mhtml": "../tests/fixtures/mhtml/lighthouse-walk.mhtml",  # saved by Chromium (tests/fixtures/mhtml/README.md)
    "emlx": "../tests/fixtures/emlx/4112.emlx",  # a real message as Apple Mail keeps it (its README.md)
    "tnef": "../tests/fixtures/tnef/two-files.tnef",  # Outlook's winmail.dat, from tnefparse (its README.md)
    "webarchive": "../tests/fixtures/webarchive/fhs-3.0-sbin-options.webarchive",
    "unread": "/usr/share/vim/vim90/print/mac-roman.ps",  # a PostScript resource Debian's vim-runtime ships
    "archive": "Documents/garden-club-report/garden-club-report-v3.docx", "image": "Bad files/holiday photo.jpg",
    # saved by LibreOffice from a .docx and a .csv (tests/fixtures/office/README.md)
    "flat-odf": "../tests/fixtures/office/rota.fodt", "wordml": "../tests/fixtures/office/rota.xml",
    "spreadsheetml": "../tests/fixtures/office/statement-2023-12.xml",
}
SUFFIX = {"text": ".txt", "mbox": ".mbox", "eml": ".eml", "html": ".html", "man": ".1", "gzip": ".gz",
          "vcard": ".vcf", "icalendar": ".ics", "archive": ".zip", "image": ".jpg",
          "mhtml": ".mhtml", "unread": ".ps"}


def mutate(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        kind = rng.randrange(4)
        at = rng.randrange(max(1, len(out)))
        if kind == 0 and out:
            out[at] = rng.randrange(256)
        elif kind == 1:
            del out[at:at + rng.randint(1, 4096)]
        elif kind == 2:
            out[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
        else:
            out = out[:at]
    return bytes(out)


def read_all(fmt: str, data: bytes) -> None:
    source = Source(name="fuzzed" + SUFFIX.get(fmt, "." + fmt), data=data)
    try:
        for item in walk(extract_as(fmt, source, Limits(max_unpacked_bytes=64 * 2**20))):
            assert isinstance(item, (Extracted, Failure)), item
            assert isinstance(item, Failure) or isinstance(item.text, str)
    except ExtractionError:
        pass  # the only exception the contract allows


def test_every_format_has_a_seed() -> None:
    assert set(SEEDS) == set(formats()), set(formats()) ^ set(SEEDS)


@pytest.mark.parametrize("fmt", sorted(formats()))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=2048))
def test_random_bytes(fmt: str, data: bytes) -> None:
    read_all(fmt, data)


@pytest.mark.parametrize("fmt", sorted(formats()))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_mutated_real_files(fmt: str, seed: int) -> None:
    if not (CORPUS / SEEDS[fmt]).exists():
        pytest.skip(f"{SEEDS[fmt]} is not on this machine")
    read_all(fmt, mutate((CORPUS / SEEDS[fmt]).read_bytes(), random.Random(seed)))


def test_mutated_files_through_the_workers_finish_within_the_limit(tmp_path: Path) -> None:
    rng = random.Random(4)
    paths = []
    for fmt, rel in SEEDS.items():
        if not (CORPUS / rel).exists():
            continue
        seed = (CORPUS / rel).read_bytes()
        for n in range(4):
            path = tmp_path / f"{fmt}-{n}{Path(rel).suffix}"
            path.write_bytes(mutate(seed, rng))
            paths.append(path)
    limits = Limits(timeout_s=20)
    started = time.monotonic()
    finals = [o for o in extract_many(paths, limits, workers=2) if o.final]
    elapsed = time.monotonic() - started
    assert sorted(o.path for o in finals) == sorted(paths), "every file ends with one final outcome"
    # Each file may use the whole time limit once; anything longer means a hang escaped it.
    assert elapsed < limits.timeout_s * len(paths) / 2 + 30, f"{elapsed:.0f} s for {len(paths)} files"


# Every status a worker may record (the extractors' own and the worker's:
# a file gone, unreadable or not a regular file by the time it is read).
STATUSES = {"unsupported", "corrupt", "encrypted", "no-text-layer", "no-text", "empty", "too-large", "timeout",
            "crashed", "missing-tool", "vanished", "unreadable", "not-a-file"}


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                HealthCheck.function_scoped_fixture])
@given(files=st.lists(st.tuples(st.sampled_from(sorted(formats())), st.binary(max_size=4096),
                                st.binary(min_size=1, max_size=12).filter(lambda b: b"/" not in b and b"\0" not in b)),
                      min_size=1, max_size=12))
def test_fuzzed_bytes_under_any_name_through_the_workers(tmp_path_factory: pytest.TempPathFactory,
                                                         files: list[tuple[str, bytes, bytes]]) -> None:
    """Random bytes and mutated real files, under any file name (bytes that are not
    UTF-8 too), read by the worker processes: each file ends with one final outcome,
    every failure has a known status, every text is text SQLite can hold."""
    import os

    from lifededup.model import stored_path

    folder = tmp_path_factory.mktemp("fuzz")
    rng = random.Random(len(files))
    paths = []
    for n, (fmt, data, name) in enumerate(files):
        body = data if n % 2 else mutate((CORPUS / SEEDS[fmt]).read_bytes(), rng)
        raw = os.path.join(os.fsencode(folder), b"%d-" % n + name + SUFFIX.get(fmt, "." + fmt).encode())
        with open(raw, "wb") as handle:
            handle.write(body)
        paths.append(stored_path(os.fsdecode(raw)))
    outcomes = list(extract_many(paths, Limits(timeout_s=20), workers=2))
    assert sorted(str(o.path) for o in outcomes if o.final) == sorted(paths), "one final outcome per file"
    for outcome in outcomes:
        if isinstance(outcome.result, Failure):
            assert outcome.result.status in STATUSES, outcome.result
            outcome.result.reason.encode("utf-8")
        else:
            outcome.result.text.encode("utf-8")
            outcome.result.title.encode("utf-8")
