"""Moving a whole store to another: SQLite to PostgreSQL and back (or to
another of its kind), every row of every table as it is -- item ids, texts,
fingerprints, sketches, clusters with their similarity, sketch keys, params
and watched folders -- so the target needs no re-index and no recluster.

How:

* The tables are the models' (``Base.metadata``, in foreign-key order) and
  their columns are read from the source itself, so a column a later
  revision adds travels without a change here; the target must have the
  same columns, which it does when both stores are at the same revision
  (refused otherwise: bring both to head first).
* The source is read in one snapshot (SQLite's read transaction, PostgreSQL's
  REPEATABLE READ), streamed: SQLite's cursor, a PostgreSQL server-side
  cursor, never a whole table in memory.
* The target is written in one transaction: interrupted, killed or failing,
  it is left as it was.  PostgreSQL takes rows by binary ``COPY``; SQLite by
  ``executemany``, a chunk at a time.  Values pass through the column types'
  own conversions (SQLite's booleans are 0/1, its times text).
* The target's indexes are built once the rows are in, not grown row by row:
  they are dropped first and made again from their own definitions, and the
  search index is filled from every item at once (FTS5's ``rebuild``;
  PostgreSQL's ``items_fts`` and its long texts' pieces, ``items_fts_pieces``,
  in a statement each, or their rows copied as they are from another
  server), the trigger that fills them off meanwhile.  The
  id sequences continue where the source's did (ids are never reused).
* A target that holds anything is refused unless ``replace`` (never a silent
  merge of two stores): then it is emptied first, in the same transaction.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from sqlalchemy import Connection, Table, inspect

from lifededup.store.dialect import driver_errors, is_postgres
from lifededup.store.errors import StoreError, driver_said
from lifededup.store.models import Base
from lifededup.store.searchable import pg_document, pg_fill_pieces
from lifededup.store.store import Store

# Rows a server-side cursor fetches at once: texts average a few kB, so a
# few MB in memory (a text is at most the indexer's --max-text-mb).
FETCH_ROWS = 1_000

_TRIGGER = "items_ai"  # PostgreSQL's trigger filling items_fts (revision 0002) and items_fts_pieces (0027)
# PostgreSQL's search tables, which the models do not declare, made of the
# items (or copied as they are from another server): their columns and key
_SERVER_SEARCH = (("items_fts", "rowid, document", "rowid"),
                  ("items_fts_pieces", "rowid, piece, document, text_at", "rowid, piece"))


class TransferRefused(StoreError):
    """The stores cannot be moved one into the other as they are (the message says why and what to do)."""


class Progress(Protocol):
    """How a transfer reports what it does (the CLI shows a bar)."""

    def table(self, name: str, rows: int) -> None:
        """The copy of ``name`` (``rows`` rows) starts."""

    def advance(self, rows: int) -> None:
        """``rows`` more rows of the current table copied."""

    def finish(self) -> None:
        """The transfer is over (also after a failure)."""


class Quiet:
    def table(self, name: str, rows: int) -> None:
        pass

    def advance(self, rows: int) -> None:
        pass

    def finish(self) -> None:
        pass


@dataclass(frozen=True)
class Moved:
    """What a transfer copied: rows per table, in the order copied."""

    source: str
    target: str
    rows: dict[str, int] = field(default_factory=dict)
    replaced: int = 0  # items the target held before (``replace``)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, object]:
        return {"source": self.source, "target": self.target, "rows": self.rows,
                "replaced": self.replaced, "seconds": round(self.seconds, 3)}


def rows_said(rows: dict[str, int]) -> str:
    """Rows per table as a person reads them: ``1 machine, 2 items``."""
    # every table's name is a plural made with an s (items, sketch_keys, params)
    return ", ".join(f"{n:,} {table[:-1] if n == 1 else table}" for table, n in rows.items())


def tables() -> list[Table]:
    """The store's tables, parents before the tables that point at them."""
    return list(Base.metadata.sorted_tables)


def copy_store(source: Store, target: Store, *, replace: bool = False,
               progress: Progress | None = None) -> Moved:
    """Copy every row of ``source`` into ``target`` (see module docs)."""
    if str(source.location) == str(target.location):
        raise TransferRefused(f"{source.location} is both the source and the target")
    progress = progress or Quiet()
    started = time.monotonic()
    try:
        with source.snapshot() as reading, target.transaction() as writing:
            _same_revision(reading, writing, source, target)
            _paths_fit(reading, source, target)
            replaced = _make_room(writing, target, replace)
            deferred = _defer_indexes(writing)
            rows: dict[str, int] = {}
            for table in tables():
                columns = _same_columns(reading, writing, table.name, source, target)
                rows[table.name] = _copy_table(reading, writing, table, columns, progress)
            _rebuild_indexes(reading, writing, deferred, progress)
            _continue_sequences(reading, writing)
            _recount(reading, writing, rows, target)
    except driver_errors() as exc:
        reason = driver_said(exc)
        # the target's indexes and trigger are set aside while rows arrive: the owner's right
        hint = ("; move it as the role that owns the target's tables (the one that made the store)"
                if "must be owner" in reason else "")
        raise TransferRefused(f"moving {source.location} to {target.location} failed, and nothing was committed: "
                              f"{reason}{hint}") from exc
    finally:
        progress.finish()
    return Moved(str(source.location), str(target.location), rows, replaced, time.monotonic() - started)


# -- the two ends --------------------------------------------------------------


def _revision(conn: Connection) -> list[str]:
    return sorted(str(r[0]) for r in conn.exec_driver_sql("SELECT version_num FROM alembic_version"))


def _same_revision(reading: Connection, writing: Connection, source: Store, target: Store) -> None:
    have, want = _revision(reading), _revision(writing)
    if have != want:
        raise TransferRefused(
            f"the source {source.location} is at schema revision {', '.join(have) or 'none'} and the target "
            f"{target.location} at {', '.join(want) or 'none'}: bring both to the same (this lifededup's head) "
            "first -- `lifededup check --db STORE` upgrades a store -- then move it")


def _paths_fit(reading: Connection, source: Store, target: Store) -> None:
    """Refuse moving a store that holds one path from several machines into
    SQLite, which keeps (path, part) unique: an SQLite store is one machine's."""
    if target.location.url is not None:
        return
    shared = reading.exec_driver_sql(
        "SELECT path, part, count(*) FROM items GROUP BY path, part HAVING count(*) > 1 LIMIT 1").first()
    if shared is None:
        return
    name = str(shared[0]) + (f" [{shared[1]}]" if shared[1] else "")
    raise TransferRefused(
        f"{source.location} holds files of several machines at the same paths ({name!r} is stored for "
        f"{shared[2]} machines), and an SQLite store keeps one file a path (README, \"The store\", items): "
        "move it to another PostgreSQL database instead (lifededup export postgresql://...; or pg_dump), "
        "or index each machine's folders into a store of its own")


def _make_room(writing: Connection, target: Store, replace: bool) -> int:
    """Refuse a target holding anything, or (``replace``) empty it; return its items."""
    held = {t.name: int(writing.exec_driver_sql(f"SELECT count(*) FROM {t.name}").scalar() or 0)
            for t in tables()}
    items = held.get("items", 0)
    if not any(held.values()):
        return 0
    if not replace:
        shown = rows_said({name: n for name, n in held.items() if n})
        raise TransferRefused(
            f"the target {target.location} is not empty ({shown}): a transfer never merges two stores. "
            "Give an empty database or a new file, or --replace to empty this one first (its rows are "
            "deleted, in the same transaction as the copy)")
    if is_postgres(writing):
        writing.exec_driver_sql(f"TRUNCATE {', '.join(t.name for t in tables())} CASCADE")
    else:
        for table in reversed(tables()):
            writing.exec_driver_sql(f"DELETE FROM {table.name}")  # triggers keep items_fts
    return items


def _same_columns(reading: Connection, writing: Connection, table: str, source: Store, target: Store) -> list[str]:
    have = [c["name"] for c in inspect(reading).get_columns(table)]
    want = {c["name"] for c in inspect(writing).get_columns(table)}
    if set(have) != want:
        raise TransferRefused(
            f"{table} has the columns {sorted(have)} in {source.location} but {sorted(want)} in "
            f"{target.location}: bring both to this lifededup's head first (`lifededup check --db STORE`)")
    return have


# -- rows ------------------------------------------------------------------------


Convert = Callable[[Any], Any]


def _converters(reading: Connection, writing: Connection, table: str,
                columns: Sequence[str]) -> list[Convert | None]:
    """Per column: the source's stored form to the target's, through the
    Python value (SQLite's types convert to and from it; psycopg gives and
    takes Python values itself), or None where nothing changes."""
    if reading.dialect.name == writing.dialect.name:
        return [None] * len(columns)  # stored forms as they are, byte for byte
    loads = _processors(reading, table, columns, lambda kind, d: kind.result_processor(d, None))
    dumps = _processors(writing, table, columns, lambda kind, d: kind.bind_processor(d))
    if is_postgres(writing):
        texts = {c["name"] for c in inspect(writing).get_columns(table) if c["type"].python_type is str}
        dumps = [_no_nul if name in texts else dump for name, dump in zip(columns, dumps)]
    return [_compose(load, dump) for load, dump in zip(loads, dumps)]


def _processors(conn: Connection, table: str, columns: Sequence[str],
                processor: Callable[[Any, Any], Convert | None]) -> list[Convert | None]:
    if is_postgres(conn):
        return [None] * len(columns)
    kinds = {c["name"]: c["type"] for c in inspect(conn).get_columns(table)}
    return [processor(kinds[name].dialect_impl(conn.dialect), conn.dialect) for name in columns]


def _compose(load: Convert | None, dump: Convert | None) -> Convert | None:
    if load is None or dump is None:
        return load or dump
    return lambda value: dump(load(value))


def _source_chunks(reading: Connection, table: Table, columns: Sequence[str]) -> Iterator[list[tuple[Any, ...]]]:
    """The table's rows in primary-key order, FETCH_ROWS at a time."""
    order = ", ".join(c.name for c in table.primary_key.columns)
    raw = reading.connection.driver_connection
    assert raw is not None
    # a server-side cursor on PostgreSQL: the server sends rows as they are asked for
    cursor = raw.cursor(name=f"lifededup_transfer_{table.name}") if is_postgres(reading) else raw.cursor()
    try:
        cursor.execute(f"SELECT {', '.join(columns)} FROM {table.name} ORDER BY {order}")
        while chunk := cursor.fetchmany(FETCH_ROWS):
            yield chunk
    finally:
        cursor.close()


def _converted(chunks: Iterable[list[tuple[Any, ...]]], convert: Sequence[Convert | None]
               ) -> Iterator[list[tuple[Any, ...]]]:
    active = [(at, f) for at, f in enumerate(convert) if f is not None]
    if not active:
        yield from chunks
        return
    for chunk in chunks:
        rows = []
        for row in chunk:
            values = list(row)
            for at, f in active:
                if values[at] is not None:
                    values[at] = f(values[at])
            rows.append(tuple(values))
        yield rows


def _copy_table(reading: Connection, writing: Connection, table: Table, columns: list[str],
                progress: Progress) -> int:
    total = int(reading.exec_driver_sql(f"SELECT count(*) FROM {table.name}").scalar() or 0)
    progress.table(table.name, total)
    chunks = _converted(_source_chunks(reading, table, columns), _converters(reading, writing, table.name, columns))
    write = _copy_into_server if is_postgres(writing) else _insert_into_file
    copied = 0
    for count in write(writing, table.name, columns, chunks):
        copied += count
        progress.advance(count)
    return copied


def _copy_into_server(writing: Connection, table: str, columns: Sequence[str],
                      chunks: Iterable[list[tuple[Any, ...]]]) -> Iterator[int]:
    """Binary COPY: values go as the server stores them, not as text it
    parses (half the time for the sketch keys).  Yields rows written."""
    kinds: dict[str, str] = dict(writing.exec_driver_sql(
        "SELECT a.attname, t.typname FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid"
        " WHERE a.attrelid = CAST(:table AS regclass) AND a.attnum > 0", {"table": table}).all())
    into = writing.connection.driver_connection
    assert into is not None
    sql = f"COPY {table} ({', '.join(columns)}) FROM STDIN (FORMAT BINARY)"
    with into.cursor() as cursor, cursor.copy(sql) as copy:
        copy.set_types([kinds[name] for name in columns])
        for chunk in chunks:
            for row in chunk:
                copy.write_row(row)
            yield len(chunk)


def _insert_into_file(writing: Connection, table: str, columns: Sequence[str],
                      chunks: Iterable[list[tuple[Any, ...]]]) -> Iterator[int]:
    into = writing.connection.driver_connection
    assert into is not None
    insert = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})"
    for chunk in chunks:
        into.executemany(insert, chunk)
        yield len(chunk)


def _pipe(reading: Connection, into: Any, select: str, table: str, names: str, progress: Progress) -> int:
    """PostgreSQL to PostgreSQL for a type the driver does not read
    (``tsvector``): the server's own COPY format, passed through."""
    source = reading.connection.driver_connection
    assert source is not None
    copied = told = 0
    buffer = bytearray()
    with source.cursor() as out_cursor, into.cursor() as in_cursor, \
            out_cursor.copy(f"COPY ({select}) TO STDOUT") as out, \
            in_cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
        for data in out:  # a row at a time: sent on in blocks of about 1 MB
            buffer += data
            copied += 1
            if len(buffer) > 1 << 20:
                copy.write(buffer)
                buffer = bytearray()
                progress.advance(copied - told)
                told = copied
        copy.write(buffer)
    progress.advance(copied - told)
    return copied


def _no_nul(value: str) -> str:
    """PostgreSQL's text cannot hold the character NUL, which SQLite's can."""
    if "\x00" in value:
        raise TransferRefused(f"a text holds the character NUL, which PostgreSQL cannot store: {value[:60]!r}; "
                              "nothing was copied")
    return value


# -- the search index and the other indexes ------------------------------------------


def _defer_indexes(writing: Connection) -> list[str]:
    """Drop the target's indexes (the ones no constraint needs) and the
    trigger filling the search index, and return the statements that make
    them again: an index built once over all rows is much faster than one
    grown row by row (and the search index from all items at once).  DDL is
    transactional on both backends: an interrupted copy brings them back."""
    names = [t.name for t in tables()] + [table for table, _, _ in _SERVER_SEARCH]
    if is_postgres(writing):
        writing.exec_driver_sql(f"ALTER TABLE items DISABLE TRIGGER {_TRIGGER}")
        writing.exec_driver_sql("SET LOCAL maintenance_work_mem = '256MB'")
        found = writing.exec_driver_sql(
            "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()"
            " AND tablename = ANY(:names) AND indexname NOT IN (SELECT conname FROM pg_constraint)",
            {"names": names}).all()
        for name, _ in found:
            writing.exec_driver_sql(f"DROP INDEX {name}")
        return [str(r[1]) for r in found]
    # FTS5's own tables are left alone; foreign keys checked at the commit
    writing.exec_driver_sql("PRAGMA defer_foreign_keys = ON")
    found = writing.exec_driver_sql(
        "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND"
        f" ((type = 'index' AND tbl_name IN ({', '.join(repr(n) for n in names)}))"
        f" OR (type = 'trigger' AND name = '{_TRIGGER}'))").all()
    for kind, name, _ in found:
        writing.exec_driver_sql(f"DROP {kind.upper()} {name}")
    return [str(r[2]) for r in found]


def _rebuild_indexes(reading: Connection, writing: Connection, statements: Sequence[str],
                     progress: Progress) -> None:
    """The search index over every copied item (from another server, copied
    as it is), then the indexes and the trigger :func:`_defer_indexes` took away."""
    _fill_search(reading, writing, progress)
    if is_postgres(writing):
        writing.exec_driver_sql(f"ALTER TABLE items ENABLE TRIGGER {_TRIGGER}")
    progress.table("indexes", len(statements))
    for statement in statements:
        writing.exec_driver_sql(statement)
        progress.advance(1)


def _fill_search(reading: Connection, writing: Connection, progress: Progress) -> None:
    """The target's search tables: FTS5's rebuilt, PostgreSQL's copied from
    another server or made by the trigger's own SQL (the pieces of the documents just made)."""
    items = _count(writing, "items")
    if is_postgres(reading) and is_postgres(writing):
        into = writing.connection.driver_connection
        for table, columns, key in _SERVER_SEARCH:
            progress.table(table, _count(reading, table))
            _pipe(reading, into, f"SELECT {columns} FROM {table} ORDER BY {key}", table, columns, progress)
        return
    made = ((("items_fts", f"INSERT INTO items_fts (rowid, document) SELECT id, {pg_document()} FROM items"),
             ("items_fts_pieces", pg_fill_pieces())) if is_postgres(writing)
            else (("items_fts", "INSERT INTO items_fts (items_fts) VALUES ('rebuild')"),))
    for table, statement in made:
        progress.table(table, items)
        writing.exec_driver_sql(statement)
        progress.advance(items)


# -- ids ---------------------------------------------------------------------------


def _sequenced(table: Table) -> str | None:
    """The integer key a table numbers its rows by, if it has one."""
    keys = list(table.primary_key.columns)
    if len(keys) == 1 and keys[0].autoincrement in (True, "auto") and keys[0].type.python_type is int:
        return keys[0].name
    return None


def _last_id(conn: Connection, table: str, key: str) -> int:
    """The largest id the store has ever given in ``table`` (an id is never
    given twice: SQLite's AUTOINCREMENT, PostgreSQL's sequence)."""
    largest = int(conn.exec_driver_sql(f"SELECT coalesce(max({key}), 0) FROM {table}").scalar() or 0)
    if is_postgres(conn):
        sequence = conn.exec_driver_sql("SELECT pg_get_serial_sequence(:t, :k)", {"t": table, "k": key}).scalar()
        # a role that may only read the tables (README, "Someone who only searches") may not read the
        # sequence: "permission denied for sequence items_id_seq" ended its export; the largest id stands in
        readable = sequence is not None and conn.exec_driver_sql(
            "SELECT has_sequence_privilege(:s, 'SELECT')", {"s": sequence}).scalar()
        if readable:
            row = conn.exec_driver_sql(f"SELECT last_value, is_called FROM {sequence}").one()
            largest = max(largest, int(row[0]) if row[1] else 0)
        return largest
    given = conn.exec_driver_sql("SELECT seq FROM sqlite_sequence WHERE name = :t", {"t": table}).scalar()
    return max(largest, int(given or 0))


def _continue_sequences(reading: Connection, writing: Connection) -> None:
    """The target gives its next ids after the source's last."""
    for table in tables():
        key = _sequenced(table)
        if key is None:
            continue
        last = _last_id(reading, table.name, key)
        if is_postgres(writing):
            sequence = writing.exec_driver_sql("SELECT pg_get_serial_sequence(:t, :k)",
                                               {"t": table.name, "k": key}).scalar()
            if sequence is not None:
                writing.exec_driver_sql("SELECT setval(:s, :v, :called)",
                                        {"s": sequence, "v": max(last, 1), "called": last > 0})
        elif last and table.kwargs.get("sqlite_autoincrement"):
            writing.exec_driver_sql("DELETE FROM sqlite_sequence WHERE name = :t", {"t": table.name})
            writing.exec_driver_sql("INSERT INTO sqlite_sequence (name, seq) VALUES (:t, :v)",
                                    {"t": table.name, "v": last})


def _count(conn: Connection, table: str) -> int:
    return int(conn.exec_driver_sql(f"SELECT count(*) FROM {table}").scalar() or 0)


def _recount(reading: Connection, writing: Connection, rows: dict[str, int], target: Store) -> None:
    """Every row arrived, every item is in the search index, and another
    server's pieces all came: else nothing is committed."""
    expected = dict(rows)
    if is_postgres(writing):
        expected["items_fts"] = rows.get("items", 0)
    if is_postgres(reading) and is_postgres(writing):
        expected["items_fts_pieces"] = _count(reading, "items_fts_pieces")
    for table, want in expected.items():
        got = _count(writing, table)
        if got != want:
            raise TransferRefused(f"{table} in {target.location} holds {got:,} rows after the copy, not {want:,}; "
                                  "nothing was committed")
