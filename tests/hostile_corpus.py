"""A hostile folder, built at test time: every way a folder can try to make
the indexer read outside it, crash, hang or eat memory (issue 13).

``build(folder, outside)`` makes it and returns what the store must say of
each case: its path relative to ``folder`` in the store's form
(``lifededup.model.stored_path``) and the status it must be recorded with.
"""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import docx

SECRET = "zanzibarsecretword"  # the text of the file outside: it must never reach the store
XXE_AFTER = "quillfeather text after the entity"

# relative stored path -> status
LINKS = {
    "outdir": "link-outside",     # a folder link out of the walls
    "outfile": "link-outside",    # a file link out of the walls
    "sub/up": "link-loop",        # a link to its own ancestor
    "loopa": "link-loop",         # two links pointing at each other
    "loopb": "link-loop",
    "dangling": "broken-link",
}
FILES = {
    "a.txt": "ok",
    "bad\\xff.txt": "ok",               # a name that is not UTF-8
    "dir\\xfe/inner.txt": "ok",         # ... and a folder name
    "back\\\\slash.txt": "ok",          # a backslash, escaped in the store
    "fifo": "not-a-file",
    "blank.pdf": "no-text",             # pages that give only page numbers
    "xxe.docx": "ok",                   # an external entity, and text after it
    "xxe.svg": "ok",                    # a drawing: an entity naming the secret, a billion laughs, text after
    "big.html": "ok",                   # one line, cut at the text limit
}
UNREADABLE = {"locked": "unreadable", "nope.txt": "unreadable"}


def prose(seed: int, words: int = 60) -> str:
    vocabulary = ("river survey mayfly nymph brook lantern harbour quarry meadow orchard willow heron "
                  "granite ledger parish chapel orchard kestrel bramble").split()
    rng = random.Random(seed)
    return " ".join(rng.choice(vocabulary) for _ in range(words)) + "."


def pdf_of_pages(pages: list[str]) -> bytes:
    """A minimal valid PDF with one line of Helvetica text per page."""
    objects = ["<< /Type /Catalog /Pages 2 0 R >>", ""]
    kids = []
    for text in pages:
        stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
        page_number = len(objects) + 1
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {page_number + 1} 0 R "
                       f"/Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>")
        objects.append(f"<< /Length {len(stream)} >>\nstream\n{stream.decode()}\nendstream")
        kids.append(f"{page_number} 0 R")
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(kids)} >>"
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(f"{number} 0 obj\n{body}\nendobj\n".encode())
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for offset in offsets:
        out.write(f"{offset:010d} 00000 n \n".encode())
    out.write(f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode())
    return out.getvalue()


def docx_with_external_entity(path: Path) -> None:
    """A DOCX whose body refers to an external entity (XXE) mid-paragraph."""
    document = docx.Document()
    document.add_paragraph("Before the entity comes this sentence about the " + prose(3, 20))
    document.add_paragraph("MARKER")
    plain = io.BytesIO()
    document.save(plain)
    with zipfile.ZipFile(plain) as source, zipfile.ZipFile(path, "w") as target:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename == "word/document.xml":
                head, rest = data.decode().split("?>", 1)
                rest = rest.replace("MARKER", "&ext; " + XXE_AFTER)
                data = (head + '?><!DOCTYPE w:document [<!ENTITY ext SYSTEM "file:///etc/hostname">]>'
                        + rest).encode()
            target.writestr(item, data)


def svg_with_entities(path: Path, outside: Path) -> None:
    """An SVG drawing whose text refers to an external entity naming the
    secret outside the folder, and to a billion laughs (nine levels of ten)."""
    laughs = "".join(f'<!ENTITY l{n} "{f"&l{n - 1};" * 10}">' for n in range(1, 10))
    path.write_text(f'<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY ext SYSTEM "file://{outside}/secret.txt">'
                    f'<!ENTITY l0 "lol">{laughs}]>'
                    '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="80">'
                    f'<text x="10" y="20">&ext; {XXE_AFTER}</text><text x="10" y="60">&l9;</text></svg>')


def one_line_html(path: Path, megabytes: int) -> None:
    chunk = " ".join(prose(n, 40) for n in range(200))
    with path.open("w") as handle:
        handle.write("<html><head><title>one line</title></head><body><p>")
        for _ in range(megabytes * 2**20 // len(chunk) + 1):
            handle.write(chunk + " ")
        handle.write("</p></body></html>")


def build(folder: Path, outside: Path, *, html_mb: int = 20, unreadable: bool = True) -> dict[str, str]:
    """Fill ``folder`` (and ``outside``, the secret it must never read) and
    return the expected status of each case, by relative stored path."""
    outside.mkdir(parents=True, exist_ok=True)
    (outside / "secret.txt").write_text(f"{SECRET} " + prose(1))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sub").mkdir()
    (folder / "a.txt").write_text(prose(2))
    os.symlink(outside, folder / "outdir")
    os.symlink(outside / "secret.txt", folder / "outfile")
    os.symlink(folder, folder / "sub" / "up")
    os.symlink("loopb", folder / "loopa")
    os.symlink("loopa", folder / "loopb")
    os.symlink("nothing-here", folder / "dangling")
    os.symlink("a.txt", folder / "inlink")   # inside: followed to a.txt, which is indexed once
    with open(os.path.join(os.fsencode(folder), b"bad\xff.txt"), "w") as handle:
        handle.write(prose(4))
    os.mkdir(os.path.join(os.fsencode(folder), b"dir\xfe"))
    with open(os.path.join(os.fsencode(folder), b"dir\xfe", b"inner.txt"), "w") as handle:
        handle.write(prose(5))
    (folder / "back\\slash.txt").write_text(prose(6))
    os.mkfifo(folder / "fifo")
    (folder / "blank.pdf").write_bytes(pdf_of_pages(["1", "2", "3"]))
    docx_with_external_entity(folder / "xxe.docx")
    svg_with_entities(folder / "xxe.svg", outside)
    one_line_html(folder / "big.html", html_mb)
    expected = {**LINKS, **FILES}
    if unreadable:
        (folder / "locked").mkdir()
        (folder / "locked" / "in.txt").write_text(prose(7))
        (folder / "nope.txt").write_text(prose(8))
        os.chmod(folder / "locked", 0)
        os.chmod(folder / "nope.txt", 0)
        expected.update(UNREADABLE)
    return expected


def restore(folder: Path) -> None:
    """Make the folder removable again (pytest's tmp_path cleanup)."""
    for name in UNREADABLE:
        if os.path.lexists(folder / name):
            os.chmod(folder / name, 0o755)


def without_read_override() -> list[str] | None:
    """A command prefix under which file permissions bind (None if they
    cannot here): nothing as a user; as root, ``setpriv`` without the
    capabilities that let root read anything."""
    if os.geteuid() != 0:
        return []
    prefix = ["setpriv", "--inh-caps=-dac_override,-dac_read_search",
              "--bounding-set=-dac_override,-dac_read_search"]
    try:
        probe = subprocess.run([*prefix, "true"], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return prefix if probe.returncode == 0 else None


_SWAPPER = """
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b = (p.encode() for p in sys.argv[1:3])
while libc.renameat2(-100, a, -100, b, 2) == 0:  # AT_FDCWD, RENAME_EXCHANGE
    pass
"""


@contextmanager
def swapping(a: Path, b: Path) -> Iterator[None]:
    """Two names (a folder and a link to another) exchanged atomically, in a
    loop, by another process while the block runs: a race a check-then-open
    loses."""
    swapper = subprocess.Popen([sys.executable, "-c", _SWAPPER, str(a), str(b)])
    try:
        yield
    finally:
        swapper.kill()
        swapper.wait()

