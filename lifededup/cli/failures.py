"""``lifededup failures``: what could not be read, and why.  Its own
module: it reads on the driver alone (``store.reader``), without the
indexer's imports."""

from __future__ import annotations

import json

import click

from lifededup.cli import main
from lifededup.cli.options import ROWS, db_option, item_name, opened_reader, shown
from lifededup.store.failures import failures
from lifededup.store.machines import list_machines


@main.command("failures")
@click.option("--limit", type=ROWS, default=None, help="Show at most this many.")
@click.option("--machine", metavar="NAME", default=None,
              help="Only this machine's failures (`lifededup machines list` names the machines; this computer's "
              "is $LIFEDEDUP_MACHINE, else its host name).")
@click.option("--json", "as_json", is_flag=True, help="A JSON list of objects: path, part, status, reason, machine.")
@db_option
def failures_command(limit: int | None, machine: str | None, as_json: bool, db: str | None) -> None:
    """List the files and parts that could not be read, and why.

    A store shared by several machines lists every machine's, as search
    and dups show every machine's items; a file of another machine than
    this one is shown as MACHINE:PATH.  --machine NAME lists one machine's:
    this computer's are the ones to fix here.

    \b
    Example:
      lifededup failures --limit 20
      lifededup failures --machine laptop
    """
    with opened_reader(db) as store:
        if machine is not None and not list_machines(store, machine):
            raise click.ClickException(f"no machine '{shown(machine)}' in {store.location}: `lifededup machines list` "
                                       "names the machines it holds")
        found = failures(store, limit, machine=machine)
    if as_json:
        click.echo(json.dumps([item.to_dict() for item in found], indent=2, ensure_ascii=False))
        return
    for item in found:
        click.echo(f"{item.status}\t{item_name(item.path, item.part, item.machine)}\t{shown(item.reason)}")
    if not found:
        click.echo("no failures" if machine is None else f"no failures of the machine {machine}")
