"""The revisions' one way to have files read again: their whole-file rows marked half written (``mtime`` NULL),
which the next ``index`` or watcher rescan reads again under the same item ids.  Revisions 0036-0044."""

from __future__ import annotations

from sqlalchemy import Connection, text


def reread_files_holding(conn: Connection, condition: str) -> None:
    """Mark the files holding an item -- the file itself, or a part of it: a zip's member, a mail's attachment --
    of which ``condition`` (SQL on ``items p``) holds.  One statement; the items are found once, not for each
    file as 0033-0035 look (``EXISTS``): there SQLite's planner sought them through the index on status, which
    for 'ok' is nearly every item -- a scan of the store a file, for hours at a million items (0036)."""
    conn.execute(text("UPDATE items SET mtime = NULL WHERE part = '' AND (machine, path) IN "
                      f"(SELECT p.machine, p.path FROM items p WHERE {condition})"))
