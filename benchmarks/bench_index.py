"""Indexing throughput and memory: ``lifededup index`` against Recoll's
``recollindex`` on the same mixed folder of real files, in the same run.

The folder (built once, then reused) holds real documents found on this kind
of machine: HTML pages of the Rust books (the toolchain's offline docs),
Debian's text documentation, real mail (CPython's email test messages as
.eml, and .eml files and mailboxes made from the Rust books' text), the
sample corpus, and PDF, DOCX and ODT files converted from the HTML pages by
LibreOffice (``soffice --headless --convert-to``).  It is built in two
halves, ``half-1/`` and ``half-2/``, of the same mix: lifededup indexes the
first half and then the whole folder into fresh stores, so its peak memory
is measured at two sizes (flat means the same).

Both indexers run as separate processes; the peak memory is the largest sum
of resident memory over the indexer's process tree (sampled from /proc every
50 ms).  Recoll is run with a fresh configuration whose ``topdirs`` is the
folder, and reports what it indexed in ``idxstatus.txt``.

    sudo apt-get install recollcmd poppler-utils libreoffice-writer-nogui  # the peer, its PDF helper, the converter
    python benchmarks/bench_index.py [--files 3000] [--repeat 3] [--corpus /tmp/lifededup-bench-corpus]

Without ``recollindex`` the peer is skipped with a message; without
``soffice`` the folder has no converted PDF/office files (a message says so).
"""

from __future__ import annotations

import argparse
import email.message
import email.utils
import mailbox
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RUST_DOCS = sorted(Path.home().glob(".rustup/toolchains/*/share/doc/rust/html"))
BOOKS = ("book", "reference", "rust-by-example", "cargo", "nomicon", "edition-guide", "embedded-book",
         "rustc", "rustdoc", "style-guide", "unstable-book", "clippy")
EMAIL_TESTS = Path(sys.base_prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "test" / "test_email" / "data"
# Share of the folder per kind (the rest is HTML); a mix like a desktop archive's.
MIX = {"text": 0.12, "eml": 0.15, "pdf": 0.08, "docx": 0.08, "odt": 0.04}
MBOXES_PER_HALF = 2
MESSAGES_PER_MBOX = 100
COMPLETE = ".complete"


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: object) -> None:
        self._skip += tag in ("script", "style", "nav")

    def handle_endtag(self, tag: str) -> None:
        self._skip -= tag in ("script", "style", "nav") and self._skip > 0

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def html_text(path: Path) -> str:
    parser = _Text()
    parser.feed(path.read_text(errors="replace"))
    return re.sub(r"\s+", " ", " ".join(parser.parts)).strip()


def html_pages() -> list[Path]:
    pages: list[Path] = []
    for root in RUST_DOCS[:1]:
        for book in BOOKS:
            pages.extend(p for p in sorted((root / book).rglob("*.html"))
                         if p.name not in ("print.html", "toc.html", "404.html"))
    return pages


def text_docs() -> list[Path]:
    found = [p for p in sorted(Path("/usr/share/doc").rglob("*"))
             if p.is_file() and not p.is_symlink() and p.suffix in ("", ".txt", ".md")
             and p.name not in ("copyright",) and 1_000 < p.stat().st_size < 2_000_000]
    return found


def make_message(number: int, subject: str, body: str) -> email.message.EmailMessage:
    message = email.message.EmailMessage()
    message["From"] = f"Person {number % 37} <person{number % 37}@example.org>"
    message["To"] = "me@example.org"
    message["Subject"] = subject[:80] or f"note {number}"
    message["Date"] = email.utils.formatdate(1_600_000_000 + number * 3_600)
    message["Message-ID"] = f"<{number}.bench@example.org>"
    message.set_content(body[:20_000])
    return message


def convert(pages: list[Path], fmt: str, out: Path) -> int:
    """Convert HTML pages with LibreOffice; return how many came out."""
    soffice = shutil.which("soffice")
    if soffice is None or not pages:
        return 0
    filters = {"pdf": "pdf:writer_web_pdf_Export", "docx": 'docx:MS Word 2007 XML', "odt": "odt:writerweb8_writer"}
    out.mkdir(parents=True, exist_ok=True)
    profile = Path(tempfile.mkdtemp(prefix="lifededup-soffice-"))
    for start in range(0, len(pages), 100):
        subprocess.run([soffice, f"-env:UserInstallation=file://{profile}", "--headless", "--convert-to",
                        filters[fmt], "--outdir", str(out), *map(str, pages[start:start + 100])],
                       capture_output=True, timeout=1800, check=False)
    shutil.rmtree(profile, ignore_errors=True)
    return len(list(out.glob(f"*.{fmt}")))


def build_half(half: Path, files: int, pages: list[Path], texts: list[Path], number: int) -> None:
    counts = {kind: int(files * share) for kind, share in MIX.items()}
    counts["html"] = files - sum(counts.values())
    it = iter(pages)
    for i, page in zip(range(counts["html"]), it):
        target = half / "html" / f"{i:04d}-{page.parent.name}-{page.name}"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(page, target)
    for i, doc in enumerate(texts[number::2][: counts["text"]]):
        target = half / "text" / f"{i:04d}-{doc.parent.name}-{doc.name}"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(doc, target)
    mail = half / "mail"
    mail.mkdir(parents=True, exist_ok=True)
    real = sorted(EMAIL_TESTS.glob("msg_*.txt"))[number::2] if EMAIL_TESTS.is_dir() else []
    for i, msg in enumerate(real):
        shutil.copyfile(msg, mail / f"python-{i:02d}.eml")
    for i, page in zip(range(counts["eml"] - len(real)), it):
        message = make_message(number * 100_000 + i, page.stem.replace("-", " "), html_text(page))
        (mail / f"{i:04d}.eml").write_bytes(bytes(message))
    for m in range(MBOXES_PER_HALF):
        box = mailbox.mbox(str(mail / f"archive-{m}.mbox"))
        for i, page in zip(range(MESSAGES_PER_MBOX), it):
            box.add(make_message(number * 100_000 + 50_000 + m * 1_000 + i, page.stem, html_text(page)))
        box.flush()
        box.close()
    for fmt in ("pdf", "docx", "odt"):
        chunk = [p for _, p in zip(range(counts[fmt]), it)]
        made = convert(chunk, fmt, half / fmt)
        if made == 0:
            print(f"  no {fmt} files: soffice is missing (apt-get install libreoffice-writer-nogui)")
    shutil.copytree(REPO / "sample_corpus", half / "sample_corpus", dirs_exist_ok=True)


def build(corpus: Path, files: int) -> None:
    if (corpus / COMPLETE).exists():
        return
    if not RUST_DOCS:
        sys.exit("no Rust offline docs found (~/.rustup/toolchains/*/share/doc/rust/html): give --corpus a folder")
    print(f"building a mixed folder of about {files} files in {corpus} (once) ...", flush=True)
    shutil.rmtree(corpus, ignore_errors=True)
    pages, texts = html_pages(), text_docs()
    half_pages = [pages[0::2], pages[1::2]]
    for number in (0, 1):
        build_half(corpus / f"half-{number + 1}", files // 2, half_pages[number], texts, number)
    (corpus / COMPLETE).write_text("")


@dataclass
class Measured:
    seconds: float
    peak_rss_mb: float  # the whole process tree (the indexer and its workers)
    main_rss_mb: float  # the indexer's own process
    output: str


def _tree(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    out, queue = [], [pid]
    while queue:
        current = queue.pop()
        out.append(current)
        queue.extend(children.get(current, []))
    return out


def _rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def measure(argv: list[str], env: dict[str, str] | None = None) -> Measured:
    """Run ``argv``; wall time and the peak summed RSS of its process tree."""
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    peak = main_peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak, main_peak
        while not done.is_set():
            peak = max(peak, sum(_rss_kb(p) for p in _tree(process.pid)))
            main_peak = max(main_peak, _rss_kb(process.pid))
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    output, _ = process.communicate()
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    if process.returncode != 0:
        sys.exit(f"{argv[0]} failed ({process.returncode}):\n{output[-3000:]}")
    return Measured(seconds, peak / 1024, main_peak / 1024, output)


def folder_stats(folder: Path) -> tuple[int, int]:
    files = [p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".")]
    return len(files), sum(p.stat().st_size for p in files)


def run_lifededup(folder: Path, workers: int) -> Measured:
    with tempfile.TemporaryDirectory(prefix="lifededup-bench-") as tmp:
        return measure([sys.executable, "-m", "lifededup", "index", "--db", f"{tmp}/store.db", "-j", str(workers),
                        str(folder)])


def run_recoll(folder: Path) -> tuple[Measured, dict[str, str], str] | None:
    recollindex = shutil.which("recollindex")
    if recollindex is None:
        return None
    with tempfile.TemporaryDirectory(prefix="recoll-bench-") as conf:
        Path(conf, "recoll.conf").write_text(f"topdirs = {folder}\nloglevel = 1\n")
        measured = measure([recollindex, "-c", conf, "-z"])
        status = dict(line.split(" = ", 1) for line in Path(conf, "idxstatus.txt").read_text().splitlines()
                      if " = " in line)
        missing = Path(conf, "missing").read_text().strip() if Path(conf, "missing").exists() else ""
    return measured, status, missing


def summary_count(output: str, what: str) -> int:
    found = re.search(rf"{what} (\d+)", output)
    return int(found.group(1)) if found else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=3000, help="about how many files the folder holds")
    parser.add_argument("--corpus", type=Path, default=Path(tempfile.gettempdir()) / "lifededup-bench-corpus")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeat", type=int, default=1, help="runs of each indexer; the fastest counts")
    args = parser.parse_args()
    build(args.corpus, args.files)
    half = args.corpus / "half-1"
    n_half, bytes_half = folder_stats(half)
    n_all, bytes_all = folder_stats(args.corpus)
    kinds: dict[str, int] = {}
    for p in args.corpus.rglob("*"):
        if p.is_file() and not p.name.startswith("."):
            kinds[p.suffix.lower() or "(none)"] = kinds.get(p.suffix.lower() or "(none)", 0) + 1
    top = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])[:9])
    print(f"folder: {n_all} files, {bytes_all / 2**20:.0f} MB ({top}); {os.cpu_count()} cores, "
          f"lifededup with {args.workers} workers")

    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())} "
          "(other work on the machine slows both indexers; runs are interleaved and the fastest counts)")
    smalls, fulls, recolls = [], [], []
    for _ in range(args.repeat):
        smalls.append(run_lifededup(half, args.workers))
        fulls.append(run_lifededup(args.corpus, args.workers))
        peer = run_recoll(args.corpus)
        if peer is not None:
            recolls.append(peer)
    small, full = min(smalls, key=lambda m: m.seconds), min(fulls, key=lambda m: m.seconds)
    rows = [("lifededup (half)", n_half, bytes_half, small), ("lifededup", n_all, bytes_all, full)]
    print(f"lifededup: new {summary_count(full.output, 'new')}, failed {summary_count(full.output, 'failed')}")
    recoll = min(recolls, key=lambda r: r[0].seconds) if recolls else None
    if recoll is None:
        print("recollindex is not installed: the peer is skipped (sudo apt-get install recollcmd poppler-utils)")
    if recoll is not None:
        measured, status, missing = recoll
        rows.append(("recollindex", n_all, bytes_all, measured))
        print(f"recollindex: {status.get('filesdone', '?')} files, {status.get('docsdone', '?')} documents, "
              f"{status.get('fileerrors', '?')} errors" + (f"; missing helpers: {missing}" if missing else ""))

    print(f"\n{'indexer':<18} {'files':>6} {'seconds':>8} {'files/s':>8} {'MB/s':>6} {'peak RSS MB':>12} "
          f"{'main process':>12}")
    for name, files, size, m in rows:
        print(f"{name:<18} {files:>6} {m.seconds:>8.1f} {files / m.seconds:>8.1f} "
              f"{size / 2**20 / m.seconds:>6.2f} {m.peak_rss_mb:>12.0f} {m.main_rss_mb:>12.0f}")
    print(f"\nmemory, whole folder / half: {full.peak_rss_mb / small.peak_rss_mb:.2f}x in all, "
          f"{full.main_rss_mb / small.main_rss_mb:.2f}x for the main process, "
          f"for {n_all / n_half:.1f}x the files (flat is 1.0x)")
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if recoll is not None:
        ratio = (n_all / full.seconds) / (n_all / recoll[0].seconds)
        print(f"throughput, lifededup / recollindex: {ratio:.2f}x (target: at least 1.0x)")


if __name__ == "__main__":
    main()
