"""Read again the sheets of numbers left unsampled, and the files the office and HTML extractors now read better.

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-26

- A spreadsheet, a statement or a log is mostly numbers, which the paper's
  filter drops before shingling: its few words repeat into fewer distinct
  shingles than a sample needs, and it was matched by SHA-1 alone (features
  NULL), so a sheet re-saved with one reading corrected was a document
  apart. Such a text is now sampled with its numbers kept. The files whose
  own item, or a part of it, has no features though it has at least 17
  words (the fewest the default sample of 14 shingles of 4 words needs) are
  read again; a text too short either way is read once more and stays
  unsampled.
- A Word draft's tracked insertions, content controls and fields were not
  read (nor an ODT draft's tracked deletions left out), and an HTML table's
  cells were glued into one word (``fdiskPartition``). The files holding a
  DOCX, an ODT, an HTML page, an MHTML page or an EPUB book, as the file or
  a part of it, are read again. (A mail's own HTML body is not: every
  mailbox would be read again for the few mails laid out in tables.)

Each such file is marked half written (``mtime`` NULL), as 0017 did: the
next ``index`` or watcher rescan reads it again under the same item ids.
Both backends; the files are not read here.
"""

from __future__ import annotations

from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None

_READ_BETTER = ("'application/vnd.openxmlformats-officedocument.wordprocessingml.document', "
                "'application/vnd.oasis.opendocument.text', 'text/html', 'multipart/related', "
                "'application/epub+zip'")


def upgrade() -> None:
    op.execute(
        "UPDATE items SET mtime = NULL WHERE part = '' AND EXISTS ("
        "SELECT 1 FROM items p LEFT JOIN fingerprints f ON f.item_id = p.id WHERE p.machine = items.machine "
        f"AND p.path = items.path AND (f.f1 IS NULL AND f.words >= 17 OR p.mime_type IN ({_READ_BETTER})))"
    )


def downgrade() -> None:
    pass  # the files are read again once, which is harmless to undo by doing nothing
