"""Core tables: items, fingerprints, clusters, params.

Revision ID: 0001
Revises:
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

FEATURES = ("f1", "f2", "f3", "f4", "f5", "f6")

# SQLite's INTEGER is 64 bits (and INTEGER PRIMARY KEY is the rowid);
# PostgreSQL's is 32, too few for the 64-bit features: BIGINT there.
Int = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    false = sa.text("0") if op.get_bind().dialect.name == "sqlite" else sa.false()
    op.create_table(
        "items",
        sa.Column("id", Int, primary_key=True),
        sa.Column("path", sa.Text, nullable=False),
        sa.Column("part", sa.Text, nullable=False, server_default=sa.text("''")),
        sa.Column("parent_id", Int, sa.ForeignKey("items.id", ondelete="CASCADE"), nullable=True),
        sa.Column("kind", sa.String, nullable=False, server_default=sa.text("'document'")),
        sa.Column("mime_type", sa.String, nullable=True),
        sa.Column("size", Int, nullable=True),
        sa.Column("mtime", sa.Float, nullable=True),
        sa.Column("doc_date", sa.String, nullable=True),
        sa.Column("title", sa.Text, nullable=True),
        sa.Column("raw_sha1", sa.String(40), nullable=True),
        sa.Column("status", sa.String, nullable=False, server_default=sa.text("'ok'")),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("indexed_at", sa.DateTime, nullable=False),
        sa.Column("text", sa.Text, nullable=True),
        sa.UniqueConstraint("path", "part", name="uq_items_path_part"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_items_parent_id", "items", ["parent_id"])
    op.create_index("ix_items_raw_sha1", "items", ["raw_sha1"])
    op.create_index("ix_items_status", "items", ["status"])

    op.create_table(
        "fingerprints",
        sa.Column("item_id", Int, sa.ForeignKey("items.id", ondelete="CASCADE"),
                  primary_key=True, autoincrement=False),
        sa.Column("sha1", sa.String(40), nullable=False),
        *(sa.Column(f, Int, nullable=True) for f in FEATURES),
        sa.Column("words", Int, nullable=False, server_default=sa.text("0")),
        sa.Column("shingles", Int, nullable=False, server_default=sa.text("0")),
        sa.Column("is_representative", sa.Boolean, nullable=False, server_default=false),
    )
    op.create_index("ix_fingerprints_sha1", "fingerprints", ["sha1"])
    for f in FEATURES:
        op.create_index(f"ix_fingerprints_{f}", "fingerprints", [f, "is_representative"])

    op.create_table(
        "clusters",
        sa.Column("item_id", Int, sa.ForeignKey("items.id", ondelete="CASCADE"),
                  primary_key=True, autoincrement=False),
        sa.Column("sha1", sa.String(40), nullable=False),
        sa.Column("cluster_id", Int, nullable=False),
    )
    op.create_index("ix_clusters_cluster_id", "clusters", ["cluster_id"])
    op.create_index("ix_clusters_sha1", "clusters", ["sha1"])

    op.create_table(
        "params",
        sa.Column("name", sa.String, primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )


def downgrade() -> None:
    for table in ("params", "clusters", "fingerprints", "items"):
        op.drop_table(table)
