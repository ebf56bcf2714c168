"""Read again the files holding a web page or an EPUB: navigation named in full is dropped.

Revision ID: 0032
Revises: 0031
Create Date: 2026-11-27

A page's furniture is recognised by the words of its classes and ids
(``lifededup.extract.html``): ``nav``, ``navbar``, ``sidebar``... but not
``navigation`` spelled out, as SQLAlchemy's documentation theme
(``docs-narrow-top-navigation``: Previous, Next, Up and the page's contents)
and WordPress themes (``main-navigation``) name it. In session 26's held-out
archive the menu was half the words of a short page and the start of every
snippet. It is dropped now.

The files holding a web page (HTML, MHTML, a Safari web archive, a page in
an archive) or an EPUB, whose chapters are pages, are marked half written
(``mtime`` NULL), as 0020 did: the next ``index`` or watcher rescan reads
them again under the same item ids, so a page and its next draft are read
alike. A mail's HTML body is read the new way when its file next changes
(an mbox is read whole again: not for a menu).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0032"
down_revision = "0031"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # one statement: a store of a million items may hold hundreds of thousands of pages
    op.get_bind().execute(sa.text(
        "UPDATE items SET mtime = NULL WHERE part = '' AND EXISTS (SELECT 1 FROM items p"
        " WHERE p.machine = items.machine AND p.path = items.path"
        " AND (p.kind = 'web page' OR p.mime_type = 'application/epub+zip'))"))


def downgrade() -> None:
    pass  # the files are read again once, which is harmless to undo by doing nothing
