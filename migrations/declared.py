"""The revisions' one way to change how SQLite declares ``items_fts`` without
touching its index: the declaration edited in ``sqlite_master``, as
"Making Other Kinds Of Table Schema Changes" in SQLite's ALTER TABLE page
describes for a change that leaves the stored data as it is (making the
table again would index every item anew).  Revisions 0022 and 0024."""

from __future__ import annotations

from sqlalchemy import Connection


def redeclare_fts(conn: Connection, was: str, now: str, made_by: str) -> None:
    """``items_fts``'s declaration with ``was`` replaced by ``now``; an error
    naming the revision ``made_by`` whose declaration was expected where
    ``was`` is not in it."""
    version = conn.exec_driver_sql("PRAGMA schema_version").scalar()
    conn.exec_driver_sql("PRAGMA writable_schema = ON")
    changed = conn.exec_driver_sql(
        "UPDATE sqlite_master SET sql = replace(sql, ?, ?) WHERE type = 'table' AND name = 'items_fts' "
        "AND instr(sql, ?) > 0", (was, now, was)).rowcount
    conn.exec_driver_sql(f"PRAGMA schema_version = {int(str(version)) + 1}")  # other connections read it again
    conn.exec_driver_sql("PRAGMA writable_schema = OFF")
    if changed != 1:
        raise RuntimeError(f"items_fts is not declared as revision {made_by} made it (no {was!r} in it)")
