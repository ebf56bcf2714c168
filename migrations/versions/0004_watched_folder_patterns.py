"""Watched folders' include and exclude patterns.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-21

``lifededup folders add PATH --include GLOB --exclude GLOB`` keeps each
folder's patterns beside it, as JSON lists of shell globs (``[]``: none), so
that the daemon and ``lifededup index`` agree on what a folder holds.
Folders added before this revision get no patterns (everything but junk and
hidden files, as before).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("watched_folders") as batch:
        batch.add_column(sa.Column("include", sa.Text, nullable=False, server_default=sa.text("'[]'")))
        batch.add_column(sa.Column("exclude", sa.Text, nullable=False, server_default=sa.text("'[]'")))


def downgrade() -> None:
    with op.batch_alter_table("watched_folders") as batch:
        batch.drop_column("exclude")
        batch.drop_column("include")
