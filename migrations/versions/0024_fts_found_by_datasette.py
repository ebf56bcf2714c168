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

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None

_WAS = "content=[items_searched], content_rowid=[id],"
NOTE = ("/* the text of content=[items], each CJK character apart (revision 0022): "
        "Datasette and sqlite-utils read this */")
_NOW = f"{_WAS} {NOTE}"


def _declare(was: str, now: str) -> None:
    conn = op.get_bind()
    if conn.dialect.name == "postgresql":
        return  # items_fts is a table of its own there, which neither tool reads
    version = conn.exec_driver_sql("PRAGMA schema_version").scalar()
    conn.exec_driver_sql("PRAGMA writable_schema = ON")
    changed = conn.exec_driver_sql(
        "UPDATE sqlite_master SET sql = replace(sql, ?, ?) WHERE type = 'table' AND name = 'items_fts' "
        "AND instr(sql, ?) > 0", (was, now, was)).rowcount
    conn.exec_driver_sql(f"PRAGMA schema_version = {int(str(version)) + 1}")  # other connections read it again
    conn.exec_driver_sql("PRAGMA writable_schema = OFF")
    if changed != 1:
        raise RuntimeError(f"items_fts is not declared as revision 0022 made it (no {was!r} in it)")


def upgrade() -> None:
    _declare(_WAS, _NOW)


def downgrade() -> None:
    _declare(_NOW, _WAS)
