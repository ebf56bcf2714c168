"""PostgreSQL finds the words inside an address, a link or a path of a text, as SQLite does.

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-26

PostgreSQL's parser keeps ``doko@debian.org``, ``https://www.debian.org/doc/``,
``/usr/share/doc``, ``report.pdf`` and ``1.2.3`` as one word each, so a
search for ``debian``, ``share`` or ``report`` missed the texts that hold
them only so, where SQLite, which reads every punctuation mark as a space,
found them. Revision 0018 mended that for a mail's people; this one for
the text: after the text, its words joined by ``@``, ``.`` or ``/`` are
read again with ASCII punctuation as spaces (``doko debian org``), and an
address with ``@`` alone as one (``doko debian.org``, so ``debian.org``
finds it too). Only those words are read twice, not the whole text: a text
without them keeps the same ``document``. The texts that have them are
indexed again; SQLite: no change.
"""

from __future__ import annotations

from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None

_CLEAN = "translate({}, '<>&', '   ')"  # revision 0010
_PEOPLE = ("{clean} || ' ' || translate({clean}, '@', ' ') || ' ' || translate({clean}, '@.', '  ')"  # 0018
           .format(clean=_CLEAN.format("people")))
_MARKS = "!\"#$%'()*+,-./:;=?@[\\]^_`{|}~"  # ASCII's punctuation, but <>& (cleaned already)
_NOT_A_MARK = "[^[:space:]!-/:-@\\[-`{-~]"  # a letter or digit in any script, whatever the server's locale
# a word of the text with @ . or / between two letters or digits
_JOINED = f"[^[:space:]]*{_NOT_A_MARK}[@./]{_NOT_A_MARK}[^[:space:]]*"
_APART = (f"(SELECT coalesce(string_agg(translate(m[1], '{_MARKS.replace(chr(39), chr(39) * 2)}', '{' ' * len(_MARKS)}')"
          " || CASE WHEN strpos(m[1], '@') > 0 THEN ' ' || translate(m[1], '@', ' ') ELSE '' END, ' '), '')"
          f" FROM regexp_matches(words, '({_JOINED})', 'g') AS m)")


def _document(apart: bool) -> str:
    title = f"coalesce(left({_CLEAN.format('title')}, 10000), '')"
    people = f"coalesce(left({_PEOPLE}, 30000), '')"
    body = "coalesce(left({}, {{}}), '')".format(_CLEAN.format("body"))
    read = f"words || ' ' || {_APART}" if apart else "words"
    return f"""
CREATE OR REPLACE FUNCTION items_fts_document(title text, body text, people text)
RETURNS tsvector LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  head tsvector := setweight(to_tsvector('simple', {title} || ' ' || {people}), 'A');
  words text := {body.format(1000000)};
BEGIN
  RETURN head || setweight(to_tsvector('simple', {read}), 'B');
EXCEPTION WHEN program_limit_exceeded THEN
  words := {body.format(100000)};
  RETURN head || setweight(to_tsvector('simple', {read}), 'B');
END $$
"""


# only the texts with such a word: any other's document is the same
_REINDEX = ("UPDATE items_fts f SET document = items_fts_document(i.title, i.text, i.people) FROM items i"
            f" WHERE i.id = f.rowid AND i.text ~ '{_NOT_A_MARK}[@./]{_NOT_A_MARK}'")


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(_document(apart=True))
    op.execute(_REINDEX)


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(_document(apart=False))
    op.execute(_REINDEX)
