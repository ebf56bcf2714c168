"""items.text_cut, and paths in the store's escaped form.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23

``items.text_cut``: the length (in characters) of an item's text when it was
cut at the indexer's limit (``--max-text-mb``), NULL when the text is whole.

File names are bytes; a name that is not UTF-8 cannot be stored as SQLite
text, so paths are kept in an escaped form (``lifededup.model.stored_path``):
a byte that is not UTF-8 is ``\\xNN``, and a backslash ``\\\\``.  Names with a
backslash stored before this revision are rewritten into that form (there
could be no name with a non-UTF-8 byte: storing one failed).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def _position() -> str:
    return "instr" if op.get_bind().dialect.name == "sqlite" else "strpos"


def upgrade() -> None:
    op.add_column("items", sa.Column("text_cut", sa.Integer(), nullable=True))
    for table in ("items", "watched_folders"):
        op.execute(f"UPDATE {table} SET path = replace(path, '\\', '\\\\') WHERE {_position()}(path, '\\') > 0")


def downgrade() -> None:
    for table in ("items", "watched_folders"):
        op.execute(f"UPDATE {table} SET path = replace(path, '\\\\', '\\') WHERE {_position()}(path, '\\') > 0")
    with op.batch_alter_table("items") as batch:
        batch.drop_column("text_cut")
