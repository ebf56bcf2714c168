"""Read again the pages found empty: one whose words are all its readers' comments is read with them.

Revision ID: 0038
Revises: 0037
Create Date: 2026-11-28

The HTML reader drops a page's furniture -- the elements whose class, id or
role says menu, banner, sidebar, comments... -- where each is a minor part of
the page.  A page whose words were all in its readers' comments -- a comment
thread saved alone, each ``<li class="comment">`` -- lost every one of them:
a page was ``empty`` ("a web page with no text in it"), and a mail of such
HTML alone was stored with no text.  ``lifededup.extract.html`` now reads
such a page again with its comments (its hidden parts and the site's chrome
still left out).

The files holding a page found empty -- a web page, a saved page (MHTML, web
archive), an EPUB of no readable chapter -- alone or inside an archive or a
mail, are marked half written (``mtime`` NULL), as 0033 did, so that the next
``index`` or watcher rescan reads them again under the same item ids.  Other
empty items are not (a mail's attachment of 0 bytes would have its whole
mailbox read again), nor a mail stored with no text: most are mails of an
attachment alone; such a mail of HTML is read anew when its file changes, or
by ``lifededup index --reread``.
"""

from __future__ import annotations

from alembic import op

from lifededup.migrations.reread import reread_files_holding

revision = "0038"
down_revision = "0037"
branch_labels = None
depends_on = None

# the pages the HTML reader found empty, by their kind or by what it said of them (each reader's words, then and
# before: "x.html is empty: a web page with no text in it", "x.mht is a saved web page with no text", "x.epub has
# no readable chapter")
_PAGE_EMPTY = ("p.status = 'empty' AND (p.kind = 'web page' OR p.error LIKE '%web page with no text%'"
               " OR p.error LIKE '%has no readable chapter%')")


def upgrade() -> None:
    reread_files_holding(op.get_bind(), _PAGE_EMPTY)


def downgrade() -> None:
    pass  # the files are read again once, which is harmless to undo by doing nothing
