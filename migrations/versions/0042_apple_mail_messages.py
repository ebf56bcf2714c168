"""Read again Apple Mail's messages (.emlx), read as text before: their headers, encodings and flags as words.

Revision ID: 0042
Revises: 0041
Create Date: 2026-11-28

Apple Mail keeps each message as an ``.emlx`` file: its length on the first
line, the RFC 822 message, then a property list of Mail's flags.  No reader
claimed it, so it was read as text -- its raw headers, quoted-printable and
base64 lines and the property list all words, its attachments unread, and the
same message saved as ``.eml`` no copy of it.  ``lifededup.extract.emlx`` now
reads the message it holds, as an .eml is read.

The files holding an item named ``.emlx`` -- alone or inside an archive or a
mail -- are marked half written (``mtime`` NULL), as 0033 did, so that the
next ``index`` or watcher rescan reads them again under the same item ids.
"""

from __future__ import annotations

from alembic import op

from lifededup.migrations.reread import reread_files_holding

revision = "0042"
down_revision = "0041"
branch_labels = None
depends_on = None

_NAME = "lower(CASE WHEN p.part = '' THEN p.path ELSE p.part END)"


def upgrade() -> None:
    reread_files_holding(op.get_bind(), f"{_NAME} LIKE '%.emlx'")


def downgrade() -> None:
    pass  # the files are read again once, which is harmless to undo by doing nothing
