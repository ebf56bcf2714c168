"""Other projects' test files (``real_archive.build_odd()``): the odd real PDFs,
DOCX, PPTX, OpenDocument, iCalendar and mail that pypdf, python-docx,
python-pptx, odfpy, icalendar, talon and mail-parser ship, read by lifededup.

1. ``lifededup index`` of the folder into a fresh store under ``--store``
   (a separate process, as a user runs it): files, seconds, and from the
   store the files read and those that failed, by status and reason.
2. Each file again through ``extract_many`` (one worker, so the time between
   two files' last outcomes is one file's): the slowest files.
3. The peer where one is installed: ``pdftotext`` (poppler-utils) on the
   PDFs -- files it reads, its seconds, and the resemblance of lifededup's
   text to its text (``fingerprint.compare``), the farthest listed.  The
   folder holds no .doc or .xls, so ``catdoc``/``xls2csv`` have nothing here.

    sudo apt-get install poppler-utils
    python benchmarks/bench_odd.py [--store /tmp/odd-store] [--slowest 10] [--far 0.5]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from real_archive import build_odd  # noqa: E402

from lifededup.extract import Extracted, Limits, extract_many  # noqa: E402
from lifededup.fingerprint.compare import compare  # noqa: E402


def _lifededup(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lifededup", *args], capture_output=True, text=True, check=False)


def index(folder: Path, store: Path) -> tuple[float, list[dict[str, str]]]:
    """Seconds of one ``lifededup index`` run, and the failures it recorded."""
    db = str(store / "lifededup.db")
    started = time.perf_counter()
    done = _lifededup("index", "--db", db, str(folder))
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"lifededup index failed:\n{done.stderr}")
    listed = _lifededup("failures", "--db", db, "--json", "--limit", "1000000")
    return elapsed, json.loads(listed.stdout or "[]")


def per_file(files: list[Path]) -> tuple[dict[Path, float], dict[Path, str]]:
    """Each file's seconds in one worker, and the text of its own item (files that gave one)."""
    seconds: dict[Path, float] = {}
    texts: dict[Path, str] = {}
    last = time.perf_counter()
    for outcome in extract_many(files, Limits(), workers=1):
        if outcome.part == "" and isinstance(outcome.result, Extracted):
            texts[outcome.path] = outcome.result.text
        if outcome.final:
            now = time.perf_counter()
            seconds[outcome.path] = now - last
            last = now
    return seconds, texts


def pdftotext(pdfs: list[Path]) -> tuple[float, dict[Path, str]]:
    """Seconds of poppler's pdftotext over the PDFs, and the text of each it read."""
    texts: dict[Path, str] = {}
    started = time.perf_counter()
    for pdf in pdfs:
        done = subprocess.run(["pdftotext", "-q", "-enc", "UTF-8", str(pdf), "-"], capture_output=True,
                              timeout=120, check=False)
        text = done.stdout.decode("utf-8", "replace")
        if done.returncode == 0 and text.strip(" \n\f"):
            texts[pdf] = text
    return time.perf_counter() - started, texts


def _report_index(folder: Path, files: list[Path], elapsed: float, failures: list[dict[str, str]]) -> None:
    whole = [f for f in failures if not f.get("part")]
    print(f"{len(files)} files in {folder}; lifededup index {elapsed:.1f} s")
    print(f"  read {len(files) - len(whole)}, failed {len(whole)} (and {len(failures) - len(whole)} parts inside files)")
    for status, count in Counter(f["status"] for f in failures).most_common():
        print(f"  {status:14} {count}")
    for failure in sorted(failures, key=lambda f: (f["status"], f["path"])):
        name = Path(failure["path"]).relative_to(folder)
        part = f" [{failure['part']}]" if failure.get("part") else ""
        print(f"    {failure['status']:12} {name}{part}: {failure['reason'][:140]}")


def _report_peer(folder: Path, pdfs: list[Path], ours: dict[Path, str], far: float) -> None:
    elapsed, theirs = pdftotext(pdfs)
    print(f"pdftotext: {len(theirs)} of {len(pdfs)} PDFs give text in {elapsed:.1f} s; "
          f"lifededup: {sum(p in ours for p in pdfs)}")
    both = [p for p in pdfs if p in ours and p in theirs]
    scores = {p: compare(ours[p], theirs[p]).resemblance for p in both}
    if scores:
        print(f"  resemblance of lifededup's text to pdftotext's: mean {sum(scores.values()) / len(scores):.3f} "
              f"over {len(scores)} PDFs both read; {sum(s < far for s in scores.values())} under {far}")
    for pdf, score in sorted(scores.items(), key=lambda kv: kv[1]):
        if score < far:
            print(f"    {score:.3f} {pdf.relative_to(folder)} ({len(ours[pdf])} / {len(theirs[pdf])} chars)")
    for pdf in pdfs:
        if (pdf in ours) != (pdf in theirs):
            print(f"    only {'lifededup' if pdf in ours else 'pdftotext'} reads {pdf.relative_to(folder)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, help="folder for the store (default: a fresh temporary one)")
    parser.add_argument("--slowest", type=int, default=10, help="how many of the slowest files to list")
    parser.add_argument("--far", type=float, default=0.5, help="list PDFs whose text resembles pdftotext's less")
    args = parser.parse_args()
    folder = build_odd()
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.name != ".complete")
    store = args.store or Path(tempfile.mkdtemp(prefix="bench-odd-"))
    store.mkdir(parents=True, exist_ok=True)
    (store / "lifededup.db").unlink(missing_ok=True)
    _report_index(folder, files, *index(folder, store))
    started = time.perf_counter()
    seconds, texts = per_file(files)
    print(f"one worker, file by file: {time.perf_counter() - started:.1f} s; the slowest:")
    for path, took in sorted(seconds.items(), key=lambda kv: -kv[1])[:args.slowest]:
        print(f"  {took:6.2f} s  {path.relative_to(folder)} ({path.stat().st_size // 1024} KiB)")
    if shutil.which("pdftotext"):
        _report_peer(folder, [p for p in files if p.suffix.lower() == ".pdf"], texts, args.far)
    else:
        print("pdftotext not installed (sudo apt-get install poppler-utils): no peer")


if __name__ == "__main__":
    main()
