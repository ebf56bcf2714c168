"""PostgreSQL finds a phrase anywhere in a long text: such a text's words are also kept in pieces.

Revision ID: 0027
Revises: 0026
Create Date: 2026-11-27

A ``tsvector`` places no word past its 16,383rd (every later word shares
that last place) and keeps at most 256 places of a word, so PostgreSQL
found a phrase only where each of its words was still placed:
``"Filesystem Hierarchy Standard"`` found 12 of the real archive's 18 items
(SQLite 18; not the Debian Policy manual, which names it past its 16,383rd
word), ``"the package"`` nothing past a text's 256th ``the``.

``items_fts_pieces`` keeps, for each item whose document lost places (a
word at the last place or with 255 places or more, or a text cut at
100,000 characters or more), its title and people (piece 0, the
document's words of weight A) and its text in pieces of 1,000 words, each
with the next piece's first 50 (pieces 1, 2, ...), and where in the text
each starts (``text_at``, for a search's snippet): each piece's places are
all kept.  A search for a phrase reads those items' pieces instead of
their document (``search/phrases.py``).  The trigger that keeps
``items_fts`` keeps the pieces too (``items_fts_pieces_of``).

On the real archive (1,909 items, 17.9 MB of text) 67 items are pieced, 10.5
MB of their text, in 1,331 pieces: 15 MB with their index, beside the
store's 43.  SQLite: no change (FTS5 keeps every place).
"""

from __future__ import annotations

from alembic import op

revision = "0027"
down_revision = "0026"
branch_labels = None
depends_on = None

# the words of a piece, and of the next piece's start it also holds
PIECE_WORDS = 1000
OVERLAP = 50

_FUNCTIONS = (
    # whether a document lost places of its words (the text: what it was made of)
    """
CREATE FUNCTION items_fts_clamped(document tsvector, body text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(length(body) >= 100000 OR (length(body) >= 509 AND EXISTS (
    SELECT 1 FROM unnest(document) AS u
    WHERE cardinality(u.positions) >= 255 OR u.positions[cardinality(u.positions)] >= 16383)), false)
$$
""",
    # piece 0: the title and people; 1, 2, ...: the text's words a thousand at a
    # time (whitespace, and the CJK characters' U+0001, between them), with
    # the next piece's first fifty, and where in the text each starts (its
    # first character's place); nothing for a document that lost no place.
    # The words and the gaps between them are split once, each piece a slice:
    # 198 against 251 ms for a 450 KB text by a GROUP BY of every word's row
    # (the same pieces for the real archive's 67 long texts).
    f"""
CREATE FUNCTION items_fts_pieces_of(document tsvector, body text)
RETURNS TABLE (piece integer, words tsvector, text_at integer) LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  split text[];
  gaps integer[];
  at integer := 1;
  first integer;
BEGIN
  IF NOT items_fts_clamped(document, body) THEN
    RETURN;
  END IF;
  RETURN QUERY SELECT 0, ts_filter(document, '{{a}}'), CAST(NULL AS integer);
  split := regexp_split_to_array(body, '[[:space:]\\x01]+');
  gaps := ARRAY(SELECT length(m[1]) FROM regexp_matches(body, '([[:space:]\\x01]+)', 'g') AS m);
  FOR p IN 0 .. (cardinality(split) - 1) / {PIECE_WORDS} LOOP
    first := p * {PIECE_WORDS} + 1;
    RETURN QUERY SELECT p + 1,
      items_fts_document(NULL, array_to_string(split[first:first + {PIECE_WORDS + OVERLAP - 1}], ' '), NULL), at;
    at := at + (SELECT coalesce(sum(length(w)), 0) FROM unnest(split[first:first + {PIECE_WORDS - 1}]) AS w)
             + (SELECT coalesce(sum(g), 0) FROM unnest(gaps[first:first + {PIECE_WORDS - 1}]) AS g);
  END LOOP;
END $$
""",
)

# the pieced items: a phrase's search reads their document no more (search/phrases.py)
HEADS = "CREATE INDEX ix_items_fts_pieces_heads ON items_fts_pieces (rowid) WHERE piece = 0"

_TABLE = (
    """
CREATE TABLE items_fts_pieces (
  rowid BIGINT NOT NULL REFERENCES items (id) ON DELETE CASCADE,
  piece INTEGER NOT NULL,
  document tsvector NOT NULL,
  text_at INTEGER,
  PRIMARY KEY (rowid, piece)
)
""",
    "ALTER TABLE items_fts_pieces SET (toast_tuple_target = 8160)",  # as items_fts' (0021)
    "CREATE INDEX ix_items_fts_pieces_document ON items_fts_pieces USING gin (document)",
    HEADS,
)

_COLUMNS = ("title", "text", "people")


def _keep(pieces: bool) -> str:
    """items_fts_keep, the function of the triggers that keep items_fts (0022's, and the pieces)."""
    read = [f"coalesce(new.{c}_apart, new.{c})" for c in _COLUMNS]
    if not pieces:
        return f"""
CREATE OR REPLACE FUNCTION items_fts_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO items_fts (rowid, document) VALUES (new.id, items_fts_document({', '.join(read)}))
  ON CONFLICT (rowid) DO UPDATE SET document = excluded.document;
  RETURN NULL;
END $$
"""
    return f"""
CREATE OR REPLACE FUNCTION items_fts_keep() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  made tsvector := items_fts_document({', '.join(read)});
BEGIN
  INSERT INTO items_fts (rowid, document) VALUES (new.id, made)
  ON CONFLICT (rowid) DO UPDATE SET document = excluded.document;
  IF TG_OP = 'UPDATE' THEN
    DELETE FROM items_fts_pieces WHERE rowid = new.id;
  END IF;
  INSERT INTO items_fts_pieces (rowid, piece, document, text_at)
  SELECT new.id, p.piece, p.words, p.text_at FROM items_fts_pieces_of(made, {read[1]}) AS p;
  RETURN NULL;
END $$
"""


# every item's pieces, from its document as stored
_FILL = ("INSERT INTO items_fts_pieces (rowid, piece, document, text_at) "
         "SELECT f.rowid, p.piece, p.words, p.text_at FROM items_fts f JOIN items i ON i.id = f.rowid "
         "CROSS JOIN LATERAL items_fts_pieces_of(f.document, coalesce(i.text_apart, i.text)) AS p")


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for statement in (*_FUNCTIONS, *_TABLE, _keep(pieces=True), _FILL, "ANALYZE items_fts_pieces"):
        op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(_keep(pieces=False))
    op.execute("DROP TABLE items_fts_pieces")
    op.execute("DROP FUNCTION items_fts_pieces_of(tsvector, text)")
    op.execute("DROP FUNCTION items_fts_clamped(tsvector, text)")
