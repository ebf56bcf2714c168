"""A real archive, assembled at benchmark time from public material reachable
here (nothing made up), cached under /tmp so other benchmarks can reuse it.

* **Manuals in several formats** -- Debian documentation packages that ship
  one manual as PDF, plain text, EPUB and HTML (fetched with
  ``apt-get download``, unpacked with ``dpkg-deb -x``): the Debian FAQ,
  Policy (and its FHS, copyright-format, upgrading checklist...), Reference,
  Developer's Reference and New Maintainers' Guide.
* **Drafts** -- the READMEs, changelogs and documentation of several releases
  of a few Python projects (``pip download --no-binary :all:`` of their
  sdists): the same documents, revised release after release.
* **Mail** -- the test messages of CPython's ``email`` package
  (``libpython3.11-testsuite``), real messages of every shape.

``build()`` returns the archive folder; ``manuals()`` names each manual's
renderings, so a benchmark can check that they share a cluster.

``build_heldout()`` assembles a second archive, ``heldout``, of material no
setting of lifededup was tuned on (first read in session 26), to check that
what the first archive shows holds elsewhere:

* **Drafts in two formats** -- the documentation of several releases of
  SQLAlchemy, Alembic, Sphinx, attrs and Django, as their sdists ship it:
  reStructuredText sources, and for SQLAlchemy and Alembic the built HTML
  pages beside them (one page as ``.rst`` and ``.html``, release after release).
* **One manual in four formats and eleven languages** -- ``debian-history``
  (the project's history as EPUB, PDF, text and HTML pages per language) and
  ``debian-refcard`` (a reference card in 40 languages, each as A4 and US
  letter PDF): renderings of one language share a cluster, languages do not.

``heldout_manuals()`` names the renderings of each of its manuals.

``build_odd()`` assembles a third folder, ``odd``, of files nobody here chose
(first read in session 27): the test files the libraries lifededup reads with
ship in their sdists -- the odd real PDFs, DOCX, PPTX, OpenDocument,
iCalendar and mail their authors collected from bug reports -- as shipped,
names and all (mail-parser's messages have no suffix); and since session 33
those of two PDF tools (pikepdf, ocrmypdf: scans, blank pages, forms, fuzzed
files), of an HTML-to-text converter (inscriptis: pages and fragments), of an
Office file analyser (oletools: templates, add-ins, shows, binary workbooks,
DDE links, encrypted files) and of an Outlook message reader (msg-parser); and since session 34 a DKIM
library's signed messages (dkimpy: RFC 822 mail named .msg), html2text's test pages, news sites' article
pages newspaper4k tests on, and Outlook's winmail.dat files (tnefparse).  ``ODD_PROJECTS`` names each
project's release and the folders taken.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

CACHE = Path("/tmp/lifededup-real-archive")
ARCHIVE = CACHE / "archive"
HELDOUT = CACHE / "heldout"

DEBIAN_PACKAGES = ("debian-faq", "debian-policy", "debian-reference-en", "developers-reference", "maint-guide",
                   "libpython3.11-testsuite")

# (folder in the archive, file in the package); .gz files are unpacked
MANUAL_FILES = {
    "debian-faq": ["usr/share/doc/debian/FAQ/debian-faq.en.pdf.gz", "usr/share/doc/debian/FAQ/debian-faq.en.txt.gz"],
    "debian-policy": [
        "usr/share/doc/debian-policy/policy.pdf.gz", "usr/share/doc/debian-policy/policy.txt.gz",
        "usr/share/doc/debian-policy/policy.epub",
        "usr/share/doc/debian-policy/fhs/fhs-3.0.pdf.gz", "usr/share/doc/debian-policy/fhs/fhs-3.0.txt.gz",
        "usr/share/doc/debian-policy/fhs/fhs-3.0.html",
        "usr/share/doc/debian-policy/copyright-format-1.0.txt.gz",
        "usr/share/doc/debian-policy/copyright-format-1.0.html",
        "usr/share/doc/debian-policy/upgrading-checklist.txt.gz",
        "usr/share/doc/debian-policy/autopkgtest.txt.gz", "usr/share/doc/debian-policy/autopkgtest.html",
        "usr/share/doc/debian-policy/debconf_specification.txt.gz",
        "usr/share/doc/debian-policy/debconf_specification.html",
        "usr/share/doc/debian-policy/menu-policy.txt.gz", "usr/share/doc/debian-policy/perl-policy.txt.gz",
        "usr/share/doc/debian-policy/README.txt.gz", "usr/share/doc/debian-policy/README.html",
    ],
    "debian-reference-en": ["usr/share/debian-reference/debian-reference.en.pdf",
                            "usr/share/debian-reference/debian-reference.en.txt.gz"],
    "developers-reference": ["usr/share/developers-reference/developers-reference.pdf",
                             "usr/share/developers-reference/developers-reference.txt.gz",
                             "usr/share/developers-reference/developers-reference.epub"],
    "maint-guide": ["usr/share/doc/maint-guide/maint-guide.en.pdf",
                    "usr/share/doc/maint-guide/maint-guide.en.txt.gz"],
}
MAIL_FOLDER = "usr/lib/python3.11/test/test_email/data"

# releases whose documentation is a series of real drafts
PROJECTS = {
    "requests": ("2.25.1", "2.26.0", "2.27.1", "2.28.2", "2.31.0"),
    "click": ("8.0.0", "8.0.4", "8.1.0", "8.1.3", "8.1.7"),
    "flask": ("2.0.0", "2.1.0", "2.2.0", "2.3.0", "3.0.0"),
    "jinja2": ("3.0.0", "3.0.3", "3.1.0", "3.1.2", "3.1.4"),
    "werkzeug": ("2.0.0", "2.1.0", "2.2.0", "2.3.0", "3.0.0"),
    "pytest": ("7.0.0", "7.2.0", "7.4.0", "8.0.0"),
}
DOC_SUFFIXES = (".rst", ".md", ".txt")

# the held-out archive's releases: their doc/ or docs/ folders, built HTML included
HELDOUT_PROJECTS = {
    "sqlalchemy": ("1.4.49", "2.0.20", "2.0.35"),
    "alembic": ("1.11.0", "1.13.2"),
    "sphinx": ("6.2.1", "7.2.6"),
    "attrs": ("23.1.0", "24.2.0"),
    "django": ("4.2", "5.0"),
}
HELDOUT_SUFFIXES = (*DOC_SUFFIXES, ".html")
# (package, folder in it): copied whole, files as shipped (.gz and all: lifededup reads them)
HELDOUT_MANUALS = (("debian-history", "usr/share/doc/debian-history/docs"),
                   ("debian-refcard", "usr/share/doc/debian-refcard"))

ODD = CACHE / "odd"
# (release, folders in its sdist) whose files are other projects' test material; pdfminer.six, openpyxl,
# xlrd, extract-msg, striprtf, flanker, ebooklib and vobject ship none in their sdists (checked in session 27)
ODD_PROJECTS = {
    "pypdf": ("7.1.1", ("resources",)),
    "python-docx": ("1.2.0", ("tests/test_files", "features/steps/test_files")),
    "python-pptx": ("1.0.2", ("tests/test_files", "features/steps/test_files")),
    "odfpy": ("1.4.1", ("tests/examples",)),
    "icalendar": ("7.3.2", ("src/icalendar/tests",)),
    "talon": ("1.4.4", ("tests/fixtures",)),
    "mail-parser": ("4.8.0", ("tests/mails",)),
    # first read in session 33: PDFs of every kind (scans, blank pages, forms, fuzzed, encrypted, a page tree of
    # none) and saved pages and fragments of the web, with the text their authors expect beside each
    "pikepdf": ("10.18.0", ("tests/resources",)),
    "ocrmypdf": ("17.13.0", ("tests/resources",)),
    "inscriptis": ("2.7.6", ("tests/html",)),
    # Office files of every kind a malware analyst meets (templates, add-ins, shows, binary workbooks, DDE links,
    # encrypted and embedded objects; none harmful: oletools' own tests), and Outlook messages
    "oletools": ("0.60.2", ("tests/test-data",)),
    "msg-parser": ("1.2.0", ("tests/files",)),
    # first read in session 34: RFC 822 mail named .msg and .message (a DKIM library's signed test messages),
    # an HTML-to-text converter's test pages, and news sites' article pages saved whole
    "dkimpy": ("1.1.8", ("dkim/tests/data",)),
    "html2text": ("2025.4.15", ("test",)),
    "newspaper4k": ("0.9.6", ("tests/data/html",)),
    # Outlook's winmail.dat as real mail carried it (attachments, RTF text, damaged checksums)
    "tnefparse": ("1.4.0", ("tests/examples",)),
}
# documents, not the tests' code, expected outputs or pictures; a file with no suffix is taken (mail as shipped)
ODD_SUFFIXES = (".pdf", ".docx", ".pptx", ".xlsx", ".odt", ".ods", ".odp", ".ics", ".eml", ".html", ".rtf",
                ".msg", ".doc", ".xls", ".ppt", ".epub", ".vcf", ".mbox",
                ".docm", ".dotx", ".dotm", ".pptm", ".potx", ".potm", ".ppsx", ".ppsm", ".xlsm", ".xltx", ".xltm",
                ".xlam", ".xlsb", ".xps", ".zip", ".message", ".tnef")


def _run(*command: str, cwd: Path | None = None) -> None:
    subprocess.run(command, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _unpacked(packages: tuple[str, ...]) -> None:
    """Each package downloaded and unpacked under the cache, once."""
    debs = CACHE / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    for package in packages:
        if not any(debs.glob(f"{package}_*.deb")):
            _run("apt-get", "download", package, cwd=debs)
    for deb in debs.glob("*.deb"):
        unpacked = CACHE / "unpacked" / deb.name.split("_")[0]
        if not unpacked.exists():
            unpacked.mkdir(parents=True)
            _run("dpkg-deb", "-x", str(deb), str(unpacked))


def _debian(target: Path) -> None:
    _unpacked(DEBIAN_PACKAGES)
    for package, files in MANUAL_FILES.items():
        for name in files:
            source = CACHE / "unpacked" / package / name
            if not source.is_file():
                print(f"note: {package} has no {name} in this release; left out", file=sys.stderr)
                continue
            out = target / "manuals" / package / Path(name).name.removesuffix(".gz")
            out.parent.mkdir(parents=True, exist_ok=True)
            if name.endswith(".gz"):
                out.write_bytes(gzip.decompress(source.read_bytes()))
            else:
                shutil.copyfile(source, out)
    mail = CACHE / "unpacked" / "libpython3.11-testsuite" / MAIL_FOLDER
    for message in sorted(mail.glob("msg_*.txt")):
        out = target / "mail" / (message.stem + ".eml")
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(message, out)


def _sdist_members(path: Path, suffixes: tuple[str, ...] = DOC_SUFFIXES) -> list[tuple[str, bytes]]:
    found: list[tuple[str, bytes]] = []
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as archive:
            return [(n, archive.read(n)) for n in archive.namelist() if n.endswith(suffixes)]
    with tarfile.open(path) as archive:
        for member in archive.getmembers():
            if member.isfile() and member.name.endswith(suffixes):
                handle = archive.extractfile(member)
                if handle is not None:
                    found.append((member.name, handle.read()))
    return found


def _sdists(project: str, version: str) -> list[Path]:
    """The release's sdist, downloaded once (named as its project spells
    itself: ``SQLAlchemy-``, ``Jinja2-`` or ``jinja2-``)."""
    sdists = CACHE / "sdists"
    sdists.mkdir(parents=True, exist_ok=True)

    def found() -> list[Path]:
        # PEP 625 names newer sdists with underscores: python_docx-1.2.0.tar.gz
        prefixes = tuple({f"{project}-{version}.".lower(), f"{project.replace('-', '_')}-{version}.".lower()})
        return sorted(p for p in sdists.iterdir() if p.name.lower().startswith(prefixes)
                      and p.name.lower().endswith((".tar.gz", ".zip")))

    if not found():
        _run(sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
             "-d", str(sdists), f"{project}=={version}")
    return found()


def _projects(target: Path) -> None:
    for project, versions in PROJECTS.items():
        for version in versions:
            for path in _sdists(project, version):
                for name, data in _sdist_members(path):
                    inside = Path(*Path(name).parts[1:])
                    if inside.parts and inside.parts[0] in ("tests", "examples", "src", "artwork"):
                        continue
                    if "requirements" in str(inside) or inside.name in ("LICENSE.txt", "top_level.txt",
                                                                         "SOURCES.txt", "dependency_links.txt"):
                        continue
                    out = target / "projects" / f"{project}-{version}" / inside
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_bytes(data)


def _heldout_projects(target: Path) -> None:
    for project, versions in HELDOUT_PROJECTS.items():
        for version in versions:
            for path in _sdists(project, version):
                for name, data in _sdist_members(path, HELDOUT_SUFFIXES):
                    inside = Path(*Path(name).parts[1:])
                    if inside.parts and inside.parts[0] in ("doc", "docs"):
                        out = target / "projects" / f"{project}-{version}" / inside
                        out.parent.mkdir(parents=True, exist_ok=True)
                        out.write_bytes(data)


def _heldout_manuals(target: Path) -> None:
    _unpacked(tuple(package for package, _ in HELDOUT_MANUALS))
    for package, folder in HELDOUT_MANUALS:
        shutil.copytree(CACHE / "unpacked" / package / folder, target / "manuals" / package)


def _odd_wanted(inside: Path, folders: tuple[str, ...]) -> bool:
    under = any(inside.is_relative_to(folder) for folder in folders)
    return under and (inside.suffix.lower() in ODD_SUFFIXES or ("." not in inside.name and "mails" in inside.parts))


def _odd_projects(target: Path) -> None:
    for project, (version, folders) in ODD_PROJECTS.items():
        for path in _sdists(project, version):
            for name, read in _sdist_files(path):
                inside = Path(*Path(name).parts[1:])
                if _odd_wanted(inside, folders):
                    out = target / f"{project}-{version}" / inside
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_bytes(read())


def _sdist_files(path: Path) -> Iterator[tuple[str, Callable[[], bytes]]]:
    """Each file of an sdist, a .tar.gz or a .zip (oletools'), with a way to read it."""
    if path.name.endswith(".zip"):
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                if not info.is_dir():
                    yield info.filename, lambda info=info: archive.read(info)  # type: ignore[misc]
        return
    with tarfile.open(path) as tar:
        for member in tar.getmembers():
            handle = tar.extractfile(member) if member.isfile() else None
            if handle is not None:
                yield member.name, handle.read


def build_odd(refresh: bool = False) -> Path:
    """The folder of other projects' test files, assembled once and cached."""
    return _assembled(ODD, (_odd_projects,), refresh, json.dumps(ODD_PROJECTS, sort_keys=True))


def build_heldout(refresh: bool = False) -> Path:
    """The held-out archive's folder, assembled once and cached."""
    return _assembled(HELDOUT, (_heldout_manuals, _heldout_projects), refresh)


def heldout_manuals(archive: Path = HELDOUT) -> dict[str, list[Path]]:
    """Each held-out manual's renderings in one language: ``project-history.en``
    as EPUB, PDF and text; ``refcard-en`` on A4 and letter paper."""
    found: dict[str, list[Path]] = {}
    for path in sorted((archive / "manuals").rglob("*")):
        name = path.name.removesuffix(".gz")
        if path.is_file() and name.endswith((".pdf", ".epub", ".txt")):
            key = name.rsplit(".", 1)[0].removesuffix("-a4").removesuffix("-lt")
            found.setdefault(f"{path.parent.name}/{key}", []).append(path)
    return {name: paths for name, paths in found.items() if len(paths) > 1}


# A reference written in Markdown and shipped with the HTML pages built from it (session 35)
MARKDOWN = CACHE / "markdown"
MARKDOWN_MANUALS = (("nodejs-doc", "usr/share/doc/nodejs/api"),)


def _markdown_manuals(target: Path) -> None:
    _unpacked(tuple(package for package, _ in MARKDOWN_MANUALS))
    for package, folder in MARKDOWN_MANUALS:
        shutil.copytree(CACHE / "unpacked" / package / folder, target / package)


def build_markdown(refresh: bool = False) -> Path:
    """Debian's nodejs-doc as shipped: each page of the Node.js API reference as its Markdown source
    (``NAME.md.gz``, a few ``NAME.md``), the HTML page built from it and its JSON, assembled once and cached."""
    return _assembled(MARKDOWN, (_markdown_manuals,), refresh, json.dumps(MARKDOWN_MANUALS))


def markdown_pages(folder: Path = MARKDOWN) -> dict[str, tuple[Path, Path]]:
    """Each page's (Markdown source, built HTML page), by name."""
    found: dict[str, tuple[Path, Path]] = {}
    for source in sorted(folder.rglob("*.md*")):
        name = source.name.removesuffix(".gz").removesuffix(".md")
        page = source.with_name(name + ".html")
        if source.name.endswith((".md", ".md.gz")) and page.is_file():
            found[name] = (source, page)
    return found


# Real pages saved again by an office suite (session 36): each page opened in LibreOffice Writer and saved as
# DOCX, and that DOCX saved again in each other format, as a person re-saves a report
OFFICE = CACHE / "office"
OFFICE_PAGES = (("debian-history", "usr/share/doc/debian-history/docs", "*.html"),
                ("debian-policy", "usr/share/doc/debian-policy", "*.html"),
                ("debian-policy", "usr/share/doc/debian-policy/fhs", "*.html"),
                ("nodejs-doc", "usr/share/doc/nodejs/api", "*.html"))
OFFICE_LEFT_OUT = ("all.html",)  # Node's every other page at once
# (folder and suffix, soffice's --convert-to of the DOCX)
OFFICE_FORMATS = (("pdf", "pdf"), ("odt", "odt"), ("rtf", "rtf"), ("doc", "doc:MS Word 97"),
                  ("txt", "txt:Text (encoded):UTF8"), ("html", "html:HTML (StarWriter)"),
                  ("fodt", "fodt"), ("xml", "xml:MS Word 2003 XML"))


def _soffice(to: str, files: list[Path], out: Path, *options: str) -> None:
    """Each of ``files`` converted by one LibreOffice into ``out`` (named ``NAME.<folder's name>``); where it
    stops or hangs, the files left are converted one by one, and one it cannot save is left out, said on stderr
    (LibreOffice 7.4 never finishes saving Debian's ``perl-policy-1`` page as Word 2003 XML)."""
    profile = f"-env:UserInstallation=file://{CACHE / 'soffice-profile'}"
    out.mkdir(parents=True, exist_ok=True)
    command = ["soffice", profile, "--headless", *options, "--convert-to", to, "--outdir", str(out)]
    _within([*command, *map(str, files)], 600)
    for path in files:
        made = out / f"{path.stem}.{out.name}"
        if not made.exists() and not (_within([*command, str(path)], 60) and made.exists()):
            print(f"note: LibreOffice could not save {path.name} as {to} (in a minute); left out", file=sys.stderr)


def _within(command: list[str], seconds: float) -> bool:
    """Whether ``command`` ended within ``seconds``; if not, it and its children (soffice.bin) are stopped."""
    running = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        running.wait(seconds)
        return True
    except subprocess.TimeoutExpired:
        os.killpg(running.pid, signal.SIGKILL)
        running.wait()
        return False


def _office(target: Path) -> None:
    if shutil.which("soffice") is None:
        raise SystemExit("soffice is missing: apt-get install libreoffice-writer-nogui")
    _unpacked(tuple(package for package, _, _ in OFFICE_PAGES))
    (target / "page").mkdir(parents=True)
    for package, folder, pattern in OFFICE_PAGES:
        for page in sorted((CACHE / "unpacked" / package / folder).glob(pattern)):
            if page.is_file() and page.name not in OFFICE_LEFT_OUT:
                shutil.copyfile(page, target / "page" / f"{package}-{page.name}")  # Node's policy.html too
    _soffice("docx:MS Word 2007 XML", sorted((target / "page").iterdir()), target / "docx",
             "--infilter=HTML (StarWriter)")
    saved = sorted((target / "docx").iterdir())
    for folder, to in OFFICE_FORMATS:
        _soffice(to, saved, target / folder)


def build_office(refresh: bool = False) -> Path:
    """Real pages (the Debian project's history in ten languages, Debian Policy's pages, the Node.js reference)
    as shipped (``page/``), each saved by LibreOffice as DOCX and that DOCX saved again as PDF, ODT, RTF, DOC,
    text, HTML, Flat XML ODF and Word 2003 XML (a folder each), assembled once and cached.  Needs ``soffice``."""
    return _assembled(OFFICE, (_office,), refresh, json.dumps([OFFICE_PAGES, OFFICE_FORMATS, "named by package"]))


def office_documents(folder: Path = OFFICE) -> dict[str, list[Path]]:
    """Each page's renderings (the page, its DOCX and the DOCX's re-saves), by the page's name."""
    found: dict[str, list[Path]] = {}
    for path in sorted(folder.glob("*/*")):
        found.setdefault(path.name.rsplit(".", 1)[0], []).append(path)
    return {name: paths for name, paths in found.items() if len(paths) > 1}


T = TypeVar("T")


def indexed(folder: Path, store: Path, code: Path | None, failed_files_ok: bool = False) -> Path:
    """``lifededup index`` of ``folder`` into a fresh ``store/lifededup.db`` in a process of its own, as a user
    runs it, with the lifededup package in ``code`` (``code/lifededup``) or this one; its time printed; the
    store's path.  Its exit 1 (some file failed) is accepted with ``failed_files_ok``."""
    db = store / "lifededup.db"
    store.mkdir(parents=True, exist_ok=True)
    db.unlink(missing_ok=True)
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = str(code)
    started = time.perf_counter()
    # from / : `python -m` puts its working folder first on the module path (bench_odd.py says why)
    done = subprocess.run([sys.executable, "-m", "lifededup", "index", "--db", str(db), str(folder)], env=env,
                          capture_output=True, text=True, check=False, cwd="/")
    if done.returncode not in ((0, 1) if failed_files_ok else (0,)):
        raise SystemExit(f"lifededup index failed:\n{done.stderr}")
    print(f"  indexed in {time.perf_counter() - started:.1f} s ({'this code' if code is None else code})")
    return db


def before_and_now(doc: str, measure: Callable[[Path, Path | None], T]) -> dict[str, T]:
    """A benchmark's command line (``doc``, its docstring, says what it does; ``--store``, ``--before``), then
    ``measure(store folder, code)`` with the package kept in ``--before`` (when given) and with this code, each
    on a store of its own under ``--store`` (or a temporary folder): {"before": ..., "now": ...}."""
    import argparse

    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--store", type=Path, help="a folder for the stores (default: a temporary one)")
    parser.add_argument("--before", type=Path, help="a folder holding an earlier lifededup package, measured too")
    args = parser.parse_args()
    runs: dict[str, T] = {}
    with tempfile.TemporaryDirectory(prefix="bench-") as scratch:
        for label, code in (("before", args.before), ("now", None)):
            if label == "now" or code is not None:
                runs[label] = measure((args.store or Path(scratch)) / label, code.resolve() if code else None)
    return runs


def build(refresh: bool = False) -> Path:
    """The archive folder, assembled once and cached."""
    return _assembled(ARCHIVE, (_debian, _projects), refresh)


def _assembled(folder: Path, parts: tuple[Callable[[Path], None], ...], refresh: bool, made_of: str = "ok") -> Path:
    """``folder`` filled by each of ``parts`` once; ``.complete`` says it was, and of what (``made_of``: a
    folder cached before its list of sources grew is filled again)."""
    done = folder / ".complete"
    if done.exists() and done.read_text().strip() == made_of and not refresh:
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for part in parts:
        part(folder)
    done.write_text(made_of + "\n")
    return folder


def manuals(archive: Path = ARCHIVE) -> dict[str, list[Path]]:
    """Each manual shipped in more than one format: its renderings."""
    found: dict[str, list[Path]] = {}
    for path in sorted((archive / "manuals").rglob("*")):
        if path.is_file():
            stem = path.name.split(".")[0]
            found.setdefault(f"{path.parent.name}/{stem}", []).append(path)
    return {name: paths for name, paths in found.items() if len(paths) > 1}


if __name__ == "__main__":
    heldout = "--heldout" in sys.argv
    builder = (build_odd if "--odd" in sys.argv else build_office if "--office" in sys.argv else
               build_heldout if heldout else build)
    folder = builder(refresh="--refresh" in sys.argv)
    files = [p for p in folder.rglob("*") if p.is_file() and p.name != ".complete"]
    print(f"{folder}: {len(files)} files, {sum(p.stat().st_size for p in files) / 1e6:.1f} MB")
    named = heldout_manuals if heldout else office_documents if "--office" in sys.argv else manuals
    for name, paths in named(folder).items():
        print(f"  {name}: {', '.join(p.suffix for p in paths)}")
