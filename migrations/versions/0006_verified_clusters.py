"""The verified second stage: each item's sketch, its representatives'
sketch values as a lookup, and each member's similarity to its representative.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23

``fingerprints.sketch`` keeps the 84 Rabin minima the six features are hashed
from; ``sketch_keys`` files every conservative representative under each of
its sketch values; ``clusters.resemblance`` and ``clusters.word_distance`` say
how close each member is to its representative.  Existing items get their
sketch here, from their stored text and the store's own fingerprint params,
and representatives their keys; their clusters are kept as they were (the
similarity columns stay NULL) until ``lifededup recluster`` forms them under
the verified rule.

The 13 detector tables of revision 0003 go: nothing ever filled them (no
write path kept them current), and the store's own clustering now keeps the
candidate lookup of its rule (``sketch_keys``); ``lifededup eval`` measures
the other detectors in memory.
"""

from __future__ import annotations

import json

import numpy as np
import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

_BATCH = 256
# 64-bit sketch values: BIGINT on PostgreSQL (SQLite's INTEGER is 64 bits)
Int = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
# revision 0003's detectors, as table stems
_DETECTORS = ("shingles", "bytes8", "imatch", "imatch_lex", "minhash", "simhash")


def _fill_sketches(conn: sa.Connection) -> None:
    from lifededup.config import FingerprintParams
    from lifededup.fingerprint import fingerprint_many

    raw = conn.exec_driver_sql("SELECT value FROM params WHERE name = 'fingerprint'").scalar()
    if raw is None:
        return
    params = FingerprintParams.from_dict(json.loads(raw)["params"])
    if params.filters.idf is not None:
        return  # IDF needs the collection's statistics: recluster after re-indexing
    rows = conn.exec_driver_sql(
        "SELECT f.item_id, i.text, f.is_representative FROM fingerprints f JOIN items i ON i.id = f.item_id"
        " WHERE f.f1 IS NOT NULL ORDER BY f.item_id"
    ).all()
    for start in range(0, len(rows), _BATCH):
        batch = rows[start : start + _BATCH]
        made = fingerprint_many([str(r[1] or "") for r in batch], params)
        for row, fingerprint in zip(batch, made):
            if fingerprint.sketch is None:
                continue
            conn.execute(sa.text("UPDATE fingerprints SET sketch = :sketch WHERE item_id = :item_id"),
                         {"sketch": fingerprint.sketch, "item_id": int(row[0])})
            if row[2]:
                values = np.frombuffer(fingerprint.sketch, dtype=">i8").tolist()
                conn.execute(sa.text("INSERT INTO sketch_keys (value, item_id) VALUES (:value, :item_id)"
                                     " ON CONFLICT DO NOTHING"),
                             [{"value": int(v), "item_id": int(row[0])} for v in values])


def upgrade() -> None:
    # plain ALTER TABLE ADD COLUMN: SQLite adds a nullable column in place
    op.add_column("fingerprints", sa.Column("sketch", sa.LargeBinary(), nullable=True))
    op.add_column("clusters", sa.Column("resemblance", sa.Float(), nullable=True))
    op.add_column("clusters", sa.Column("word_distance", sa.Float(), nullable=True))
    op.create_table(
        "sketch_keys",
        sa.Column("value", Int, primary_key=True, autoincrement=False),
        sa.Column("item_id", Int, primary_key=True, autoincrement=False),
        sqlite_with_rowid=False,
    )
    is_not = "IS NOT" if op.get_bind().dialect.name == "sqlite" else "IS DISTINCT FROM"
    # representatives and exact copies are at distance 0 already
    op.execute("UPDATE clusters SET resemblance = 1.0, word_distance = 0.0 WHERE sha1 IN"
               " (SELECT r.sha1 FROM clusters r WHERE r.item_id = clusters.cluster_id)"
               f" AND (SELECT value FROM params WHERE name = 'cluster_method') {is_not} '\"transitive\"'")
    _fill_sketches(op.get_bind())
    for name in _DETECTORS:
        op.drop_index(f"ix_detect_{name}_keys_item_id", f"detect_{name}_keys")
        op.drop_table(f"detect_{name}_keys")
        op.drop_table(f"detect_{name}")
    op.drop_table("detectors")


def downgrade() -> None:
    op.create_table("detectors", sa.Column("name", sa.String, primary_key=True),
                    sa.Column("spec", sa.Text, nullable=False))
    for name in _DETECTORS:
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
    op.drop_table("sketch_keys")
    op.drop_column("clusters", "word_distance")
    op.drop_column("clusters", "resemblance")
    op.drop_column("fingerprints", "sketch")
