"""Read again the calendars and address books that failed as corrupt: one cut short is read as far as it goes.

Revision ID: 0035
Revises: 0034
Create Date: 2026-11-28

A calendar or an address book whose last entry was cut off (a download or a
sync interrupted: its components never closed) was "corrupt" whole: vobject
gave up on the file, and every event and contact in it was lost to search.
``lifededup.extract.vcard`` now closes what the file left open and reads each
entry as far as the file goes; a file damaged otherwise is still corrupt.

The files holding a calendar, event, contact or address book that failed as
corrupt, alone or inside an archive or a mail, are marked half written
(``mtime`` NULL), as 0033 did, so that the next ``index`` or watcher rescan
reads them again under the same item ids.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0035"
down_revision = "0034"
branch_labels = None
depends_on = None

_CUT_SHORT = "p.status = 'corrupt' AND p.kind IN ('calendar', 'event', 'contact', 'address book')"


def upgrade() -> None:
    # one statement, as 0033: the file's whole-file row, for a part of it too (a zip's member, a mail's attachment)
    op.get_bind().execute(sa.text(
        "UPDATE items SET mtime = NULL WHERE part = '' AND EXISTS (SELECT 1 FROM items p"
        f" WHERE p.machine = items.machine AND p.path = items.path AND ({_CUT_SHORT}))"))


def downgrade() -> None:
    pass  # the files are read again once, which is harmless to undo by doing nothing
