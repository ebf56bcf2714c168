"""Read mail again: HTML replies without their quote, forwards with what they forward.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-26

Before this revision a message's text kept the quote of the message it
answers where that quote was HTML markup, not "> " lines (a reply with no
text/plain part, as Gmail, Apple Mail, Thunderbird and Outlook write them):
the reply was within 30% of the message it answers, clustered as its near
copy and hidden under it in search. And an inline forward was cut at its
"Forwarded message" line like a quote: the forwarded text, which the archive
may hold nowhere else, could not be found. And a page saved as one file
(.mhtml) was read as a mail, its stylesheet an item of its own. The
extractors now drop the one, keep the other and read the page as a page; a
file's text is rewritten only when it is read again, so this revision marks
every file holding a message (a mail, a mailbox, an archive or a mail with
one inside) as half written (``mtime`` NULL), which the next ``index`` or
watcher rescan reads again, under the same item ids. Both backends; the
files are not read here.
"""

from __future__ import annotations

from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        "UPDATE items SET mtime = NULL WHERE part = '' AND (kind IN ('email', 'mailbox') OR EXISTS ("
        "SELECT 1 FROM items m WHERE m.machine = items.machine AND m.path = items.path AND m.part <> '' "
        "AND m.kind = 'email'))"
    )


def downgrade() -> None:
    pass  # the files are read again once, which is harmless to undo by doing nothing
