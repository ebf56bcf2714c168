"""``lifededup eval``: measure the detectors on a corpus with known duplicates."""

from __future__ import annotations

import json
from pathlib import Path

import click

from lifededup.cli import main
from lifededup.cli.options import ExistingPath, db_option, opened_store

# The detectors and the evaluation (numpy, every detector's module) are
# imported when the command runs: its --help starts without them.


@main.command("eval")
@click.option("--truth", "truth_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="JSON file of known duplicate clusters and/or labelled pairs "
              "[default: the truth of a checkout's sample_corpus/, shipped with lifededup].")
@click.option("--corpus", type=ExistingPath(file_okay=False, path_type=Path),
              help="Folder the truth's paths are relative to [default: the truth file's folder; for the "
              "sample truth, ./sample_corpus or the checkout lifededup runs from].")
@click.option("--detectors", "-d", "specs", multiple=True, metavar="SPEC[,SPEC...]",
              help="Detectors to compare (repeat or separate with commas) [default: every one of the specs below].")
@click.option("--markdown", is_flag=True, help="Print the table in Markdown (as in the README).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per detector per line.")
@click.option("--store", "on_store", is_flag=True,
              help="No truth file: measure the detectors on your own store's texts, labelling a sample of "
              "candidate pairs by word edit distance (within 30%: near copies).")
@click.option("--sample", type=click.IntRange(10), default=1000, show_default=True,
              help="With --store: how many candidate pairs to label.")
@db_option
def eval_command(truth_path: Path | None, corpus: Path | None, specs: tuple[str, ...], markdown: bool, as_json: bool,
                 on_store: bool, sample: int, db: str | None) -> None:
    """Run each detector over a corpus with known duplicates and print one
    table: pairwise precision, recall and F1 of the pairs it puts in one
    cluster, clusters formed, signature bytes and milliseconds per document,
    and the largest and mean word edit distance of accepted pairs (a large one
    is a false positive the truth may have missed).

    \b
    Detector specs (name[:argument]):
      shingles[:T]        the paper's 6 super-shingle features, T shared (2)
      bytes8[:T]          Broder's 8 one-byte features, T shared (3)
      imatch              I-Match (SHA-1 of the terms that pass an IDF cut)
      imatch-lex[:K]      I-Match with K random lexicons (10)
      minhash[:BxR[:S]]   MinHash, LSH with B bands of R rows, resemblance S (20x5:0.8)
      simhash[:K]         64-bit SimHash, Hamming distance K (3)
      verified[:D]        the store's default: verified within D% words (30)

    With --store there is no truth file: the pairs some detector joins and
    the pairs sharing 5% of their shingles are pooled, a sample is measured
    (word edit distance within 30%: a near copy), and each detector's
    precision and recall are estimated on it -- which detector suits your
    archive. At most 2,000 texts are read (a seeded sample beyond that).

    \b
    Examples:
      lifededup eval
      lifededup eval --corpus ~/src/lifededup/sample_corpus -d shingles,simhash:3
      lifededup eval --truth my_truth.json --corpus my_corpus -d shingles,simhash:3,simhash:6
      lifededup eval --store -d verified,shingles,minhash
    """
    from lifededup.detect import DETECTOR_NAMES
    from lifededup.eval import (
        SAMPLE_TRUTH,
        TruthError,
        evaluate,
        find_sample_corpus,
        format_table,
        load_truth,
        read_corpus,
        true_clusters,
        true_pairs,
    )

    chosen = [s.strip() for spec in specs for s in spec.split(",") if s.strip()] or list(DETECTOR_NAMES)
    if on_store:
        _on_store(chosen, sample, markdown, as_json, db)
        return
    if truth_path is None:
        truth_path, corpus = SAMPLE_TRUTH, corpus or find_sample_corpus()
        if corpus is None:
            raise click.ClickException(
                "the sample truth describes sample_corpus/ of a lifededup checkout, and none is here: run "
                "from the checkout, or pass it: lifededup eval --corpus PATH/TO/lifededup/sample_corpus "
                "(for your own corpus: --truth FILE, see README \"Ground truth files\"), or measure your "
                "own store without a truth: lifededup eval --store")
    try:
        truth = load_truth(truth_path, corpus)
        documents = read_corpus(truth)
        scores = evaluate(truth, chosen, documents)
    except TruthError as exc:
        raise click.ClickException(str(exc)) from exc
    except ValueError as exc:
        raise click.ClickException(f"{exc} (see lifededup eval --help)") from exc
    for name, reason in documents.failed.items():
        click.echo(f"lifededup: skipped {name}: {reason}", err=True)
    if as_json:
        for row in scores:
            click.echo(json.dumps(row.to_dict()))
        return
    clusters = true_clusters(truth, documents)
    known = f" in {clusters:,} true clusters" if clusters is not None else ""
    click.echo(
        f"{len(documents.texts):,} items read ({len(documents.failed):,} could not be), "
        f"{true_pairs(truth, documents):,} duplicate pairs{known}"
    )
    click.echo(format_table(scores, markdown=markdown))


def _on_store(chosen: list[str], sample: int, markdown: bool, as_json: bool, db: str | None) -> None:
    from lifededup.eval import evaluate_archive, format_archive_table

    try:
        with opened_store(db, readonly=True) as store:
            scores = evaluate_archive(store, chosen, pairs=sample)
    except ValueError as exc:
        raise click.ClickException(f"{exc} (see lifededup eval --help)") from exc
    if as_json:
        for row in scores:
            click.echo(json.dumps(row.to_dict()))
        return
    near = scores[0].near if scores else 0
    click.echo(f"{near:,} near copies (within 30% word edit distance) among the sampled candidate pairs")
    click.echo(format_archive_table(scores, markdown=markdown))
