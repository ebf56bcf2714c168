"""Read again the files holding an SVG drawing, now read for its words.

Revision ID: 0031
Revises: 0030
Create Date: 2026-11-27

An SVG drawing was read as plain text: its markup, namespaces and path data
were its words. On the Debian handbook's images (session 26's held-out
archive) the numbered callout icons, whose digits are outlines, were near
copies of each other "26% of words apart", and a search for ``inkscape``
found every drawing. A drawing is now its ``<text>``, flowed text, titles
and descriptions (``lifededup.extract.svg``); one of shapes alone is
``no-text``.

The files holding a drawing -- an ``.svg``, ``.svgz`` or ``.svg.gz`` file,
or an archive or mail with such a part -- are marked half written (``mtime``
NULL), as 0020 and 0030 did: the next ``index`` or watcher rescan reads them
again under the same item ids. A drawing saved under a name that does not
say so is read the new way when it next changes.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0031"
down_revision = "0030"
branch_labels = None
depends_on = None

_DRAWING = "(lower({column}) LIKE '%.svg' OR lower({column}) LIKE '%.svgz' OR lower({column}) LIKE '%.svg.gz')"


def upgrade() -> None:
    conn = op.get_bind()
    conn.execute(sa.text(f"UPDATE items SET mtime = NULL WHERE part = '' AND {_DRAWING.format(column='path')}"))
    # a file holding a drawing as a part (a zip's member, a mail's attachment), its whole-file row
    holders = conn.execute(sa.text(f"SELECT DISTINCT machine, path FROM items WHERE part != ''"
                                   f" AND {_DRAWING.format(column='part')}")).all()
    if holders:
        conn.execute(sa.text("UPDATE items SET mtime = NULL WHERE part = '' AND machine = :machine AND path = :path"),
                     [{"machine": str(machine), "path": str(path)} for machine, path in holders])


def downgrade() -> None:
    pass  # the files are read again once, which is harmless to undo by doing nothing
