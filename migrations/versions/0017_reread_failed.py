"""Read again the files that failed, or hold a part that failed.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-26

A file or part that could not be read was recorded as a ``document``
whatever it was; it now has the kind its name says (``letter.eml``: an
``email``). And the extractors read more than they did when many of those
files failed (encrypted Office files told from old ones, ``.mhtml``, RTF
tables, a mailbox's messages in pieces). A failed file is read again only
when it changes, so this revision marks every file that failed, or holds a
part that failed, as half written (``mtime`` NULL): the next ``index`` or
watcher rescan reads it again, under the same item ids, and records its
kind, or its text. Both backends; the files are not read here.
"""

from __future__ import annotations

from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        "UPDATE items SET mtime = NULL WHERE part = '' AND (status <> 'ok' OR EXISTS ("
        "SELECT 1 FROM items p WHERE p.machine = items.machine AND p.path = items.path AND p.part <> '' "
        "AND p.status <> 'ok'))"
    )


def downgrade() -> None:
    pass  # the files are read again once, which is harmless to undo by doing nothing
