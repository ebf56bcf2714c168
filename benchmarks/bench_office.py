"""One document saved in every office format (``real_archive.build_office()``):
real pages (the Debian project's history in ten languages, Debian Policy's
pages, the Node.js reference) opened in LibreOffice Writer and saved as DOCX,
and each DOCX saved again as PDF, ODT, RTF, Word 97 DOC, text, HTML, Flat
XML ODF and Word 2003 XML, as a person re-saves a report.  Do a document's
renderings share a cluster?

``lifededup index`` of the folder into a fresh store (a separate process, as
a user runs it), then for each document: whether all its renderings are in
one cluster; for each format, whether it is in the DOCX's cluster and how
far its stored text is from the DOCX's (``fingerprint.compare``'s word edit
distance).  ``--before DIR`` does the same, in the same run, with a
lifededup package kept in DIR (``DIR/lifededup``, e.g. ``git archive`` of an
earlier commit), and prints both.

    python benchmarks/bench_office.py [--store /tmp/office-store] [--before /tmp/old]
"""

from __future__ import annotations

import sqlite3
import statistics
import sys
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent))

from real_archive import before_and_now, build_office, indexed, office_documents  # noqa: E402

from lifededup.fingerprint.compare import compare  # noqa: E402

# a rendering's folder in the office archive: what it is
FORMATS = {"page": "the page as shipped (HTML)", "docx": "DOCX (Writer)", "pdf": "PDF", "odt": "ODT",
           "rtf": "RTF", "doc": "Word 97 DOC", "txt": "text", "html": "HTML (Writer)", "fodt": "Flat XML ODF",
           "xml": "Word 2003 XML"}


class Rendering(NamedTuple):
    cluster: int
    text: str
    status: str


def measure(folder: Path, store: Path, code: Path | None) -> dict[str, dict[str, Rendering]]:
    """Each document's renderings, by format (the folder's name), as the store holds them."""
    db = indexed(folder, store, code, failed_files_ok=True)  # a failed file is a row of the table
    found: dict[str, dict[str, Rendering]] = {}
    with sqlite3.connect(db) as conn:
        for name, paths in office_documents(folder).items():
            for path in paths:
                row = conn.execute("SELECT coalesce(c.cluster_id, i.id), coalesce(i.text, ''), i.status "
                                   "FROM items i LEFT JOIN clusters c ON c.item_id = i.id "
                                   "WHERE i.path = ? AND i.part = ''", (str(path),)).fetchone()
                found.setdefault(name, {})[path.parent.name] = Rendering(int(row[0]), str(row[1]), str(row[2]))
    return found


def table(runs: dict[str, dict[str, dict[str, Rendering]]]) -> None:
    documents = len(next(iter(runs.values())))
    print(f"\n{documents} documents, each as its page, its DOCX and the DOCX saved again\n")
    print("| measure | " + " | ".join(runs) + " |\n|---|" + "---:|" * len(runs))
    print("| all renderings in one cluster | " + " | ".join(
        str(sum(len({r.cluster for r in doc.values()}) == 1 for doc in run.values())) for run in runs.values()) + " |")
    for fmt, label in FORMATS.items():
        if fmt == "docx":
            continue
        cells = []
        for run in runs.values():
            pairs = [(doc[fmt], doc["docx"]) for doc in run.values() if fmt in doc and "docx" in doc]
            joined = sum(a.cluster == b.cluster for a, b in pairs)
            median = statistics.median(compare(a.text, b.text).word_edit_distance for a, b in pairs)
            failed = sum(a.status != "ok" for a, _ in pairs)
            cells.append(f"{joined} / {len(pairs)}, {median:.1%}" + (f", {failed} not read" if failed else ""))
        print(f"| {label}: in the DOCX's cluster, median distance | " + " | ".join(cells) + " |")


def main() -> None:
    runs = before_and_now(__doc__, lambda store, code: measure(build_office(), store, code))
    table(runs)
    now = runs["now"]
    print("\ndocuments whose renderings are apart (format: word distance to the DOCX, status):")
    for name, doc in sorted(now.items()):
        home = doc["docx"].cluster
        apart = {fmt: r for fmt, r in doc.items() if r.cluster != home}
        if apart:
            print(f"  {name}: " + ", ".join(f"{fmt} {compare(r.text, doc['docx'].text).word_edit_distance:.1%}"
                                            f" {r.status}" for fmt, r in sorted(apart.items())))


if __name__ == "__main__":
    main()
