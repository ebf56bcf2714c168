"""Items and watched folders know the machine they belong to.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-23

Several machines index their own folders into one PostgreSQL store: a path
names a file on one machine, so ``items.machine`` and
``watched_folders.machine`` say which, and a path is unique per machine.
Rows stored before this revision get the name of the machine that runs it
(``LIFEDEDUP_MACHINE``, else the host name): until now a store was one
machine's.

On PostgreSQL the unique constraints become ``(machine, path, part)`` and
``(machine, path)``, and the columns have no default: every write names its
machine.  On SQLite ``items`` keeps ``UNIQUE (path, part)`` -- rebuilding it
would drop its FTS5 triggers and views, and with foreign keys on, dropping it
inside this transaction would cascade into fingerprints and clusters; an
SQLite store is one machine's file, and ``(path, part)`` unique implies
``(machine, path, part)`` unique -- and the new column keeps the migrating
machine's name as its default (SQLite cannot drop a default without a
rebuild).  ``watched_folders`` has no triggers, views or references, so on
SQLite it is rebuilt with ``UNIQUE (machine, path)`` as on PostgreSQL.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from lifededup.store.records import machine_name

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    name = machine_name()
    op.add_column("items", sa.Column("machine", sa.Text, nullable=False, server_default=name))
    if op.get_bind().dialect.name == "postgresql":
        # PostgreSQL 11+ adds a column with a default without rewriting the
        # table; dropping the default then leaves the rows as they are
        op.alter_column("items", "machine", server_default=None)
        op.drop_constraint("uq_items_path_part", "items", type_="unique")
        op.create_unique_constraint("uq_items_machine_path_part", "items", ["machine", "path", "part"])
        op.add_column("watched_folders", sa.Column("machine", sa.Text, nullable=False, server_default=name))
        op.alter_column("watched_folders", "machine", server_default=None)
        op.drop_constraint("watched_folders_path_key", "watched_folders", type_="unique")
        op.create_unique_constraint("uq_watched_folders_machine_path", "watched_folders", ["machine", "path"])
        return
    op.create_table(
        "watched_folders_new",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("path", sa.Text, nullable=False),
        sa.Column("added_at", sa.DateTime, nullable=False),
        sa.Column("last_scanned_at", sa.DateTime, nullable=True),
        sa.Column("include", sa.Text, nullable=False, server_default=sa.text("'[]'")),
        sa.Column("exclude", sa.Text, nullable=False, server_default=sa.text("'[]'")),
        sa.Column("machine", sa.Text, nullable=False),
        sa.UniqueConstraint("machine", "path", name="uq_watched_folders_machine_path"),
    )
    op.execute(sa.text(
        "INSERT INTO watched_folders_new (id, path, added_at, last_scanned_at, include, exclude, machine) "
        "SELECT id, path, added_at, last_scanned_at, include, exclude, :name FROM watched_folders"
    ).bindparams(name=name))
    op.drop_table("watched_folders")
    op.rename_table("watched_folders_new", "watched_folders")


def downgrade() -> None:
    # fails while two machines hold the same path: there is no telling which to keep
    if op.get_bind().dialect.name == "postgresql":
        op.drop_constraint("uq_watched_folders_machine_path", "watched_folders", type_="unique")
        op.create_unique_constraint("watched_folders_path_key", "watched_folders", ["path"])
        op.drop_column("watched_folders", "machine")
        op.drop_constraint("uq_items_machine_path_part", "items", type_="unique")
        op.create_unique_constraint("uq_items_path_part", "items", ["path", "part"])
        op.drop_column("items", "machine")
        return
    op.execute("ALTER TABLE items DROP COLUMN machine")
    with op.batch_alter_table("watched_folders", recreate="always") as batch:
        batch.drop_constraint("uq_watched_folders_machine_path", type_="unique")
        batch.drop_column("machine")
        batch.create_unique_constraint("uq_watched_folders_path", ["path"])
