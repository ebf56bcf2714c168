"""Which computer each machine name is: table ``machines``.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-25

Items and watched folders belong to a machine name (revision 0009), and a
machine moves and removes only its own items.  Two computers of one name
(two Raspberry Pis called ``raspberrypi``, cloned VMs) indexing the same
path into one shared store took each other's files for files deleted from
their disks, and removed them.  Now the first computer to write under a name
claims it (``name``, ``identity``: a keyed hash of its machine ID,
``claimed_at``), and another is refused the name on a shared store until it
says it replaces the first (``lifededup machines claim``).  The names already
in a store are claimed by the first computer that writes under each after
this revision.  Both backends.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "machines",
        sa.Column("name", sa.Text, primary_key=True),
        sa.Column("identity", sa.Text, nullable=False),
        sa.Column("claimed_at", sa.DateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("machines")
