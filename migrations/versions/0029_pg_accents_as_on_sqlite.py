"""PostgreSQL finds a word whatever its accents, as SQLite does.

Revision ID: 0029
Revises: 0028
Create Date: 2026-11-27

SQLite's index reads a word without its diacritics (``unicode61
remove_diacritics 2``, revision 0016): ``Lotkolben`` finds ``Lötkolben``,
``Quan`` ``Quân``, ``resume`` ``résumé``. A PostgreSQL store's documents
were made with the ``simple`` configuration, which keeps them: the same
query found other items on the two backends (the last regular difference
benchmarks/agree_backends.py found between them on the real archive).

The store now has a text search configuration of its own, ``lifededup``:
``simple``'s, each of its token types read first by the ``unaccent``
dictionary (PostgreSQL's extension of that name, shipped with the server
and trusted: a role with CREATE on the database, such as its owner, may
create it), and every document and piece (revision 0027) is made again with
it, as revision 0028 made them. A query and a headline read words with it
too (``store/searchable.py``: ``TS_CONFIG``); a headline still shows the
text as written. The configuration is named without a schema, as the
store's functions name its tables: it is found where they are. The
dictionary is bound to it when it is made, so the extension may live in
any schema (a shared database's ``extensions``, say). On the real archive
(1,909 items, 17.9 MB of text) the upgrade takes 10 s (the same remake
with ``simple``, the downgrade, 8.8 s: unaccent costs little), and leaves
the old rows' space until ``VACUUM FULL`` as 0028 does (80.7 MB, then 51.7
against 51.4 at 0028). benchmarks/agree_backends.py's 300 queries there:
0, 0 and 2 differ (seeds 1-3), none by an accent.

Where the two still differ: unaccent also folds letters FTS5 keeps (``ß``
to ``ss``, ``æ`` to ``ae``, ``œ`` ``oe``, ``ø`` ``o``, ``ł`` ``l``, ``đ``,
``þ``, Greek with its tonos, fullwidth letters), so ``Strasse`` finds
``Straße`` on PostgreSQL alone; README, "Searching".

A role that may not create the extension (not the database's owner) stops
the upgrade with what to run, and as whom (``MissingExtension``): nothing is
changed. Down again, the documents are made with ``simple`` again and the
configuration dropped; the extension stays (another program in the same
database may use it). SQLite: no change.
"""

from __future__ import annotations

import shlex

from alembic import op

from lifededup.store.errors import MissingExtension, driver_error

revision = "0029"
down_revision = "0028"
branch_labels = None
depends_on = None

CONFIG = "lifededup"

# every token type the simple configuration maps (PostgreSQL 15's \dF+ simple:
# all of the default parser's but blank, tag, protocol and entity)
_TOKENS = ("asciihword, asciiword, email, file, float, host, hword, hword_asciipart, hword_numpart, hword_part, "
           "int, numhword, numword, sfloat, uint, url, url_path, version, word")

# ASCII's punctuation, in any locale (0028's frozen copy)
_SPACES = "regexp_replace({}, '[!-/:-@\\[-`{{-~]', ' ', 'g')"


def _document(config: str) -> str:
    """items_fts_document as revision 0028 made it, its words read with ``config``."""
    return f"""
CREATE OR REPLACE FUNCTION items_fts_document(title text, body text, people text)
RETURNS tsvector LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  head tsvector := setweight(to_tsvector('{config}',
    {_SPACES.format("coalesce(left(title, 10000), '') || ' ' || coalesce(left(people, 10000), '')")}), 'A');
BEGIN
  RETURN head || setweight(to_tsvector('{config}', {_SPACES.format("coalesce(left(body, 1000000), '')")}), 'B');
EXCEPTION WHEN program_limit_exceeded THEN
  RETURN head || setweight(to_tsvector('{config}', {_SPACES.format("coalesce(left(body, 100000), '')")}), 'B');
END $$
"""


# every document made again as the trigger makes it, and every item's pieces from it (0028's)
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

# PostgreSQL's SQLSTATEs: insufficient_privilege; feature_not_supported ("extension is not available")
_REFUSED, _NOT_THERE = "42501", "0A000"


def _create_unaccent() -> None:
    """The unaccent extension, unless the database has it; what to do
    (``MissingExtension``) where the role may not create it."""
    from sqlalchemy.exc import DBAPIError

    # asked first: a failed statement ends what the transaction may do
    [(database, role)] = op.get_bind().exec_driver_sql("SELECT current_database(), current_user").all()
    try:
        op.execute("CREATE EXTENSION IF NOT EXISTS unaccent")
    except DBAPIError as exc:
        state = getattr(driver_error(exc), "sqlstate", None)
        if state not in (_REFUSED, _NOT_THERE):
            raise
        raise MissingExtension(_missing(str(database), str(role), refused=state == _REFUSED)) from exc


def _missing(database: str, role: str, *, refused: bool) -> str:
    why = ("this lifededup upgrades the store to schema revision 0029, in which a word is found whatever its "
           "accents, as on SQLite, through PostgreSQL's unaccent extension")
    if not refused:
        return (f"{why}, which the server lacks (its contrib modules are not installed). Install them on the "
                "server (Debian's postgresql package holds them; elsewhere the postgresql-contrib package), "
                "then run the command again; nothing was changed")
    return (f"{why}, and the role {role} may not create it in the database {database}. Have its owner or a "
            f"superuser run psql -d {shlex.quote(database)} -c 'CREATE EXTENSION unaccent' (or grant the role "
            f"CREATE ON DATABASE {database}), then run the command again; nothing was changed")


def _configuration() -> list[str]:
    """The store's configuration: simple's, each token read without its accents first
    (``MissingExtension`` where the role may not use the schema the extension is in)."""
    [(schema, named, usable, role)] = op.get_bind().exec_driver_sql(
        "SELECT quote_ident(n.nspname), n.nspname, has_schema_privilege(n.oid, 'USAGE'), quote_ident(current_user) "
        "FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'unaccent'").all()
    if not usable:
        raise MissingExtension(
            f"this lifededup upgrades the store to schema revision 0029, in which a word is found whatever its "
            f"accents, as on SQLite, through PostgreSQL's unaccent extension, which is in the schema {named}, "
            f"and the role {role} may not use that schema. Have the database's owner or a superuser run "
            f"GRANT USAGE ON SCHEMA {schema} TO {role}, then run the command again; nothing was changed")
    return [f"CREATE TEXT SEARCH CONFIGURATION {CONFIG} (COPY = pg_catalog.simple)",
            f"ALTER TEXT SEARCH CONFIGURATION {CONFIG} ALTER MAPPING FOR {_TOKENS} "
            f"WITH {schema}.unaccent, pg_catalog.simple"]


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    _create_unaccent()
    for statement in (*_configuration(), _document(CONFIG), *_REMAKE):
        op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for statement in (_document("simple"), *_REMAKE, f"DROP TEXT SEARCH CONFIGURATION {CONFIG}"):
        op.execute(statement)
