"""Drop ix_fingerprints_sha1: exact copies are found through clusters.sha1.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-21

Every fingerprinted item has a clusters row carrying the same SHA-1, indexed
(ix_clusters_sha1), and every lookup by SHA-1 goes there; the second index
only cost each insert one more random B-tree write (benchmarks/bench_store.py)
and about 60 bytes an item.
"""

from __future__ import annotations

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_fingerprints_sha1", table_name="fingerprints")


def downgrade() -> None:
    op.create_index("ix_fingerprints_sha1", "fingerprints", ["sha1"])
