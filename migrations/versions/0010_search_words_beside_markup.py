"""PostgreSQL's search index reads every word of a text, markup-like ones too.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-23

PostgreSQL's default text-search parser reads ``<b>`` or ``a<b && c>d`` as
tags and entities and drops them, and with them whatever it takes for a tag:
the words of a plain-text note about HTML (``<script>alert</script>``), of a
mail quoting code, of a formula, were never indexed.  The text lifededup
stores is already extracted (no markup left to skip), so the words are read
with ``<``, ``>`` and ``&`` as spaces, as SQLite's FTS5 tokenizer reads them.
Items whose title or text holds one of them are indexed again.  SQLite: no
change.
"""

from __future__ import annotations

from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def _document_function(clean: str) -> str:
    title = f"coalesce(left({clean.format('title')}, 10000), '')"
    return f"""
CREATE OR REPLACE FUNCTION items_fts_document(title text, body text) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN setweight(to_tsvector('simple', {title}), 'A')
      || setweight(to_tsvector('simple', coalesce(left({clean.format('body')}, 1000000), '')), 'B');
EXCEPTION WHEN program_limit_exceeded THEN
  RETURN setweight(to_tsvector('simple', {title}), 'A')
      || setweight(to_tsvector('simple', coalesce(left({clean.format('body')}, 100000), '')), 'B');
END $$
"""


_REINDEX = ("UPDATE items_fts f SET document = items_fts_document(i.title, i.text) FROM items i"
            " WHERE i.id = f.rowid AND coalesce(i.title, '') || ' ' || coalesce(i.text, '') ~ '[<>&]'")


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(_document_function("translate({}, '<>&', '   ')"))
    op.execute(_REINDEX)


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(_document_function("{}"))
    op.execute(_REINDEX)
