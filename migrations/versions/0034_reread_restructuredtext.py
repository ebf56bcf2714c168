"""Read again the reStructuredText files: their markup is no words of theirs now.

Revision ID: 0034
Revises: 0033
Create Date: 2026-11-27

A ``.rst`` file was read as plain text, its markup among its words: the roles
of interpreted text (``:meth:``, ``:class:``), directives' names and options
(``.. sourcecode:: pycon+sql``), comments and link targets -- none of which
its built page shows. On session 26's held-out archive a Sphinx project's
source and its own built ``.html`` were up to a fifth of their words apart
for that alone, and split between clusters. ``lifededup.extract.rst`` reads a
source as its page shows it.

The files named as reStructuredText (``.rst``, ``.rest``, a Sphinx build's
``_sources/NAME.rst.txt``), alone or inside an archive, are marked half
written (``mtime`` NULL), as 0020 and 0032 did, so that the next ``index`` or
watcher rescan reads them again under the same item ids: a source and its
next draft are read alike.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0034"
down_revision = "0033"
branch_labels = None
depends_on = None

_NAMED_RST = " OR ".join(f"lower({column}) LIKE '%{suffix}'" for column in ("p.path", "p.part")
                         for suffix in (".rst", ".rest", ".rst.txt"))


def upgrade() -> None:
    # one statement, as 0032: the file's whole-file row, for a source inside an archive too
    op.get_bind().execute(sa.text(
        "UPDATE items SET mtime = NULL WHERE part = '' AND EXISTS (SELECT 1 FROM items p"
        f" WHERE p.machine = items.machine AND p.path = items.path AND ({_NAMED_RST}))"))


def downgrade() -> None:
    pass  # the files are read again once, which is harmless to undo by doing nothing
