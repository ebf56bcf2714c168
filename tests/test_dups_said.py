"""What `lifededup dups` prints for a person: a cluster of a hundred drafts
listed every member and buried every cluster after it, so it lists the
first --members (10) and counts the rest, pointing at `search --cluster`;
an exact copy is said to be one, where its line was left blank -- as a
member nobody measured is -- and a member a few words apart is not "0.0% of
words apart".  Real files indexed through the CLI, on both backends."""

from __future__ import annotations

import json
import random
import re
import shlex
from pathlib import Path

from click.testing import CliRunner

from lifededup.cli import main

DRAFTS = 13


def run(*args: str, db: str) -> str:
    done = CliRunner().invoke(main, [*args, "--db", db])
    assert done.exit_code == 0, f"{args}: exit {done.exit_code}\n{done.output}"
    return done.stdout


WORDS = ("heron otter willow reed bank weir survey station flood boat ferry meadow alder osprey kingfisher "
         "gravel silt current ford mill sluice lock towpath bridge marsh").split()


def _survey(changed: int | None) -> str:
    """A report of 60 lines of words in no repeating order; a draft says its
    own line ``changed`` anew."""
    words = random.Random(7).choices(WORDS, k=60 * 12)
    return "".join(" ".join(words[k * 12:(k + 1) * 12]) + ".\n" if k != changed
                   else "this station was flooded and nobody could reach it by boat.\n" for k in range(60))


def test_a_large_cluster_is_listed_in_part_and_an_exact_copy_said(store_url: str, tmp_path: Path) -> None:
    db, root = store_url, tmp_path / "surveys"
    root.mkdir()
    (root / "survey.txt").write_text(_survey(None))
    (root / "survey copy.txt").write_text(_survey(None))
    for d in range(DRAFTS):
        (root / f"survey draft {d:02}.txt").write_text(_survey(d))
    run("index", str(root), db=db)
    (cluster,) = json.loads(run("dups", "--json", db=db))
    assert len(cluster["members"]) == DRAFTS + 1, cluster  # --json lists every member

    listed = run("dups", db=db).splitlines()
    assert listed[0] == f"cluster {cluster['cluster_id']} ({DRAFTS + 2} items)", listed
    assert len(listed) == 2 + 10 + 1, listed  # the representative, 10 members, and the rest counted
    said = re.fullmatch(rf"    \.\.\. and {DRAFTS - 10 + 1} more \(lifededup (search --cluster {cluster['cluster_id']}"
                        r" --db .+) lists them all\)", listed[-1])
    assert said is not None, listed
    # the command said, with the --db this one was given (bare, it listed the default store's cluster)
    every = CliRunner().invoke(main, shlex.split(said.group(1)) + ["--all", "--limit", "100"],
                               env={"LIFEDEDUP_DB": "", "XDG_DATA_HOME": str(tmp_path / "data")})
    assert every.exit_code == 0 and len(re.findall(r"^ *\d+\. ", every.stdout, re.M)) == DRAFTS + 2, every.output
    fewer = run("dups", "--members", "3", db=db).splitlines()
    assert len(fewer) == 2 + 3 + 1 and fewer[-1].startswith(f"    ... and {DRAFTS + 1 - 3} more"), fewer
    whole = run("dups", "--members", "100", db=db).splitlines()
    assert len(whole) == 2 + DRAFTS + 1 and "more" not in whole[-1], whole

    # the exact copy said, whichever of the two represents the cluster; the drafts with their distance
    copy = next(line for line in whole if line.endswith("survey.txt") or "survey.txt  (" in line
                or line.endswith("survey copy.txt") or "survey copy.txt  (" in line)
    if not copy.startswith("  *"):
        assert copy.endswith("  (exact copy)"), whole
    else:
        other = next(line for line in whole if ("survey copy.txt" in line or "survey.txt" in line) and line != copy)
        assert other.endswith("  (exact copy)"), whole
    drafts = [line for line in whole if "draft" in line and not line.startswith("  *")]
    assert drafts and all("% of words apart, estimated resemblance" in line for line in drafts), whole


def test_a_member_a_few_words_apart_is_not_said_to_be_none_apart(store_url: str, tmp_path: Path) -> None:
    """fhs-3.0.txt beside its HTML said "0.0% of words apart": a word in a
    long text, which is not the same text."""
    db, root = store_url, tmp_path / "long"
    root.mkdir()
    long = "".join(f"Paragraph {k}: the standard names the folder /srv/data{k} and what lives in it.\n"
                   for k in range(1500))
    (root / "standard.txt").write_text(long)
    (root / "standard again.txt").write_text(long.replace("Paragraph 700:", "Paragraph 700 (amended):"))
    run("index", str(root), db=db)
    listed = run("dups", db=db)
    assert "  (under 0.1% of words apart, estimated resemblance " in listed, listed
    assert "0.0%" not in listed, listed


def test_a_search_row_names_the_store_in_the_command_that_lists_its_copies(store_url: str, tmp_path: Path) -> None:
    """A collapsed row of more copies than it names says `search --cluster ID` -- with the --db
    the search was given, so that the command as said lists this store's cluster."""
    root = tmp_path / "surveys"
    root.mkdir()
    for d in range(DRAFTS):
        (root / f"survey draft {d:02}.txt").write_text(_survey(d))
    run("index", str(root), db=store_url)
    printed = run("search", "osprey", db=store_url)
    said = re.search(r"^     \(lifededup (search --cluster \d+ --db .+) lists them all\)$", printed, re.M)
    assert said is not None, printed
    every = CliRunner().invoke(main, shlex.split(said.group(1)) + ["--limit", "100"],
                               env={"LIFEDEDUP_DB": "", "XDG_DATA_HOME": str(tmp_path / "data")})
    assert every.exit_code == 0 and len(re.findall(r"^ *\d+\. ", every.stdout, re.M)) == DRAFTS, every.output
