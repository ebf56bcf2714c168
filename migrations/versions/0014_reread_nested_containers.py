"""Read again the files whose nested parts were named wrongly.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-26

Before this revision a part inside a part was misnamed in two ways: the
files in a zip attached to a mail were stored under their bare names (two
attachments each holding ``report.txt`` became one item, the first one's
text lost), and a container three deep repeated a level
(``b.zip / c.zip / c.zip / note.txt``), each under the wrong parent.  The
extractors now name every part by its whole path of containers; a file's
parts are rewritten only when it is read again, and the indexer reads again
only what changed.  So this revision marks the files that hold such a part
as half written (``mtime`` NULL, which the next ``index`` or watcher rescan
reads again, replacing their parts): a file holding a container (an
archive, a mail, a mailbox, an address book or a calendar) that is itself
inside a part, or attached to a mail.  And the files taken for a mail by
their content, not their name (not ``.eml`` or ``.msg``): a git log (commit,
Author:, Date: lines -- Debian's upstream changelogs) was read as one, and is
now text.  Both backends; nothing else changes, and the files are not read
here.
"""

from __future__ import annotations

from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

CONTAINERS = "('archive', 'email', 'mailbox', 'address book', 'calendar')"


def upgrade() -> None:
    op.execute(
        "UPDATE items SET mtime = NULL WHERE part = '' AND kind = 'email' "
        "AND lower(path) NOT LIKE '%.eml' AND lower(path) NOT LIKE '%.msg'"
    )
    op.execute(
        "UPDATE items SET mtime = NULL "
        f"WHERE part = '' AND kind IN {CONTAINERS} AND EXISTS ("
        "SELECT 1 FROM items c JOIN items p ON p.id = c.parent_id "
        "WHERE c.machine = items.machine AND c.path = items.path AND c.part <> '' "
        f"AND c.kind IN {CONTAINERS} AND (p.part <> '' OR p.kind = 'email'))"
    )


def downgrade() -> None:
    pass  # the files are read again once, which is harmless to undo by doing nothing
