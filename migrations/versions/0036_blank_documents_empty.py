"""Read again the documents stored with nothing in them: a blank DOCX, ODT or RTF is ``empty``.

Revision ID: 0036
Revises: 0035
Create Date: 2026-11-28

A blank DOCX, ODT (or ODS, ODP) or RTF -- no text, no title -- was stored
``ok`` with no text, where a blank ``.txt``, PPTX or web page is ``empty``, as
the README defines it ("no text at all"); ``lifededup fingerprint`` printed
nothing for it and exited 0.  ``lifededup.extract.registry`` now calls any item
read with no text, no title and no part ``empty`` (a mail is kept by its
headers' people, and stays ``ok``).

The files holding a document, spreadsheet, presentation or web page stored
``ok`` with no text and no title -- alone or inside an archive or a mail -- are
marked half written (``mtime`` NULL), as 0033 did, so that the next
``index`` or watcher rescan reads them again under the same item ids.
"""

from __future__ import annotations

from alembic import op

from lifededup.migrations.reread import reread_files_holding

revision = "0036"
down_revision = "0035"
branch_labels = None
depends_on = None

# the kinds a reader could leave blank: a text file, a calendar or a card of nothing was already "empty"
_BLANK = ("p.status = 'ok' AND p.text IS NULL AND COALESCE(p.title, '') = ''"
          " AND p.kind IN ('document', 'spreadsheet', 'presentation', 'web page')")


def upgrade() -> None:
    reread_files_holding(op.get_bind(), _BLANK)


def downgrade() -> None:
    pass  # the files are read again once, which is harmless to undo by doing nothing
