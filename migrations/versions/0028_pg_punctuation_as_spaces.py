"""PostgreSQL reads every ASCII punctuation mark as a space, as SQLite does.

Revision ID: 0028
Revises: 0027
Create Date: 2026-11-27

PostgreSQL's parser keeps ``setup.py``, ``doko@debian.org``, ``4.5``,
``/usr/share/doc`` and ``bug-fix`` as words of their own (with a
hyphenated word's parts after it), where FTS5 reads every punctuation mark
as a space. Revisions 0018 and 0019 read such words again after the text
(``setup py``), so a word alone was found; but a phrase that runs into one
was not (``"setup py file"``, ``"the setup teardown mechanism"``, ``"a
bug"`` in ``a bug-fix``), ``bug-fix`` missed ``bug fix``, and ``4.5``
found ``4.5`` alone. Random queries taken from the real archive's own text
(1,909 items) found other items on the two backends in 30 to 34 of 300
(benchmarks/agree_backends.py, besides the code FTS5 refused).

A document now reads the title, people and text with each ASCII punctuation
mark as a space (``regexp_replace``; ``<``, ``>`` and ``&`` among them, as
revision 0010 read them), and a query too (``search/query.py``): the same
queries find the same items on both backends but for a word with an
accent. Every document and every item's pieces (revision 0027) are made
again: 7 s for the real archive, 4 minutes for a million items,
after which ``items_fts`` holds the old rows' space too until ``VACUUM FULL
items_fts`` (which cannot run inside the revision's transaction) gives it
back. SQLite: no change.
"""

from __future__ import annotations

from alembic import op

revision = "0028"
down_revision = "0027"
branch_labels = None
depends_on = None

# ASCII's punctuation, in any locale (a character class of byte ranges)
_SPACES = "regexp_replace({}, '[!-/:-@\\[-`{{-~]', ' ', 'g')"

_DOCUMENT = f"""
CREATE OR REPLACE FUNCTION items_fts_document(title text, body text, people text)
RETURNS tsvector LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  head tsvector := setweight(to_tsvector('simple',
    {_SPACES.format("coalesce(left(title, 10000), '') || ' ' || coalesce(left(people, 10000), '')")}), 'A');
BEGIN
  RETURN head || setweight(to_tsvector('simple', {_SPACES.format("coalesce(left(body, 1000000), '')")}), 'B');
EXCEPTION WHEN program_limit_exceeded THEN
  RETURN head || setweight(to_tsvector('simple', {_SPACES.format("coalesce(left(body, 100000), '')")}), 'B');
END $$
"""

# revision 0019's, for the downgrade (0018's people three ways, 0019's joined words read again after the text)
_BEFORE = r"""
CREATE OR REPLACE FUNCTION items_fts_document(title text, body text, people text)
RETURNS tsvector LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  head tsvector := setweight(to_tsvector('simple', coalesce(left(translate(title, '<>&', '   '), 10000), '') || ' ' || coalesce(left(translate(people, '<>&', '   ') || ' ' || translate(translate(people, '<>&', '   '), '@', ' ') || ' ' || translate(translate(people, '<>&', '   '), '@.', '  '), 30000), '')), 'A');
  words text := coalesce(left(translate(body, '<>&', '   '), 1000000), '');
BEGIN
  RETURN head || setweight(to_tsvector('simple', words || ' ' || (SELECT coalesce(string_agg(translate(m[1], '!"#$%''()*+,-./:;=?@[\]^_`{|}~', '                             ') || CASE WHEN strpos(m[1], '@') > 0 THEN ' ' || translate(m[1], '@', ' ') ELSE '' END, ' '), '') FROM regexp_matches(words, '([^[:space:]]*[^[:space:]!-/:-@\[-`{-~][@./][^[:space:]!-/:-@\[-`{-~][^[:space:]]*)', 'g') AS m)), 'B');
EXCEPTION WHEN program_limit_exceeded THEN
  words := coalesce(left(translate(body, '<>&', '   '), 100000), '');
  RETURN head || setweight(to_tsvector('simple', words || ' ' || (SELECT coalesce(string_agg(translate(m[1], '!"#$%''()*+,-./:;=?@[\]^_`{|}~', '                             ') || CASE WHEN strpos(m[1], '@') > 0 THEN ' ' || translate(m[1], '@', ' ') ELSE '' END, ' '), '') FROM regexp_matches(words, '([^[:space:]]*[^[:space:]!-/:-@\[-`{-~][@./][^[:space:]!-/:-@\[-`{-~][^[:space:]]*)', 'g') AS m)), 'B');
END $$
"""

# every document made again as the trigger makes it (revision 0022: each *_apart where it is not NULL),
# and every item's pieces (revision 0027) from it
_REMAKE = (
    "UPDATE items_fts f SET document = items_fts_document(coalesce(i.title_apart, i.title), "
    "coalesce(i.text_apart, i.text), coalesce(i.people_apart, i.people)) FROM items i WHERE i.id = f.rowid",
    "DELETE FROM items_fts_pieces",
    "INSERT INTO items_fts_pieces (rowid, piece, document, text_at) "
    "SELECT f.rowid, p.piece, p.words, p.text_at FROM items_fts f JOIN items i ON i.id = f.rowid "
    "CROSS JOIN LATERAL items_fts_pieces_of(f.document, coalesce(i.text_apart, i.text)) AS p",
    "ANALYZE items_fts",
    "ANALYZE items_fts_pieces",
)


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for statement in (_DOCUMENT, *_REMAKE):
        op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for statement in (_BEFORE, *_REMAKE):
        op.execute(statement)
