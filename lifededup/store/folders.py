"""The watched folders: the roots the daemon keeps indexed, each with its
include and exclude patterns (table ``watched_folders``).  Each machine
watches its own (revision 0009): every call here is about the folders and
items of ``store.machine``, and a change claims that name for this computer
(``Store.claim_machine``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from lifededup.store.dialect import path_bytes
from lifededup.store.records import read_time, stored_time, utc_now

# Listing is a read on any store, a driver's alone (`folders list` starts
# without SQLAlchemy); the changes need a Store.
if TYPE_CHECKING:
    from lifededup.store.reader import Readable
    from lifededup.store.store import Store

_COLUMNS = "path, include, exclude, added_at, last_scanned_at"


@dataclass(frozen=True)
class WatchedFolder:
    """A watched root (an absolute path) and its patterns."""

    path: str
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    added_at: datetime | None = None
    last_scanned_at: datetime | None = None


def _folder(row: tuple[object, ...]) -> WatchedFolder:
    path, include, exclude, added, scanned = row
    return WatchedFolder(str(path), tuple(json.loads(str(include))), tuple(json.loads(str(exclude))),
                         read_time(added), read_time(scanned))


def list_folders(store: Readable) -> list[WatchedFolder]:
    """This machine's watched folders, in their paths' byte order on both
    backends (a PostgreSQL database may sort by a language: a, A, á, a b)."""
    order = path_bytes(store.location.url is not None)
    with store.reading() as db:
        rows = db.execute(f"SELECT {_COLUMNS} FROM watched_folders WHERE machine = :machine ORDER BY {order}",
                          {"machine": store.machine}).fetchall()
    return [_folder(tuple(r)) for r in rows]


def add_folder(store: Store, path: str, include: tuple[str, ...] = (), exclude: tuple[str, ...] = ()) -> WatchedFolder:
    """Watch ``path`` (absolute); adding it again replaces its patterns."""
    with store.transaction():
        store.claim_machine()
        store.execute(
            "INSERT INTO watched_folders (machine, path, include, exclude, added_at) "
            "VALUES (:machine, :path, :inc, :exc, :now) "
            "ON CONFLICT (machine, path) DO UPDATE SET include = excluded.include, exclude = excluded.exclude",
            {"machine": store.machine, "path": path, "inc": json.dumps(list(include)),
             "exc": json.dumps(list(exclude)), "now": stored_time(utc_now())},
        )
        _, rows = store.execute(f"SELECT {_COLUMNS} FROM watched_folders WHERE path = :path AND machine = :machine",
                                {"path": path, "machine": store.machine})
    return _folder(rows[0])


def remove_folder(store: Store, path: str, *, forget: bool = False) -> int | None:
    """Stop watching ``path``; None if it was not watched.  Its items stay
    (searchable) unless ``forget``: then those not in another watched
    folder are removed, clusters repaired.  Returns how many were removed."""
    with store.transaction():
        store.claim_machine()
        _, rows = store.execute("DELETE FROM watched_folders WHERE path = :path AND machine = :machine RETURNING id",
                                {"path": path, "machine": store.machine})
        if not rows:
            return None
        return store.remove_ids(_ids_under(store, path)) if forget else 0


def forget_under(store: Store, path: str) -> int:
    """Forget this machine's items under ``path``, a folder no longer
    watched (those not in a watched folder); how many went.  A watched
    folder renamed, then removed with its items kept, left each of its
    files in the store twice once the new place was indexed."""
    with store.transaction():
        store.claim_machine()
        return store.remove_ids(_ids_under(store, path))


def items_under(store: Store, path: str) -> int:
    """How many of this machine's items lie under ``path`` and no other of its watched folders."""
    where, params = _under(store, path)
    # counted in SQL: the watcher asks every few seconds of an empty mount point
    # whose disk's archive (100,000s of items) the store keeps
    _, [(count,)] = store.execute(f"SELECT count(*) FROM items WHERE {where}", params)
    return int(str(count))


# the stored stat of whole files, this machine's; paths a statement
_FILES_STAT = "SELECT path, size, mtime, raw_sha1 FROM items WHERE part = '' AND machine = :machine AND path IN ({})"
_PATHS_A_STATEMENT = 500


def files_as_stored(store: Store, paths: list[str]) -> list[tuple[object, ...]]:
    """(path, size, mtime, raw SHA-1) of those of these (stored) paths the
    store holds as this machine's files, a few hundred a statement (a look
    a file cost a round trip each)."""
    rows: list[tuple[object, ...]] = []
    for start in range(0, len(paths), _PATHS_A_STATEMENT):
        chunk = paths[start:start + _PATHS_A_STATEMENT]
        marks = ", ".join(f":p{n}" for n in range(len(chunk)))
        rows += store.execute(_FILES_STAT.format(marks), {"machine": store.machine,
                                                          **{f"p{n}": p for n, p in enumerate(chunk)}})[1]
    return rows


def _ids_under(store: Store, path: str) -> list[int]:
    where, params = _under(store, path)
    _, rows = store.execute(f"SELECT id FROM items WHERE {where}", params)
    return [int(str(i)) for i, in rows]


def _under(store: Store, path: str) -> tuple[str, dict[str, object]]:
    """The condition on ``items`` of this machine's items under ``path`` and
    no other of its watched folders (a nested one keeps its own), and its
    parameters."""
    # Paths that start with "folder/" are the range ["folder/", "folder0")
    # ('0' is the character after '/') in byte order alone: PostgreSQL
    # compares text by the database's collation, and under en-US (ICU or
    # glibc) "/A/x", "/a+b/x" and "/á/x" sort inside "/a"'s range.
    column = path_bytes(store.location.backend != "sqlite")
    stems = [path.rstrip("/")] + [f.path.rstrip("/") for f in list_folders(store) if f.path != path]
    params: dict[str, object] = {"machine": store.machine}
    ranges = []
    for n, stem in enumerate(stems):
        params.update({f"low{n}": stem + "/", f"high{n}": stem + "0"})
        ranges.append(f"{column} >= :low{n} AND {column} < :high{n}")
    outside = "".join(f" AND NOT ({r})" for r in ranges[1:])
    return f"machine = :machine AND {ranges[0]}{outside}", params


def mark_scanned(store: Store, path: str, when: datetime | None = None) -> None:
    store.execute("UPDATE watched_folders SET last_scanned_at = :when WHERE path = :path AND machine = :machine",
                  {"when": stored_time(when or utc_now()), "path": path, "machine": store.machine})
