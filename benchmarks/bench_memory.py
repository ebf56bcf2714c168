"""Peak memory of ``lifededup index`` on hostile input and on a large real
folder, against Recoll's ``recollindex`` on the same folders in the same run.

The hostile folder is the one the tests build (``tests/hostile_corpus.py``:
links out and round in loops, names that are not UTF-8, a FIFO, a PDF of no
words, a DOCX with an external entity) with a **200 MB one-line HTML page**
and a **200 MB one-line text file** in it (each under the 256 MiB size
limit, so they are read, and their text cut at ``--max-text-mb``).  The
real folder is Debian's ``/usr/share/doc`` by default (``--real PATH``).

Memory is the largest sum of resident memory over the indexer's process
tree (sampled from /proc every 50 ms: the indexer and its workers), and of
its main process alone; ``bench_index.measure`` does the sampling.

    python benchmarks/bench_memory.py [--html-mb 200] [--real /usr/share/doc] [-j 2]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

from bench_index import Measured, folder_stats, measure, run_recoll  # noqa: E402
from hostile_corpus import build, prose  # noqa: E402

BOUND_MB = 1536  # the bound for the whole process tree on any single file


def one_line_text(path: Path, megabytes: int) -> None:
    chunk = " ".join(prose(n, 40) for n in range(200)) + " "
    with path.open("w") as handle:
        for _ in range(megabytes * 2**20 // len(chunk) + 1):
            handle.write(chunk)


def index(folder: Path, workers: int) -> Measured:
    with tempfile.TemporaryDirectory(prefix="lifededup-bench-") as tmp:
        return measure([sys.executable, "-m", "lifededup", "index", "--db", f"{tmp}/store.db", "-j", str(workers),
                        str(folder)])


def report(name: str, folder: Path, workers: int) -> None:
    files, size = folder_stats(folder)
    ours = index(folder, workers)
    print(f"\n{name}: {folder} ({files} files, {size / 2**20:.0f} MB)")
    print(f"  lifededup index -j {workers}: peak {ours.peak_rss_mb:7.0f} MB (main process {ours.main_rss_mb:.0f} MB),"
          f" {ours.seconds:.1f} s")
    print("   " + next((line for line in ours.output.splitlines() if line.startswith("new ")), "(no summary)"))
    peer = run_recoll(folder)
    if peer is None:
        print("  recollindex: not installed (sudo apt-get install recollcmd); no peer")
        return
    theirs = peer[0]
    print(f"  recollindex -z:       peak {theirs.peak_rss_mb:7.0f} MB (main process {theirs.main_rss_mb:.0f} MB),"
          f" {theirs.seconds:.1f} s")
    print(f"   recoll: {peer[1].get('filesdone', '?')} files done (it skips text files over its textfilemaxmbs, "
          "20 MB by default)")
    print(f"  ratio lifededup / recoll: peak memory {ours.peak_rss_mb / max(theirs.peak_rss_mb, 1):.2f}x, "
          f"time {ours.seconds / max(theirs.seconds, 0.01):.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--html-mb", type=int, default=200, help="size of the one-line HTML and text files")
    parser.add_argument("--real", type=Path, default=Path("/usr/share/doc"), help="a large real folder")
    parser.add_argument("-j", "--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lifededup-hostile-") as tmp:
        folder = Path(tmp) / "hostile"
        build(folder, Path(tmp) / "outside", html_mb=args.html_mb, unreadable=False)
        one_line_text(folder / "big.txt", args.html_mb)
        (folder / "fifo").unlink()  # recollindex would block on it; lifededup's record of it is tested
        report("hostile folder", folder, args.workers)
        alone = Path(tmp) / "alone"
        alone.mkdir()
        shutil.move(str(folder / "big.html"), alone / "big.html")
        ours = index(alone, args.workers)
        verdict = "under" if ours.peak_rss_mb < BOUND_MB else "OVER"
        print(f"\nthe {args.html_mb} MB one-line HTML alone: peak {ours.peak_rss_mb:.0f} MB over the process tree "
              f"(main {ours.main_rss_mb:.0f} MB): {verdict} the {BOUND_MB} MB bound")
    if args.real.is_dir():
        report("large real folder", args.real, args.workers)
    else:
        print(f"\n{args.real} is not there: no real folder measured (--real PATH)")


if __name__ == "__main__":
    main()
