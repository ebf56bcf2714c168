"""``lifededup sql``: one statement against the store, printed as a table,
JSON or CSV.  Its own module: read-only (the default) it runs on the
driver alone (``store.reader``), and the other store commands' imports
(SQLAlchemy, numpy) would cost it more than the statement."""

from __future__ import annotations

import csv
import json
import sys
from typing import Any

import click

from lifededup.cli import main
from lifededup.cli.options import db_option, opened_reader, opened_store, shown
from lifededup.store import driver_said
from lifededup.store.dialect import driver_errors


# A table cell shows this many characters at most: an item's text is a
# whole document, whose one cell drew a rule tens of thousands of dashes
# long; --json and --csv give every value whole.
CELL_CHARS = 200


def _cell(value: Any) -> str:
    text = "" if value is None else shown(str(value))  # a value's newlines would break its row
    return text if len(text) <= CELL_CHARS else text[: CELL_CHARS - 1] + "…"


def _print_table(columns: list[str], rows: list[tuple[object, ...]]) -> None:
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    click.echo("  ".join(c.ljust(w) for c, w in zip(columns, widths)).rstrip())
    click.echo("  ".join("-" * w for w in widths))
    for row in cells:
        click.echo("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip())
    if any(len(v) == CELL_CHARS and v.endswith("…") for row in cells for v in row):
        click.echo(f"(values over {CELL_CHARS} characters are cut here, and control characters shown as \\xNN: "
                   "--json or --csv gives them whole)")


@main.command("sql")
@click.argument("query")
@click.option("--json", "as_json", is_flag=True, help="Rows as a JSON list of objects.")
@click.option("--csv", "as_csv", is_flag=True, help="Rows as CSV with a header line.")
@click.option("--write", is_flag=True, help="Open the store writable, to change it deliberately.")
@db_option
def sql_command(query: str, as_json: bool, as_csv: bool, write: bool, db: str | None) -> None:
    """Run one SQL statement against the store and print the rows.

    The store is opened read-only unless --write is given: SQLite itself (or,
    for a PostgreSQL store, the server: a read-only transaction) refuses
    INSERT, UPDATE, DELETE, DROP and the rest, and the store is left
    untouched. One statement runs at a time. The README lists the tables (items, fingerprints, clusters,
    items_fts, ...) and the views (cluster_sizes, representatives,
    collapsed_items).

    \b
    Example:
      lifededup sql "SELECT cluster_id, members FROM cluster_sizes ORDER BY members DESC LIMIT 5"
      lifededup sql --csv "SELECT path, title FROM items WHERE kind = 'email'" > mail.csv
    """
    if as_json and as_csv:
        raise click.UsageError("choose one of --json and --csv")
    if not query.strip(" \t\n\r;"):
        raise click.UsageError("give one SQL statement, e.g. \"SELECT count(*) FROM items\"")
    # without --write an older store is read as it is: never migrated, the file never changed
    # (and read on the driver alone where it can be: a third of a second of imports saved)
    with opened_store(db, migrate=True) if write else opened_reader(db, migrate=False) as store:
        try:
            columns, rows, changed = store.execute_counted(query)
        except driver_errors() as exc:
            raise click.ClickException(_sql_error(exc, write, store.location.backend)) from exc
    if not columns and changed >= 0 and write:  # INSERT, UPDATE, DELETE: say what they did
        click.echo(json.dumps({"changed": changed}) if as_json else f"{changed:,} row(s) changed")
    elif not columns:  # read-only, a statement of no columns (PostgreSQL's bare SELECT): nothing was changed
        click.echo(json.dumps([]) if as_json else "(no columns)")
    elif as_json:
        click.echo(json.dumps([dict(zip(columns, r)) for r in rows], indent=2, default=str))
    elif as_csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")  # lines as a shell reads them (not RFC 4180's CRLF)
        writer.writerow(columns)
        writer.writerows(rows)
    elif columns:
        _print_table(columns, rows)


def _sql_error(exc: BaseException, write: bool, backend: str) -> str:
    """The database's own words, and what to do about them."""
    reason = driver_said(exc)
    refuser = "SQLite" if backend == "sqlite" else "the PostgreSQL server"
    if not write and any(word in reason for word in ("readonly", "read-only", "query_only", "authoriz")):
        return (f"the store is open read-only, so {refuser} refused to change it ({reason}); "
                "nothing was changed. Add --write if you mean to change it.")
    if "multiple commands" in reason or "one statement at a time" in reason:
        return f"lifededup sql runs one statement at a time ({refuser} says: {reason}); nothing was run."
    if "cannot run inside a transaction block" in reason:  # VACUUM, CREATE INDEX CONCURRENTLY on a server
        return (f"SQL error: {reason} (lifededup sql runs each statement in a transaction, --write too: run this "
                "one in psql, connected to the same database)")
    return f"SQL error: {reason}"
