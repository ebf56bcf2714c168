"""``lifededup failures``: what could not be read, and why.  Its own
module: it reads on the driver alone (``store.reader``), without the
indexer's imports."""

from __future__ import annotations

import json

import click

from lifededup.cli import main
from lifededup.cli.options import ROWS, db_option, item_name, opened_reader, shown
from lifededup.store.failures import failed_by_status, failures
from lifededup.store.machines import list_machines


@main.command("failures")
@click.option("--limit", type=ROWS, default=None, help="Show at most this many.")
@click.option("--machine", metavar="NAME", default=None,
              help="Only this machine's failures (`lifededup machines list` names the machines; this computer's "
              "is $LIFEDEDUP_MACHINE, else its host name).")
@click.option("--status", "statuses", multiple=True, metavar="STATUS",
              help="Only the failures of this status (repeat for several): no-text-layer, the scans `index --ocr` "
              "reads; missing-tool, what a program or extra would read; corrupt, encrypted, empty... The last line "
              "counts each status the store holds.")
@click.option("--json", "as_json", is_flag=True,
              help="A JSON list of objects: path, part, status, reason, machine, id (the item's: `lifededup show ID`).")
@db_option
def failures_command(limit: int | None, machine: str | None, statuses: tuple[str, ...], as_json: bool,
                     db: str | None) -> None:
    """List the files and parts that could not be read, and why.

    One line each, by path: the status, the file (PATH [PART] for a part
    inside one), and why, a tab apart; then, on stderr, how many of each
    status the store holds (of the machine given), the most first.
    --status lists one kind alone: a long list is often mostly one (empty
    attachments, scans waiting for --ocr).

    A store shared by several machines lists every machine's, as search
    and dups show every machine's items; a file of another machine than
    this one is shown as MACHINE:PATH.  --machine NAME lists one machine's:
    this computer's are the ones to fix here.

    \b
    Example:
      lifededup failures --limit 20
      lifededup failures --status no-text-layer --status missing-tool
      lifededup failures --machine laptop
    """
    with opened_reader(db) as store:
        if machine is not None and not list_machines(store, machine):
            raise click.ClickException(f"no machine '{shown(machine)}' in {store.location}: `lifededup machines list` "
                                       "names the machines it holds")
        found = failures(store, limit, machine=machine, statuses=statuses)
        counts = {} if as_json else failed_by_status(store, machine=machine)
    if as_json:
        click.echo(json.dumps([item.to_dict() for item in found], indent=2, ensure_ascii=False))
        return
    for item in found:
        click.echo(f"{item.status}\t{item_name(item.path, item.part, item.machine)}\t{shown(item.reason)}")
    # after a list, on stderr: the lines of stdout are the failures alone, a tab between their fields
    click.echo(_counted(counts, machine, statuses, len(found)), err=bool(found))


def _counted(counts: dict[str, int], machine: str | None, statuses: tuple[str, ...], listed: int) -> str:
    """The list's last line: how many failed of each status, or that none did."""
    of = "" if machine is None else f" of the machine {shown(machine)}"
    if not counts:
        return f"no failures{of}"
    kinds = ", ".join(f"{count:,} {shown(status)}" for status, count in counts.items())
    total = sum(counts.values())
    if not statuses:
        shown_only = f", {listed:,} shown" if listed < total else ""
        return f"{total:,} failed item{'' if total == 1 else 's'}{of}{shown_only}: {kinds}"
    wanted = sum(counts.get(status, 0) for status in set(statuses))
    asked = " or ".join(shown(status) for status in dict.fromkeys(statuses))
    if not wanted:
        return f"no failures of the status {asked}{of}; the store's {total:,}: {kinds}"
    more = f", {listed:,} shown" if listed < wanted else ""
    return f"{wanted:,} of {total:,} failed items{of} are {asked}{more}; all: {kinds}"
