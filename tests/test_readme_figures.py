"""The figures the README prints for sample_corpus/ are what the program
prints: the index summary, `stats`, `verify`, the `eval` table (timings
masked) and `eval --store`.  When one fails, paste the output it shows into the README."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from corpus_store import CORPUS, CorpusStore, corpus_store

from lifededup.cli import main
from lifededup.cli.index import summary_lines

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
_TIMING = re.compile(r"\(\d+\.\d s, \d+\.\d files/s\)")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> CorpusStore:
    return corpus_store(tmp_path_factory)


def block_after(marker: str) -> str:
    """The first fenced block after ``marker`` in the README."""
    start = README.index(marker)
    opening = README.index("```", start)
    body = README.index("\n", opening) + 1
    return README[body:README.index("```", body)]


def run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def same(readme: str, printed: str, what: str) -> None:
    assert readme.rstrip() == printed.rstrip(), \
        f"the README's {what} is stale; the program prints (paste it):\n{printed}"


def test_the_index_summary(corpus: CorpusStore) -> None:
    assert corpus.summary is not None
    printed = "\n".join(summary_lines(corpus.summary))
    readme = block_after("The summary at the end:")
    same(_TIMING.sub("(T)", readme), _TIMING.sub("(T)", printed), "index summary (timing aside)")


def test_stats(corpus: CorpusStore) -> None:
    printed = run("stats", "--idf", "4.0,5.0", "--db", str(corpus.db))
    readme = block_after("**`lifededup stats`**")
    same(readme, printed.replace(str(corpus.db), "~/.local/share/lifededup/lifededup.db"), "stats tables")


def test_verify(corpus: CorpusStore) -> None:
    same(block_after("**`lifededup verify`**"), run("verify", "--db", str(corpus.db)), "verify output")


def test_eval_store(corpus: CorpusStore) -> None:
    """`eval --store` as "On your own archive" shows it on a store of the sample (it said 65 near
    copies where the program found 67, the block untested)."""
    command = block_after("### On your own archive, without a truth file").split()
    assert command[:2] == ["lifededup", "eval"], command
    printed = run(*command[1:], "--db", str(corpus.db))
    same(block_after("which detector suits *your* archive."), printed, "eval --store output")


def test_eval_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CORPUS.parent)
    printed = run("eval", "--markdown").splitlines()
    header, table = printed[0], printed[1:]
    counts = re.fullmatch(r"(\d+) items read \((\d+) could not be\), (\d+) duplicate pairs in (\d+) true clusters",
                          header)
    assert counts is not None, header
    items, bad, pairs, clusters = counts.groups()
    prose = (f"On `sample_corpus/` ({items} items read, {bad} could not be, {pairs} duplicate pairs in "
             f"{clusters} true clusters)")
    assert prose in " ".join(README.split()), f"the README's eval counts are stale; they are: {prose}"

    def masked(row: str) -> str:  # ms/doc, the eighth column, is a timing
        cells = row.split("|")
        if len(cells) > 9 and re.fullmatch(r" \d+\.\d+ ", cells[8]):
            cells[8] = " T "
        return "|".join(cells)

    readme_rows = [line for line in README.splitlines() if line.startswith("| ")]
    start = readme_rows.index(table[0])
    readme_table = readme_rows[start:start + len(table)]
    same("\n".join(map(masked, readme_table)), "\n".join(map(masked, table)), "eval table (ms/doc aside)")


def test_the_sample_does_not_hold_its_own_answers(corpus: CorpusStore) -> None:
    """The ground truth lives beside the corpus (lifededup/eval/sample_truth.json), so indexing the
    sample indexes no answer key, and "river survey" finds the survey first."""
    assert not [p for p in CORPUS.rglob("*.json")], "a truth file inside sample_corpus/ would be indexed"
    top = run("search", "river survey", "--json", "--db", str(corpus.db))
    first = json.loads(top)["hits"][0]["path"]
    assert "/Documents/river-survey/" in first, f"top hit for 'river survey': {first}"
