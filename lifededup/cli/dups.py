"""``lifededup dups``: the clusters of copies, largest first.  Its own
module: it reads on the driver alone (``store.reader``, ``store.listing``),
and the other store commands' imports (SQLAlchemy, the clustering engine)
would cost it more than the listing."""

from __future__ import annotations

import json
import math

import click

from lifededup.cli import main
from lifededup.cli.options import ROWS, db_option, item_name, opened_reader, same_store
from lifededup.model import shown
from lifededup.store.listing import ItemSummary, clusters
from lifededup.store.similarity import Similarity

# members listed under a representative: a cluster of a hundred drafts
# otherwise buried every cluster after it
MEMBERS_LISTED = 10


@main.command("dups")
@click.option("--json", "as_json", is_flag=True, help="One JSON document: a list of clusters.")
@click.option("--limit", type=ROWS, default=None, help="Show only the N largest clusters.")
@click.option("--min-size", type=click.IntRange(2, ROWS.max), default=2, show_default=True,
              help="Smallest cluster to show.")
@click.option("--members", type=ROWS, default=MEMBERS_LISTED, show_default=True,
              help="List at most N members under each representative; the rest are counted (--json lists all).")
@db_option
def dups_command(as_json: bool, limit: int | None, min_size: int, members: int, db: str | None) -> None:
    """List clusters of copies and near-copies, largest first.

    Each cluster is shown under its representative (the item search shows);
    the indented lines are the members a collapsed search hides: an exact
    copy (the same words in the same order) said so, a near copy with its
    word edit distance and estimated resemblance to the representative.  A
    cluster of more than --members members says how many more it holds;
    `lifededup search --cluster ID` lists them all.

    \b
    Example:
      lifededup dups --limit 10
      lifededup dups --json | jq '.[0].members[].path'
    """
    with opened_reader(db) as store:
        found = clusters(store, min_size=min_size, limit=limit)
    if as_json:
        click.echo(json.dumps([c.to_dict() for c in found], indent=2))
        return
    if not found:
        click.echo("no clusters of copies found")
    for cluster in found:
        rep = cluster.representative
        click.echo(f"cluster {cluster.cluster_id} ({len(cluster.members):,} items)")
        click.echo(f"  * {rep.id:>7}  {item_name(rep.path, rep.part, rep.machine)}{_subject(rep)}")
        measured = cluster.similarity or [None] * len(cluster.members)
        for member, similarity in zip(cluster.members[1:members + 1], measured[1:members + 1]):
            click.echo(f"    {member.id:>7}  {item_name(member.path, member.part, member.machine)}{_subject(member)}"
                       f"{_closeness(similarity)}")
        if len(cluster.members) - 1 > members:
            click.echo(f"    ... and {len(cluster.members) - 1 - members:,} more "
                       f"(lifededup search --cluster {cluster.cluster_id}{same_store(db)} lists them all)")


def _subject(item: ItemSummary) -> str:
    """A mailbox's message named by its number alone (``Inbox [message 3]``)
    is told apart by its subject; a file or a named part needs none."""
    named = item.part.rsplit(" / ", 1)[-1]
    if not item.part or ": " in named or not item.title:
        return ""
    return f"  \"{shown(' '.join(item.title.split())[:80])}\""


def _closeness(similarity: Similarity | None) -> str:
    """How close a member is to its representative, as stored; nothing
    where it was not measured (transitive clustering, a far member under
    ``--rule features``)."""
    if similarity is None or math.isnan(similarity.word_distance):  # not measured
        return ""
    if similarity.word_distance == 0.0:
        return "  (exact copy)"
    # a few words in a long text is not "0.0%": the member is not the same text
    apart = "under 0.1%" if similarity.word_distance < 0.0005 else f"{similarity.word_distance:.1%}"
    if similarity.resemblance == 0.0:  # no sketch to estimate it from (a table of numbers): not "0.00"
        return f"  ({apart} of words apart)"
    return f"  ({apart} of words apart, estimated resemblance {similarity.resemblance:.2f})"
