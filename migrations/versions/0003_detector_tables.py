"""Detector tables: each near-duplicate detector's signatures and index keys
in tables of its own, so that several can be kept in one store and compared.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-21

For each detector (``lifededup.detect``): ``detect_<name>`` holds an item's
SHA-1 and encoded sketch; ``detect_<name>_keys`` its index keys, primary key
``(slot, value, item_id)`` (WITHOUT ROWID: the key is the row, as small as a
store that cares about size wants) so that a candidate lookup is one index
seek per key.  ``detectors`` records the spec each table was built with.
Rows go when their item goes (ON DELETE CASCADE).  The tables start empty: a
detector is filled when it is first used.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

# The detectors of lifededup.detect when this revision was written, as table
# stems ("imatch-lex" -> "detect_imatch_lex").
DETECTORS = ("shingles", "bytes8", "imatch", "imatch_lex", "minhash", "simhash")


def upgrade() -> None:
    op.create_table(
        "detectors",
        sa.Column("name", sa.String, primary_key=True),
        sa.Column("spec", sa.Text, nullable=False),
    )
    for name in DETECTORS:
        stem = f"detect_{name}"
        op.create_table(
            stem,
            sa.Column("item_id", sa.Integer, sa.ForeignKey("items.id", ondelete="CASCADE"),
                      primary_key=True, autoincrement=False),
            sa.Column("sha1", sa.String(40), nullable=False),
            sa.Column("sketch", sa.LargeBinary, nullable=True),
        )
        op.create_table(
            f"{stem}_keys",
            sa.Column("slot", sa.Integer, primary_key=True, autoincrement=False),
            sa.Column("value", sa.Integer, primary_key=True, autoincrement=False),
            sa.Column("item_id", sa.Integer, sa.ForeignKey("items.id", ondelete="CASCADE"),
                      primary_key=True, autoincrement=False),
            sqlite_with_rowid=False,
        )
        op.create_index(f"ix_{stem}_keys_item_id", f"{stem}_keys", ["item_id"])


def downgrade() -> None:
    for name in DETECTORS:
        op.drop_index(f"ix_detect_{name}_keys_item_id", f"detect_{name}_keys")
        op.drop_table(f"detect_{name}_keys")
        op.drop_table(f"detect_{name}")
    op.drop_table("detectors")
