"""``lifededup show``, ``check`` and ``recluster``: the store's clusters,
for people and for scripts."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

import click

from lifededup.cli import main
from lifededup.cli.options import UNSAMPLED, TerminalBar, db_option, item_name, opened_reader, opened_store
from lifededup.store.similarity import METHODS, Method, Rule

# The clustering engine and SQLAlchemy are imported by the commands that use
# them: every --help here starts without them.
if TYPE_CHECKING:
    from collections.abc import Callable

    from lifededup.store import Store
    from lifededup.store.check import Problem
    from lifededup.store.queries import Explanation


@main.command("show")
@click.argument("item")
@click.argument("part", required=False)
@click.option("--json", "as_json", is_flag=True, help="The explanation as one JSON object.")
@db_option
def show_command(item: str, part: str | None, as_json: bool, db: str | None) -> None:
    """Show an item (by id or path), its cluster, and why each member is there.

    A part inside a file is named PATH [PART], as dups and failures print it
    (quoted, one argument), or PATH PART.

    For each member: whether it is an exact copy (same SHA-1 of the
    normalized text), how many of the 6 features it shares with the
    representative (2 make a near copy; - where a text is too short to
    sample, which only an exact copy joins), and the exact resemblance of
    their shingle sets and their word edit distance (seeds/000 section 3.1).

    Then the texts like it in other clusters: within half their words of
    it, but joined to another representative or to none (a draft that went
    on too far from the first version, or came in before it), each cluster
    by its nearest member; `lifededup show ID` opens that cluster.

    \b
    Example:
      lifededup show ~/Documents/report-v2.docx
      lifededup show 42 --json
      lifededup show '~/Mail/archive-2024.mbox [message 5]'
      lifededup show ~/Mail/archive-2024.mbox 'message 5'
    """
    # on the driver alone: no SQLAlchemy at a store at head
    from lifededup.store.queries import NEAR_ELSEWHERE, explain

    if part is not None:  # `show Inbox.mbox "message 5"` said "Got unexpected extra argument (message 5)"
        item = f"{item} [{part}]"
    with opened_reader(db) as store:
        found = explain(store, item, elsewhere=True)
    if as_json:
        click.echo(json.dumps(found.to_dict(), indent=2))
        return
    _print_explanation(found)
    if found.cluster_id is None:
        return
    if not found.elsewhere:
        click.echo(f"like it in other clusters: none (within {NEAR_ELSEWHERE:.0%} word edit distance)")
        return
    click.echo(f"like it in other clusters (within {NEAR_ELSEWHERE:.0%} word edit distance; "
               "`lifededup show ID` shows one's cluster):")
    click.echo(f"  {'id':>7}  {'cluster':>7} {'shared':>6} {'resemblance':>11} {'edit dist':>9}  path")
    for near in found.elsewhere:
        click.echo(f"  {near.item.id:>7}  {near.cluster_id:>7} {near.shared_features:>4}/6 "
                   f"{_fraction(near.resemblance):>11} {_fraction(near.word_edit_distance):>9}  "
                   f"{item_name(near.item.path, near.item.part, near.item.machine)}")


def _fraction(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _print_explanation(found: Explanation) -> None:
    item = found.item
    click.echo(f"item {item.id}: {item_name(item.path, item.part, item.machine)} ({item.kind}, {item.status})")
    if found.cluster_id is None:
        click.echo("not in any cluster (no text to fingerprint)")
        return
    size = len(found.reasons)
    held = "no copies of it" if size == 1 else f"{size:,} items"
    click.echo(f"cluster {found.cluster_id} ({held}, {found.method}; a near copy {found.admission()})")
    click.echo(f"  {'id':>7}  {'why':<22} {'shared':>6} {'resemblance':>11} {'edit dist':>9}  path")
    for reason in found.reasons:
        why = found.why(reason)
        mark = ">" if reason.item.id == item.id else " "
        shared = f"{reason.shared_features:>4}/6" if reason.sampled else f"{'-':>6}"
        click.echo(f"{mark} {reason.item.id:>7}  {why:<22} {shared} "
                   f"{_fraction(reason.resemblance):>11} {_fraction(reason.word_edit_distance):>9}  "
                   f"{item_name(reason.item.path, reason.item.part, reason.item.machine)}")
    if not all(reason.sampled for reason in found.reasons):
        click.echo(f"  (shared -: {UNSAMPLED})")


@main.command("check")
@click.option("--json", "as_json", is_flag=True,
              help='One JSON object: {"ok", "items", "clusters", "store", "problems": [{"check", "message", '
              '"item_ids"}]}; with --mend, also "mended".')
@click.option("--mend", is_flag=True,
              help="Write again what the check finds stale that the items themselves give: the CJK words "
              "apart (cjk-apart) of items whose title, text or people were changed by hand, the search words "
              "(fts-index) of items whose search row was written or deleted by hand or made with an altered "
              "text search configuration, and the fingerprints and clusters of items whose text was "
              "(fingerprint-stale, fingerprint-missing, fingerprint-without-text). Prints how many.")
@db_option
def check_command(as_json: bool, mend: bool, db: str | None) -> None:
    """Verify the store: SQLite's integrity check (on an SQLite file), the
    search index, the cluster invariants (one fingerprint and one cluster
    per item with text; every member an exact or near copy of its
    representative; each representative's sketch keys, through which near
    copies find it), and the schema's indexes (one dropped by hand is named
    with the statement that makes it again).

    It also makes again the SHA-1 of every text, to find the texts changed
    by `sql --write` since they were fingerprinted: their features and
    cluster are still the old text's.  On PostgreSQL it finds the text
    search configuration every search and indexing reads words with
    (revision 0029) dropped by hand, or its mappings altered (accented
    words then go unfound), and names the statements that make it again.

    Exits with status 1 and says what is wrong if anything is; `lifededup
    recluster` rebuilds the clusters, and `--mend` writes again the words
    apart of Chinese, Japanese or Korean text changed by `sql --write`
    (which the search index reads: else the new text's words are not found,
    the old text's are), makes again the search words of the items whose
    search row is not what the store makes of them (written or deleted by
    hand; on PostgreSQL, made while the text search configuration was
    altered -- mend that first, as its problem says; on SQLite a row
    written by hand cannot be named, so the whole search index is made
    again, two minutes at a million items), and fingerprints the changed
    texts again, placing each in its cluster as indexing its file again
    would, then checks again.  A damaged file (SQLite's integrity check
    fails) is rebuilt from your folders: the message says how.  On a
    terminal it says which part it checks as it goes (at a million items
    the whole takes minutes).

    \b
    Example:
      lifededup check --db ~/archive.db
      lifededup check --mend
    """
    from lifededup.store import check_store

    def step(what: str) -> None:
        click.echo(f"checking {what}...", err=True)

    with opened_store(db) as store:
        # on a terminal, each part as it starts (minutes at a million items); in a pipe, only the result
        problems = check_store(store, step if sys.stderr.isatty() else None)
        mended = _mend(store, problems) if mend else {}
        if any(mended.values()):
            problems = checked_again(store, problems, mended, step if sys.stderr.isatty() else None)
        if not as_json:
            # each way that mended something; a store that needed none is told so once, not three "mended: 0"
            for what, count in mended.items():
                if count:
                    click.echo(f"mended: {count:,} item(s), {what}")
            if mend and not any(mended.values()):
                click.echo("mended: nothing")
        # a damaged file may not even count its rows: counted only when all is well
        counts = None if problems else (store.execute("SELECT count(*) FROM items")[1][0][0],
                                        store.execute("SELECT count(*) FROM cluster_sizes")[1][0][0])
    if as_json:
        click.echo(json.dumps({"ok": not problems, "items": counts and counts[0], "clusters": counts and counts[1],
                               "store": str(store.location), **({"mended": sum(mended.values())} if mend else {}),
                               "problems": [{"check": p.check, "message": p.message, "item_ids": p.item_ids}
                                            for p in problems]}, indent=2))
        if problems:
            sys.exit(1)
        return
    if problems or counts is None:
        for problem in problems:
            click.echo(f"problem: {problem}", err=True)
        # what mends it: the clusters are rebuilt from the fingerprints; a damaged file's message says its own way
        ways = (["`lifededup recluster` rebuilds the clusters"] if any(p.check in _MENDED_BY_RECLUSTER
                                                                       for p in problems) else [])
        mends = [_MENDED_BY_CHECK[p.check][0] for p in _mendable(problems)]
        ways += ([f"`lifededup check --mend` {' and '.join(dict.fromkeys(mends))}"] if mends else [])
        raise click.ClickException(f"{len(problems):,} problem(s) in {store.location}"
                                   + "".join(f"; {way}" for way in ways))
    items, groups = counts
    click.echo(f"ok: {items:,} items, {groups:,} clusters, all invariants hold ({store.location})")


# The problems `recluster` mends: it rebuilds the clusters and sketch keys
# from the fingerprints (a representative deleted with `sql --write`, say)
_MENDED_BY_RECLUSTER = frozenset({"cluster-missing", "cluster-without-fingerprint", "sha1-differs",
                                  "no-representative", "representative-flag", "copies-split", "member-not-near",
                                  "sketch-keys"})
# The problems `check --mend` mends, from each item's own columns: what it
# does, said before and after.  The words apart (the search index reads
# them), written again; the fingerprint and cluster of a text changed by
# hand, made again as indexing its file again would.
_APART = ("writes the words apart again", "their CJK words apart written again")
_FINGERPRINTS = ("fingerprints the changed texts again", "fingerprinted and clustered again from their text")
# the search rows (and pieces) of the items named, made as the trigger makes them
_WORDS = ("makes their search words again", "their search words made again")
_MENDED_BY_CHECK = {"cjk-apart": _APART, "fingerprint-stale": _FINGERPRINTS, "fingerprint-missing": _FINGERPRINTS,
                    "fingerprint-without-text": _FINGERPRINTS, "fts-index": _WORDS}


def checked_again(store: Store, left: list[Problem], mended: dict[str, int],
                  step: Callable[[str], None] | None = None) -> list[Problem]:
    """The problems after ``check --mend`` mended some, ``left`` being
    those it did not take on.  A text fingerprinted again may mend its
    cluster's problems too: the whole store is checked afresh.  Words apart
    written again change only what the search reads, so only that is
    checked again and the rest stands as found (at a million items of real
    text on SQLite: 15 s, where the whole check takes 132)."""
    from lifededup.store.check import SEARCH_CHECKS, check_search, check_store

    if mended.get(_FINGERPRINTS[1]):
        return check_store(store, step)
    return [p for p in left if p.check not in SEARCH_CHECKS] + check_search(store, step)


def _mend(store: Store, problems: list[Problem]) -> dict[str, int]:
    """Mend what ``check --mend`` mends, taking it off ``problems``: how
    many items each way mended (each way named, 0 or not)."""
    from lifededup.store.check import mend_apart, mend_search_words

    ids: dict[tuple[str, str], list[int]] = {_APART: [], _FINGERPRINTS: [], _WORDS: []}
    # rows of SQLite's index that FTS5 cannot name: the whole index is made again
    whole = False
    for problem in _mendable(problems):
        ids[_MENDED_BY_CHECK[problem.check]] += problem.item_ids
        whole = whole or (problem.check == "fts-index" and not problem.item_ids)
        problems.remove(problem)
    # the search rows first, made of the words apart as they stand: writing
    # those again, SQLite's trigger takes the old words out of the row (FTS5
    # refuses an item with no row, as a damaged file); the texts changed at
    # once: every old fingerprint leaves before a new one is placed
    words = mend_search_words(store, ids[_WORDS], whole)
    return {_APART[1]: mend_apart(store, ids[_APART]), _WORDS[1]: words,
            _FINGERPRINTS[1]: store.fingerprint_again(ids[_FINGERPRINTS])}


def _mendable(problems: list[Problem]) -> list[Problem]:
    """The problems ``check --mend`` takes on; not the search words while
    the text search configuration they are made with is wrong (mended
    first, by the statements its problem says)."""
    from lifededup.store.check import CONFIGURATION

    configured = not any(p.check == CONFIGURATION for p in problems)
    return [p for p in problems if p.check in _MENDED_BY_CHECK and (configured or p.check != "fts-index")]


@main.command("recluster")
@click.option("--method", type=click.Choice(METHODS), default="conservative", show_default=True,
              help="conservative: members must be near their representative (the paper's choice); "
              "transitive: any chain of near copies links (for comparison).")
@click.option("--rule", default=None, metavar="SPEC",
              help="How a near copy is admitted: verified[:PERCENT] (candidates verified within PERCENT "
              "word edit distance of the representative; the default, 30) or features (at least 2 of 6 "
              "shared features, unverified). Kept for later indexing. [default: the store's]")
@click.option("--json", "as_json", is_flag=True,
              help='One JSON object: {"method", "rule", "clusters"} (clusters with copies).')
@db_option
def recluster_command(method: Method, rule: str | None, as_json: bool, db: str | None) -> None:
    """Rebuild every cluster from the stored fingerprints.

    Conservative clustering is the default and what lifededup keeps up to
    date as you index. Texts are placed most central first, so the clusters
    depend on the texts alone, not on the order they were indexed in (run
    it after a large index to get the canonical clusters). Transitive
    clustering links every pair of near copies and can chain documents that
    are far apart (seeds/000 Figure 2); it is here to compare the two. Later
    indexing keeps using the method and rule chosen.

    \b
    Example:
      lifededup recluster --method transitive && lifededup dups --limit 5
      lifededup recluster --rule features   # the design card's rule alone
      lifededup recluster --rule verified:20
      lifededup recluster                   # back to conservative, the store's rule
    """
    try:
        chosen = None if rule is None else Rule.parse(rule)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    # on a terminal, a bar of the texts placed (a minute at 100,000 items)
    bar = TerminalBar("text")

    def placing(placed: int, of: int) -> None:
        if not bar.shown:
            bar.start("placing texts", of)
        bar.reach(placed)

    with opened_store(db) as store:
        try:
            store.recluster(method, chosen, progress=placing if sys.stderr.isatty() else None)
        finally:
            bar.close()
        _, [(groups,)] = store.execute("SELECT count(*) FROM cluster_sizes WHERE members > 1")
        spec = store.cluster_rule.spec
    if as_json:
        click.echo(json.dumps({"method": method, "rule": spec, "clusters": groups}))
    else:
        rule = spec if method == "conservative" else "linked by shared features"
        click.echo(f"reclustered ({method}, {rule}): {groups:,} clusters with copies")
