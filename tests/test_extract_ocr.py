"""OCR of scans: a page rendered from text to pixels (no text layer) and read back by Tesseract."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lifededup.extract import Extracted, Failure, Limits, NoTextLayer, Source, extract, extract_many, extract_source

CORPUS = Path(__file__).resolve().parent.parent / "sample_corpus"
WORDS = "The allotment society will meet on Tuesday to discuss the new greenhouse and the water supply"
needs_tesseract = pytest.mark.skipif(shutil.which("tesseract") is None,
                                     reason="tesseract not installed (scripts/install-system-deps.sh)")


@pytest.fixture(scope="module")
def scans(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A page of text drawn as pixels (matplotlib's Agg renderer), saved as PNG, JPEG, TIFF and an image-only PDF."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from matplotlib import pyplot

    out = tmp_path_factory.mktemp("scans")
    figure = pyplot.figure(figsize=(8.5, 3), dpi=200)
    lines = [WORDS[:52], WORDS[53:]]
    for row, line in enumerate(lines):
        figure.text(0.05, 0.7 - 0.3 * row, line, fontsize=18, family="DejaVu Serif")
    paths = {}
    for kind in ("png", "jpg", "tiff"):
        paths[kind] = out / f"letter.{kind}"
        figure.savefig(paths[kind], dpi=200)
    # a PDF of the image alone: a scan, no text layer (matplotlib's PDF would embed the text)
    from PIL import Image

    paths["pdf"] = out / "scanned letter.pdf"
    Image.open(paths["png"]).convert("RGB").save(paths["pdf"], resolution=200)
    pyplot.close(figure)
    return paths


def _words(text: str) -> list[str]:
    return [w.strip(".,").lower() for w in text.split()]


@needs_tesseract
@pytest.mark.parametrize("kind", ["png", "jpg", "tiff", "pdf"])
def test_scan_read_back_by_ocr_word_for_word(scans: dict[str, Path], kind: str) -> None:
    got = extract(scans[kind], Limits(ocr=True))
    want = _words(WORDS)
    read = _words(got.text)
    missed = [w for w in want if w not in read]
    assert len(missed) <= 1, f"{kind}: OCR missed {missed} in {got.text!r}"
    assert got.metadata["ocr"] == "yes", got.metadata


@pytest.mark.parametrize("kind", ["png", "pdf"])
def test_ocr_is_off_by_default_and_says_how_to_turn_it_on(scans: dict[str, Path], kind: str) -> None:
    with pytest.raises(NoTextLayer) as caught:
        extract(scans[kind])
    assert "lifededup index --ocr" in str(caught.value), caught.value


def test_ocr_on_without_tesseract_says_how_to_install_it(scans: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no tesseract to be found
    with pytest.raises(NoTextLayer) as caught:
        extract(scans["png"], Limits(ocr=True))
    assert "apt-get install tesseract-ocr" in str(caught.value), caught.value


@needs_tesseract
def test_ocr_runs_in_the_workers_under_their_limits(scans: dict[str, Path]) -> None:
    outcomes = list(extract_many([scans["png"], CORPUS / "Bad files/scanned letter.pdf"],
                                 Limits(ocr=True, timeout_s=60), workers=2))
    png = next(o for o in outcomes if o.path == scans["png"])
    assert not isinstance(png.result, Failure) and "greenhouse" in png.result.text.lower(), png.result
    assert all(o.final for o in outcomes), outcomes


@needs_tesseract
def test_a_valid_bmp_tesseract_cannot_open_is_no_text_not_corrupt() -> None:
    """Tesseract says 'Error during processing' on a 32-bit BMP with colour masks (Windows' icons, screenshots)."""
    from lifededup.extract import NoText

    with pytest.raises(NoText):
        extract(Path(__file__).parent / "fixtures/image/python.bmp", Limits(ocr=True))


@needs_tesseract
def test_a_32_bit_bmp_with_colour_masks_and_alpha_is_read(scans: dict[str, Path], tmp_path: Path) -> None:
    """The page as Windows writes a 32-bit BMP: a 108-byte header with colour masks and alpha (BI_BITFIELDS),
    the text's pixels opaque black, the paper transparent."""
    import struct

    import numpy as np
    from PIL import Image

    grey = np.asarray(Image.open(scans["png"]).convert("L"), dtype=np.uint32)
    height, width = grey.shape
    # pixels as 0xAARRGGBB: black ink, opaque as it is dark; the blank paper left transparent (and black)
    pixels = ((255 - grey) << 24)[::-1].astype("<u4").tobytes()  # rows bottom-up
    header = struct.pack("<IiiHHIIiiII", 108, width, height, 1, 32, 3, len(pixels), 2835, 2835, 0, 0)
    header += struct.pack("<IIII", 0x00FF0000, 0x0000FF00, 0x000000FF, 0xFF000000) + b"\0" * 52
    path = tmp_path / "letter.bmp"
    path.write_bytes(b"BM" + struct.pack("<IHHI", 14 + len(header) + len(pixels), 0, 0, 14 + len(header))
                     + header + pixels)
    got = extract(path, Limits(ocr=True))
    missed = [w for w in _words(WORDS) if w not in _words(got.text)]
    assert len(missed) <= 1, f"OCR missed {missed} in {got.text!r}"


def slow_ocr(source: Source, limits: Limits) -> Extracted:
    """The registry's extraction with Tesseract slowed by 2 s a page (run in the workers: module level)."""
    import time

    from lifededup.extract import ocr

    original = ocr.ocr_image

    def slow(path: Path, languages: str) -> str:
        time.sleep(2)
        return original(path, languages)

    ocr.ocr_image = slow  # type: ignore[assignment]
    try:
        return extract_source(source, limits)
    finally:
        ocr.ocr_image = original  # type: ignore[assignment]


@needs_tesseract
def test_a_long_scan_that_advances_page_by_page_is_not_stopped_as_a_hang(tmp_path: Path) -> None:
    """A 36-page scan OCR'd at a few seconds a page ran past the 60 s limit and was recorded as a parser that hangs:
    the limit is a page's now, each page read being reported to the parent (here 4 pages of over 2 s, a 5 s limit)."""
    import matplotlib
    from matplotlib import pyplot
    from PIL import Image

    matplotlib.use("Agg")
    pages = []
    for number, line in enumerate(("Monday the greenhouse", "Tuesday the water supply", "Wednesday the allotment",
                                   "Thursday the society")):
        figure = pyplot.figure(figsize=(8.5, 3), dpi=200)
        figure.text(0.05, 0.5, line, fontsize=18, family="DejaVu Serif")
        figure.savefig(tmp_path / f"page{number}.png", dpi=200)
        pyplot.close(figure)
        pages.append(Image.open(tmp_path / f"page{number}.png").convert("RGB"))
    long_scan = tmp_path / "long scan.pdf"
    pages[0].save(long_scan, save_all=True, append_images=pages[1:], resolution=200)
    outcomes = list(extract_many([long_scan], Limits(ocr=True, timeout_s=5), workers=1, extractor=slow_ocr))
    got = outcomes[0].result
    assert isinstance(got, Extracted) and got.metadata["pages"] == "4", got
    assert all(day in got.text.lower() for day in ("monday", "tuesday", "wednesday", "thursday")), got.text


@needs_tesseract
def test_index_with_ocr_reads_again_the_scans_a_run_without_it_recorded(scans: dict[str, Path],
                                                                        tmp_path: Path) -> None:
    from click.testing import CliRunner

    from lifededup.cli import main

    folder = tmp_path / "letters"
    folder.mkdir()
    shutil.copy(scans["pdf"], folder / "scanned letter.pdf")
    db = str(tmp_path / "store.db")
    query = "SELECT status, text LIKE '%greenhouse%' FROM items WHERE part = ''"
    first = CliRunner().invoke(main, ["index", "--db", db, "-j", "1", str(folder)])
    assert first.exit_code == 0, first.output
    before = CliRunner().invoke(main, ["sql", "--db", db, "--csv", query])
    assert "no-text-layer" in before.output, before.output
    second = CliRunner().invoke(main, ["index", "--db", db, "-j", "1", "--ocr", str(folder)])
    assert second.exit_code == 0, second.output
    after = CliRunner().invoke(main, ["sql", "--db", db, "--csv", query])
    assert after.output.splitlines()[1:] == ["ok,1"], after.output


@needs_tesseract
def test_watch_with_ocr_reads_a_scan_dropped_in_the_folder(scans: dict[str, Path], tmp_path: Path) -> None:
    """`lifededup watch --ocr`: a real file event for a scan, read by OCR in the watcher's workers."""
    import os
    import signal
    import sqlite3
    import subprocess
    import sys
    import time

    folder, db = tmp_path / "inbox", tmp_path / "store.db"
    folder.mkdir()
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    log = tmp_path / "watch.log"
    with log.open("w") as out:
        watcher = subprocess.Popen([sys.executable, "-m", "lifededup", "watch", str(folder), "--db", str(db),
                                    "--delay", "0.3", "-j", "1", "--ocr"], env=env, stdout=out, stderr=out)
    try:
        deadline = time.monotonic() + 60
        while "watching" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.2)
        shutil.copy(scans["png"], folder / "receipt.png")
        found: list[tuple[str, int]] = []
        while time.monotonic() < deadline + 60 and not (found and found[0][1]):
            time.sleep(0.5)
            if db.exists():
                with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
                    found = conn.execute("SELECT status, coalesce(text, '') LIKE '%greenhouse%' FROM items "
                                         "WHERE path LIKE '%receipt.png'").fetchall()
        assert found == [("ok", 1)], f"the scan's OCR text in the store: {found}; log:\n{log.read_text()[-2000:]}"
    finally:
        watcher.send_signal(signal.SIGTERM)
        watcher.wait(60)


@needs_tesseract
def test_a_scan_ocr_finds_nothing_in_is_no_text_and_not_ocrd_again(tmp_path: Path) -> None:
    """A blank page OCR'd is `no-text`: the next run with OCR (the watcher's
    hourly rescan is one) leaves it unchanged instead of OCR-ing it again;
    a scan never OCR'd (`no-text-layer`) is read again."""
    import json

    from click.testing import CliRunner
    from PIL import Image

    from lifededup.cli import main

    folder = tmp_path / "scans"
    folder.mkdir()
    Image.new("L", (850, 300), 255).save(folder / "blank.png")
    db = str(tmp_path / "store.db")

    def index(*options: str) -> dict[str, int]:
        done = CliRunner().invoke(main, ["index", "--db", db, "-j", "1", "--json", *options, str(folder)])
        assert done.exit_code == 0, done.output
        return dict(json.loads(done.output[done.output.index("{"):done.output.rindex("}") + 1]))

    def status() -> str:
        rows = CliRunner().invoke(main, ["sql", "--db", db, "--csv", "SELECT status, error FROM items"])
        return rows.output.splitlines()[1]

    index()
    assert status().startswith("no-text-layer,"), status()
    reread = index("--ocr")
    assert reread["failed"] == 1 and reread["unchanged"] == 0, f"a scan read without OCR is read again with it: {reread}"
    assert status().startswith("no-text,") and "OCR found no text" in status(), status()
    again = index("--ocr")
    assert again["unchanged"] == 1 and again["updated"] == 0, f"OCR'd again though nothing changed: {again}"
