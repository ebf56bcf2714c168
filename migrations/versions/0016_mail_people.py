"""A mail's sender and recipients, searchable: column ``items.people``.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-26

A mail's From, To and Cc were read and dropped: a search for a sender's name
or address found nothing, and nothing showed who wrote a message. They are
now kept in ``people`` (``from NAME <ADDRESS>; to ...; cc ...``, NULL for
anything but a mail) and searched with the title and text: a third column of
SQLite's ``items_fts`` (``people:alice``), weighted as the title on
PostgreSQL (``items_fts_document(title, body, people)``).

SQLite's search index is made again with it, and its tokenizer now also
folds the accents of letters with two (``Việt`` is found by ``viet``; FTS5's
``remove_diacritics 2``): 3.3 s on a store of 100,000 real items (PostgreSQL
rebuilds nothing: no item has people yet). Every file
holding a message is marked half written (``mtime`` NULL), which the next
``index`` or watcher rescan reads again under the same item ids, as 0015
did. Both backends.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

_COLUMNS = {"0015": ("title", "text"), "0016": ("title", "text", "people")}
_TOKENIZER = {"0015": "", "0016": ",\n    tokenize='unicode61 remove_diacritics 2'"}


def _sqlite_fts(at: str) -> list[str]:
    """items_fts and its triggers as revision ``at`` makes them (0002's, sqlite-utils style)."""
    columns = _COLUMNS[at]
    named = ", ".join(f"[{c}]" for c in columns)
    new, old = (", ".join(f"{row}.[{c}]" for c in columns) for row in ("new", "old"))
    return [
        f"CREATE VIRTUAL TABLE [items_fts] USING FTS5 (\n    {named},\n    content=[items]{_TOKENIZER[at]}\n)",
        f"CREATE TRIGGER [items_ai] AFTER INSERT ON [items] BEGIN\n"
        f"  INSERT INTO [items_fts] (rowid, {named}) VALUES (new.rowid, {new});\nEND",
        f"CREATE TRIGGER [items_ad] AFTER DELETE ON [items] BEGIN\n"
        f"  INSERT INTO [items_fts] ([items_fts], rowid, {named}) VALUES('delete', old.rowid, {old});\nEND",
        f"CREATE TRIGGER [items_au] AFTER UPDATE ON [items] BEGIN\n"
        f"  INSERT INTO [items_fts] ([items_fts], rowid, {named}) VALUES('delete', old.rowid, {old});\n"
        f"  INSERT INTO [items_fts] (rowid, {named}) VALUES (new.rowid, {new});\nEND",
        "INSERT INTO items_fts(items_fts) VALUES('rebuild')",
    ]


def _drop_sqlite_fts() -> None:
    for trigger in ("items_au", "items_ad", "items_ai"):
        op.execute(f"DROP TRIGGER [{trigger}]")
    op.execute("DROP TABLE [items_fts]")


# 0010's cleaning: <, > and & read as spaces (PostgreSQL's parser would take them for markup)
_CLEAN = "translate({}, '<>&', '   ')"


def _pg_document(people: bool) -> str:
    title = f"coalesce(left({_CLEAN.format('title')}, 10000), '')"
    if people:
        title = f"{title} || ' ' || coalesce(left({_CLEAN.format('people')}, 10000), '')"
    body = "coalesce(left({}, {{}}), '')".format(_CLEAN.format("body"))
    return f"""
CREATE OR REPLACE FUNCTION items_fts_document(title text, body text{', people text' if people else ''})
RETURNS tsvector LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN setweight(to_tsvector('simple', {title}), 'A')
      || setweight(to_tsvector('simple', {body.format(1000000)}), 'B');
EXCEPTION WHEN program_limit_exceeded THEN
  RETURN setweight(to_tsvector('simple', {title}), 'A')
      || setweight(to_tsvector('simple', {body.format(100000)}), 'B');
END $$
"""


def _pg_keep(people: bool) -> list[str]:
    args = "new.title, new.text" + (", new.people" if people else "")
    watched = "title, text" + (", people" if people else "")
    changed = " OR ".join(f"old.{c} IS DISTINCT FROM new.{c}" for c in watched.split(", "))
    return [
        f"""
CREATE OR REPLACE FUNCTION items_fts_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO items_fts (rowid, document) VALUES (new.id, items_fts_document({args}))
  ON CONFLICT (rowid) DO UPDATE SET document = excluded.document;
  RETURN NULL;
END $$
""",
        "DROP TRIGGER items_au ON items",
        f"CREATE TRIGGER items_au AFTER UPDATE OF {watched} ON items FOR EACH ROW\n"
        f"WHEN ({changed})\nEXECUTE FUNCTION items_fts_keep()",
    ]


_REREAD_MAIL = (
    "UPDATE items SET mtime = NULL WHERE part = '' AND (kind IN ('email', 'mailbox') OR EXISTS ("
    "SELECT 1 FROM items m WHERE m.machine = items.machine AND m.path = items.path AND m.part <> '' "
    "AND m.kind = 'email'))"
)


def upgrade() -> None:
    op.add_column("items", sa.Column("people", sa.Text, nullable=True))
    if op.get_bind().dialect.name == "postgresql":
        op.execute(_pg_document(people=True))
        for statement in _pg_keep(people=True):
            op.execute(statement)
        # the two-argument form stays, for SQL written against it (README): a text with no people
        op.execute("CREATE OR REPLACE FUNCTION items_fts_document(title text, body text) RETURNS tsvector "
                   "LANGUAGE sql IMMUTABLE AS $$ SELECT items_fts_document(title, body, NULL) $$")
    else:
        _drop_sqlite_fts()
        for statement in _sqlite_fts("0016"):
            op.execute(statement)
    op.execute(_REREAD_MAIL)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(_pg_document(people=False))
        for statement in _pg_keep(people=False):
            op.execute(statement)
        op.execute("DROP FUNCTION items_fts_document(text, text, text)")
        op.execute("UPDATE items_fts f SET document = items_fts_document(i.title, i.text) FROM items i "
                   "WHERE i.id = f.rowid AND i.people IS NOT NULL")
        op.drop_column("items", "people")
    else:
        _drop_sqlite_fts()
        op.execute("ALTER TABLE items DROP COLUMN people")  # SQLite 3.35 and later; nothing refers to it now
        for statement in _sqlite_fts("0015"):
            op.execute(statement)
