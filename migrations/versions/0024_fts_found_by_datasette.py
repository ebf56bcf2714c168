"""Datasette and sqlite-utils find the full-text search of ``items`` again.

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-26

Both decide that a table has full-text search by the declaration of an FTS
table in ``sqlite_master``: ``content="items"`` or ``content=[items]`` in it
(Datasette's ``detect_fts``, sqlite-utils' ``Table.detect_fts``). Revision
0022 made ``items_fts`` read ``content=[items_searched]`` (a view of
``items``, each CJK character apart), and ``datasette lifededup.db`` no
longer offered a search box on ``items``, which the README promises. The
declaration now says so in a comment between its arguments, which FTS5
never sees (SQLite passes it the arguments alone) and both tools read:
``/* the text of content=[items], ... */``. Edited in place, as 0022 did
(``writable_schema``): the index is not touched. SQLite only.
"""

from __future__ import annotations

from alembic import op

from lifededup.migrations.declared import redeclare_fts

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None

_WAS = "content=[items_searched], content_rowid=[id],"
NOTE = ("/* the text of content=[items], each CJK character apart (revision 0022): "
        "Datasette and sqlite-utils read this */")
_NOW = f"{_WAS} {NOTE}"


def _declare(was: str, now: str) -> None:
    if op.get_bind().dialect.name == "postgresql":
        return  # items_fts is a table of its own there, which neither tool reads
    redeclare_fts(op.get_bind(), was, now, "0022")


def upgrade() -> None:
    _declare(_WAS, _NOW)


def downgrade() -> None:
    _declare(_NOW, _WAS)
