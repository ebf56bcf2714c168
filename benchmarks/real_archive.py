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
"""

from __future__ import annotations

import gzip
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

CACHE = Path("/tmp/lifededup-real-archive")
ARCHIVE = CACHE / "archive"

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


def _run(*command: str, cwd: Path | None = None) -> None:
    subprocess.run(command, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _debian(target: Path) -> None:
    debs = CACHE / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    for package in DEBIAN_PACKAGES:
        if not any(debs.glob(f"{package}_*.deb")):
            _run("apt-get", "download", package, cwd=debs)
    for deb in debs.glob("*.deb"):
        unpacked = CACHE / "unpacked" / deb.name.split("_")[0]
        if not unpacked.exists():
            unpacked.mkdir(parents=True)
            _run("dpkg-deb", "-x", str(deb), str(unpacked))
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


def _sdist_members(path: Path) -> list[tuple[str, bytes]]:
    found: list[tuple[str, bytes]] = []
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as archive:
            return [(n, archive.read(n)) for n in archive.namelist() if n.endswith(DOC_SUFFIXES)]
    with tarfile.open(path) as archive:
        for member in archive.getmembers():
            if member.isfile() and member.name.endswith(DOC_SUFFIXES):
                handle = archive.extractfile(member)
                if handle is not None:
                    found.append((member.name, handle.read()))
    return found


def _projects(target: Path) -> None:
    sdists = CACHE / "sdists"
    sdists.mkdir(parents=True, exist_ok=True)
    for project, versions in PROJECTS.items():
        for version in versions:
            if not any(sdists.glob(f"{project}-{version}.*")) and not any(sdists.glob(f"{project.title()}-{version}.*")):
                _run(sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                     "-d", str(sdists), f"{project}=={version}")
            for path in sdists.glob(f"[{project[0]}{project[0].upper()}]{project[1:]}-{version}.*"):
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


def build(refresh: bool = False) -> Path:
    """The archive folder, assembled once and cached."""
    done = ARCHIVE / ".complete"
    if done.exists() and not refresh:
        return ARCHIVE
    shutil.rmtree(ARCHIVE, ignore_errors=True)
    ARCHIVE.mkdir(parents=True)
    _debian(ARCHIVE)
    _projects(ARCHIVE)
    done.write_text("ok\n")
    return ARCHIVE


def manuals(archive: Path = ARCHIVE) -> dict[str, list[Path]]:
    """Each manual shipped in more than one format: its renderings."""
    found: dict[str, list[Path]] = {}
    for path in sorted((archive / "manuals").rglob("*")):
        if path.is_file():
            stem = path.name.split(".")[0]
            found.setdefault(f"{path.parent.name}/{stem}", []).append(path)
    return {name: paths for name, paths in found.items() if len(paths) > 1}


if __name__ == "__main__":
    folder = build(refresh="--refresh" in sys.argv)
    files = [p for p in folder.rglob("*") if p.is_file() and p.name != ".complete"]
    print(f"{folder}: {len(files)} files, {sum(p.stat().st_size for p in files) / 1e6:.1f} MB")
    for name, paths in manuals(folder).items():
        print(f"  {name}: {', '.join(p.suffix for p in paths)}")
