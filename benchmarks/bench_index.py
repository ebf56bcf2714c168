"""Indexing throughput and memory: ``lifededup index`` against Recoll's
``recollindex`` on the same mixed folder of real files, in the same run.

The folder (built once, then reused) holds real documents found on this kind
of machine: HTML pages of the Rust books (the toolchain's offline docs),
Debian's text documentation (plain, and gzipped changelogs as Debian ships
them), Debian's man pages (``.1.gz``, and some unpacked) and info manuals,
real mail (CPython's email test messages as .eml, and .eml files and
mailboxes made from the Rust books' text), the sample corpus, PDF, DOCX and
ODT files converted from the HTML pages by LibreOffice
(``soffice --headless --convert-to``), PowerPoint 97-2003 decks (python-pptx
slides of the books' text, saved as .ppt/.pps by LibreOffice Impress),
vCards of the Debian maintainers named in dpkg's status file, iCalendar
events of Debian changelog entries, EPUBs of the books' chapters (half of them
listing an image their zip lacks, as Debian's do), and .zip, .tar, .tar.gz
archives of the books' pages and Debian's docs.  After the runs, the share of
files that gave text is read from lifededup's store (the issue's target: 99%).  It is built in two
halves, ``half-1/`` and ``half-2/``, of the same mix: lifededup indexes the
first half and then the whole folder into fresh stores, so its peak memory
is measured at two sizes (flat means the same).

Both indexers run as separate processes; the peak memory is the largest sum
of resident memory over the indexer's process tree (sampled from /proc every
50 ms).  Recoll is run with a fresh configuration whose ``topdirs`` is the
folder, and reports what it indexed in ``idxstatus.txt``.

    sudo apt-get install recollcmd poppler-utils libreoffice-writer-nogui libreoffice-impress-nogui groff-base
    python benchmarks/bench_index.py [--files 3000] [--repeat 3] [--corpus /tmp/lifededup-bench-corpus]

Without ``recollindex`` the peer is skipped with a message; without
``soffice`` the folder has no converted PDF/office files (a message says so).
"""

from __future__ import annotations

import argparse
import email.message
import email.utils
import gzip
import io
import mailbox
import os
import re
import shutil
import sqlite3
import tarfile
import zipfile
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import timezone
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
# Files per half of the other kinds a real archive holds, per 1,000 files of --files.
MORE = {"man": 60, "man-unpacked": 10, "info": 5, "gz": 15, "ppt": 8, "vcf": 8, "ics": 5, "epub": 4, "archive": 6}
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


def debian_maintainers() -> list[tuple[str, str, str]]:
    """(name, e-mail, package) of the maintainers dpkg's status file names: real, public contacts."""
    status = Path("/var/lib/dpkg/status")
    found, package = [], ""
    for line in status.read_text(errors="replace").splitlines() if status.exists() else []:
        if line.startswith("Package: "):
            package = line.split(": ", 1)[1]
        elif line.startswith("Maintainer: ") and "<" in line:
            name, mail = line.split(": ", 1)[1].rsplit("<", 1)
            found.append((name.strip().strip('"'), mail.strip(">"), package))
    return found


def vcard(name: str, mail: str, package: str) -> str:
    family, _, given = name.rpartition(" ")
    return (f"BEGIN:VCARD\r\nVERSION:3.0\r\nFN:{name}\r\nN:{given};{family};;;\r\nEMAIL;TYPE=INTERNET:{mail}\r\n"
            f"ORG:Debian\r\nNOTE:Maintainer of the Debian package {package}\r\nEND:VCARD\r\n")


def changelog_events(path: Path) -> str:
    """A calendar of a Debian changelog's uploads: one event per entry, dated by its signature line."""
    text = gzip.decompress(path.read_bytes()).decode("utf-8", "replace")
    events = []
    for entry in re.finditer(r"^(\S+) \(([^)]+)\) [^\n]*\n(.*?)^ -- ([^\n]+?)  ([^\n]+)$", text, re.M | re.S):
        package, version, body, who, when = entry.groups()
        try:
            day = email.utils.parsedate_to_datetime(when).astimezone(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        except (TypeError, ValueError):
            continue
        summary = " ".join(body.split())[:900].replace(",", "\\,").replace(";", "\\;")
        events.append(f"BEGIN:VEVENT\r\nUID:{package}-{version}@bench\r\nDTSTART:{day}\r\n"
                      f"SUMMARY:{package} {version} uploaded\r\nORGANIZER:{who.split('<')[0].strip()}\r\n"
                      f"DESCRIPTION:{summary}\r\nEND:VEVENT\r\n")
        if len(events) == 20:
            break
    return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//lifededup bench//EN\r\n" + "".join(events) + "END:VCALENDAR\r\n"


def make_epub(path: Path, title: str, pages: list[Path], missing_image: bool) -> None:
    """An EPUB 2 of HTML pages; with ``missing_image`` its manifest lists a logo its zip lacks."""
    items = "".join(f'<item id="c{i}" href="c{i}.xhtml" media-type="application/xhtml+xml"/>' for i in range(len(pages)))
    if missing_image:
        items += '<item id="logo" href="images/logo.png" media-type="image/png"/>'
    spine = "".join(f'<itemref idref="c{i}"/>' for i in range(len(pages)))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as book:
        book.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        book.writestr("META-INF/container.xml", '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:'
                      'names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" '
                      'media-type="application/oebps-package+xml"/></rootfiles></container>')
        book.writestr("OEBPS/content.opf", '<?xml version="1.0" encoding="utf-8"?><package xmlns="http://www.idpf.org'
                      '/2007/opf" version="2.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements'
                      f'/1.1/"><dc:title>{title}</dc:title><dc:identifier id="id">{title}</dc:identifier>'
                      f'<dc:language>en</dc:language></metadata><manifest>{items}</manifest><spine>{spine}</spine>'
                      '</package>')
        for i, page in enumerate(pages):
            body = html_text(page).replace("&", "&amp;").replace("<", "&lt;")
            book.writestr(f"OEBPS/c{i}.xhtml", '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/'
                          f'1999/xhtml"><head><title>{page.stem}</title></head><body><h1>{page.stem}</h1><p>{body}</p>'
                          '<img src="images/logo.png" alt=""/></body></html>')


def make_ppts(pages: list[Path], out: Path) -> int:
    """python-pptx decks of the pages' text, saved as PowerPoint 97-2003 by LibreOffice Impress."""
    soffice = shutil.which("soffice")
    if soffice is None or not pages:
        return 0
    from pptx import Presentation

    work = Path(tempfile.mkdtemp(prefix="lifededup-pptx-"))
    for page in pages:
        deck = Presentation()
        words = html_text(page).split()
        for start in range(0, min(len(words), 600), 150):
            slide = deck.slides.add_slide(deck.slide_layouts[1])
            slide.shapes.title.text = f"{page.stem} ({start // 150 + 1})"
            slide.placeholders[1].text = " ".join(words[start:start + 150])
        deck.save(str(work / f"{page.parent.name}-{page.stem}.pptx"))
    out.mkdir(parents=True, exist_ok=True)
    profile = Path(tempfile.mkdtemp(prefix="lifededup-soffice-"))
    subprocess.run([soffice, f"-env:UserInstallation=file://{profile}", "--headless", "--convert-to", "ppt",
                    "--outdir", str(out), *map(str, sorted(work.glob("*.pptx")))],
                   capture_output=True, timeout=1800, check=False)
    shutil.rmtree(profile, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)
    made = sorted(out.glob("*.ppt"))
    for ppt in made[::4]:  # some as slide shows, as people save them
        ppt.rename(ppt.with_suffix(".pps"))
    return len(made)


def _pick(found: list[Path], number: int, count: int) -> list[Path]:
    return found[number::2][::max(1, len(found[number::2]) // max(1, count))][:count]


def build_more(half: Path, files: int, pages: list[Path], number: int) -> None:
    """The other kinds of file a real archive holds: man pages, info, ppt, vCards, calendars, EPUBs, archives."""
    per = {kind: max(1, n * files // 1000) for kind, n in MORE.items()}
    man = sorted(Path("/usr/share/man").glob("man[1-8]/*.gz"))
    for page in _pick(man, number, per["man"]):
        (half / "man" / page.parent.name).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(page, half / "man" / page.parent.name / page.name)
    for page in _pick(man[1:], number, per["man-unpacked"]):
        (half / "man" / "unpacked").mkdir(parents=True, exist_ok=True)
        (half / "man" / "unpacked" / page.stem).write_bytes(gzip.decompress(page.read_bytes()))
    (half / "info").mkdir(parents=True, exist_ok=True)
    for manual in _pick(sorted(Path("/usr/share/info").glob("*.info*.gz")), number, per["info"]):
        shutil.copyfile(manual, half / "info" / manual.name)
    changelogs = sorted(Path("/usr/share/doc").glob("*/changelog.Debian.gz"))
    (half / "gz").mkdir(parents=True, exist_ok=True)
    for log in _pick(changelogs, number, per["gz"]):
        shutil.copyfile(log, half / "gz" / f"{log.parent.name}.changelog.Debian.gz")
    it = iter(pages[::-1])
    if make_ppts([p for _, p in zip(range(per["ppt"]), it)], half / "ppt") == 0:
        print("  no .ppt files: soffice is missing (apt-get install libreoffice-impress-nogui)")
    contacts = debian_maintainers()[number::2]
    (half / "contacts").mkdir(parents=True, exist_ok=True)
    for i, (name, mail, package) in enumerate(contacts[:per["vcf"]]):
        (half / "contacts" / f"{i:03d}-{re.sub(r'[^A-Za-z]+', '-', name)}.vcf").write_text(vcard(name, mail, package))
    (half / "contacts" / "address-book.vcf").write_text("".join(vcard(*c) for c in contacts[per["vcf"]:][:40]))
    (half / "calendar").mkdir(parents=True, exist_ok=True)
    for log in _pick(changelogs[1:], number, per["ics"]):
        (half / "calendar" / f"{log.parent.name}.ics").write_text(changelog_events(log))
    (half / "epub").mkdir(parents=True, exist_ok=True)
    for i in range(per["epub"]):
        chapters = [p for _, p in zip(range(4), it)]
        make_epub(half / "epub" / f"{i:02d}-{chapters[0].stem}.epub", chapters[0].stem, chapters, i % 2 == 0)
    docs = text_docs()[number::2]
    (half / "archives").mkdir(parents=True, exist_ok=True)
    for i in range(per["archive"]):
        members = [p for _, p in zip(range(5), it)] + docs[i * 5:i * 5 + 5]
        kind = ("zip", "tar", "tar.gz")[i % 3]
        target = half / "archives" / f"backup-{i:02d}.{kind}"
        if kind == "zip":
            with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
                for member in members:
                    archive.write(member, f"{member.parent.name}/{member.name}")
        else:
            with tarfile.open(target, "w:gz" if kind == "tar.gz" else "w") as archive:
                for member in members:
                    archive.add(member, f"{member.parent.name}/{member.name}")


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
        build_more(corpus / f"half-{number + 1}", files // 2, half_pages[number], number)
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


@dataclass
class Coverage:
    files: int
    with_text: int
    failures: list[tuple[str, str, int]]  # (suffix, status, files) of the files that gave no text


def coverage(store: Path) -> Coverage:
    """How many files gave text (themselves or a part: an mbox's messages, an archive's members)."""
    with sqlite3.connect(store) as db:
        files = db.execute("SELECT count(*) FROM items WHERE part = ''").fetchone()[0]
        with_text = db.execute("SELECT count(DISTINCT path) FROM items WHERE text IS NOT NULL AND text != ''"
                               ).fetchone()[0]
        rows = db.execute("SELECT path, status FROM items WHERE part = '' AND path NOT IN "
                          "(SELECT path FROM items WHERE text IS NOT NULL AND text != '')").fetchall()
    counts: dict[tuple[str, str], int] = {}
    for path, status in rows:
        key = (Path(path).suffix.lower() or "(none)", status)
        counts[key] = counts.get(key, 0) + 1
    return Coverage(files, with_text, sorted(((k[0], k[1], n) for k, n in counts.items()), key=lambda r: -r[2]))


def run_lifededup(folder: Path, workers: int) -> tuple[Measured, Coverage]:
    with tempfile.TemporaryDirectory(prefix="lifededup-bench-") as tmp:
        measured = measure([sys.executable, "-m", "lifededup", "index", "--db", f"{tmp}/store.db", "-j", str(workers),
                            str(folder)])
        return measured, coverage(Path(tmp, "store.db"))


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
    covered = None
    for _ in range(args.repeat):
        smalls.append(run_lifededup(half, args.workers)[0])
        measured_full, covered = run_lifededup(args.corpus, args.workers)
        fulls.append(measured_full)
        peer = run_recoll(args.corpus)
        if peer is not None:
            recolls.append(peer)
    small, full = min(smalls, key=lambda m: m.seconds), min(fulls, key=lambda m: m.seconds)
    rows = [("lifededup (half)", n_half, bytes_half, small), ("lifededup", n_all, bytes_all, full)]
    print(f"lifededup: new {summary_count(full.output, 'new')}, failed {summary_count(full.output, 'failed')}")
    assert covered is not None
    print(f"files that gave text: {covered.with_text} of {covered.files} "
          f"({100 * covered.with_text / covered.files:.2f}%; target: at least 99%)")
    for suffix, status, count in covered.failures[:12]:
        print(f"  no text: {count:>4} {suffix} ({status})")
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
