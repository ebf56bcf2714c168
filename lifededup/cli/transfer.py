"""``lifededup export`` and ``lifededup import``: move a whole store between
SQLite and PostgreSQL (or to another store of its kind), as it is."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

import click

from lifededup.cli import main
from lifededup.cli.options import F, TerminalBar, db_option, opened_store
from lifededup.store.opening import current_revision, needs_upgrade, resolve

_HOW = """
    Everything moves as it is -- item ids, texts, fingerprints, sketches,
    clusters with their similarity, sketch keys, params and watched folders
    -- so the copy needs no re-index and no recluster; its search index and
    other indexes are built once the rows are in, and new items get ids
    after the source's last.
    The source is only read (one consistent snapshot: indexing may go on);
    the target is written in one transaction, so an interrupted move leaves
    it as it was. Both must be at the same schema revision (`lifededup check
    --db STORE` brings an older store up to date). A target that holds
    anything is refused -- two stores are never merged -- unless --replace
    says to empty it first.

    To carry a server's store on a USB stick, export it to an SQLite file
    there, and import that file on the other side -- where no two machines
    hold a file at the same path (an SQLite store keeps one file a path): a
    household's laptops that each index ~/Documents are carried server to
    server instead (export to another PostgreSQL database, or pg_dump).
"""


def _move(source: str | None, target: str | None, replace: bool, as_json: bool) -> None:
    """The one library call both commands make, and its report."""
    from lifededup.store.transfer import copy_store, rows_said

    made = resolve(target).path
    made = made if made is not None and not made.exists() else None
    try:
        # a refusal (a StoreError) becomes the command's message in opened_store
        with opened_store(source, readonly=True, migrate=False) as reading:
            # before the target is opened, which would give it this lifededup's schema
            if needs_upgrade(reading.engine, reading.location):
                raise click.ClickException(
                    f"the source {reading.location} is at schema revision {current_revision(reading.engine)}, "
                    "older than this lifededup's: bring it "
                    f"up to date first (lifededup check --db '{reading.location}'), then move it; the target is "
                    "left as it was")
            with opened_store(target) as writing:
                moved = copy_store(reading, writing, replace=replace,
                                   progress=_Bar() if sys.stderr.isatty() else None)
    except BaseException:
        if made is not None:  # a store file this move made, left empty: not left behind
            for leftover in (made, made.with_name(made.name + "-wal"), made.with_name(made.name + "-shm")):
                leftover.unlink(missing_ok=True)
        raise
    if as_json:
        click.echo(json.dumps(moved.to_dict(), indent=2))
        return
    replaced = f" (replacing its {rows_said({'items': moved.replaced})})" if moved.replaced else ""
    click.echo(f"copied {moved.source} to {moved.target}{replaced} in {moved.seconds:.1f} s: {rows_said(moved.rows)}")


class _Bar:
    """A bar per table, on a terminal (``copy_store``'s progress)."""

    def __init__(self) -> None:
        self._bar = TerminalBar("row")

    def table(self, name: str, rows: int) -> None:
        self._bar.start(name, rows)

    def advance(self, rows: int) -> None:
        self._bar.advance(rows)

    def finish(self) -> None:
        self._bar.close()


_REPLACE = click.option("--replace", is_flag=True,
                        help="Empty the target first if it holds anything (its rows are deleted).")
_JSON = click.option("--json", "as_json", is_flag=True,
                     help='One JSON object: {"source", "target", "rows": {table: rows}, "replaced", "seconds"}.')


def _explained(examples: str) -> Callable[[F], F]:
    """The command's help: its first paragraph, how a move goes, its examples."""

    def explain(command: F) -> F:
        command.__doc__ = f"{command.__doc__}{_HOW}\n    \b\n    Example:\n{examples}"
        return command

    return explain


@main.command("export")
@click.argument("target")
@_REPLACE
@_JSON
@db_option
@_explained("""\
      lifededup export postgresql://me@nas/lifededup              # this store onto a server
      lifededup export --db postgresql://me@nas/lifededup ~/archive.db   # a server's store into a file
""")
def export_command(target: str, replace: bool, as_json: bool, db: str | None) -> None:
    """Copy the whole store to TARGET: a new SQLite file or an empty
    PostgreSQL database (a path, sqlite:///PATH or postgresql://USER@HOST/DB).
    """
    _move(db, target, replace, as_json)


@main.command("import")
@click.argument("source")
@_REPLACE
@_JSON
@db_option
@_explained("""\
      lifededup import ~/old-laptop.db --db postgresql://me@nas/lifededup
      lifededup import postgresql://me@nas/lifededup              # a server's store into this one
""")
def import_command(source: str, replace: bool, as_json: bool, db: str | None) -> None:
    """Copy a whole store, SOURCE (an SQLite file or a postgresql:// URL),
    into the store, which must be empty (a new file or database is made).
    """
    _move(source, db, replace, as_json)
