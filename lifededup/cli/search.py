"""``lifededup search``: full-text search with each document shown once."""

from __future__ import annotations

import json
import os
from datetime import date, datetime

import click

from lifededup.cli import main
from lifededup.cli.options import ITEM_ID, ROWS, db_option, item_name, opened_reader, same_store, shown
from lifededup.search import (
    PG_SYNTAX, SYNTAX, Copy, Filters, Hit, QuerySyntaxError, SearchResult, Snippet, items_said, search,
)

# Copies named under a collapsed row on a terminal; --json lists them all.
COPIES_SHOWN = 3


def _day(ctx: click.Context, param: click.Parameter, value: str | None) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value) if len(value) == 10 else datetime.fromisoformat(value).date()
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a date; write it as YYYY-MM-DD, e.g. 2024-03-01") from None


@main.command("search", epilog="\b\n" + SYNTAX + "\n\n\b\n" + PG_SYNTAX)
@click.argument("words", nargs=-1, metavar="[QUERY]...")
@click.option("--kind", "kinds", multiple=True, metavar="KIND",
              help="Only items of this kind: document, email, web page, text, spreadsheet, presentation, "
              "mailbox, contact, event, address book, calendar, archive (repeat for several).")
@click.option("--since", callback=_day, metavar="YYYY-MM-DD",
              help="Only items dated on or after this day (the document's own date, else a date in its "
              "file's name, else its mtime).")
@click.option("--until", callback=_day, metavar="YYYY-MM-DD", help="Only items dated on or before this day.")
@click.option("--path", "path_glob", metavar="GLOB",
              help="Only items whose path matches, e.g. '~/Documents/*' or 'Mail/*' (anywhere in the path).")
@click.option("--limit", type=ROWS, default=20, show_default=True, help="Rows to show.")
@click.option("--page", type=ROWS, default=1, show_default=True,
              help="Which page of --limit rows: --page 2 shows the rows after the first --limit.")
@click.option("--all", "show_all", is_flag=True, help="Show every matching item: copies are not collapsed.")
@click.option("--cluster", type=ITEM_ID, metavar="ID",
              help="Show the items of one cluster (the ID a collapsed row gives); QUERY is optional.")
@click.option("--dedup", metavar="DETECTOR",
              help="Ignore the stored clusters and de-duplicate the best-ranked results among themselves "
              "with this detector, e.g. simhash:3 (see `lifededup eval`).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object: the rows, with snippets and copies.")
@db_option
def search_command(words: tuple[str, ...], kinds: tuple[str, ...], since: date | None, until: date | None,
                   path_glob: str | None, limit: int, page: int, show_all: bool, cluster: int | None,
                   dedup: str | None, as_json: bool, db: str | None) -> None:
    """Search the text and titles of everything indexed, best match first,
    each document shown once.

    Copies and near-copies are collapsed (seeds/000 section 2.2 step 9): a row
    stands for its cluster, shown by its best-matching member, with "+N
    copies" and where they live. --all shows every item; --cluster ID lists
    one cluster. Without QUERY, the filters alone select, newest first. The
    results are counted exactly up to 10,000 matching items; past that the
    footer says "at least N results" (the clusters of the first 10,001
    matches as stored, or the rows up to this page if more). On a
    PostgreSQL store, a search by words alone that many items match counts
    the first 1,001 ("more than 1,000 matching items"): its best rows are
    found without ranking every match.

    --dedup simhash:K is the per-query alternative (seeds/004): the stored
    clusters are ignored and the best-ranked results (10 per row shown) are
    de-duplicated among themselves with SimHash, K bits apart at most;
    larger K hides more.

    \b
    Examples:
      lifededup search river survey             (every word; "..." in quotes for a phrase)
      lifededup search 'kitchen -joiner' --kind document --since 2024-01-01
      lifededup search -- '-joiner kitchen'     (-- before a query that starts with -)
      lifededup search sourdough --all --path 'Web/*'
      lifededup search --cluster 42
      lifededup search report --dedup simhash:6 --json | jq '.hits[].path'
    """
    if dedup is not None and (show_all or cluster is not None):
        raise click.UsageError("--dedup replaces the stored clusters; it cannot go with --all or --cluster")
    if dedup is not None and page > 1:
        raise click.UsageError("--dedup de-duplicates the best-ranked results of one page; it has no --page")
    offset = (page - 1) * limit
    if offset > 2**62:
        raise click.UsageError(f"--page {page} of {limit} rows is past any store")
    try:
        filters = Filters(kinds=kinds, since=since, until=until, path=path_glob)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc
    # the words as typed, quoted or not: `search river survey` is `search "river survey"`
    query = " ".join(words) if words else None
    if not (query or "").strip() and cluster is None and not filters.active:
        raise click.UsageError("give a query, a filter (--kind, --since, --until, --path) or --cluster")
    with opened_reader(db) as store:
        try:
            found = search(store, query, filters, limit=limit, collapse=not show_all, cluster=cluster, dedup=dedup,
                           offset=offset)
        except QuerySyntaxError as exc:
            raise click.ClickException(str(exc)) from exc
        except ValueError as exc:  # a kind no item has, a bad --dedup detector
            raise click.ClickException(str(exc)) from exc
    if as_json:
        click.echo(json.dumps(found.to_dict(), indent=2, ensure_ascii=False))
    else:
        _print(found, offset, same_store(db))


def _home(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home):] if home != "/" and path.startswith(home + os.sep) else path


def _homed(path: str, machine: str) -> str:
    """``path`` with this machine's home folder said ``~`` -- in this machine's paths alone, as the
    web view does: another machine's ``/home/ann/notes.txt`` was printed ``laptop:~/notes.txt`` here,
    this user's home on that machine, which ``show`` could not take back."""
    from lifededup.store import machine_name

    return _home(path) if not machine or machine == machine_name() else path


def _name(path: str, part: str, machine: str = "") -> str:
    """``item_name``, this machine's home folder said ``~``."""
    return item_name(_homed(path, machine), part, machine)


def _beside(path: str, row: str) -> str:
    """A copy's ``path`` as its row's copies line prints it: ``…/`` and the
    path from the last folder it shares with its row's path ``row`` on
    (``…/PDF/report-v2.pdf``: in a folder ``PDF`` along the row's path),
    where that is shorter; whole otherwise.  Copies of one document often
    lie in folders beside each other, under a long common path that
    printed the line three times over; ``--cluster`` and ``--json`` give
    every path whole."""
    parts, theirs = path.split("/"), row.split("/")
    shared = 0
    for mine, other in zip(parts[:-1], theirs[:-1]):
        if mine != other:
            break
        shared += 1
    shorter = "…/" + "/".join(parts[shared - 1:]) if shared > 1 else path
    return shorter if len(shorter) + _WORTH_SHORTENING <= len(path) else path


# how many characters a copy's shortened path must save to be printed so
_WORTH_SHORTENING = 12


# A snippet's control characters but its line breaks and tabs, as \xNN: a
# document's text must not drive the terminal (an escape sequence)
_SNIPPET_CONTROLS = {code: f"\\x{code:02x}" for code in (*range(0x20), 0x7F) if chr(code) not in "\t\n"}


def _highlighted(snippet: Snippet) -> str:
    # click.echo drops the styling when the output is not a terminal
    return "".join(click.style(text, bold=True, fg="yellow") if hit else text
                   for text, hit in ((t.translate(_SNIPPET_CONTROLS), h) for t, h in snippet.parts()))


def _print(found: SearchResult, offset: int = 0, store: str = "") -> None:
    """``store``: `` --db STORE`` where one was given, for the commands a row suggests."""
    if not found.hits:
        rows = "results" if found.mode == "collapsed" else "matching items"
        click.echo(f"no matches on this page: the search has {_count(found)} {rows}" if offset and found.matches
                   else "no matches")
        return
    for number, hit in enumerate(found.hits, offset + 1):
        _print_hit(number, hit, found, store)
    click.echo(_footer(found, offset))


def _count(found: SearchResult) -> str:
    return f"{found.rows:,}" if found.rows_exact else f"at least {found.rows:,}"


def _print_hit(number: int, hit: Hit, found: SearchResult, store: str) -> None:
    when = ("file date " if hit.file_date else "") + (hit.date or "")[:10]
    head = f"{number:>3}. {click.style(_name(hit.path, hit.part, hit.machine), bold=True)}  ({hit.kind}{', ' + when if when else ''})"
    if hit.hidden:
        head += click.style(f"  +{hit.hidden:,} {'copy' if hit.hidden == 1 else 'copies'}", fg="cyan")
    elif found.mode != "collapsed" and hit.cluster_size > 1:
        head += click.style(f"  [cluster {hit.cluster_id}, {hit.cluster_size:,} items]", fg="cyan")
    click.echo(head)
    if hit.title and not _said_by(hit.snippet.text, hit.title):
        click.echo(f"     {shown(hit.title)}")  # a mail's subject may carry an escape sequence
    if hit.people and not _said_by(hit.snippet.text, hit.people):
        click.echo(f"     {shown(hit.people)}")
    if hit.snippet.text:
        click.echo(f"     {_highlighted(hit.snippet)}")
    if hit.copies:
        # newest first, each with its date: the latest draft is named though an older one is the row
        names = [(item_name(_beside(_homed(c.path, c.machine), _homed(hit.path, hit.machine)), c.part, c.machine)
                  if c.machine == hit.machine
                  else _name(c.path, c.part, c.machine)) + _copy_date(c, hit)
                 for c in hit.copies[:COPIES_SHOWN]]
        more = hit.hidden - len(names)
        click.echo(f"     copies, newest first: {'; '.join(names)}{f'; and {more:,} more' if more > 0 else ''}")
        if found.mode == "collapsed" and more > 0:
            click.echo(f"     (lifededup search --cluster {hit.cluster_id}{store} lists them all)")


def _copy_date(copy: Copy, hit: Hit) -> str:
    """A copy's date, where it is not its row's: a folder of releases copied
    in one day said "(file date 2026-11-27)" after every copy, a quarter of
    the line, where the row says it once."""
    if not copy.date or (copy.date[:10], copy.file_date) == ((hit.date or "")[:10], hit.file_date):
        return ""
    return f" ({'file date ' if copy.file_date else ''}{copy.date[:10]})"


def _said_by(snippet: str, line: str) -> bool:
    """Whether the snippet shows ``line`` already: holds it, or is a piece of
    it (a snippet from the people, cut with an ellipsis, printed them twice)."""
    piece = snippet.strip("…. ")
    return line in snippet or bool(piece) and piece in " ".join(line.split())


def _footer(found: SearchResult, offset: int = 0) -> str:
    shown = f"{len(found.hits)}" if not offset else f"{offset + 1:,}-{offset + len(found.hits):,}"
    more = "; --page N shows more" if (found.rows > offset + len(found.hits) or not found.rows_exact) else ""
    if found.mode == "collapsed":
        return (f"{shown} of {_count(found)} result{'' if found.rows == 1 else 's'} "
                f"({items_said(found.matches, exact=found.matches_exact)}, "
                "copies collapsed; "
                f"--all shows every item{more})")
    if found.mode == "dedup":
        return f"{shown} of {found.rows:,} results after de-duplicating the {items_said(found.matches, 'best-ranked')}"
    return f"{shown} of {items_said(found.rows, exact=found.rows_exact)}" + (f" ({more[2:]})" if more else "")
