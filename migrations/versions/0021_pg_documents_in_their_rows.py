"""PostgreSQL keeps a text's search words in its row, where a search reads them, up to a page's size.

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-26

A search of a word in many items reads every row of ``items_fts``: it tests
each ``document`` against the words, and ranks each match, reading the
document again for ``ts_rank`` and for ``length``. PostgreSQL moves a
value out of its row to the table's TOAST table once the row passes 2 KB
(``toast_tuple_target``'s default); tsvectors of positions do not
compress, so they went there whole, and each of those reads became a
lookup in the TOAST table's index and its chunks. Revision 0019 made 8% of
the real-text documents pass 2 KB (the TOAST table 8.7 -> 20.8 MB at
100,000 items). The documents now stay in their rows up to 8,160 bytes (a
row as long as a page holds; the largest ``toast_tuple_target`` allows),
and those stored apart are written back into their rows: at 100,000 items
of real text the common word's and the phrase's pages 0.8x, at a million a
page's first statement 0.62x and 0.70x (benchmarks/README.md, "Session
15"). A longer document still goes to the TOAST table. SQLite: no change.
"""

from __future__ import annotations

from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None

# A row is stored apart once it passes TOAST_TUPLE_THRESHOLD (2,032 bytes
# with the default 8 KB page): a document of about 1,990 bytes. The rows of
# every document over this size are written again, those already in their
# row too, which costs them nothing but the writing.
_MAYBE_APART = 1900
# ``|| ''``: a new tsvector, the same words and positions (tsvector_concat
# copies the first), which PostgreSQL then stores as the table now says;
# the value as it is would be kept where it was.
_REWRITE = f"UPDATE items_fts SET document = document || ''::tsvector WHERE pg_column_size(document) > {_MAYBE_APART}"


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("ALTER TABLE items_fts SET (toast_tuple_target = 8160)")
    op.execute(_REWRITE)


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("ALTER TABLE items_fts RESET (toast_tuple_target)")
    op.execute(_REWRITE)
