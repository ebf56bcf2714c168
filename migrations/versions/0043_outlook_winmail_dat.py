"""Read again the mail holding Outlook's winmail.dat (TNEF), whose attachments were never read.

Revision ID: 0043
Revises: 0042
Create Date: 2026-11-28

Outlook sending "rich text" mail wraps the message's attachments, and its
text as RTF, in one attachment, ``winmail.dat`` (``application/ms-tnef``),
which no other mail program opens.  It was ``unsupported``, "binary data of no
format lifededup reads": the documents in it were never read.
``lifededup.extract.tnef`` now reads it, its attachments as parts.

The files holding an item named ``winmail.dat`` or ``.tnef``, or a ``.dat``
that failed as ``unsupported`` (a TNEF Outlook named otherwise) -- alone or
inside a mail, a mailbox or an archive -- are marked half written (``mtime``
NULL), as 0033 did, so that the next ``index`` or watcher rescan reads them
again under the same item ids.
"""

from __future__ import annotations

from alembic import op

from lifededup.migrations.reread import reread_files_holding

revision = "0043"
down_revision = "0042"
branch_labels = None
depends_on = None

_NAME = "lower(CASE WHEN p.part = '' THEN p.path ELSE p.part END)"
_TNEF = (f"{_NAME} LIKE '%winmail.dat' OR {_NAME} LIKE '%.tnef' "
         f"OR (p.status = 'unsupported' AND {_NAME} LIKE '%.dat')")


def upgrade() -> None:
    reread_files_holding(op.get_bind(), _TNEF)


def downgrade() -> None:
    pass  # the files are read again once, which is harmless to undo by doing nothing
