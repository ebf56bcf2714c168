"""Read again the Markdown, reStructuredText and Org files: Markdown's markup is no words of its now, and each
is titled as its page is.

Revision ID: 0044
Revises: 0043
Create Date: 2026-11-28

A Markdown file was read as plain text: its link targets, reference
definitions, pictures' paths and tags' attributes were words of its, which
the page made of it never shows, and its title was its first line (``---``
of its front matter, a row of badges).  ``lifededup.extract.markdown`` reads
it as cmark-gfm renders it, titled by its front matter or its heading: on
Debian's nodejs-doc, 58 of the 64 pages shared a cluster with the HTML built
from them, 62 now.  A reStructuredText file and an Org file had no title
(their name stood for them in search results); they are titled now by their
first section's title and by ``#+TITLE:``, as their pages are.

The files holding an item named as Markdown (``.md``, ``.markdown``,
``.mdown``, ``.mdwn``, ``.mkd``, ``.mkdn``, ``.mkdown``, a Sphinx build's
``_sources/NAME.md.txt``), reStructuredText (``.rst``, ``.rest``,
``.rst.txt``) or Org (``.org``), compressed or not, alone or inside an
archive or a mail, are marked half written (``mtime`` NULL), as 0043 did, so
that the next ``index`` or watcher rescan reads them again under the same
item ids.
"""

from __future__ import annotations

from alembic import op

from lifededup.migrations.reread import reread_files_holding

revision = "0044"
down_revision = "0043"
branch_labels = None
depends_on = None

_NAME = "lower(CASE WHEN p.part = '' THEN p.path ELSE p.part END)"
_MARKUP = " OR ".join(f"{_NAME} LIKE '%{suffix}{packed}'"
                     for suffix in (".md", ".markdown", ".mdown", ".mdwn", ".mkd", ".mkdn", ".mkdown", ".md.txt",
                                    ".rst", ".rest", ".rst.txt", ".org")
                     for packed in ("", ".gz", ".bz2", ".xz", ".lzma"))


def upgrade() -> None:
    reread_files_holding(op.get_bind(), _MARKUP)


def downgrade() -> None:
    pass  # the files are read again once, which is harmless to undo by doing nothing
