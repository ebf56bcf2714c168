"""Read again the files whose reader stopped on half of a character past U+FFFF: an RTF holding an emoji or a
rare CJK ideograph is read.

Revision ID: 0045
Revises: 0044
Create Date: 2026-11-28

RTF writes a character past U+FFFF (🎵, 𠮷) as its two UTF-16 halves,
and striprtf gave each half as a character of its own.  A worker could not
send such a text to be stored: it stopped, and the file was recorded
``crashed`` ("the parser crashed (exit 1) after 0 item(s): a native-code
crash, or the ... memory limit") and never read again under the same
limits.  Node's HTTP reference saved as RTF by LibreOffice was one
(``benchmarks/bench_office.py``).  ``lifededup.extract.rtf`` now joins the
halves into the character, and a half any reader lets through alone is
stored as U+FFFD.

The files holding an item that crashed with exit 1 -- a fault of Python in
the worker, not a native crash (a signal) -- are marked half written
(``mtime`` NULL), as 0044 did, so that the next ``index`` or watcher rescan
reads them again under the same item ids.
"""

from __future__ import annotations

from alembic import op

from lifededup.migrations.reread import reread_files_holding

revision = "0045"
down_revision = "0044"
branch_labels = None
depends_on = None


def upgrade() -> None:
    reread_files_holding(op.get_bind(), "p.status = 'crashed' AND p.error LIKE '%(exit 1)%'")


def downgrade() -> None:
    pass  # the files are read again once, which is harmless to undo by doing nothing
