"""PostgreSQL finds a mail by a part of an address in its people, as SQLite does.

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-26

PostgreSQL's parser keeps ``alex@example.org`` as one word (an e-mail
token), so a search for ``alex`` or ``example.org`` missed the mails of
that address where SQLite, which reads ``@`` and ``.`` as spaces, found
them. The people of a mail are now read three ways into its search words:
as written (``alex@example.org``), with ``@`` as a space (``alex``,
``example.org``) and with ``.`` too (``example``, ``org``). The mails are
indexed again; SQLite: no change. Only people: a text's body keeps one
reading (three would triple every search row).
"""

from __future__ import annotations

from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

_CLEAN = "translate({}, '<>&', '   ')"


def _document(people_read: str) -> str:
    title = f"coalesce(left({_CLEAN.format('title')}, 10000), '')"
    people = f"coalesce(left({people_read}, 30000), '')"
    body = "coalesce(left({}, {{}}), '')".format(_CLEAN.format("body"))
    return f"""
CREATE OR REPLACE FUNCTION items_fts_document(title text, body text, people text)
RETURNS tsvector LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN setweight(to_tsvector('simple', {title} || ' ' || {people}), 'A')
      || setweight(to_tsvector('simple', {body.format(1000000)}), 'B');
EXCEPTION WHEN program_limit_exceeded THEN
  RETURN setweight(to_tsvector('simple', {title} || ' ' || {people}), 'A')
      || setweight(to_tsvector('simple', {body.format(100000)}), 'B');
END $$
"""


# as written, with @ as a space, and with . too (each after 0010's cleaning)
_THREE_WAYS = ("{clean} || ' ' || translate({clean}, '@', ' ') || ' ' || translate({clean}, '@.', '  ')"
               .format(clean=_CLEAN.format("people")))
_ONE_WAY = "left(" + _CLEAN.format("people") + ", 10000)"
_REINDEX = ("UPDATE items_fts f SET document = items_fts_document(i.title, i.text, i.people) FROM items i"
            " WHERE i.id = f.rowid AND i.people IS NOT NULL")


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(_document(_THREE_WAYS))
    op.execute(_REINDEX)


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(_document(_ONE_WAY))
    op.execute(_REINDEX)
