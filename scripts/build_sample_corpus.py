#!/usr/bin/env python3
"""Rebuild sample_corpus/: a small personal archive with known copies, near-copies and bad files.

This script is the corpus's provenance.  The prose comes from
scripts/sample_corpus_texts.py (written for lifededup); DOCX files are written
with python-docx, and PDF, ODT, RTF, DOC and XLS files are exported from them
by LibreOffice headless, so they are what real tools make.  Everything random
is seeded.  It writes the corpus's ground truth beside it, not in it (it is
not part of the archive, and would be indexed): lifededup/eval/sample_truth.json
(shipped with the package for `lifededup eval`), the clusters the files must
form and the status each bad file must get.

Needs (this machine only; tests and CI use the committed corpus):
    apt-get install libreoffice-writer-nogui libreoffice-calc-nogui
    pip install python-docx python-pptx openpyxl EbookLib Pillow

Usage: python scripts/build_sample_corpus.py [--out sample_corpus] [--truth lifededup/eval/sample_truth.json]
"""

from __future__ import annotations

import argparse
import io
import json
import random
import shutil
import subprocess
import sys
import tempfile
import zipfile
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path

import docx
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.oxml import OxmlElement
from docx.oxml.ns import qn

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sample_corpus_texts as T  # noqa: E402

SEED = 20061  # MSR-TR-2006-30, the seed paper's report number
PASSWORD = "hunter2"


class Corpus:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.clusters: dict[str, list[str]] = {}
        self.bad: list[dict[str, str]] = []
        self.rng = random.Random(SEED)

    def path(self, rel: str) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def member(self, cluster: str, rel: str) -> None:
        self.clusters.setdefault(cluster, []).append(rel)


# ---------------------------------------------------------------- documents

def revised(name: str, draft: int) -> list[str]:
    paragraphs = list(T.DOCUMENTS[name]["paragraphs"])  # type: ignore[call-overload]
    for edits in T.REVISIONS[name][:draft - 1]:
        for old, new in edits:
            hits = [i for i, p in enumerate(paragraphs) if old in p]
            assert len(hits) == 1, f"{name}: edit {old!r} matches paragraphs {hits}"
            paragraphs[hits[0]] = paragraphs[hits[0]].replace(old, new)
    if draft >= 3:
        paragraphs.append(T.EXTRA[name])
    return paragraphs


def _page_field(paragraph: docx.text.paragraph.Paragraph) -> None:
    # A real PAGE field, so the exported PDF numbers its pages as Word would.
    paragraph.add_run("Page ")
    field = OxmlElement("w:fldSimple")
    field.set(qn("w:instr"), "PAGE")
    run = OxmlElement("w:r")
    text = OxmlElement("w:t")
    text.text = "1"
    run.append(text)
    field.append(run)
    paragraph._p.append(field)


def write_docx(path: Path, paragraphs: list[str], title: str, author: str, created: str, revision: int,
               header: str = "", page_numbers: bool = True) -> None:
    document = docx.Document()
    props = document.core_properties
    props.title, props.author, props.revision = title, author, revision
    props.created = props.modified = datetime.fromisoformat(created) + timedelta(days=7 * (revision - 1))
    section = document.sections[0]
    if header:
        section.header.paragraphs[0].text = header
    if page_numbers:
        footer = section.footer.paragraphs[0]
        footer.alignment = WD_ALIGN_PARAGRAPH.CENTER
        _page_field(footer)
    for paragraph in paragraphs:
        if paragraph.startswith("# "):
            document.add_heading(paragraph[2:], level=1)
        else:
            document.add_paragraph(paragraph)
    document.save(str(path))


def soffice(fmt: str, outdir: Path, files: list[Path]) -> None:
    outdir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as profile:  # a private profile: no clash with a running LibreOffice
        subprocess.run(["soffice", f"-env:UserInstallation=file://{profile}", "--headless", "--convert-to", fmt,
                        "--outdir", str(outdir), *map(str, files)], check=True, capture_output=True)


def build_documents(corpus: Corpus) -> None:
    exports: list[Path] = []
    for name, doc in T.DOCUMENTS.items():
        for draft in (1, 2, 3):
            rel = f"Documents/{name}/{name}-v{draft}.docx"
            write_docx(corpus.path(rel), revised(name, draft), str(doc["title"]), str(doc["author"]),
                       str(doc["created"]), draft, header=str(doc["title"]))
            exports.append(corpus.root / rel)
            corpus.member(name, rel)
            corpus.member(name, f"Documents/{name}/PDF/{name}-v{draft}.pdf")
    for name in T.DOCUMENTS:
        soffice("pdf", corpus.root / f"Documents/{name}/PDF", [p for p in exports if p.parent.name == name])
    # The same report in the older office formats, exported by LibreOffice from its third draft.
    third = corpus.root / "Documents/garden-club-report/garden-club-report-v3.docx"
    for fmt, ext in (("odt", "odt"), ("rtf", "rtf"), ("doc:MS Word 97", "doc")):
        soffice(fmt, corpus.root / "Documents/Other formats", [third])
        corpus.member("garden-club-report", f"Documents/Other formats/garden-club-report-v3.{ext}")


def _flat_odt(title: str, author: str, paragraphs: list[str]) -> str:
    from xml.sax.saxutils import escape

    def paragraph(text: str) -> str:
        parts = text.split("[[")
        out = escape(parts[0])
        for number, part in enumerate(parts[1:], start=1):
            note, rest = part.split("]]", 1)
            out += (f'<text:note text:id="n{number}" text:note-class="footnote"><text:note-citation>{number}'
                    f'</text:note-citation><text:note-body><text:p>{escape(note)}</text:p></text:note-body>'
                    f'</text:note>{escape(rest)}')
        return f"<text:p>{out}</text:p>"

    body = "".join(paragraph(p) for p in paragraphs)
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/"
 xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" office:version="1.2"
 office:mimetype="application/vnd.oasis.opendocument.text">
<office:meta><dc:title>{escape(title)}</dc:title><meta:initial-creator>{escape(author)}</meta:initial-creator></office:meta>
<office:body><office:text><text:h text:outline-level="1">{escape(title)}</text:h>{body}</office:text></office:body>
</office:document>"""


def build_essay(corpus: Corpus) -> None:
    """An essay with footnotes, written as flat ODF and saved by LibreOffice as .docx, .odt and .pdf."""
    essay = T.ESSAY
    folder = corpus.root / "Documents/mill-history"
    source = corpus.path("Documents/mill-history/mill-history.fodt")
    source.write_text(_flat_odt(str(essay["title"]), str(essay["author"]), list(essay["paragraphs"])),
                      encoding="utf-8")
    soffice("docx:MS Word 2007 XML", folder, [source])
    soffice("odt", folder, [source])
    soffice("pdf", folder / "PDF", [folder / "mill-history.docx"])
    source.unlink()  # the flat ODF is this script's, not part of the archive
    for rel in ("mill-history.docx", "mill-history.odt", "PDF/mill-history.pdf"):
        corpus.member("mill-history", f"Documents/mill-history/{rel}")


def build_epub(corpus: Corpus) -> None:
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("lifededup-sample-portugal")
    book.set_title("Ten days in northern Portugal")
    book.set_language("en")
    book.add_author("Ines Carvalho")
    book.add_metadata("DC", "date", "2024-07-02")
    chapter = epub.EpubHtml(title="Plan", file_name="plan.xhtml", lang="en")
    body = "".join(f"<h1>{p[2:]}</h1>" if p.startswith("# ") else f"<p>{p}</p>" for p in revised("portugal-trip", 1))
    chapter.content = f"<html><body>{body}</body></html>"
    book.add_item(chapter)
    book.toc = [chapter]
    book.spine = ["nav", chapter]
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    rel = "Books/portugal-trip.epub"
    epub.write_epub(str(corpus.path(rel)), book)
    corpus.member("portugal-trip", rel)


def build_spreadsheets_and_slides(corpus: Corpus) -> None:
    from openpyxl import Workbook
    from pptx import Presentation

    rng = random.Random(SEED + 1)
    book = Workbook()
    sheet = book.active
    sheet.title = "Readings"
    sheet.append(["Date", "Point", "Temperature C", "pH", "Phosphate mg/l", "Mayfly nymphs"])
    day = datetime(2023, 4, 2)
    for week in range(12):
        for point in range(1, 10):
            sheet.append([(day + timedelta(days=14 * week)).date().isoformat(), f"Point {point}",
                          round(rng.uniform(6, 19), 1), round(rng.uniform(7, 8), 2),
                          round(rng.uniform(0, 0.3 if point < 6 else 1.2), 2), rng.randint(0, 60)])
    book.properties.title = "Upper Lune survey readings"
    xlsx = corpus.path("Documents/river-survey/river-readings.xlsx")
    book.save(str(xlsx))
    soffice("xls", xlsx.parent / "Old Excel", [xlsx])
    # one workbook in two formats: the same readings, so one cluster
    corpus.member("river-readings", "Documents/river-survey/river-readings.xlsx")
    corpus.member("river-readings", "Documents/river-survey/Old Excel/river-readings.xls")
    deck = Presentation()
    slides = [("Kitchen plan", "Joiner starts in the spring"),
              ("Units", "Solid wood and birch plywood, built to measure in the workshop"),
              ("Still to do", "Electrician quote for sockets and lights; choose tiles and paint")]
    for heading, text in slides:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = heading
        slide.placeholders[1].text = text
    deck.core_properties.title = "Kitchen plan for the family meeting"
    deck.save(str(corpus.path("Documents/kitchen-quotes/kitchen-plan-slides.pptx")))


def build_letters_and_projects(corpus: Corpus) -> None:
    for name, (recipient, subject, body) in T.LETTERS.items():
        date = datetime.strptime(name[:10], "%Y-%m-%d")
        paragraphs = [*T.LETTERHEAD, date.strftime("%d %B %Y"), f"Dear {recipient}", f"Re: {subject}", *body,
                      "Yours sincerely,", "Eleanor Hartwell, Partner", T.LETTER_FOOTER]
        write_docx(corpus.path(f"Letters/Hartwell & Penrose/{name}.docx"), paragraphs, subject, "Eleanor Hartwell",
                   date.isoformat(), 1, page_numbers=False)
    for name, (title, body) in T.PROJECTS.items():
        year = 2019 + len(name) % 5
        text = f"# {title}\n\n" + "\n\n".join(body) + f"\n\n## Licence\n\nCopyright (c) {year} Sam Okafor\n\n{T.MIT_LICENCE}\n"
        corpus.path(f"Projects/{name}/README.md").write_text(text, encoding="utf-8")


# ---------------------------------------------------------------- web pages

BANNERS = [
    '<div class="cookie-banner">We use cookies to improve your experience. <button>Accept all</button></div>',
    '<div id="newsletter-popup" class="modal">Subscribe to our weekly newsletter for the best walks!</div>',
    '<div class="promo banner">Spring sale: 20% off all boots this weekend only</div>',
]
ADS = [
    '<div class="ad ad-slot">Cheap flights to Dublin from £19</div>',
    '<aside class="sponsored">Sponsored: the outdoor clothing people love</aside>',
    '<div class="advert"><img src="ad.gif" alt="Insurance deals for walkers"></div>',
]


def saved_page(title: str, published: str, paragraphs: list[str], copy: int, saved: datetime) -> str:
    nav = '<nav class="site-nav"><a href="/">Home</a> <a href="/walks">Walks</a> <a href="/food">Food</a></nav>'
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return f"""<!DOCTYPE html>
<!-- saved from url=(0042)https://www.northern-notes.example/{published} -->
<html lang="en"><head><meta charset="utf-8"><title>{title} | Northern Notes</title>
<meta property="og:title" content="{title}"><meta property="article:published_time" content="{published}T07:00:00Z">
<script>window.dataLayer = [{{"visit": "{saved.isoformat()}", "copy": {copy}}}];</script>
<style>.ad {{ float: right }}</style></head>
<body>{BANNERS[copy % 3]}<header class="masthead"><h2>Northern Notes</h2>{nav}</header>
<div class="saved-by">Page saved {saved:%d %b %Y %H:%M}</div>{ADS[(copy + 1) % 3]}
<main><article><h1>{title}</h1><p class="byline"><time datetime="{published}">{published}</time></p>{body}</article></main>
<aside class="related">More like this: ten tea rooms with a view</aside>
<footer class="site-footer">&copy; {saved.year} Northern Notes. All rights reserved.</footer></body></html>
"""


def build_web(corpus: Corpus) -> None:
    for name, (title, published, paragraphs) in T.WEB_ARTICLES.items():
        for copy in range(3):
            saved = datetime.fromisoformat(published) + timedelta(days=corpus.rng.randint(1, 400), minutes=copy * 77)
            ext = ("html", "htm", "html")[copy]
            rel = f"Web/Saved pages/{name}{'' if copy == 0 else f' ({copy})'}.{ext}"
            corpus.path(rel).write_text(saved_page(title, published, paragraphs, copy, saved), encoding="utf-8")
            corpus.member(f"web:{name}", rel)


# ---------------------------------------------------------------- mail

def thread_messages(subject: str, thread: list[tuple[str, str, str, str]]) -> list[EmailMessage]:
    messages: list[EmailMessage] = []
    for i, (sender, to, date, body) in enumerate(thread):
        msg = EmailMessage()
        when = datetime.strptime(date, "%Y-%m-%d %H:%M").replace(tzinfo=timezone.utc)
        msg["From"], msg["To"] = sender, to
        msg["Subject"] = subject if i == 0 else f"Re: {subject}"
        msg["Date"] = format_datetime(when)
        msg["Message-ID"] = f"<{when:%Y%m%d%H%M}.{i}.{len(subject)}@example.org>"  # deterministic, unlike make_msgid
        if messages:
            previous = messages[-1]
            msg["In-Reply-To"] = previous["Message-ID"]
            earlier = previous.get_content().rstrip("\n")
            quoted = "\n".join(f"> {line}" if line else ">" for line in earlier.splitlines())
            stamp = datetime.strptime(thread[i - 1][2], "%Y-%m-%d %H:%M")
            who = thread[i - 1][0].split(" <")[0]
            body = f"{body}\n\nOn {stamp:%a, %d %b %Y at %H:%M}, {who} wrote:\n{quoted}"
        msg.set_content(body + "\n")
        messages.append(msg)
    return messages


def mbox_entry(msg: EmailMessage) -> bytes:
    sender = msg["From"].addresses[0].addr_spec
    when = datetime.strptime(str(msg["Date"]), "%a, %d %b %Y %H:%M:%S %z")
    raw = msg.as_bytes(policy=msg.policy.clone(linesep="\n"))
    lines = [b">" + ln if ln.lstrip(b">").startswith(b"From ") else ln for ln in raw.split(b"\n")]
    return f"From {sender} {when:%a %b %d %H:%M:%S %Y}\n".encode() + b"\n".join(lines).rstrip(b"\n") + b"\n\n"


def build_mail(corpus: Corpus) -> None:
    mbox: list[bytes] = []
    number = 0
    for subject, thread in T.MAIL_THREADS.items():
        folder = subject.split()[0]
        for i, msg in enumerate(thread_messages(subject, thread), start=1):
            rel = f"Mail/{folder}/{i:02d} {msg['Subject'].replace(':', '')}.eml"
            corpus.path(rel).write_bytes(msg.as_bytes())
            number += 1
            mbox.append(mbox_entry(msg))
            corpus.member(f"mail:{folder}:{i}", rel)
            corpus.member(f"mail:{folder}:{i}", f"Mail/archive-2024.mbox [message {number}]")
    forward = EmailMessage()
    forward["From"], forward["To"] = "Samuel Adeyemi <sam.adeyemi@example.org>", "Grace Adeyemi <grace@example.org>"
    forward["Subject"] = "Fwd: kitchen quotes, final version"
    forward["Date"] = format_datetime(datetime(2024, 1, 31, 21, 4, tzinfo=timezone.utc))
    forward.set_content("Here is the final comparison of the three kitchen quotes, as promised.\n\nSam\n")
    attachment = corpus.root / "Documents/kitchen-quotes/kitchen-quotes-v3.docx"
    forward.add_attachment(attachment.read_bytes(), maintype="application",
                           subtype="vnd.openxmlformats-officedocument.wordprocessingml.document",
                           filename="Kitchen quotes (final).docx")
    corpus.path("Mail/Kitchen/Fwd kitchen quotes.eml").write_bytes(forward.as_bytes())
    mbox.append(mbox_entry(forward))
    number += 1
    corpus.member("kitchen-quotes", "Mail/Kitchen/Fwd kitchen quotes.eml [attachment 1: Kitchen quotes (final).docx]")
    corpus.member("kitchen-quotes", f"Mail/archive-2024.mbox [message {number} / attachment 1: Kitchen quotes (final).docx]")
    corpus.member("mail:Kitchen:fwd", "Mail/Kitchen/Fwd kitchen quotes.eml")
    corpus.member("mail:Kitchen:fwd", f"Mail/archive-2024.mbox [message {number}]")
    corpus.path("Mail/archive-2024.mbox").write_bytes(b"".join(mbox))


# ---------------------------------------------------------------- the everyday clutter

def build_notes(corpus: Corpus) -> None:
    rng = corpus.rng
    day = datetime(2023, 1, 2)
    for n in range(120):
        day += timedelta(days=rng.randint(1, 5))
        sentences = rng.sample(T.JOURNAL_SENTENCES, rng.randint(3, 6))
        text = f"{day:%A %d %B %Y}\n\n" + " ".join(sentences) + "\n"
        ext = ".md" if n % 4 == 0 else ".txt"
        corpus.path(f"Journal/{day:%Y}/{day:%Y-%m-%d}{ext}").write_text(text, encoding="utf-8")
    for n in range(40):
        items = rng.sample(T.SHOPPING, rng.randint(4, 9))
        corpus.path(f"Lists/shopping-{n + 1:02d}.txt").write_text("\n".join(items) + "\n", encoding="utf-8")
    for month in range(1, 13):
        rows = ["date,description,amount"]
        for _ in range(rng.randint(8, 20)):
            what = rng.choice(["Bakery", "Petrol", "Rent", "Water bill", "Bookshop", "Allotment rent", "Ferry",
                               "Hardware store", "Pharmacy", "Cinema", "Train ticket", "Market stall"])
            rows.append(f"2023-{month:02d}-{rng.randint(1, 28):02d},{what},{rng.uniform(1, 400):.2f}")
        corpus.path(f"Finance/statement-2023-{month:02d}.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    log = []
    when = datetime(2024, 2, 1, 6, 0)
    for _ in range(300):
        when += timedelta(minutes=rng.randint(1, 240))
        log.append(f"{when:%Y-%m-%d %H:%M:%S} backup: {rng.choice(['started', 'copied', 'verified', 'finished'])} "
                   f"{rng.randint(1, 5000)} files from {rng.choice(['Documents', 'Photos', 'Mail'])}")
    corpus.path("Logs/backup.log").write_text("\n".join(log) + "\n", encoding="utf-8")
    # Notes in the encodings old machines wrote.
    corpus.path("Encodings/liste de courses (utf-16).txt").write_bytes(
        "Liste de courses pour la fête : crème fraîche, pâté, gruyère, œufs et café.\n".encode("utf-16"))
    corpus.path("Encodings/Brief an Großmutter (latin-1).txt").write_bytes(
        "Liebe Großmutter, vielen Dank für die Äpfel und den Kuchen. Grüße aus Köln!\n".encode("latin-1"))
    corpus.path("Encodings/quote from the plumber (windows-1252).txt").write_bytes(
        "The plumber’s quote: “£180 for the new valve” — includes VAT.\n".encode("cp1252"))


def build_copies(corpus: Corpus) -> None:
    copies = {
        "Documents/garden-club-report/garden-club-report-v3.docx": "Backup/old laptop/AGM report FINAL.docx",
        "Documents/residents-minutes/PDF/residents-minutes-v2.pdf": "Desktop/minutes spring meeting.pdf",
        "Web/Saved pages/repair-cafe.html": "Backup/old laptop/Downloads/repair cafe article.html",
        "Documents/river-survey/river-survey-v1.docx": "USB stick/lune survey (copy).docx",
        "Documents/portugal-trip/PDF/portugal-trip-v3.pdf": "Downloads/portugal plan.txt",  # a PDF with a .txt name
    }
    cluster_of = {rel: name for name, members in corpus.clusters.items() for rel in members}
    for source, target in copies.items():
        shutil.copyfile(corpus.root / source, corpus.path(target))
        corpus.member(cluster_of[source], target)
    journal = sorted((corpus.root / "Journal/2023").iterdir())[5]
    shutil.copyfile(journal, corpus.path(f"Backup/old laptop/diary {journal.stem}.txt"))
    rel = str(journal.relative_to(corpus.root))
    corpus.member(f"copy:{journal.stem}", rel)
    corpus.member(f"copy:{journal.stem}", f"Backup/old laptop/diary {journal.stem}.txt")


# ---------------------------------------------------------------- bad files

def build_bad(corpus: Corpus) -> None:
    from PIL import Image, ImageDraw

    def bad(rel: str, status: str, why: str) -> Path:
        corpus.bad.append({"path": rel, "status": status, "why": why})
        return corpus.path(rel)

    pdf = (corpus.root / "Documents/kitchen-quotes/PDF/kitchen-quotes-v1.pdf").read_bytes()
    bad("Bad files/truncated download.pdf", "corrupt", "a PDF cut off after its first 2 KB").write_bytes(pdf[:2048])
    src = corpus.root / "Documents/residents-minutes/residents-minutes-v1.docx"
    soffice('pdf:writer_pdf_Export:{"EncryptFile":{"type":"boolean","value":"true"},'
            f'"DocumentOpenPassword":{{"type":"string","value":"{PASSWORD}"}}}}', corpus.root / "Bad files", [src])
    (corpus.root / "Bad files/residents-minutes-v1.pdf").rename(
        bad("Bad files/minutes (password protected).pdf", "encrypted", f"LibreOffice export, password {PASSWORD}"))
    page = Image.new("L", (1240, 1754), 255)
    ImageDraw.Draw(page).text((120, 160), "Scanned letter: no text layer, only pixels", fill=0)
    page.save(bad("Bad files/scanned letter.pdf", "no-text-layer", "an image-only PDF (Pillow)"), "PDF", resolution=150)
    rng = random.Random(SEED + 2)
    bad("Bad files/notes.txt", "unsupported", "random binary bytes named .txt").write_bytes(
        bytes(rng.randrange(256) for _ in range(4096)))
    bad("Bad files/empty.txt", "empty", "zero bytes").write_bytes(b"")
    bad("Bad files/half-written.docx", "corrupt", "a DOCX cut off mid-zip").write_bytes(
        (corpus.root / "Letters/Hartwell & Penrose/2023-09-01-boundary.docx").read_bytes()[:3000])
    bomb = bad("Bad files/huge.docx", "too-large", "a zip bomb: 200 MiB of zeros in a 200 KB DOCX")
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open("word/document.xml", "w", force_zip64=True) as entry:
            for _ in range(200):
                entry.write(b"\0" * 2**20)
    photo = io.BytesIO()
    Image.new("RGB", (64, 64), (200, 120, 40)).save(photo, "JPEG")
    bad("Bad files/holiday photo.jpg", "no-text-layer", "a JPEG photo: an image, read only by OCR (off by default)").write_bytes(photo.getvalue())
    # Not a failure: mostly UTF-8 with a few invalid bytes; read with U+FFFD in their place.
    corpus.path("Bad files/invalid utf-8.txt").write_bytes(
        "Café notes: the crème brûlée was excellent, the \xff service slow.".encode("utf-8").replace(b"\xc3\xbf", b"\xff"))
    corpus.bad.append({"path": "Bad files/invalid utf-8.txt", "status": "ok",
                       "why": "invalid UTF-8 bytes are replaced, the rest is read"})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "sample_corpus")
    parser.add_argument("--truth", type=Path,
                        default=Path(__file__).resolve().parent.parent / "lifededup" / "eval" / "sample_truth.json")
    args = parser.parse_args()
    if shutil.which("soffice") is None:
        sys.exit("needs LibreOffice: apt-get install libreoffice-writer-nogui libreoffice-calc-nogui")
    if args.out.exists():
        shutil.rmtree(args.out)
    corpus = Corpus(args.out)
    build_documents(corpus)
    build_essay(corpus)
    build_epub(corpus)
    build_spreadsheets_and_slides(corpus)
    build_letters_and_projects(corpus)
    build_web(corpus)
    build_mail(corpus)
    build_notes(corpus)
    build_copies(corpus)
    build_bad(corpus)
    truth = {
        "about": "Expected clusters of sample_corpus/ (paths relative to it; 'file [part]' names a message or "
                 "attachment inside a file, as `lifededup fingerprint` prints it). A cluster is connected by "
                 "the near-duplicate relation (same SHA-1 or >= 2 of 6 shared features); its members are "
                 "drafts and copies of one document, though the first and last drafts need not be "
                 "near-duplicates of each other directly. Every item not listed in a cluster is a "
                 "singleton. 'bad' lists the files that must fail with the given status ('ok': read "
                 "despite the damage).",
        "clusters": [{"name": name, "members": sorted(members)} for name, members in sorted(corpus.clusters.items())],
        "bad": corpus.bad,
    }
    args.truth.write_text(json.dumps(truth, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    files = [p for p in args.out.rglob("*") if p.is_file()]
    size = sum(p.stat().st_size for p in files)
    print(f"{len(files)} files, {size / 2**20:.1f} MiB, {len(corpus.clusters)} clusters, {len(corpus.bad)} bad files")


if __name__ == "__main__":
    main()
