"""Index the members of clusters: the items that are not their cluster's representative.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-25

A search counts the clusters of up to 10,000 matching items (``EXACT_ROWS``
in ``lifededup/search/results.py``), looking up each match's cluster.  A
representative's ``cluster_id`` is its own id, so only the other members
need a lookup that finds something; through ``clusters``' own key each
lookup read a page of the whole table (a word in 7,614 items of a million,
scattered: 6.2 ms, a third of the page), where this partial index of the
members alone, ``(item_id, cluster_id) WHERE cluster_id <> item_id``, is a
few pages that stay in the cache (3.4 ms).  Both backends.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

MEMBERS = "cluster_id <> item_id"


def upgrade() -> None:
    op.create_index("ix_clusters_members", "clusters", ["item_id", "cluster_id"],
                    sqlite_where=sa.text(MEMBERS), postgresql_where=sa.text(MEMBERS))


def downgrade() -> None:
    op.drop_index("ix_clusters_members", table_name="clusters")
