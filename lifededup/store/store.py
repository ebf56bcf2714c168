"""The :class:`Store`: one SQLite file, and the write calls that keep its
clusters true (each item with text has one fingerprints row and one clusters
row; every member of a conservative cluster is an exact or near copy of its
representative)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine

from lifededup.config import FingerprintParams
from lifededup.model import Fingerprint
from lifededup.store import clustering, machines
from lifededup.store.clustering import Member, Settings
from lifededup.store.dialect import Driver, driver, is_postgres, pyformat
from lifededup.store.errors import ParamsMismatch, StoreTooNew
from lifededup.store.opening import READS_ONLY, Location, take_write_turn
from lifededup.store.records import ItemRecord, machine_name, utc_now
from lifededup.store.searchable import apart
from lifededup.store.settings import (
    CLUSTER_METHOD, CLUSTER_RULE, FEATURE_COLUMNS, FINGERPRINT_PARAMS, StoreSettings, read_settings,
)
from lifededup.store.similarity import METHODS, Method, Rule


_ITEM_COLUMNS = ("path", "part", "parent_id", "kind", "mime_type", "size", "mtime", "doc_date",
                 "title", "raw_sha1", "status", "error", "indexed_at", "text", "text_cut", "people",
                 "title_apart", "text_apart", "people_apart")
# A path names a file on one machine (revision 0009): every lookup by path is this machine's.
_ITEM_ID = "SELECT id FROM items WHERE path = :path AND part = :part AND machine = :machine"
_IDS_OF_PATH = "SELECT id FROM items WHERE path = :path AND machine = :machine"
_INSERT_ITEM = (f"INSERT INTO items (machine, {', '.join(_ITEM_COLUMNS)}) "
                f"VALUES (:machine, {', '.join(':' + c for c in _ITEM_COLUMNS)})")
_UPDATE_ITEM = f"UPDATE items SET {', '.join(f'{c} = :{c}' for c in _ITEM_COLUMNS)} WHERE id = :id"

# PostgreSQL's SQLSTATE for a change tried in a read-only transaction
_READ_ONLY_REFUSED = "25006"


class Store:
    """An open store.  Not shared between threads: open one per thread or
    process (SQLite's WAL lets them read while one writes).

    Every write call runs in a transaction of its own, or joins the one a
    ``with store.transaction():`` block holds -- batch many items in one block
    for speed; a crash mid-block leaves the store as it was before it.

    ``machine`` names the machine whose files this store's calls by path
    are about (default :func:`machine_name`): several machines share one
    PostgreSQL store, each reading, moving and removing only its own items.
    ``identity`` is which computer that is (default
    :func:`~lifededup.store.machines.machine_identity`): the first write
    under a name claims it for one computer (:meth:`claim_machine`).
    """

    def __init__(self, engine: Engine, location: Location, *, readonly: bool, machine: str | None = None,
                 identity: str | None = None) -> None:
        self.engine = engine
        self.location = location
        self.readonly = readonly
        self.machine = machine or machine_name()
        self._identity = identity
        self._claimed = False  # this computer's claim on ``machine`` was checked in the open transaction
        self._held = False  # ... in any transaction of this store's: a claim gone since was forgotten
        self._revision: str | None = None  # the schema revision the first write found
        self._conn: Connection | None = None
        # (params, method, rule) read once per outermost transaction: they
        # are consulted on every insert
        self._settings: StoreSettings | None = None

    @property
    def path(self) -> Path:
        return self.location.file

    @property
    def identity(self) -> str:
        if self._identity is None:
            self._identity = machines.machine_identity()
        return self._identity

    def claim_machine(self, *, replace: bool = False) -> None:
        """Claim ``machine`` for this computer, once per transaction: what
        every write of this machine's items does first (a watcher running
        for weeks learns in its next batch that a new computer replaced
        this one).  On a shared store a name another computer claimed
        raises :class:`MachineTaken`, unless ``replace`` (README,
        "Machines")."""
        with self.transaction() as conn:
            if replace or not self._claimed:
                self._same_schema(conn)
                machines.claim(self, replace=replace, held=self._held and not replace)
                self._claimed = True

    def _same_schema(self, conn: Connection) -> None:
        """Refuse to write once a newer lifededup has upgraded the store under
        this running one (a watcher left running through `pip install -U`, or
        another machine's): its extractors and tables are the old ones, and
        what it wrote would stay as they made it (:class:`StoreTooNew`)."""
        self._at_revision(conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar())

    def same_schema(self) -> None:
        """:class:`StoreTooNew` if a newer lifededup has upgraded the store
        since this one first looked, asked by a read: a watcher with nothing
        to write asks so between batches, where a write asks it under the
        write lock (:meth:`claim_machine`)."""
        _, rows = self.execute("SELECT version_num FROM alembic_version")
        self._at_revision(rows[0][0] if rows else None)

    def _at_revision(self, found: object) -> None:
        if self._revision is None:
            self._revision = str(found)
        elif str(found) != self._revision:
            raise StoreTooNew(
                f"the store {self.location} was upgraded to schema revision {found} by another lifededup while "
                f"this one (at {self._revision}) ran: this one stops writing, and leaves the files the upgrade "
                "marked to be read again to the lifededup that upgraded it.  Start the watcher again with that one "
                "(pip install -U lifededup; then lifededup daemon start, or lifededup watch): it reads them")

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """A connection inside one transaction (nested calls share it)."""
        if self._conn is not None:
            yield self._conn
            return
        with self.engine.connect() as conn, self._holding(conn):
            yield conn

    @contextmanager
    def snapshot(self) -> Iterator[Connection]:
        """One consistent read of the whole store that holds no writer back:
        every statement inside sees the store as of its start (PostgreSQL:
        REPEATABLE READ, READ ONLY, without the writers' lock; SQLite: a
        read transaction, which WAL lets writers commit past).  The store's
        own calls inside join it, so they read from it too; a write raises."""
        if self._conn is not None:
            raise RuntimeError("a snapshot cannot start inside an open transaction")
        with self.engine.connect() as conn:
            if self.location.url is not None:
                conn = conn.execution_options(isolation_level="REPEATABLE READ")
            conn = conn.execution_options(**{READS_ONLY: True})
            with self._holding(conn):
                yield conn

    @contextmanager
    def _holding(self, conn: Connection) -> Iterator[None]:
        """One transaction on ``conn``, which the store's calls join until it ends."""
        claimed = False
        with conn.begin():
            self._conn, self._settings = conn, None
            try:
                yield
                claimed = self._claimed
            finally:
                self._conn, self._settings, self._claimed = None, None, False
        # committed: from now on a claim gone is a machine forgotten (one
        # rolled back with its transaction never was)
        self._held = self._held or claimed

    @contextmanager
    def reading(self) -> Iterator[Driver]:
        """The driver connection inside one transaction (joining an open
        ``transaction()``): the ``sqlite3`` connection, as
        :mod:`lifededup.store.reader` gives it without SQLAlchemy, so a read
        runs the same either way; on PostgreSQL a ``PgDriver``.  Not inside
        one, a read-only transaction, which takes no writer's turn: the
        watcher's look at its folders every few seconds took the turn (a
        write transaction), on a shared store waiting behind other
        machines' batches and holding theirs back (helper L)."""
        if self._conn is not None:
            yield driver(self._conn)
            return
        with self.engine.connect() as conn:
            conn = conn.execution_options(**{READS_ONLY: True})
            with self._holding(conn):
                yield driver(conn)

    # -- params -------------------------------------------------------------

    def _set_param(self, conn: Connection, name: str, value: object) -> None:
        self._settings = None
        conn.exec_driver_sql(
            "INSERT INTO params (name, value) VALUES (:name, :value)"
            " ON CONFLICT (name) DO UPDATE SET value = excluded.value",
            {"name": name, "value": json.dumps(value, sort_keys=True)},
        )

    def _read_settings(self, conn: Connection) -> StoreSettings:
        if self._settings is None:
            self._settings = read_settings(driver(conn))
        return self._settings

    def _clustering(self, conn: Connection, params: FingerprintParams | None = None) -> Settings:
        """How the store places items now (one read per transaction)."""
        stored, method, rule = self._read_settings(conn)
        params = params or stored or FingerprintParams()
        return Settings(threshold=params.threshold, features=params.features, method=method, rule=rule)

    @property
    def params(self) -> FingerprintParams | None:
        """The fingerprint params the store was built with (None while empty)."""
        with self.transaction() as conn:
            return self._params(conn)

    def _params(self, conn: Connection) -> FingerprintParams | None:
        return self._read_settings(conn)[0]

    def set_params(self, params: FingerprintParams) -> None:
        """Fix the params before the first fingerprint; later, only the
        ``threshold`` may change (features stay comparable), and the clusters
        are rebuilt under it."""
        with self.transaction() as conn:
            current = self._params(conn)
            if current is not None and current.key() != params.key():
                raise ParamsMismatch(_mismatch(self.location, current, params))
            self._store_params(conn, params)
            if current is not None and current.threshold != params.threshold:
                clustering.recluster(conn, self._clustering(conn, params))

    def _store_params(self, conn: Connection, params: FingerprintParams) -> None:
        if params.features != len(FEATURE_COLUMNS):
            raise ParamsMismatch(
                f"the store keeps {len(FEATURE_COLUMNS)} features a document (seeds/000), "
                f"not {params.features}"
            )
        self._set_param(conn, FINGERPRINT_PARAMS, {"key": params.key(), "params": params.to_dict()})

    def _params_for(self, conn: Connection, made_with: FingerprintParams) -> FingerprintParams:
        current = self._params(conn)
        if current is None:
            self._store_params(conn, made_with)
            return made_with
        if made_with is not current and made_with != current and current.key() != made_with.key():
            raise ParamsMismatch(_mismatch(self.location, current, made_with))
        return current

    @property
    def cluster_method(self) -> Method:
        with self.transaction() as conn:
            return self._method(conn)

    def _method(self, conn: Connection) -> Method:
        return self._read_settings(conn)[1]

    @property
    def cluster_rule(self) -> Rule:
        """How a near copy is admitted into a cluster (``verified`` by default)."""
        with self.transaction() as conn:
            return self._read_settings(conn)[2]

    # -- items --------------------------------------------------------------

    def item_id(self, path: str, part: str = "") -> int | None:
        with self.transaction() as conn:
            return self._item_id(conn, path, part)

    def _item_id(self, conn: Connection, path: str, part: str) -> int | None:
        found = driver(conn).execute(_ITEM_ID, {"path": path, "part": part, "machine": self.machine}).fetchone()
        return None if found is None else int(found[0])

    def _write_item(
        self, conn: Connection, record: ItemRecord, *, status: str, error: str | None, new: bool = False
    ) -> tuple[int, bool]:
        """The item's id, and whether it is new.  ``new``: the caller believes
        no item has its name (a file new to the store), so the row is
        inserted unless one has, in one statement, not looked up first --
        a round trip an item saved on a server; believed wrongly (a run
        beside it stored the file meanwhile), the row found is updated."""
        self.claim_machine()
        values = {**record.row(status=status, error=error, indexed_at=utc_now()), "machine": self.machine}
        db = driver(conn)
        if new:
            inserted = db.execute(_INSERT_ITEM + " ON CONFLICT DO NOTHING RETURNING id", values).fetchall()
            if inserted:
                return int(inserted[0][0]), True
        existing = self._item_id(conn, record.path, record.part)
        if existing is None:
            if is_postgres(conn):
                created = db.execute(_INSERT_ITEM + " RETURNING id", values).fetchone()[0]
            else:
                created = db.execute(_INSERT_ITEM, values).lastrowid
            assert created is not None, "an INSERT sets lastrowid"
            return int(created), True
        db.execute(_UPDATE_ITEM, {**values, "id": existing})
        return existing, False

    def upsert_item(self, record: ItemRecord, fingerprint: Fingerprint | None, *, new: bool = False) -> int:
        """Add or refresh one item and return its id.  Give the fingerprint of
        ``record.text`` (None exactly when the text is None).  If the
        fingerprint changed, the item is clustered again and the cluster it
        left is repaired.  ``new``: the item is most likely not stored yet
        (inserted without a look first; refreshed all the same if it is)."""
        if (record.text is None) != (fingerprint is None):
            raise ValueError("give a fingerprint exactly when the record has text")
        with self.transaction() as conn:
            params = self._params_for(conn, fingerprint.params) if fingerprint is not None else None
            item_id, created = self._write_item(conn, record, status="ok", error=None, new=new)
            placed = _placed(item_id, fingerprint)
            old = None if created else clustering.load_member(conn, item_id)
            if old == placed:
                return item_id
            settings = self._clustering(conn, params)
            if old is not None:
                clustering.repair(conn, clustering.detach(conn, [item_id]), settings)
            if placed is not None and fingerprint is not None:
                clustering.add_new(conn, placed, _fingerprint_row(item_id, fingerprint), settings)
            return item_id

    def fingerprint_again(self, item_ids: Iterable[int]) -> int:
        """Fingerprint these items again from their stored text (``check
        --mend``, of a text changed by ``sql --write``), in one transaction.
        Those whose fingerprint changed are placed as a changed text is by
        :meth:`upsert_item`, but all at once: they leave their clusters
        first, which are repaired without them (no lookup meets a
        fingerprint of an old text), then each joins its cluster, in the
        order of their ids (of arrival); an item with no text keeps no
        fingerprint.  How many changed."""
        ids = sorted(set(item_ids))
        with self.transaction() as conn:
            params = self._params(conn) or FingerprintParams()
            made = {item_id: fingerprint for start in range(0, len(ids), clustering.CHUNK)
                    for item_id, fingerprint in _fingerprints_of(conn, ids[start:start + clustering.CHUNK], params)}
            changed = [i for i in ids if clustering.load_member(conn, i) != _placed(i, made[i])]
            if not changed:
                return 0
            settings = self._clustering(conn, self._params_for(conn, params))
            clustering.repair(conn, clustering.detach(conn, changed), settings)
            for item_id in changed:
                fingerprint = made[item_id]
                if fingerprint is not None:
                    clustering.add_new(conn, _member(item_id, fingerprint), _fingerprint_row(item_id, fingerprint),
                                       settings)
            return len(changed)

    def record_failure(self, record: ItemRecord | str, error: str, *, status: str = "failed",
                       new: bool = False) -> int:
        """Remember an item that could not be indexed, and why (``status``
        says how it failed, ``error`` in words).  Its old text, fingerprint
        and cluster membership go; the cluster it leaves is repaired.
        ``new`` as for :meth:`upsert_item`."""
        if isinstance(record, str):
            record = ItemRecord(path=record)
        if status == "ok":
            raise ValueError("a failure's status cannot be 'ok'")
        with self.transaction() as conn:
            item_id, created = self._write_item(conn, record, status=status, error=error, new=new)
            if not created:
                self._detach(conn, [item_id])
            return item_id

    def _detach(self, conn: Connection, item_ids: Iterable[int]) -> None:
        affected = clustering.detach(conn, item_ids)
        if affected:
            clustering.repair(conn, affected, self._clustering(conn))

    def _with_descendants(self, conn: Connection, item_ids: list[int]) -> list[int]:
        found: set[int] = set(item_ids)
        frontier = list(item_ids)
        while frontier:
            marks = next(iter(clustering.id_lists(frontier)))
            frontier = frontier[clustering.CHUNK :]
            children = [int(r[0]) for r in conn.exec_driver_sql(f"SELECT id FROM items WHERE parent_id IN ({marks})")]
            fresh = [c for c in children if c not in found]
            found.update(fresh)
            frontier.extend(fresh)
        return sorted(found)

    def remove_ids(self, item_ids: Iterable[int]) -> int:
        """Forget these items and the items inside them; return how many went."""
        with self.transaction() as conn:
            ids = self._with_descendants(conn, sorted(set(item_ids)))
            self._detach(conn, ids)
            for marks in clustering.id_lists(ids):
                conn.exec_driver_sql(f"DELETE FROM items WHERE id IN ({marks})")
            return len(ids)

    def remove_items(self, paths: Iterable[str]) -> int:
        """Forget every item of these files (all their parts) of this machine."""
        with self.transaction() as conn:
            self.claim_machine()
            ids: list[int] = []
            for path in set(paths):
                ids.extend(int(r[0]) for r in conn.exec_driver_sql(_IDS_OF_PATH, {"path": path, "machine": self.machine}))
            return self.remove_ids(ids)

    def move_item(self, old: str, new: str) -> int:
        """A file was renamed: its items keep their ids, text and clusters.
        Items already stored under the new path (a file the move replaced)
        are forgotten first.  Returns how many items moved."""
        with self.transaction() as conn:
            if old == new:
                return 0
            self.remove_items([new])  # claims the machine
            moved = conn.exec_driver_sql("UPDATE items SET path = :new WHERE path = :old AND machine = :machine",
                                         {"old": old, "new": new, "machine": self.machine})
            return int(moved.rowcount)

    def retitle(self, item_id: int, title: str) -> None:
        """Give an item another title (a file titled by its name, renamed),
        with the words the search indexes read of it (``title_apart``)."""
        with self.transaction() as conn:
            conn.exec_driver_sql("UPDATE items SET title = :title, title_apart = :apart WHERE id = :id",
                                 {"title": title, "apart": apart(title), "id": item_id})

    def recluster(self, method: Method = "conservative", rule: Rule | str | None = None, *,
                  progress: Callable[[int, int], None] | None = None) -> None:
        """Rebuild every cluster from the fingerprints, in an order that
        depends on the texts alone (the canonical clusters); later writes
        keep using ``method`` and ``rule`` (a :class:`Rule` or its spec,
        ``verified[:PERCENT]`` or ``features``; None keeps the store's).
        ``progress(placed, of)``: how many texts are placed, now and then."""
        if method not in METHODS:
            raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
        chosen = Rule.parse(rule) if isinstance(rule, str) else rule
        with self.transaction() as conn:
            self._set_param(conn, CLUSTER_METHOD, method)
            if chosen is not None:
                self._set_param(conn, CLUSTER_RULE, json.loads(chosen.to_json()))
            clustering.recluster(conn, self._clustering(conn), progress)

    def execute(self, sql: str, params: dict[str, object] | None = None) -> tuple[list[str], list[tuple[object, ...]]]:
        """Run one SQL statement as given; return column names and rows.

        Inside ``transaction()`` it joins that transaction; otherwise it runs
        on its own as SQLite runs a single statement (so VACUUM works).  On a
        read-only store SQLite itself refuses any change."""
        columns, rows, _ = self.execute_counted(sql, params)
        return columns, rows

    def execute_many(self, sql: str, rows: Sequence[dict[str, object]]) -> None:
        """Run one statement that returns no rows once for each of ``rows``,
        in one transaction (the one open, if any).  A server is sent them
        together (psycopg's pipeline), not a round trip each."""
        if rows:
            with self.transaction() as conn:
                driver(conn).executemany(sql, rows)

    def execute_counted(self, sql: str, params: dict[str, object] | None = None
                        ) -> tuple[list[str], list[tuple[object, ...]], int]:
        """:meth:`execute`, and how many rows an INSERT, UPDATE or DELETE
        changed (-1 for other statements, as SQLite's cursor says)."""
        if self._conn is not None:
            result = self._conn.exec_driver_sql(sql, params or {})
            if not result.returns_rows:
                return [], [], int(result.rowcount)
            return list(result.keys()), [tuple(r) for r in result], -1
        raw = self.engine.raw_connection()
        try:
            cursor: Any = raw.cursor()
            try:
                if self.location.url is not None:
                    # one statement (a prepared one cannot hold two).  It is
                    # tried READ ONLY first: a statement that only reads needs
                    # no turn among the writers (as on SQLite, where a lone
                    # SELECT takes no write lock); one that writes is refused
                    # by the server before it changes anything, and on a
                    # writable store runs again holding the write lock.
                    query = pyformat(sql)
                    try:
                        cursor.execute("SET TRANSACTION READ ONLY")
                        cursor.execute(query, params or None, prepare=True)
                    except Exception as exc:
                        if self.readonly or getattr(exc, "sqlstate", None) != _READ_ONLY_REFUSED:
                            raise
                        raw.rollback()
                        take_write_turn(lambda sql: cursor.execute(sql).fetchone())
                        cursor.execute(query, params or None, prepare=True)
                else:
                    cursor.execute(sql, params or {})
                rows = [tuple(r) for r in cursor.fetchall()] if cursor.description else []
                columns = [d[0] for d in cursor.description or ()]
                changed = int(cursor.rowcount)
                if self.readonly:
                    raw.rollback()  # nothing a read made is kept (a large object: PostgreSQL allows it READ ONLY)
                else:
                    raw.commit()
            finally:
                cursor.close()
        finally:
            raw.close()
        return columns, rows, changed


def _fingerprints_of(conn: Connection, ids: list[int], params: FingerprintParams
                     ) -> list[tuple[int, Fingerprint | None]]:
    """Each item's fingerprint made from its stored text now (None: it has none, or there is no such item)."""
    from lifededup.fingerprint import fingerprint_many  # numpy: not loaded by a command that only reads

    marks = ", ".join(str(int(i)) for i in ids)
    texts = {int(r[0]): str(r[1]) for r in driver(conn).execute(
        f"SELECT id, text FROM items WHERE id IN ({marks}) AND text IS NOT NULL")}
    made = dict(zip(texts, fingerprint_many(list(texts.values()), params)))
    return [(i, made.get(i)) for i in ids]


def _placed(item_id: int, fingerprint: Fingerprint | None) -> Member | None:
    return None if fingerprint is None else _member(item_id, fingerprint)


def _member(item_id: int, fingerprint: Fingerprint) -> Member:
    """What clustering knows of an item of this fingerprint."""
    return Member(item_id, fingerprint.sha1, fingerprint.features, fingerprint.sketch, fingerprint.words)


def _fingerprint_row(item_id: int, fingerprint: Fingerprint) -> dict[str, object]:
    features: tuple[int | None, ...] = fingerprint.features or (None,) * len(FEATURE_COLUMNS)
    return {
        "item_id": item_id,
        "sha1": fingerprint.sha1,
        **dict(zip(FEATURE_COLUMNS, features)),
        "sketch": fingerprint.sketch,
        "words": fingerprint.words,
        "shingles": fingerprint.shingles,
    }


def _mismatch(location: Location, have: FingerprintParams, got: FingerprintParams) -> str:
    return (
        f"the store {location} was built with fingerprint params {have.key()} "
        f"({json.dumps(have.to_dict(), sort_keys=True)}), but this fingerprint was made with "
        f"{got.key()} ({json.dumps(got.to_dict(), sort_keys=True)}); their features cannot be "
        "compared. Fingerprint with the store's params, or index into another store (--db)."
    )
