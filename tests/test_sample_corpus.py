"""sample_corpus/ against its ground truth (lifededup/eval/sample_truth.json, written by
scripts/build_sample_corpus.py beside the corpus, not in it).

Every file is read through the isolated workers, as the indexer reads it; the
bad files get their expected status; the near-duplicate relation (same SHA-1,
or at least 2 of 6 shared features: seeds/000 section 2.2 step 7) joins
exactly the expected clusters; and the formats of each sample document come
out as about the same text (seeds/000 section 2.2 step 1).
"""

from __future__ import annotations

import itertools
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from lifededup.cli import main
from lifededup.eval import SAMPLE_TRUTH
from lifededup.extract import Extracted, Failure, extract, extract_many, supported_suffixes
from lifededup.fingerprint import fingerprint
from lifededup.fingerprint.compare import compare
from lifededup.model import Fingerprint, shared_features

CORPUS = Path(__file__).resolve().parent.parent / "sample_corpus"
TRUTH = json.loads(SAMPLE_TRUTH.read_text(encoding="utf-8"))
THRESHOLD = 2  # shared features that make a near-duplicate: seeds/000 section 2.2 step 7


def corpus_files() -> list[Path]:
    return sorted(p for p in CORPUS.rglob("*") if p.is_file())


@pytest.fixture(scope="module")
def outcomes() -> dict[str, Extracted | Failure]:
    found: dict[str, Extracted | Failure] = {}
    for outcome in extract_many(corpus_files(), workers=2):
        label = str(outcome.path.relative_to(CORPUS)) + (f" [{outcome.part}]" if outcome.part else "")
        assert label not in found, f"{label} reported twice"
        found[label] = outcome.result
    return found


@pytest.fixture(scope="module")
def prints(outcomes: dict[str, Extracted | Failure]) -> dict[str, Fingerprint]:
    return {label: fingerprint(r.text) for label, r in outcomes.items()
            if isinstance(r, Extracted) and r.text.strip()}


def near(a: Fingerprint, b: Fingerprint) -> bool:
    if a.sha1 == b.sha1:
        return True
    return a.features is not None and b.features is not None and shared_features(a.features, b.features) >= THRESHOLD


def test_corpus_is_small_and_real() -> None:
    files = corpus_files()
    size = sum(p.stat().st_size for p in files)
    assert 200 <= len(files) <= 500 and size < 15 * 2**20, f"{len(files)} files, {size / 2**20:.1f} MiB"


def test_bad_files_get_their_status(outcomes: dict[str, Extracted | Failure]) -> None:
    for bad in TRUTH["bad"]:
        got = outcomes[bad["path"]]
        status = got.status if isinstance(got, Failure) else "ok"
        assert status == bad["status"], f"{bad['path']} ({bad['why']}): got {status} {got}"
        if isinstance(got, Failure):
            assert got.reason, f"{bad['path']}: a failure needs a reason"
    expected_bad = {b["path"] for b in TRUTH["bad"] if b["status"] != "ok"}
    failed = {label for label, r in outcomes.items() if isinstance(r, Failure)}
    assert failed == expected_bad, f"unexpected failures: {failed - expected_bad}; missing: {expected_bad - failed}"


def _components(labels: list[str], prints: dict[str, Fingerprint]) -> Iterator[tuple[str, str]]:
    for a, b in itertools.combinations(labels, 2):
        if near(prints[a], prints[b]):
            yield a, b


def test_near_duplicate_relation_matches_the_truth(prints: dict[str, Fingerprint]) -> None:
    cluster_of = {m: c["name"] for c in TRUTH["clusters"] for m in c["members"]}
    missing = sorted(set(cluster_of) - set(prints))
    assert not missing, f"cluster members not read: {missing}"
    labels = sorted(prints)
    parent = {label: label for label in labels}

    def root(x: str) -> str:
        while parent[x] != x:
            x = parent[x]
        return x

    wrong = []
    for a, b in _components(labels, prints):
        if cluster_of.get(a) is None or cluster_of.get(a) != cluster_of.get(b):
            wrong.append((a, b))
        parent[root(a)] = root(b)
    assert not wrong, f"near-duplicates that must not cluster: {wrong}"
    for cluster in TRUTH["clusters"]:
        roots = {root(m) for m in cluster["members"]}
        assert len(roots) == 1, f"cluster {cluster['name']} falls apart: " + str(
            [[m for m in cluster["members"] if root(m) == r] for r in roots])


DOCUMENTS = sorted({p.parent.name for p in (CORPUS / "Documents").glob("*/*-v1.docx")})


@pytest.mark.parametrize("name", DOCUMENTS)
@pytest.mark.parametrize("draft", [1, 2, 3])
def test_docx_and_its_pdf_are_one_document(name: str, draft: int) -> None:
    docx_text = extract(CORPUS / f"Documents/{name}/{name}-v{draft}.docx").text
    pdf_text = extract(CORPUS / f"Documents/{name}/PDF/{name}-v{draft}.pdf").text
    a, b = fingerprint(docx_text), fingerprint(pdf_text)
    shared = shared_features(a.features, b.features) if a.features and b.features else 0
    assert a.sha1 == b.sha1 or shared >= THRESHOLD, f"{name} v{draft}: {shared} shared features"
    result = compare(docx_text, pdf_text)
    assert result.resemblance >= 0.98, f"{name} v{draft}: .docx and .pdf resemble only {result.resemblance:.3f}"


@pytest.mark.parametrize("ext", ["pdf", "odt", "rtf", "doc"])
def test_resemblance_across_formats(ext: str) -> None:
    """The third draft of the report in five formats: each is about the same text as the .docx."""
    base = extract(CORPUS / "Documents/garden-club-report/garden-club-report-v3.docx").text
    other = CORPUS / ("Documents/garden-club-report/PDF/garden-club-report-v3.pdf" if ext == "pdf"
                      else f"Documents/Other formats/garden-club-report-v3.{ext}")
    if ext == "doc" and shutil.which("antiword") is None:
        pytest.skip("antiword not installed (scripts/install-system-deps.sh)")
    result = compare(base, extract(other).text)
    assert result.resemblance >= 0.95 and result.near_duplicate, f".{ext} vs .docx: {result}"


def test_fingerprint_command_reads_every_format() -> None:
    bad = {CORPUS / b["path"] for b in TRUTH["bad"] if b["status"] != "ok"}
    suffixes = sorted({p.suffix.lower() for p in corpus_files() if p not in bad} & supported_suffixes())
    samples = [next(p for p in corpus_files() if p.suffix.lower() == s and p not in bad) for s in suffixes]
    assert {".pdf", ".docx", ".doc", ".rtf", ".odt", ".pptx", ".xlsx", ".xls", ".epub", ".eml", ".mbox",
            ".html", ".htm", ".txt", ".md", ".csv", ".log"} <= set(suffixes), suffixes
    result = CliRunner().invoke(main, ["fingerprint", "--json", *map(str, samples)])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines()]
    mbox = [line for line in lines if line["path"].startswith(str(CORPUS / "Mail/archive-2024.mbox"))]
    assert len(mbox) == 9, f"one line per message and attachment of the mbox: {[m['path'] for m in mbox]}"


def test_fingerprint_command_reports_bad_files_with_their_status() -> None:
    good = CORPUS / "Documents/river-survey/river-survey-v1.docx"
    result = CliRunner().invoke(main, ["fingerprint", str(good), str(CORPUS / "Bad files/minutes (password protected).pdf"),
                                       str(CORPUS / "Bad files/notes.txt")])
    assert result.exit_code == 1, result.output
    assert "[encrypted]" in result.output and "[unsupported]" in result.output, result.output
    assert str(good) in result.output, "the good file is still fingerprinted"


def test_compare_command_across_formats() -> None:
    folder = CORPUS / "Documents/kitchen-quotes"
    result = CliRunner().invoke(main, ["compare", str(folder / "kitchen-quotes-v2.docx"),
                                       str(folder / "PDF/kitchen-quotes-v2.pdf")])
    assert result.exit_code == 0 and result.output.startswith("exact copy"), result.output
