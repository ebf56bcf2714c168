"""A mailbox that grew by one message: ``lifededup index`` read it whole
again (a tester's 1.2 GB mbox, 172 s for each mail delivered); it now reads
it from where it grew.  This times ``index`` after one message is appended,
with the code before the change (a ``git worktree`` of it, put first on
``PYTHONPATH``) and with this checkout's, in turns, on the same mailbox and
the same store, in the same run.

The mailbox is made of public material (benchmarks/real_archive.py): the
headers of CPython's email test messages (``libpython3.11-testsuite``), each
message's text a window of the Debian manuals' and the Python projects'
text files, about 8 KB, at a seeded random place (so messages quote each
other, as a mailbox's replies do).  It is indexed once into a store; each
timed run starts from a copy of that store, the mailbox one message longer.

    git worktree add /tmp/before <commit before the change>
    python benchmarks/bench_mbox_append.py --before /tmp/before [--mb 300] [--rounds 2]
"""

from __future__ import annotations

import argparse
import email
import email.policy
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from real_archive import ARCHIVE, build  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def texts() -> str:
    """The text files of the real archive, one after another."""
    found = sorted(p for p in ARCHIVE.rglob("*") if p.is_file() and p.suffix in {".txt", ".rst", ".md"})
    return "\n\n".join(p.read_text(errors="replace") for p in found)


def headers() -> list[dict[str, str]]:
    """From, To, Subject and Date of CPython's email test messages."""
    found = []
    for path in sorted((ARCHIVE / "mail").glob("*.eml")):
        parsed = email.message_from_bytes(path.read_bytes(), policy=email.policy.compat32)
        found.append({name: str(parsed.get(name, "")).replace("\n", " ") or fallback for name, fallback in
                      (("From", "someone@example.org"), ("To", "me@example.org"), ("Subject", path.stem),
                       ("Date", "Mon, 1 Jan 2024 00:00:00 +0000"))})
    return found


def message(n: int, corpus: str, heads: list[dict[str, str]], rng: random.Random) -> str:
    head = heads[n % len(heads)]
    start = rng.randrange(len(corpus) - 9000)
    body = "\n".join((">" + line if line.startswith("From ") else line)  # mboxrd: a body's "From " escaped
                     for line in corpus[start:start + 8000].splitlines())
    return (f"From bench@example.org Mon Jan  1 00:00:00 2024\nFrom: {head['From']}\nTo: {head['To']}\n"
            f"Subject: {head['Subject']} ({n})\nDate: {head['Date']}\nMessage-ID: <{n}@bench.example.org>\n\n"
            f"{body}\n\n")


def make_mailbox(path: Path, megabytes: int) -> int:
    corpus, heads, rng = texts(), headers(), random.Random(1)
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with path.open("w") as box:
        while box.tell() < megabytes * 2**20:
            n += 1
            box.write(message(n, corpus, heads, rng))
    return n


def index(db: Path, folder: Path, work: Path, code: Path | None) -> tuple[float, dict[str, object]]:
    """Seconds of one ``lifededup index`` (a process of its own) and its summary."""
    env = {**os.environ, "XDG_DATA_HOME": str(work / "xdg"), "XDG_STATE_HOME": str(work / "xdg"),
           "XDG_CONFIG_HOME": str(work / "xdg"), "PYTHONPATH": str(code or REPO)}
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "lifededup", "index", "--db", str(db), "--json", str(folder)],
                          env=env, capture_output=True, text=True, check=True, cwd=work)  # -m puts cwd first
    seconds = time.monotonic() - started
    return seconds, json.loads(done.stdout)


def which(code: Path | None, work: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(code or REPO)}
    return subprocess.run([sys.executable, "-c", "import lifededup; print(lifededup.__file__)"], env=env,
                          capture_output=True, text=True, check=True, cwd=work).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="a checkout of the code before the change")
    parser.add_argument("--mb", type=int, default=300, help="the mailbox's size in MB")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--work", type=Path, default=Path("/tmp/lifededup-bench-mbox"))
    parser.add_argument("--reuse", action="store_true",
                        help="the mailbox and its store of an earlier run in --work (the first index is slow)")
    args = parser.parse_args()
    folder, base = args.work / "mail", args.work / "base.db"
    box = folder / "inbox.mbox"
    if not (args.reuse and box.exists() and base.exists()):
        build()
        shutil.rmtree(args.work, ignore_errors=True)
        count = make_mailbox(box, args.mb)
        seconds, summary = index(base, folder, args.work, None)
        print(f"first index: {seconds:.1f} s, {summary['items']} items", flush=True)
        with box.open("a") as out:
            out.write(message(count + 1, texts(), headers(), random.Random(2)))
    print(f"mailbox: {box.stat().st_size / 2**20:.0f} MiB, one message appended; before: "
          f"{which(args.before, args.work)}; after: {which(None, args.work)}", flush=True)
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    times: dict[str, list[float]] = {"before": [], "after": []}
    for round_ in range(1, args.rounds + 1):
        for name, code in (("before", args.before), ("after", None)):
            db = args.work / f"{name}.db"
            shutil.copyfile(base, db)
            seconds, summary = index(db, folder, args.work, code)
            times[name].append(seconds)
            print(f"round {round_} {name:6}: {seconds:7.2f} s  items read {summary['items']}, updated "
                  f"{summary['updated']}  (load {os.getloadavg()[0]:.2f})", flush=True)
            db.unlink()
    before, after = statistics.median(times["before"]), statistics.median(times["after"])
    print(f"median before {before:.2f} s, after {after:.2f} s: {before / after:.1f}x faster")
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
