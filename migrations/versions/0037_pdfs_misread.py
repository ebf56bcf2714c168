"""Read again PDFs misread: one of blank pages is ``empty``; a zip or tar opening with one, an archive.

Revision ID: 0037
Revises: 0036
Create Date: 2026-11-28

- A PDF whose pages have nothing on them -- no text, picture or drawing --
  was ``no-text-layer`` ("no text layer in 1 page(s): probably a scan"), and
  the index's summary counted it among the scans it offers ``--ocr`` for,
  which then found nothing on it; a PDF of no pages was "no text layer in 0
  page(s)".  ``lifededup.extract.pdf`` now calls both ``empty``.
- A zip of stored members (``zip -0``, Python's ``zipfile``) or a tar whose
  first member is a PDF was read as that PDF, as PDF readers look for its
  header in a file's first 1,024 bytes: the archive's other members were
  never read.  A zip, tar or old Office file is no longer taken for a PDF.

The files holding an item that failed as ``no-text-layer``, or a PDF not
named ``.pdf`` -- alone or inside an archive or a mail -- are marked half
written (``mtime`` NULL), as 0033 did, so that the next ``index`` or watcher
rescan reads them again under the same item ids.  A failed item records no
format, so every scan is read again: without OCR (a parse, no Tesseract) it
stays ``no-text-layer``; a run that reads scans OCRs it.  A PDF named
otherwise (``plan.txt``) is read again as the PDF it is.
"""

from __future__ import annotations

from alembic import op

from lifededup.migrations.reread import reread_files_holding

revision = "0037"
down_revision = "0036"
branch_labels = None
depends_on = None

_MISREAD = ("p.status = 'no-text-layer' OR p.mime_type = 'application/pdf'"
            " AND lower(CASE WHEN p.part = '' THEN p.path ELSE p.part END) NOT LIKE '%.pdf'")


def upgrade() -> None:
    reread_files_holding(op.get_bind(), _MISREAD)


def downgrade() -> None:
    pass  # the files are read again once, which is harmless to undo by doing nothing
