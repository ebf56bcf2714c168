"""Full-text search (items_fts, sqlite-utils style), the collapse views, and
watched folders.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21

items_fts follows sqlite-utils' ``enable_fts(create_triggers=True)`` exactly
(``content=[items]``, triggers items_ai / items_ad / items_au), which is what
Datasette looks for to offer search on ``items``.  The rebuild indexes the text
of items stored before this revision.

On PostgreSQL the same names hold the server's own full-text search:
``items_fts (rowid, document)``, one row per item with its title (weight A)
and text (weight B) as a ``tsvector`` of the ``simple`` configuration
(lower-cased words, no stemming: FTS5's unicode61 tokenizer), GIN-indexed,
kept by a trigger on ``items``.  A tsvector holds at most 1 MB, so the first
million characters of a text are searchable (fewer if they would not fit).
The collapse view picks each cluster's earliest item with DISTINCT ON, as
PostgreSQL has no bare columns beside an aggregate.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

FTS = """
CREATE VIRTUAL TABLE [items_fts] USING FTS5 (
    [title], [text],
    content=[items]
)
"""

TRIGGERS = (
    """
CREATE TRIGGER [items_ai] AFTER INSERT ON [items] BEGIN
  INSERT INTO [items_fts] (rowid, [title], [text]) VALUES (new.rowid, new.[title], new.[text]);
END
""",
    """
CREATE TRIGGER [items_ad] AFTER DELETE ON [items] BEGIN
  INSERT INTO [items_fts] ([items_fts], rowid, [title], [text]) VALUES('delete', old.rowid, old.[title], old.[text]);
END
""",
    """
CREATE TRIGGER [items_au] AFTER UPDATE ON [items] BEGIN
  INSERT INTO [items_fts] ([items_fts], rowid, [title], [text]) VALUES('delete', old.rowid, old.[title], old.[text]);
  INSERT INTO [items_fts] (rowid, [title], [text]) VALUES (new.rowid, new.[title], new.[text]);
END
""",
)

VIEWS = (
    # How many items each cluster holds, and how many a collapsed list hides.
    """
CREATE VIEW cluster_sizes AS
SELECT cluster_id, count(*) AS members, count(*) - 1 AS hidden
FROM clusters
GROUP BY cluster_id
""",
    # The item that stands for each cluster (seeds/000 section 3.2).
    """
CREATE VIEW representatives AS
SELECT i.id, i.path, i.part, i.kind, i.title, s.members, s.hidden
FROM cluster_sizes s
JOIN items i ON i.id = s.cluster_id
""",
    # Paper step 9 applied to the whole store: one row per cluster (the
    # earliest item shown), plus every item without a cluster (no text).
    """
CREATE VIEW collapsed_items AS
SELECT min(i.id) AS id, i.path, i.part, i.kind, i.title,
       coalesce(c.cluster_id, i.id) AS cluster_id, count(*) - 1 AS hidden
FROM items i
LEFT JOIN clusters c ON c.item_id = i.id
GROUP BY coalesce(c.cluster_id, i.id)
""",
)


PG_FTS = (
    """
CREATE FUNCTION items_fts_document(title text, body text) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN setweight(to_tsvector('simple', coalesce(left(title, 10000), '')), 'A')
      || setweight(to_tsvector('simple', coalesce(left(body, 1000000), '')), 'B');
EXCEPTION WHEN program_limit_exceeded THEN
  RETURN setweight(to_tsvector('simple', coalesce(left(title, 10000), '')), 'A')
      || setweight(to_tsvector('simple', coalesce(left(body, 100000), '')), 'B');
END $$
""",
    """
CREATE TABLE items_fts (
  rowid BIGINT PRIMARY KEY REFERENCES items (id) ON DELETE CASCADE,
  document tsvector NOT NULL
)
""",
    "CREATE INDEX ix_items_fts_document ON items_fts USING gin (document)",
    """
CREATE FUNCTION items_fts_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO items_fts (rowid, document) VALUES (new.id, items_fts_document(new.title, new.text))
  ON CONFLICT (rowid) DO UPDATE SET document = excluded.document;
  RETURN NULL;
END $$
""",
    "CREATE TRIGGER items_ai AFTER INSERT ON items FOR EACH ROW EXECUTE FUNCTION items_fts_keep()",
    """
CREATE TRIGGER items_au AFTER UPDATE OF title, text ON items FOR EACH ROW
WHEN (old.title IS DISTINCT FROM new.title OR old.text IS DISTINCT FROM new.text)
EXECUTE FUNCTION items_fts_keep()
""",
    "INSERT INTO items_fts (rowid, document) SELECT id, items_fts_document(title, text) FROM items",
)

PG_COLLAPSED = """
CREATE VIEW collapsed_items AS
SELECT DISTINCT ON (coalesce(c.cluster_id, i.id))
       i.id, i.path, i.part, i.kind, i.title, coalesce(c.cluster_id, i.id) AS cluster_id,
       count(*) OVER (PARTITION BY coalesce(c.cluster_id, i.id)) - 1 AS hidden
FROM items i
LEFT JOIN clusters c ON c.item_id = i.id
ORDER BY coalesce(c.cluster_id, i.id), i.id
"""


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for statement in PG_FTS:
            op.execute(statement)
        for view in (*VIEWS[:2], PG_COLLAPSED):
            op.execute(view)
    else:
        op.execute(FTS)
        for trigger in TRIGGERS:
            op.execute(trigger)
        op.execute("INSERT INTO items_fts(items_fts) VALUES('rebuild')")
        for view in VIEWS:
            op.execute(view)
    op.create_table(
        "watched_folders",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("path", sa.Text, nullable=False, unique=True),
        sa.Column("added_at", sa.DateTime, nullable=False),
        sa.Column("last_scanned_at", sa.DateTime, nullable=True),
    )


def downgrade() -> None:
    op.drop_table("watched_folders")
    for view in ("collapsed_items", "representatives", "cluster_sizes"):
        op.execute(f"DROP VIEW {view}")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TABLE items_fts")
        for trigger in ("items_au", "items_ai"):
            op.execute(f"DROP TRIGGER {trigger} ON items")
        op.execute("DROP FUNCTION items_fts_keep()")
        op.execute("DROP FUNCTION items_fts_document(text, text)")
        return
    for trigger in ("items_au", "items_ad", "items_ai"):
        op.execute(f"DROP TRIGGER [{trigger}]")
    op.execute("DROP TABLE [items_fts]")
