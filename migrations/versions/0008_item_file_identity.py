"""A file item's identity on disk: device and inode.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23

A file moved to another folder keeps its inode (a rename on one file
system), so the indexer recognises it there even when it was also changed
before the indexer saw it; files moved unchanged are recognised by their raw
SHA-1 as before.  Items stored before this revision get NULL, filled in the
next time the indexer sees their file.  Plain ``ADD COLUMN``: ``items`` has
FTS5 triggers that a table rebuild would drop.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


# st_dev and st_ino are 64 bits: BIGINT on PostgreSQL (SQLite's INTEGER is 64 bits)
Int = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.add_column("items", sa.Column("device", Int, nullable=True))
    op.add_column("items", sa.Column("inode", Int, nullable=True))
    op.create_index("ix_items_inode", "items", ["inode"])


def downgrade() -> None:
    op.drop_index("ix_items_inode", table_name="items")
    op.drop_column("items", "inode")
    op.drop_column("items", "device")
