"""For the web view's tests: a folder of hostile documents, indexed (what the
view must show as text and never run), and `lifededup serve` run as its own
process."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from store_samples import prose

from lifededup.index import IndexConfig, run
from lifededup.store import open_store

SCRIPT = "<script>alert('owned')</script>"
PROSE = ("The allotment committee met in the village hall on a wet Tuesday and agreed the plots by the river "
         "would be shared among the new members while the old orchard is cleared of brambles and nettles before "
         "spring planting begins in earnest and the water butts are repaired by volunteers from the school ")
HOSTILE_NAME = "<b>notes<i> \"quoted\" & 'single'.txt"
REVERSING_NAME = "photo\u202egnp.txt"


def hostile_store(folder: Path, db: str | None = None) -> Path | str:
    """Write the documents into ``folder``, index them into a store beside
    it (or into the PostgreSQL database ``db``), and return where the store is."""
    (folder / "mail.eml").write_text(
        f"From: <a@example.org>\nTo: b@example.org\nSubject: {SCRIPT}\nDate: Tue, 1 Oct 2024 10:00:00 +0000\n\n"
        f"Dear friend, {SCRIPT} <img src=x onerror=alert(2)> see you soon.\n", encoding="utf-8")
    (folder / "page.html").write_text(
        "<html><head><title>&lt;b&gt;bold&lt;/b&gt; title</title></head><body><article><p>"
        "&lt;script&gt;alert(3)&lt;/script&gt; and &lt;/td&gt;&lt;/tr&gt;&lt;iframe src=x&gt;</p>"
        "</article></body></html>", encoding="utf-8")
    # a near copy: one hostile insertion in 1,000 words (resemblance ~0.99)
    (folder / HOSTILE_NAME).write_text(f"{PROSE} {SCRIPT} {prose(7, 1000)}", encoding="utf-8")
    (folder / "notes v2.txt").write_text(f"{PROSE} {SCRIPT} </td><ins>sneaky</ins> {prose(7, 1000)}",
                                         encoding="utf-8")
    # a name that would print reversed: "photo<U+202E>gnp.txt" reads "phototxt.png"
    (folder / REVERSING_NAME).write_text("a photo of the alert geese on the weir", encoding="utf-8")
    store_at = db or folder.parent / f"{folder.name}.db"
    with open_store(store_at) as store:
        run(store, [folder], IndexConfig(workers=1))
    return store_at


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def serving(args: list[str], db: Path | str, log: Path) -> Iterator[str]:
    """``lifededup ARGS --db DB --port FREE`` as its own process (the last
    --db and --port given win); yields its address once it answers."""
    port = free_port()
    argv = [sys.executable, "-m", "lifededup", *args, "--db", str(db), "--port", str(port)]
    with log.open("wb") as out:
        server = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
    address = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(address + "/status.json", timeout=2).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"{' '.join(argv)} did not start: {log.read_text()}") from None
                time.sleep(0.1)
        yield address
    finally:
        server.terminate()
        server.wait(timeout=30)
