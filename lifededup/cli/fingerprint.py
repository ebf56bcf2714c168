"""``lifededup fingerprint`` and ``lifededup compare``."""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import click

from lifededup.cli import main
from lifededup.cli.options import UNSAMPLED, ExistingPath
from lifededup.config import FilterParams, FingerprintParams
from lifededup.model import Fingerprint, a_kind, stored_path

if TYPE_CHECKING:
    from lifededup.fingerprint.compare import Comparison
    from lifededup.store.similarity import Rule


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


def _read(path: Path, part: str = "") -> str:
    """The text of a file, or of one of its parts (``message 1``, as `fingerprint` labels them)."""
    from lifededup.extract import ExtractionError, Failure, extract, extract_text, walk

    try:
        if not part:
            return extract_text(path)
        for item in walk(extract(path)):
            if _as_stored(item.part) != part:
                continue
            if isinstance(item, Failure):
                raise click.ClickException(f"{stored_path(str(path))} [{part}]: {item.reason} [{item.status}]")
            return item.text  # its own, as `fingerprint` and the store read it: a message without its attachments
    except ExtractionError as exc:
        raise click.ClickException(str(exc)) from exc
    raise click.ClickException(f"{stored_path(str(path))} has no part {part!r}: "
                               f"`lifededup fingerprint {shlex.quote(stored_path(str(path)))}` lists its parts")


class FileOrPart(ExistingPath):
    """A file, or a part of one as `fingerprint` labels it (``mail.mbox [message 1]``): a ``(path, part)``
    pair, the part ``""`` for a whole file.  A file named so that it ends with ``]`` is taken whole."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, tuple):
            return value
        labelled = _LABEL.fullmatch(os.fspath(value))
        if labelled is not None and not os.path.lexists(value) and os.path.isfile(labelled.group(1)):
            return super().convert(labelled.group(1), param, ctx), labelled.group(2)
        return super().convert(value, param, ctx), ""


# what `fingerprint` prints for a part of a file: "PATH [PART]"
_LABEL = re.compile(r"(.+) \[(.+)\]", re.DOTALL)


@main.command("fingerprint")
@click.argument("paths", nargs=-1, required=True, type=ExistingPath(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="One JSON object per file per line.")
@param_options
def fingerprint_command(paths: tuple[Path, ...], as_json: bool, **options: object) -> None:
    """Print the SHA-1 and the six super-shingle features of each file.

    Every format the indexer reads is read (text, Markdown, CSV, HTML, MHTML,
    PDF, DOCX, DOC, RTF, ODT, PPTX, PPT, XLSX, XLS, EPUB, EML, MSG, MBOX,
    vCard, iCalendar, man and info pages, zip and tar archives, gzip; README
    "Formats"); a mailbox prints one entry per message and per attachment,
    an archive one per file in it.

    The SHA-1 identifies exact copies (same words, whatever the whitespace,
    case or format); two files sharing at least 2 of the 6 features are
    near-duplicates.  Features are null for texts too short to sample: those
    match by SHA-1 only.  A file read that has no text (a web page of a title
    alone, a mail of headers) prints "(no text)" where the SHA-1 goes (null
    in --json); a file with nothing in it at all is "empty" and exits 1.

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
        if found is None and entry.error is None:
            _echo_no_text(entry, as_json)
        elif found is None:
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
    from lifededup.extract.base import CONTAINER_KINDS

    try:
        root = extract(path)
    except ExtractionError as exc:
        yield _Entry(_labelled(path, ""), error=f"{exc} [{exc.status}]"), None
        return
    said = False
    for item in walk(root):  # streamed: a large mailbox is never held whole
        label = _labelled(path, _as_stored(item.part))
        if isinstance(item, Failure):
            yield _Entry(label, error=f"{item.reason} [{item.status}]"), None
            said = True
        elif item.text.strip():
            yield _Entry(label, item.title, item.kind), item.text
            said = True
        elif item.kind not in CONTAINER_KINDS:  # nothing to fingerprint (a page of a title alone, a mail of headers)
            yield _Entry(label, item.title, item.kind), None  # said, not silent, inside an archive too
            said = True
    if not said:  # a container with nothing in it to read
        yield _Entry(_labelled(path, ""), root.title, root.kind), None


def _echo_fingerprint(entry: _Entry, found: Fingerprint, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps({"path": entry.label, "title": entry.title, "kind": entry.kind, **found.to_dict()}))
        return
    features = " ".join(f"{f:016x}" for f in (x & (2**64 - 1) for x in found.features)) if found.features else "(too short: exact match only)"
    click.echo(f"{found.sha1}  {entry.label}\n  {found.words:,} words, {found.shingles:,} shingles\n"
               f"  features {features}")


def _echo_no_text(entry: _Entry, as_json: bool) -> None:
    """A file read whole that has no text: the store keeps it, with no fingerprint, found by its title."""
    if as_json:
        click.echo(json.dumps({"path": entry.label, "title": entry.title, "kind": entry.kind, "sha1": None,
                               "features": None, "words": 0, "shingles": 0}))
        return
    titled = f"titled {json.dumps(entry.title, ensure_ascii=False)}, " if entry.title else ""
    click.echo(f"{'(no text)':40}  {entry.label}\n"
               f"  {a_kind(entry.kind)} {titled}with no text: nothing to fingerprint")


def _labelled(path: Path, part: str) -> str:
    """A file or its part as `fingerprint` prints it (and `compare` takes it): a name that is not UTF-8
    escaped, as the store holds it."""
    return f"{stored_path(str(path))} [{part}]" if part else stored_path(str(path))


def _as_stored(part: str) -> str:
    """A part's name as the store keeps it: bytes of a name inside a file that are not UTF-8 replaced."""
    return part.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _rule(_: object, __: object, value: str) -> Rule:
    from lifededup.store.similarity import Rule

    try:
        return Rule.parse(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _joined(a_text: str, b_text: str, params: FingerprintParams, rule: Rule, result: Comparison) -> bool:
    """Whether a store clustering by ``rule`` admits the one text beside the
    other: the verified rule's candidate test (a shared feature, or enough
    shared sketch values) and its two bounds, as the store applies them
    (``store.similarity.measure``: the sketches' estimated resemblance, the
    word edit distance of the word streams); the features rule's shared
    features."""
    from lifededup.fingerprint import fingerprint
    from lifededup.normalize import word_stream
    from lifededup.store.similarity import measure, sketch_values

    if result.exact:
        return True
    if rule.kind == "features":
        return result.shared_features >= params.threshold
    left, right = fingerprint(a_text, params), fingerprint(b_text, params)
    if left.features is None or right.features is None:
        return False  # short texts are exact copies or nothing (seeds/002)
    # a table of numbers is sampled with them, without a sketch: a candidate by a shared feature alone
    minima = (0 if left.sketch is None or right.sketch is None
              else len(set(sketch_values(left.sketch).tolist()) & set(sketch_values(right.sketch).tolist())))
    if result.shared_features < 1 and minima < rule.min_shared_minima:
        return False  # not a candidate
    return measure(left.sketch, right.sketch, word_stream(a_text).split(), word_stream(b_text).split(),
                   params.features, rule) is not None


@main.command("compare")
@click.argument("a", type=FileOrPart(dir_okay=False, path_type=Path))
@click.argument("b", type=FileOrPart(dir_okay=False, path_type=Path))
@click.option("--rule", "rule", default="verified:30", show_default=True, callback=_rule,
              help="The clustering rule the verdict follows: verified[:PERCENT] (the store's default) or "
              "features (at least --threshold shared features).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@param_options
def compare_command(a: tuple[Path, str], b: tuple[Path, str], rule: Rule, as_json: bool, **options: object) -> None:
    """Say how alike two files are, and whether a store would cluster them:
    shared features, exact shingle resemblance (Jaccard) and word edit
    distance (the fraction of words to insert, delete or change to turn one
    into the other).

    The verdict follows --rule, as the store clusters: by default a near
    copy shares a feature or 4 sketch values and is within 30% word edit
    distance (resemblance at least 0.05); --rule features asks for at least
    --threshold of the 6 features alone (the design card's rule).

    A message of a mailbox, an attachment or a file in an archive is named
    as `lifededup fingerprint` labels it: the file, a space and the part in
    brackets, quoted.  A whole file is its own text, as the store clusters
    it: a mail without its attachments; a mailbox or an archive, all its
    parts' texts.

    \b
    Example:
      lifededup compare report.docx report.pdf
      lifededup compare 'mail/archive.mbox [message 3]' 'mail/archive.mbox [message 4]'
      lifededup compare --json draft-v1.txt draft-v2.txt
      lifededup compare --rule features notes-v1.txt notes-v2.txt
    """
    from lifededup.fingerprint.compare import compare as compare_texts
    from lifededup.fingerprint.distance import MOVE_COST

    params = _params(**options)  # type: ignore[arg-type]
    a_text, b_text = _read(*a), _read(*b)
    result = compare_texts(a_text, b_text, params)
    joined = _joined(a_text, b_text, params, rule, result)
    if as_json:
        click.echo(json.dumps({"a": _labelled(*a), "b": _labelled(*b), **result.to_dict(),
                               "rule": rule.spec, "clustered": joined}))
        return
    verdict = "exact copy" if result.exact else (f"near copy by {rule.spec}" if joined
                                                 else f"different by {rule.spec}")
    sampled = "" if result.sampled else f" ({UNSAMPLED})"
    click.echo(
        f"{verdict}\n"
        f"  shared features     {result.shared_features} of {params.features} (threshold {params.threshold}){sampled}\n"
        f"  resemblance         {result.resemblance:.3f}\n"
        f"  word edit distance  {result.word_edit_distance:.1%}"
        + (f" (blocks of words moved: each counted as {MOVE_COST} edits; {result.plain_word_edit_distance:.1%} "
           "counting every word moved)" if result.plain_word_edit_distance > result.word_edit_distance else "")
    )
