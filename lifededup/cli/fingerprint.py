"""``lifededup fingerprint`` and ``lifededup compare``."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import click

from lifededup.cli import main
from lifededup.config import FilterParams, FingerprintParams
from lifededup.model import Fingerprint, stored_path


def _params(shingle_words: int, threshold: int, stem: bool, no_stopwords: bool, no_numbers: bool) -> FingerprintParams:
    filters = FilterParams(numbers=not no_numbers, stopwords=not no_stopwords, stem=stem)
    try:
        return FingerprintParams(shingle_words=shingle_words, threshold=threshold, filters=filters)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc


def param_options(func: Callable[..., None]) -> Callable[..., None]:
    """The fingerprint parameters a person may change from the command line."""
    defaults = FingerprintParams()
    for option in reversed([
        click.option("--shingle-words", "-w", type=click.IntRange(1, 64), default=defaults.shingle_words,
                     show_default=True, help="Words per shingle (Broder: 3 to 10)."),
        click.option("--threshold", "-t", type=click.IntRange(1, defaults.features),
                     default=defaults.threshold, show_default=True,
                     help="Shared features (of 6) that make two texts near-duplicates."),
        click.option("--stem", is_flag=True, help="Stem words (Snowball) before shingling."),
        click.option("--no-stopwords", is_flag=True, help="Keep stop words."),
        click.option("--no-numbers", is_flag=True, help="Keep numbers."),
    ]):
        func = option(func)
    return func


def _read(path: Path) -> str:
    from lifededup.extract import ExtractionError, extract_text

    try:
        return extract_text(path)
    except ExtractionError as exc:
        raise click.ClickException(str(exc)) from exc


@main.command("fingerprint")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="One JSON object per file per line.")
@param_options
def fingerprint_command(paths: tuple[Path, ...], as_json: bool, **options: object) -> None:
    """Print the SHA-1 and the six super-shingle features of each file.

    Every supported format is read (text, Markdown, CSV, HTML, PDF, DOCX, DOC,
    RTF, ODT, PPTX, XLSX, XLS, EPUB, EML, MSG, MBOX); a mailbox prints one
    entry per message and per attachment.

    The SHA-1 identifies exact copies (same words, whatever the whitespace,
    case or format); two files sharing at least 2 of the 6 features are
    near-duplicates.  Features are null for texts too short to sample: those
    match by SHA-1 only.

    \b
    Example:
      lifededup fingerprint --json report.docx report.pdf mail/archive.mbox
    """
    from lifededup.fingerprint.sources import fingerprint_sources

    params = _params(**options)  # type: ignore[arg-type]
    failed = 0
    sizes = [_size(path) for path in paths]
    # every core, a run of files each; printed in the order of the files
    for entry, found in fingerprint_sources(paths, _entries, sizes=sizes, params=params):
        if found is None:
            failed += 1
            click.echo(f"lifededup: {entry.label}: {entry.error}", err=True)
        else:
            _echo_fingerprint(entry, found, as_json)
    if failed:
        raise SystemExit(1)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:  # gone since click saw it: reading it will say so
        return 0


class _Entry(NamedTuple):
    """What is printed with a fingerprint, or instead of one (``error``)."""

    label: str
    title: str | None = None
    kind: str = ""
    error: str | None = None


def _entries(path: Path) -> Iterator[tuple[_Entry, str | None]]:
    """Each item of a file with its text, or its failure (run in a worker)."""
    from lifededup.extract import ExtractionError, Failure, extract, walk

    name = stored_path(str(path))  # a name that is not UTF-8 is shown escaped, as the store holds it
    try:
        root = extract(path)
    except ExtractionError as exc:
        yield _Entry(name, error=f"{exc} [{exc.status}]"), None
        return
    for item in walk(root):  # streamed: a large mailbox is never held whole
        part = item.part.encode("utf-8", "surrogateescape").decode("utf-8", "replace")  # as the store keeps it
        label = f"{name} [{part}]" if item.part else name
        if isinstance(item, Failure):
            yield _Entry(label, error=f"{item.reason} [{item.status}]"), None
        elif item.text.strip():  # a mailbox itself has no text: its messages follow
            yield _Entry(label, item.title, item.kind), item.text


def _echo_fingerprint(entry: _Entry, found: Fingerprint, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps({"path": entry.label, "title": entry.title, "kind": entry.kind, **found.to_dict()}))
        return
    features = " ".join(f"{f:016x}" for f in (x & (2**64 - 1) for x in found.features)) if found.features else "(too short: exact match only)"
    click.echo(f"{found.sha1}  {entry.label}\n  {found.words} words, {found.shingles} shingles\n  features {features}")


@main.command("compare")
@click.argument("a", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("b", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@param_options
def compare_command(a: Path, b: Path, as_json: bool, **options: object) -> None:
    """Say how alike two files are: shared features, near-duplicate or not,
    exact shingle resemblance (Jaccard) and word edit distance (the fraction of
    words to insert, delete or change to turn one into the other).

    Two files are near-duplicates when they share at least --threshold of the
    6 features; the resemblance is what the features estimate, and the edit
    distance is the paper's check that the verdict is not a false positive.

    \b
    Example:
      lifededup compare report.docx report.pdf
      lifededup compare --json draft-v1.txt draft-v2.txt
    """
    from lifededup.fingerprint.compare import compare as compare_texts

    params = _params(**options)  # type: ignore[arg-type]
    result = compare_texts(_read(a), _read(b), params)
    if as_json:
        click.echo(json.dumps({"a": stored_path(str(a)), "b": stored_path(str(b)), **result.to_dict()}))
        return
    verdict = "exact copy" if result.exact else ("near-duplicate" if result.near_duplicate else "different")
    sampled = "" if result.sampled else " (a text too short to sample: only an exact copy counts)"
    click.echo(
        f"{verdict}\n"
        f"  shared features     {result.shared_features} of {params.features} (threshold {params.threshold}){sampled}\n"
        f"  resemblance         {result.resemblance:.3f}\n"
        f"  word edit distance  {result.word_edit_distance:.1%}"
    )
