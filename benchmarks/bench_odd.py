"""Other projects' test files (``real_archive.build_odd()``): the odd real PDFs,
DOCX, PPTX, OpenDocument, iCalendar, mail, web pages and Office files of every
kind that pypdf, python-docx, python-pptx, odfpy, icalendar, talon,
mail-parser, pikepdf, ocrmypdf, inscriptis, oletools and msg-parser ship, read
by lifededup.

1. ``lifededup index`` of the folder into a fresh store under ``--store``
   (a separate process, as a user runs it): files, seconds, what it printed
   on stderr besides its progress, and from the store the files read and
   those that failed, by status and reason.
2. Each file again through ``extract_many`` (one worker, so the time between
   two files' last outcomes is one file's): the slowest files.
3. The peers installed here, on the same files in the same run:
   ``pdftotext`` (poppler-utils) on the PDFs, and LibreOffice
   (``soffice --convert-to``: DOCX and ODT to text, PPTX to PDF then
   ``pdftotext``) -- files each reads, and the resemblance of lifededup's text
   to its text (``fingerprint.compare``), the farthest listed.  The folder
   holds no .doc or .xls, so ``catdoc``/``xls2csv`` have nothing here.

``--before DIR`` measures, in the same run, a lifededup package kept in DIR
(``DIR/lifededup``, e.g. ``git archive`` of an earlier commit) the same way,
and prints both.

    sudo apt-get install poppler-utils libreoffice-writer-nogui libreoffice-impress-nogui
    python benchmarks/bench_odd.py [--store /tmp/odd-store] [--before /tmp/old] [--slowest 10] [--far 0.5]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from real_archive import build_odd  # noqa: E402

from lifededup.extract import Extracted, Limits, extract_many  # noqa: E402
from lifededup.fingerprint.compare import compare  # noqa: E402

PROGRESS = ("reading ", "new ", "store: ", "why they failed", "scanning")
OFFICE = (".docx", ".odt", ".pptx")


def _lifededup(*args: str) -> subprocess.CompletedProcess[str]:
    # from / : `python -m` puts its working folder first on the module path, so run from a checkout it took
    # the checkout's lifededup before --before's, and both columns measured this code
    return subprocess.run([sys.executable, "-m", "lifededup", *args], capture_output=True, text=True, check=False,
                          cwd="/")


def index(folder: Path, store: Path) -> dict[str, Any]:
    """One ``lifededup index`` run: its seconds, what it printed that is not progress, the failures recorded."""
    db = str((store / "lifededup.db").resolve())  # the commands run from /
    started = time.perf_counter()
    done = _lifededup("index", "--db", db, str(folder))
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"lifededup index failed:\n{done.stderr}")
    listed = _lifededup("failures", "--db", db, "--json", "--limit", "1000000")
    printed = [line for line in (done.stdout + done.stderr).splitlines()
               if line.strip() and not line.startswith(PROGRESS) and "files/s" not in line]
    return {"seconds_index": elapsed, "printed": printed, "failures": json.loads(listed.stdout or "[]")}


def per_file(files: list[Path]) -> tuple[dict[str, float], dict[str, str]]:
    """Each file's seconds in one worker, and its text (a mail's or deck's own item)."""
    seconds: dict[str, float] = {}
    texts: dict[str, str] = {}
    last = time.perf_counter()
    for outcome in extract_many(files, Limits(), workers=1):
        if outcome.part == "" and isinstance(outcome.result, Extracted):
            texts[str(outcome.path)] = outcome.result.text
        if outcome.final:
            now = time.perf_counter()
            seconds[str(outcome.path)] = now - last
            last = now
    return seconds, texts


def measure(folder: Path, store: Path) -> dict[str, Any]:
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.name != ".complete")
    figures = index(folder, store)
    started = time.perf_counter()
    figures["seconds"], figures["texts"] = per_file(files)
    figures["one_worker"] = time.perf_counter() - started
    return figures


def pdftotext(pdf: Path) -> str | None:
    done = subprocess.run(["pdftotext", "-q", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, timeout=120,
                          check=False)
    text = done.stdout.decode("utf-8", "replace")
    return text if done.returncode == 0 and text.strip(" \n\f") else None


def libreoffice(files: list[Path], scratch: Path) -> dict[str, str]:
    """LibreOffice's text of each DOCX and ODT (saved as text) and PPTX (printed to PDF, read by pdftotext):
    one soffice a batch of files whose names differ (python-docx and python-pptx reuse names)."""
    batches: list[dict[str, Path]] = []
    for path in files:
        batch = next((b for b in batches if path.stem not in b), None)
        if batch is None:
            batches.append(batch := {})
        batch[path.stem] = path
    texts: dict[str, str] = {}
    profile = f"-env:UserInstallation=file://{scratch / 'profile'}"
    for number, batch in enumerate(batches):
        out = scratch / str(number)
        for to, suffixes in (("txt:Text (encoded):UTF8", (".docx", ".odt")), ("pdf", (".pptx",))):
            paths = [str(p) for p in batch.values() if p.suffix in suffixes]
            if paths:  # soffice given no file waits for ever
                subprocess.run(["soffice", profile, "--headless", "--convert-to", to, "--outdir", str(out), *paths],
                               capture_output=True, timeout=1800, check=False)
        for stem, path in batch.items():
            made = out / (stem + (".pdf" if path.suffix == ".pptx" else ".txt"))
            text = None if not made.exists() else pdftotext(made) if made.suffix == ".pdf" else made.read_text(
                "utf-8-sig")
            if text and text.strip():
                texts[str(path)] = text
    return texts


def peers(files: list[Path]) -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    if shutil.which("pdftotext"):
        read = {str(p): pdftotext(p) for p in files if p.suffix.lower() == ".pdf"}
        found["pdftotext: PDF"] = {p: t for p, t in read.items() if t is not None}
    if shutil.which("soffice") and shutil.which("pdftotext"):
        with tempfile.TemporaryDirectory(prefix="bench-odd-lo-") as scratch:
            found["LibreOffice: DOCX ODT PPTX"] = libreoffice([p for p in files if p.suffix in OFFICE], Path(scratch))
    return found


def _counts(figures: dict[str, Any], files: int) -> dict[str, int]:
    failures = figures["failures"]
    whole = [f for f in failures if not f.get("part")]
    counts = {"read": files - len(whole), "failed": len(whole), "parts failed": len(failures) - len(whole),
              "lines printed": len(figures["printed"])}
    counts.update(Counter(f"  {f['status']}" for f in failures))
    return counts


def _resemblance(ours: dict[str, str], theirs: dict[str, str], suffixes: tuple[str, ...]) -> dict[str, float]:
    return {path: compare(ours[path], text).resemblance for path, text in theirs.items()
            if path in ours and path.endswith(suffixes)}


def _words(text: str) -> Counter[str]:
    return Counter(re.findall(r"\w+", text.casefold()))


def _shared_words(ours: dict[str, str], theirs: dict[str, str], suffixes: tuple[str, ...]) -> tuple[float, float]:
    """Of the peer's words (a bag, in any order), the share lifededup gives, and of lifededup's, the
    peer's: the shingles' resemblance also counts order, which a form's fields or a rotated stamp change."""
    common = mine = peer = 0
    for path, text in theirs.items():
        if path in ours and path.endswith(suffixes):
            a, b = _words(ours[path]), _words(text)
            common, mine, peer = common + sum((a & b).values()), mine + sum(a.values()), peer + sum(b.values())
    return common / max(1, peer), common / max(1, mine)


def report(folder: Path, runs: dict[str, dict[str, Any]], peer_texts: dict[str, dict[str, str]], slowest: int,
           far: float) -> None:
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.name != ".complete")
    print(f"{len(files)} files in {folder}")
    counts = {name: _counts(figures, len(files)) for name, figures in runs.items()}
    keys = list(dict.fromkeys(k for c in counts.values() for k in c))
    print(f"{'':22}" + "".join(f"{name:>10}" for name in runs))
    print(f"{'index seconds':22}" + "".join(f"{f['seconds_index']:10.1f}" for f in runs.values()))
    for key in keys:
        print(f"{key:22}" + "".join(f"{c.get(key, 0):10d}" for c in counts.values()))
    for peer, theirs in peer_texts.items():
        suffixes = (".pdf",) if peer.startswith("pdftotext") else OFFICE
        print(f"{peer}: gives text for {len(theirs)} of {sum(p.suffix.lower() in suffixes for p in files)} files")
        for name, figures in runs.items():
            scores = _resemblance(figures["texts"], theirs, suffixes)
            mean = sum(scores.values()) / max(1, len(scores))
            recall, precision = _shared_words(figures["texts"], theirs, suffixes)
            print(f"  {name:8} reads {len(scores):3d} of them, resemblance mean {mean:.3f}, "
                  f"{sum(s < far for s in scores.values())} under {far}; words: {recall:.3f} of the peer's "
                  f"given, {precision:.3f} of ours the peer's")
        last = _resemblance(list(runs.values())[-1]["texts"], theirs, suffixes)
        for path, score in sorted(last.items(), key=lambda kv: kv[1]):
            if score < far:
                print(f"    {score:.3f} {Path(path).relative_to(folder)}")
    for name, figures in runs.items():
        print(f"{name}: one worker, file by file, {figures['one_worker']:.1f} s; the slowest:")
        for path, took in sorted(figures["seconds"].items(), key=lambda kv: -kv[1])[:slowest]:
            print(f"  {took:6.2f} s  {Path(path).relative_to(folder)} ({Path(path).stat().st_size // 1024} KiB)")
    latest = list(runs.values())[-1]
    for line in latest["printed"]:
        print(f"printed: {line}")
    for failure in sorted(latest["failures"], key=lambda f: (f["status"], f["path"])):
        part = f" [{failure['part']}]" if failure.get("part") else ""
        print(f"  {failure['status']:13} {Path(failure['path']).relative_to(folder)}{part}: {failure['reason'][:150]}")


def _before(before: Path, store: Path) -> dict[str, Any]:
    """The same measure by the lifededup package in ``before``, in a process of its own."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(before), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, __file__, "--emit", "--store", str(store)], env=env, capture_output=True,
                          text=True, check=True)
    figures: dict[str, Any] = json.loads(done.stdout)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, help="folder for the store (default: a fresh temporary one)")
    parser.add_argument("--before", type=Path, help="a folder holding an earlier lifededup package to measure too")
    parser.add_argument("--slowest", type=int, default=10, help="how many of the slowest files to list")
    parser.add_argument("--far", type=float, default=0.5, help="list files whose text resembles the peer's less")
    parser.add_argument("--emit", action="store_true", help=argparse.SUPPRESS)  # --before's own process
    args = parser.parse_args()
    folder = build_odd()
    store = args.store or Path(tempfile.mkdtemp(prefix="bench-odd-"))
    if args.emit:
        print(json.dumps(measure(folder, store)))
        return
    runs: dict[str, dict[str, Any]] = {}
    for name, before in (("before", args.before), ("after", None)):
        where = store / name
        shutil.rmtree(where, ignore_errors=True)
        where.mkdir(parents=True)
        if before is not None:
            runs[name] = _before(before, where)
        elif name == "after":
            runs[name] = measure(folder, where)
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.name != ".complete")
    report(folder, runs, peers(files), args.slowest, args.far)


if __name__ == "__main__":
    main()
