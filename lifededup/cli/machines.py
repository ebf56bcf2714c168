"""``lifededup machines``: which computers write into a shared store, and
claiming this computer's name when it replaces another."""

from __future__ import annotations

import json
import sys

import click

from lifededup.cli import main
from lifededup.cli.options import db_option, opened_listing, opened_store
from lifededup.store import MACHINE_ENV


@main.group("machines")
def machines_group() -> None:
    """The machines whose files the store holds, and which computer writes as each.

    Items belong to a machine name ($LIFEDEDUP_MACHINE, else the host
    name).  The first computer to write under a name claims it; on a
    PostgreSQL store another computer of that name is refused, since the two
    would each take the other's files for deleted ones.  A computer that
    replaces one (a new disk, a system installed again) says so with
    `claim`; a computer retired leaves the store with `forget NAME`.

    \b
    Example:
      lifededup machines list
      lifededup machines claim
      lifededup machines forget old-laptop
      lifededup machines rename raspberrypi kitchen-pi
    """


@machines_group.command("list")
@click.option("--json", "as_json", is_flag=True,
              help="A JSON list of machines: name, claimed_at, items, folders, here.")
@db_option
def machines_list(as_json: bool, db: str | None) -> None:
    """List the machine names in the store: how many items and watched
    folders each has, when a computer claimed it, and which is this
    computer's.

    \b
    Example:
      lifededup machines list --db postgresql://me@nas/lifededup
    """
    from lifededup.store import list_machines, machine_name

    name = machine_name()
    with opened_listing(db) as store:
        found = [] if store is None else list_machines(store)
    if as_json:
        click.echo(json.dumps([{"name": m.name, "claimed_at": m.claimed_at.isoformat() + "Z" if m.claimed_at else None,
                                "items": m.items, "folders": m.folders, "here": m.here} for m in found], indent=2))
        return
    width = max((len(m.name) for m in found), default=0)
    for machine in found:
        claimed = f"claimed {machine.claimed_at:%Y-%m-%d %H:%M} UTC" if machine.claimed_at else "not claimed yet"
        here = "  (this computer)" if machine.here else ""
        click.echo(f"{machine.name:<{width}}  {machine.items:>9,} item(s)  {machine.folders:>3,} folder(s)  "
                   f"{claimed}{here}")
    theirs = [m for m in found if m.name == name and m.claimed_at and not m.here]
    if theirs:
        click.echo(f"this computer writes as {name!r}, which another computer claimed: set {MACHINE_ENV} to a name "
                   "of its own, or `lifededup machines claim` if it replaces that one")
    elif not found:
        click.echo(f"no machines yet: the first `lifededup index` claims this computer's name, {name!r}")


@machines_group.command("claim")
@click.option("--json", "as_json", is_flag=True, help='One JSON object: {"machine", "store"}.')
@db_option
def machines_claim(as_json: bool, db: str | None) -> None:
    """Write as this machine's name from this computer on, in place of the
    computer that claimed it before: for a computer that replaces another
    (a new disk, a system installed again, a new laptop of the same name).

    The name is $LIFEDEDUP_MACHINE, else the host name.  The store's items
    of that name become this computer's: its next index keeps them where
    its files are the same, and removes those its disk no longer has.  Two
    computers that both exist need a name each instead.

    \b
    Example:
      lifededup machines claim --db postgresql://me@nas/lifededup
    """
    with opened_store(db) as store:
        store.claim_machine(replace=True)
        if as_json:
            click.echo(json.dumps({"machine": store.machine, "store": str(store.location)}))
        else:
            click.echo(f"this computer writes into {store.location} as the machine {store.machine!r}")


@machines_group.command("forget")
@click.argument("name")
@click.option("--yes", is_flag=True, help="Do not ask (needed where there is no terminal to ask on).")
@click.option("--json", "as_json", is_flag=True, help='One JSON object: {"machine", "forgotten"}.')
@db_option
def machines_forget(name: str, yes: bool, as_json: bool, db: str | None) -> None:
    """Remove a retired computer from the store: every item of the machine
    NAME, its watched folders and its claim.  Its copies on other machines
    stay, and clusters are repaired around what goes.  No file is touched,
    on any computer.

    Asks first on a terminal; elsewhere give --yes.  A computer still
    indexing as NAME would add its files again: stop its watcher first.

    \b
    Example:
      lifededup machines list
      lifededup machines forget old-laptop
    """
    from lifededup.store import forget_machine, list_machines

    with opened_store(db) as store:
        known = {m.name: m for m in list_machines(store, name)}
        if name not in known:
            raise click.ClickException(f"the store has no machine {name!r}; see `lifededup machines list`")
        if not yes:
            if not sys.stdin.isatty():
                raise click.ClickException(f"forgetting {known[name].items:,} item(s) of {name!r} needs --yes "
                                           "where there is no terminal to ask on")
            if name == store.machine:
                click.echo(f"{name!r} is the name this computer indexes as", err=True)
            if not click.confirm(f"forget the {known[name].items:,} item(s) and {known[name].folders:,} watched "
                                 f"folder(s) of {name!r}? (no file is touched)", default=False):
                raise click.ClickException("nothing forgotten")
        removed = forget_machine(store, name)
    if as_json:
        click.echo(json.dumps({"machine": name, "forgotten": removed}))
    else:
        click.echo(f"forgot the machine {name!r}: {removed:,} item(s) removed from the store")


@machines_group.command("rename")
@click.argument("old")
@click.argument("new")
@click.option("--json", "as_json", is_flag=True, help='One JSON object: {"machine", "renamed_to", "items"}.')
@db_option
def machines_rename(old: str, new: str, as_json: bool, db: str | None) -> None:
    """Give the machine OLD's items and watched folders the name NEW: for a
    computer whose host name changed (instead of pinning the old one with
    $LIFEDEDUP_MACHINE), or a store from before machines were kept, whose
    items went to whichever machine first opened it.

    NEW must have no items or folders of its own (two machines' files are
    not merged) nor be claimed by another computer; the next computer to
    write as NEW claims it. No file is touched.

    \b
    Example:
      lifededup machines list
      lifededup machines rename phone laptop
    """
    from lifededup.store import rename_machine

    with opened_store(db) as store:
        renamed = rename_machine(store, old, new)
    if renamed is None:
        raise click.ClickException(f"the store has no machine {old!r}; see `lifededup machines list`")
    if as_json:
        click.echo(json.dumps({"machine": old, "renamed_to": new, "items": renamed}))
    else:
        click.echo(f"renamed the machine {old!r} to {new!r}: {renamed:,} item(s)")
