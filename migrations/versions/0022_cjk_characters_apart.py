"""A word inside Chinese, Japanese or Korean text is found: each character is a word of the index.

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-26

FTS5's unicode61 tokenizer and PostgreSQL's parser read a run of CJK
characters -- a whole sentence, written without spaces -- as one word:
``東京`` never found ``私は東京に住んでいます``, only the whole run did. The
store now keeps, beside an item's title, text and people, the same with each
CJK character apart (``title_apart``, ``text_apart``, ``people_apart``: a
U+0001 between it and a letter or digit next to it; NULL when it has none,
``lifededup/store/searchable.py``), and both indexes read those where they
are not NULL; a query's CJK word is the phrase of its characters
(``search/syntax.py``).

SQLite's ``items_fts`` reads its text (for snippets, ``rebuild`` and its
integrity check) from the view ``items_searched`` instead of ``items``. Its
index is the same, so only its declaration changes, in place (SQLite's
``writable_schema``, as "Making Other Kinds Of Table Schema Changes" in its
ALTER TABLE page describes for a change that leaves the stored data as it
is): making it again would index every item anew. Then only the items holding
a CJK character are written again, their triggers index them anew (found by
GLOB on SQLite and a regular expression on PostgreSQL, each a pass that
reads the texts and writes nothing). Both backends.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from lifededup.migrations.declared import redeclare_fts
from lifededup.store.searchable import CJK_CHARS, apart

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None

_COLUMNS = ("title", "text", "people")
_APART = tuple(f"{c}_apart" for c in _COLUMNS)

# SQLite: what items_fts reads, and its triggers (0016's, sqlite-utils style)
_VIEW = ("CREATE VIEW items_searched AS SELECT id, "
         + ", ".join(f"coalesce({c}_apart, {c}) AS [{c}]" for c in _COLUMNS) + " FROM items")
_CONTENT = {"0021": "content=[items],", "0022": "content=[items_searched], content_rowid=[id],"}


def _sqlite_triggers(at: str) -> list[str]:
    named = ", ".join(f"[{c}]" for c in _COLUMNS)
    read = "coalesce({row}.[{c}_apart], {row}.[{c}])" if at == "0022" else "{row}.[{c}]"
    new, old = (", ".join(read.format(row=row, c=c) for c in _COLUMNS) for row in ("new", "old"))
    return [
        f"CREATE TRIGGER [items_ai] AFTER INSERT ON [items] BEGIN\n"
        f"  INSERT INTO [items_fts] (rowid, {named}) VALUES (new.rowid, {new});\nEND",
        f"CREATE TRIGGER [items_ad] AFTER DELETE ON [items] BEGIN\n"
        f"  INSERT INTO [items_fts] ([items_fts], rowid, {named}) VALUES('delete', old.rowid, {old});\nEND",
        f"CREATE TRIGGER [items_au] AFTER UPDATE ON [items] BEGIN\n"
        f"  INSERT INTO [items_fts] ([items_fts], rowid, {named}) VALUES('delete', old.rowid, {old});\n"
        f"  INSERT INTO [items_fts] (rowid, {named}) VALUES (new.rowid, {new});\nEND",
    ]


def _sqlite_content(at: str) -> None:
    """items_fts reads its columns as revision ``at`` says; its index data stays as it is."""
    was, now = _CONTENT["0022" if at == "0021" else "0021"], _CONTENT[at]
    redeclare_fts(op.get_bind(), was, now, "0016")


# PostgreSQL: the function that keeps items_fts (0016's) given what to read
def _pg_keep(at: str) -> list[str]:
    read = [f"coalesce(new.{c}_apart, new.{c})" if at == "0022" else f"new.{c}" for c in _COLUMNS]
    watched = _COLUMNS + (_APART if at == "0022" else ())
    changed = " OR ".join(f"old.{c} IS DISTINCT FROM new.{c}" for c in watched)
    return [
        f"""
CREATE OR REPLACE FUNCTION items_fts_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO items_fts (rowid, document) VALUES (new.id, items_fts_document({', '.join(read)}))
  ON CONFLICT (rowid) DO UPDATE SET document = excluded.document;
  RETURN NULL;
END $$
""",
        "DROP TRIGGER items_au ON items",
        f"CREATE TRIGGER items_au AFTER UPDATE OF {', '.join(watched)} ON items FOR EACH ROW\n"
        f"WHEN ({changed})\nEXECUTE FUNCTION items_fts_keep()",
    ]


def _holding_cjk(postgres: bool) -> str:
    """The ids of the items whose title, text or people hold a CJK character: one pass over them, in C."""
    test = f"{{}} ~ '[{CJK_CHARS}]'" if postgres else f"{{}} GLOB '*[{CJK_CHARS}]*'"
    return f"SELECT id FROM items WHERE {' OR '.join(test.format(c) for c in _COLUMNS)} ORDER BY id"


# items read and written at a time: their texts in memory, not every CJK item's
_BATCH = 500


def _write_apart() -> None:
    """Each item holding a CJK character, its columns apart (its trigger indexes them)."""
    conn = op.get_bind()
    ids = [int(r[0]) for r in conn.exec_driver_sql(_holding_cjk(conn.dialect.name == "postgresql"))]
    update = sa.text(f"UPDATE items SET {', '.join(f'{c} = :{c}' for c in _APART)} WHERE id = :id")
    for start in range(0, len(ids), _BATCH):
        listed = ", ".join(str(i) for i in ids[start:start + _BATCH])
        rows = conn.exec_driver_sql(f"SELECT id, {', '.join(_COLUMNS)} FROM items WHERE id IN ({listed})").fetchall()
        conn.execute(update, [{"id": row[0], **{c: apart(v) for c, v in zip(_APART, row[1:])}} for row in rows])


def upgrade() -> None:
    for column in _APART:
        op.add_column("items", sa.Column(column, sa.Text, nullable=True))
    if op.get_bind().dialect.name == "postgresql":
        for statement in _pg_keep("0022"):
            op.execute(statement)
    else:
        for trigger in ("items_au", "items_ad", "items_ai"):
            op.execute(f"DROP TRIGGER [{trigger}]")
        op.execute(_VIEW)
        _sqlite_content("0022")
        for statement in _sqlite_triggers("0022"):
            op.execute(statement)
    _write_apart()


def downgrade() -> None:
    postgres = op.get_bind().dialect.name == "postgresql"
    # the items read apart, indexed again as they are: the triggers see their columns emptied
    op.execute(f"UPDATE items SET {', '.join(f'{c} = NULL' for c in _APART)} "
               f"WHERE {' OR '.join(f'{c} IS NOT NULL' for c in _APART)}")
    if postgres:
        for statement in _pg_keep("0021"):
            op.execute(statement)
    else:
        for trigger in ("items_au", "items_ad", "items_ai"):
            op.execute(f"DROP TRIGGER [{trigger}]")
        _sqlite_content("0021")
        op.execute("DROP VIEW items_searched")
        for statement in _sqlite_triggers("0021"):
            op.execute(statement)
    for column in _APART:
        op.drop_column("items", column)
