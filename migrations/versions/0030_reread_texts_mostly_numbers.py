"""Read again the files whose text is mostly numbers but was sampled without them.

Revision ID: 0030
Revises: 0029
Create Date: 2026-11-27

A table of readings, a statement, a log or a list of versions is mostly
numbers. It was sampled with its numbers only while its words alone made
fewer shingles than a sample needs (revision 0020), so one draft of it fell
on each side of that count: a paragraph of notes added to a sheet, or seven
releases added to pytest's list of its announcements (4.3% of words apart
in the real archive), sampled the new draft without its numbers, in
shingles the old one never has, and each draft was a cluster of its own.
A text whose words are at least half numbers is now sampled with them
whatever its count (``fingerprint.engine.NUMBERS_SHARE``).

The files holding an item whose text is such, sampled the old way (it has a
sketch: a text sampled with its numbers keeps none), are marked half written
(``mtime`` NULL), as 0020 did: the next ``index`` or watcher rescan reads
them again under the same item ids, and their drafts join one cluster. The
texts are read here, a batch at a time, to find them -- those with fewer
shingles than half their words, which every such text has; the files are
not. On the real-text million (SQLite) that is 159,085 of its 992,865
sampled texts, read in 45 s (load average 3-5; all of them took 5 min 26 s
at load 7-9), and the same 234 are marked; the real archive, 4 of 1,909
(the one that then joined its drafts: pytest 8.0.0's list of announcements).
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = "0030"
down_revision = "0029"
branch_labels = None
depends_on = None

_BATCH = 500
# A text at least half numbers, sampled without them, kept at most half its
# words as terms, so fewer shingles than half its words: only such texts are
# read (16% of the real-text million's sampled texts, not all of them).
_FEW_SHINGLES = "f.shingles * 2 <= f.words"


def _numbers_filtered(conn: sa.Connection) -> bool:
    """Whether the store's fingerprints filter numbers out (the default);
    a store made with ``numbers`` off samples every text with them."""
    raw = conn.exec_driver_sql("SELECT value FROM params WHERE name = 'fingerprint'").scalar()
    if raw is None:
        return False  # nothing fingerprinted yet
    filters = json.loads(raw)["params"].get("filters", {})
    return bool(filters.get("numbers", True))


def upgrade() -> None:
    from lifededup.fingerprint.engine import mostly_numbers

    conn = op.get_bind()
    if not _numbers_filtered(conn):
        return
    files: set[tuple[str, str]] = set()
    last = 0
    while True:
        rows = conn.exec_driver_sql(
            "SELECT i.id, i.machine, i.path, i.text FROM items i JOIN fingerprints f ON f.item_id = i.id "
            f"WHERE f.sketch IS NOT NULL AND {_FEW_SHINGLES} AND i.id > {last} ORDER BY i.id LIMIT {_BATCH}").all()
        if not rows:
            break
        last = int(rows[-1][0])
        numeric = mostly_numbers([str(r[3] or "") for r in rows])
        files.update((str(r[1]), str(r[2])) for r, many in zip(rows, numeric) if many)
    if files:
        conn.execute(sa.text("UPDATE items SET mtime = NULL WHERE part = '' AND machine = :machine AND path = :path"),
                     [{"machine": machine, "path": path} for machine, path in sorted(files)])


def downgrade() -> None:
    pass  # the files are read again once, which is harmless to undo by doing nothing
