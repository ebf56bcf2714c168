"""PDF text extraction: PDFium (pypdfium2, lifededup's first engine) against pdfminer.six (the
design card's engine, lifededup's fallback), on the same PDFs in the same run.

Speed: pages per second of each engine and the ratio.  Accuracy: where the PDF
was exported from a .docx (sample_corpus/Documents/*/PDF/), the resemblance of
each engine's cleaned text to the .docx's text, the exact answer.

Run:  python benchmarks/bench_pdf.py [--repeat 3] [more.pdf ...]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from lifededup.extract import extract
from lifededup.extract.layout import clean_pages
from lifededup.extract.pdf import _pages_pdfium, _pages_pdfminer
from lifededup.fingerprint.compare import compare

CORPUS = Path(__file__).resolve().parent.parent / "sample_corpus"
ENGINES = {"pypdfium2": _pages_pdfium, "pdfminer.six": _pages_pdfminer}


def _readable_pdfs(extra: list[Path]) -> list[Path]:
    found = []
    for path in sorted(CORPUS.rglob("*.pdf")) + extra:
        try:
            extract(path)
        except Exception:  # the corpus's bad PDFs are not a speed test
            continue
        found.append(path)
    return found


def _answer(pdf: Path) -> str | None:
    docx = pdf.parent.parent / (pdf.stem + ".docx")
    return extract(docx).text if pdf.parent.name == "PDF" and docx.exists() else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pdfs", nargs="*", type=Path, help="more PDFs to read besides sample_corpus/")
    parser.add_argument("--repeat", type=int, default=3, help="times each engine reads every PDF")
    args = parser.parse_args()
    pdfs = _readable_pdfs(args.pdfs)
    blobs = [p.read_bytes() for p in pdfs]
    answers = [_answer(p) for p in pdfs]
    pages = args.repeat * sum(len(_pages_pdfium(blob)[0]) for blob in blobs)
    rates: dict[str, float] = {}
    print(f"{len(pdfs)} PDFs, {pages // args.repeat} pages, each read {args.repeat} times per engine")
    print(f"{'engine':14} {'pages':>7} {'seconds':>9} {'pages/s':>9} {'resemblance to .docx':>22}")
    for name, read in ENGINES.items():
        started = time.perf_counter()
        for _ in range(args.repeat):
            texts = [clean_pages(read(blob)[0]) for blob in blobs]
        elapsed = time.perf_counter() - started
        scored = [compare(answer, text).resemblance for answer, text in zip(answers, texts) if answer is not None]
        rates[name] = pages / elapsed
        print(f"{name:14} {pages:7d} {elapsed:9.2f} {rates[name]:9.1f} "
              f"{sum(scored) / max(1, len(scored)):15.4f} (n={len(scored)})")
    print(f"ratio pypdfium2 / pdfminer.six: {rates['pypdfium2'] / rates['pdfminer.six']:.1f}x pages/s")


if __name__ == "__main__":
    main()
