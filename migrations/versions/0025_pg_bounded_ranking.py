"""PostgreSQL ranks a common word's best matches without ranking every match.

Revision ID: 0025
Revises: 0024
Create Date: 2026-11-26

A search shows the best 20 rows, but ranked every match to find them: at
100,000 items of real text a common word's 28,528 matches took 90 ms, each
item's ``tsvector`` read from the table for its rank, which the GIN index
cannot spare.  ``ts_rank`` is bounded, though, and ``search`` divides it by
the log of the text's length, so an item of many words cannot beat a short
one past a certain length (``search/bounded.py``).  Two indexes let a page
read only the matches that can:

* ``ix_items_fts_heading``: a GIN index of the title and people alone (the
  document's words of weight A, ``ts_filter(document, '{a}')``), whose
  matches rank highest for a word; their best give the bound;
* ``ix_items_fts_length``: a btree on ``length(document)``, the distinct
  words the rank is divided by, so the matches short enough to beat the
  bound are read by a ``BitmapAnd`` of both indexes.

Neither changes what a search finds or how it ranks it.  SQLite: no change
(FTS5's bm25 reads its own index).
"""

from __future__ import annotations

from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None

HEADING = "CREATE INDEX ix_items_fts_heading ON items_fts USING gin (ts_filter(document, '{a}'))"
LENGTH = "CREATE INDEX ix_items_fts_length ON items_fts (length(document))"


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(HEADING)
    op.execute(LENGTH)
    op.execute("ANALYZE items_fts")  # the planner's estimate of the expressions, for the BitmapAnd


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("DROP INDEX ix_items_fts_length")
    op.execute("DROP INDEX ix_items_fts_heading")
