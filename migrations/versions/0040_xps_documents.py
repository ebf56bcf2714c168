"""Read again the XPS documents, read as zips before: their fonts were parts, their words unread.

Revision ID: 0040
Revises: 0039
Create Date: 2026-11-28

An XPS document (``.xps``, ``.oxps``: what Windows' "Microsoft XPS Document
Writer" prints to) is a zip of fixed pages.  No reader claimed it, so it was
read as an archive: its embedded fonts were ``unsupported`` parts, its
thumbnail a picture offered to OCR, and none of its words were found.
``lifededup.extract.xps`` now reads its pages' text.

The files holding an item named ``.xps`` or ``.oxps`` -- alone or inside an
archive or a mail -- are marked half written (``mtime`` NULL), as 0033 did,
so that the next ``index`` or watcher rescan reads them again under the same
item ids (the parts they no longer hold are removed).
"""

from __future__ import annotations

from alembic import op

from lifededup.migrations.reread import reread_files_holding

revision = "0040"
down_revision = "0039"
branch_labels = None
depends_on = None

_NAME = "lower(CASE WHEN p.part = '' THEN p.path ELSE p.part END)"
_XPS = f"{_NAME} LIKE '%.xps' OR {_NAME} LIKE '%.oxps'"


def upgrade() -> None:
    reread_files_holding(op.get_bind(), _XPS)


def downgrade() -> None:
    pass  # the files are read again once, which is harmless to undo by doing nothing
