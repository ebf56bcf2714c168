"""``lifededup check``: the store's invariants and SQLite's own checks, each
failure said in words with the items concerned."""

from __future__ import annotations

import shlex

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import Connection
from sqlalchemy.exc import DBAPIError

from lifededup.store.clustering import id_lists, misplaced_keys, unmeasured_members
from lifededup.store.settings import FEATURE_COLUMNS
from lifededup.store.opening import damage_of, damaged_message
from lifededup.store.searchable import (CJK, CJK_CHARS, PG_PIECES_BODY, TS_CONFIG, apart, pg_document,
                                        pg_fill_pieces, pg_pieces_of)
from lifededup.store.store import Store


@dataclass(frozen=True)
class Problem:
    check: str
    message: str
    item_ids: list[int] = field(default_factory=list)

    def __str__(self) -> str:
        shown = ", ".join(str(i) for i in self.item_ids[:10])
        more = f" (+{len(self.item_ids) - 10:,} more)" if len(self.item_ids) > 10 else ""
        return f"{self.check}: {self.message}" + (f" [items {shown}{more}]" if shown else "")


_SHARED = " + ".join(f"CAST(m.{f} = r.{f} AS INTEGER)" for f in FEATURE_COLUMNS)

# (name, what is wrong when rows come back, SQL returning offending item ids)
_INVARIANTS: tuple[tuple[str, str, str], ...] = (
    ("fingerprint-missing", "items with text but no fingerprints row",
     "SELECT i.id FROM items i LEFT JOIN fingerprints f ON f.item_id = i.id"
     " WHERE i.text IS NOT NULL AND f.item_id IS NULL"),
    ("fingerprint-without-text", "fingerprints rows of items without text (or of no item)",
     "SELECT f.item_id FROM fingerprints f LEFT JOIN items i ON i.id = f.item_id WHERE i.text IS NULL"),
    ("cluster-missing", "fingerprinted items with no clusters row",
     "SELECT f.item_id FROM fingerprints f LEFT JOIN clusters c ON c.item_id = f.item_id"
     " WHERE c.item_id IS NULL"),
    ("cluster-without-fingerprint", "clusters rows of items with no fingerprint",
     "SELECT c.item_id FROM clusters c LEFT JOIN fingerprints f ON f.item_id = c.item_id"
     " WHERE f.item_id IS NULL"),
    ("sha1-differs", "clusters.sha1 differs from fingerprints.sha1",
     "SELECT c.item_id FROM clusters c JOIN fingerprints f ON f.item_id = c.item_id WHERE c.sha1 != f.sha1"),
    ("no-representative", "members of a cluster whose representative is not its own representative",
     "SELECT c.item_id FROM clusters c LEFT JOIN clusters r ON r.item_id = c.cluster_id"
     " WHERE r.item_id IS NULL OR r.cluster_id != r.item_id"),
    ("representative-flag", "fingerprints.is_representative disagrees with clusters",
     "SELECT f.item_id FROM fingerprints f JOIN clusters c ON c.item_id = f.item_id"
     " WHERE f.is_representative != (c.cluster_id = c.item_id)"),
    ("copies-split", "exact copies (same SHA-1) in different clusters",
     "SELECT c.item_id FROM clusters c WHERE c.sha1 IN"
     " (SELECT sha1 FROM clusters GROUP BY sha1 HAVING count(DISTINCT cluster_id) > 1)"),
)

_CONSERVATIVE = (
    "member-not-near", "members that are neither an exact nor a near copy of their representative",
    "SELECT m.item_id FROM clusters c"
    " JOIN fingerprints m ON m.item_id = c.item_id JOIN fingerprints r ON r.item_id = c.cluster_id"
    f" WHERE c.item_id != c.cluster_id AND m.sha1 != r.sha1 AND coalesce({_SHARED}, 0) < :threshold",
)
# the verified rule: every measured member within the bound (a member still
# unmeasured, from before revision 0006, was admitted by its features)
_VERIFIED = (
    "member-not-near", "members farther from their representative than the rule's word-distance bound",
    "SELECT m.item_id FROM clusters c"
    " JOIN fingerprints m ON m.item_id = c.item_id JOIN fingerprints r ON r.item_id = c.cluster_id"
    " WHERE c.item_id != c.cluster_id AND m.sha1 != r.sha1 AND (c.word_distance > :bound"
    # the length difference is a lower bound of the edit distance: a stored
    # distance below it was not measured against this representative
    " OR abs(m.words - r.words) > c.word_distance"
    " * CASE WHEN m.words > r.words THEN m.words ELSE r.words END + 1"
    # (and, in Python, a stored resemblance that is not the sketches': see
    # clustering.unmeasured_members)
    f" OR (c.word_distance IS NULL AND coalesce({_SHARED}, 0) < :threshold))",
)


def damage(store: Store) -> Problem | None:
    """SQLite's integrity check (every page, every index entry against its
    table): the finding in SQLite's words, or None for a sound file.  A
    PostgreSQL server keeps its own pages and foreign keys."""
    if store.location.url is not None:
        return None
    try:
        with store.engine.connect() as conn:
            integrity = [str(r[0]) for r in conn.exec_driver_sql("PRAGMA integrity_check(20)")]
    except DBAPIError as exc:
        if damage_of(exc, store.location) is None:
            raise
        integrity = [str(exc.orig)]
    if integrity == ["ok"]:
        return None
    return Problem("sqlite-integrity", damaged_message(store.location, "; ".join(integrity)))


def _sqlite_checks(conn: Connection) -> list[Problem]:
    problems: list[Problem] = []
    broken = conn.exec_driver_sql("PRAGMA foreign_key_check").all()
    if broken:
        problems.append(Problem("foreign-keys", f"{len(broken):,} rows point at missing rows",
                                sorted({int(r[1]) for r in broken})))
    return problems


# The indexes PostgreSQL alone has, which the models do not declare: those
# of items_fts and items_fts_pieces (revisions 0002, 0025 and 0027; the tables are plain SQL), through
# which a search reads (without one a common word's page scans every
# document), and the items' paths in byte order (revision 0026), through
# which a scan finds the items under its folder.
_SERVER_INDEXES = {
    "ix_items_fts_document": ("items_fts", "CREATE INDEX ix_items_fts_document ON items_fts USING gin (document)"),
    "ix_items_fts_heading": ("items_fts",
                             "CREATE INDEX ix_items_fts_heading ON items_fts USING gin (ts_filter(document, '{a}'))"),
    "ix_items_fts_length": ("items_fts", "CREATE INDEX ix_items_fts_length ON items_fts (length(document))"),
    "ix_items_fts_pieces_document": ("items_fts_pieces", "CREATE INDEX ix_items_fts_pieces_document "
                                     "ON items_fts_pieces USING gin (document)"),
    "ix_items_fts_pieces_heads": ("items_fts_pieces", "CREATE INDEX ix_items_fts_pieces_heads "
                                  "ON items_fts_pieces (rowid) WHERE piece = 0"),
    "ix_items_path_bytes": ("items", 'CREATE INDEX ix_items_path_bytes ON items (machine, path COLLATE "C")'),
}


# What check says of the items with no search row (deleted by hand), on either backend.
MISSING = "items missing from items_fts (so no search finds them)"


def _server_fts_check(conn: Connection) -> list[Problem]:
    # every item has its search row (the trigger keeps them); the row's
    # words are the server's own work
    ids = [int(r[0]) for r in conn.exec_driver_sql(
        "SELECT i.id FROM items i LEFT JOIN items_fts f ON f.rowid = i.id WHERE f.rowid IS NULL ORDER BY i.id")]
    problems = [Problem("fts-index", MISSING, ids)] if ids else []
    present = {str(r[0]) for r in conn.exec_driver_sql(
        "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()")}
    for name, (table, statement) in _SERVER_INDEXES.items():
        if name not in present:
            problems.append(Problem("missing-index", f"the store has no index {name} on {table}; "
                                    f"make it again with: lifededup sql --write {shlex.quote(statement)}"))
    return problems


# The text search configuration check names (TS_CONFIG, revision 0029).
CONFIGURATION = "search-configuration"
# the token types the simple configuration maps, each read by unaccent first in the store's (0029's list)
_TOKENS = ("asciihword, asciiword, email, file, float, host, hword, hword_asciipart, hword_numpart, hword_part, "
           "int, numhword, numword, sfloat, uint, url, url_path, version, word")
# whether the configuration is found as the store's functions and searches name it (on the search path), and
# the schema of the unaccent extension it reads through (NULL: none)
_CONFIGURED = (f"SELECT EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = '{TS_CONFIG}' "
               "AND pg_ts_config_is_visible(oid)), (SELECT quote_ident(n.nspname) FROM pg_extension e "
               "JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'unaccent')")
# each token type the configuration found as TS_CONFIG maps, with the dictionaries it reads it through in order
_MAPPED = ("SELECT t.alias, string_agg(quote_ident(n.nspname) || '.' || quote_ident(d.dictname), ', ' "
           "ORDER BY m.mapseqno) FROM pg_ts_config_map m JOIN pg_ts_config c ON c.oid = m.mapcfg "
           "CROSS JOIN LATERAL ts_token_type(c.cfgparser) t JOIN pg_ts_dict d ON d.oid = m.mapdict "
           f"JOIN pg_namespace n ON n.oid = d.dictnamespace WHERE c.oid = CAST('{TS_CONFIG}' AS regconfig) "
           "AND t.tokid = m.maptokentype GROUP BY t.alias")


def _search_configuration(conn: Connection) -> list[Problem]:
    """On PostgreSQL, the text search configuration the store's documents
    are made with and every search reads words with (``TS_CONFIG``,
    revision 0029), and the ``unaccent`` extension it reads through
    (``DROP EXTENSION unaccent CASCADE`` drops the configuration too):
    without it every search and every item's indexing fails; with its
    mappings altered (a word read without unaccent, a token type dropped)
    a search silently misses what the documents hold.  Named with the
    statements that make it again, as revision 0029 made it."""
    [(configured, schema)] = conn.exec_driver_sql(_CONFIGURED).all()
    dictionaries = f"{f'{schema}.' if schema else ''}unaccent, pg_catalog.simple"
    remap = f"ALTER TEXT SEARCH CONFIGURATION {TS_CONFIG} ALTER MAPPING FOR {_TOKENS} WITH {dictionaries}"
    extension = [] if schema else ["CREATE EXTENSION IF NOT EXISTS unaccent"]
    if configured:
        return _altered_mappings(conn, dictionaries, extension, remap)
    make = [*extension, f"CREATE TEXT SEARCH CONFIGURATION {TS_CONFIG} (COPY = pg_catalog.simple)", remap]
    gone = "" if schema else ", nor the unaccent extension it reads words through (made by the database's owner)"
    return [Problem(CONFIGURATION, f"the store has no text search configuration {TS_CONFIG} (revision 0029){gone}: "
                    "its documents were made with it and every search reads words with it, so searching and "
                    f"indexing fail; make it again with: {_said(make)}")]


def _altered_mappings(conn: Connection, dictionaries: str, extension: list[str], remap: str) -> list[Problem]:
    """The configuration's mappings, where they are not revision 0029's
    (``ALTER TEXT SEARCH CONFIGURATION ... ALTER``, ``DROP`` or ``ADD
    MAPPING`` by hand): one catalog query of a few dozen rows."""
    mapped: dict[str, str] = {str(alias): str(read) for alias, read in conn.exec_driver_sql(_MAPPED)}
    wanted = _TOKENS.split(", ")
    altered: dict[str | None, list[str]] = {}
    for alias in wanted:
        if mapped.get(alias) != dictionaries:
            altered.setdefault(mapped.get(alias), []).append(alias)
    extra = sorted(set(mapped) - set(wanted))
    if not altered and not extra:
        return []
    said = [f"{', '.join(aliases)} " + (f"read through {read}" if read else "not read (no mapping)")
            for read, aliases in altered.items()]
    said += [f"{', '.join(extra)} read too, which revision 0029 leaves out"] if extra else []
    unmap = [f"ALTER TEXT SEARCH CONFIGURATION {TS_CONFIG} DROP MAPPING IF EXISTS FOR {', '.join(extra)}"
             ] if extra else []
    return [Problem(CONFIGURATION, f"the store's text search configuration {TS_CONFIG} is not revision 0029's, "
                    f"which reads each of its words through {dictionaries}: {'; '.join(said)}; so a search misses "
                    "words the documents hold (an accented word, say), and an item indexed now is given other "
                    f"words; make its mappings again with: {_said([*extension, *unmap, remap])}")]


def _said(statements: list[str]) -> str:
    return " and ".join(f"lifededup sql --write {shlex.quote(statement)}" for statement in statements)


# What a command meeting it says, after the store's name.
LOST_CONFIGURATION = (f"has lost its text search configuration {TS_CONFIG}, with which searching and indexing "
                      "read words: `lifededup check` names what is missing and the statements that make it again")
# undefined_object: PostgreSQL's SQLSTATE for a configuration not found
_UNDEFINED = "42704"


def lost_configuration(exc: BaseException) -> bool:
    """Whether a server's error is a search's or an item's indexing meeting
    no text search configuration ``TS_CONFIG`` (dropped by hand): what
    :func:`_search_configuration` finds and says how to make again."""
    from lifededup.store.errors import driver_error

    error = driver_error(exc)
    return getattr(error, "sqlstate", None) == _UNDEFINED and f'configuration "{TS_CONFIG}"' in str(error)


# Whether an item has pieces (piece 0) where its document lost none, or none
# where it lost some (revision 0027): the one look at every item's places.
_PIECED_WRONG = (f"items_fts_clamped(f.document, {PG_PIECES_BODY}) IS DISTINCT FROM "
                 "EXISTS (SELECT 1 FROM items_fts_pieces k WHERE k.rowid = i.id AND k.piece = 0)")
# The pieced items whose pieces are not all and only those their text makes:
# made again for those items alone.
_PIECES_DIFFER = (
    "SELECT DISTINCT coalesce(m.rowid, k.rowid) FROM (SELECT f.rowid, p.piece, p.words, p.text_at FROM items_fts f "
    f"JOIN items i ON i.id = f.rowid CROSS JOIN LATERAL {pg_pieces_of()} AS p "
    "WHERE f.rowid IN (SELECT rowid FROM items_fts_pieces)) AS m "
    "FULL JOIN items_fts_pieces k ON k.rowid = m.rowid AND k.piece = m.piece "
    "WHERE m.rowid IS NULL OR k.rowid IS NULL OR k.document IS DISTINCT FROM m.words "
    "OR k.text_at IS DISTINCT FROM m.text_at ORDER BY 1")


def _stale_documents(store: Store) -> list[Problem]:
    """On PostgreSQL, the items whose search row is not what the store's
    trigger makes of their title, text and people (``items_fts_document``): a row
    written by hand, or by a function since changed; and those whose pieces
    (``items_fts_pieces``, revision 0027) are not the ones it makes of their
    text: missing for a text whose document lost places, left for one whose
    document lost none, or written by hand.  FTS5's integrity check compares
    the same on SQLite.  Every item's words are made again, and every
    document's places looked at (whether it lost some), in the same pass;
    only the pieced items' pieces are made again.  At the real-text million
    (none of it pieced: 685,728 texts of 509 characters or more, whose
    places are read), quiet and its pages in memory, the pass took 145 s
    without the places and 163 s with them (an earlier session's 44 s no
    longer holds); at a load of 2-3, 150-200 s and 184-212 s (three runs
    alternated; the places' look alone 31 s).
    So this is a read of its own, which does not hold the writers' lock (any
    committed state has each row as the trigger made it)."""
    document = pg_document("i.")
    _, rows = store.execute(
        f"SELECT i.id, f.document IS DISTINCT FROM {document} FROM items i JOIN items_fts f ON f.rowid = i.id "
        f"WHERE f.document IS DISTINCT FROM {document} OR {_PIECED_WRONG} ORDER BY i.id")
    stale = [int(str(r[0])) for r in rows if r[1]]
    _, differ = store.execute(_PIECES_DIFFER)
    pieces = sorted({int(str(r[0])) for r in rows if not r[1]} | {int(str(r[0])) for r in differ})
    problems = [Problem("fts-index", "items_fts rows that are not their item's title, text and people", stale)]
    problems.append(Problem("fts-index", "items whose pieces (items_fts_pieces, where a phrase is looked for in a "
                            "long text) are not the ones its text makes: missing, changed or left over (written "
                            "by hand, or by a load with the trigger off?)", pieces))
    return [p for p in problems if p.item_ids]


# The columns the search index reads apart (revision 0022) and theirs.
_SEARCHED = ("title", "text", "people")
_APART = tuple(f"{c}_apart" for c in _SEARCHED)


def _holds_cjk(value: str | None) -> bool:
    return value is not None and CJK.search(value) is not None


def _maybe_apart(conn: Connection) -> str:
    """The ids of the items whose columns apart are kept, or whose title,
    text or people hold a CJK character: the only ones :func:`apart` can
    disagree with, found in one pass over the texts.  On PostgreSQL a
    regular expression; SQLite's GLOB of the same class took 28 s over
    200,000 texts of 1.2 kB (the class tried at every character), Python's
    own ``re`` in a function of the connection 2 s."""
    if conn.dialect.name == "postgresql":
        holds = f"{{}} ~ '[{CJK_CHARS}]'"
    else:
        sqlite = conn.connection.driver_connection
        assert isinstance(sqlite, sqlite3.Connection)
        sqlite.create_function("lifededup_holds_cjk", 1, _holds_cjk, deterministic=True)
        holds = "lifededup_holds_cjk({})"
    tests = [f"{c} IS NOT NULL" for c in _APART] + [holds.format(c) for c in _SEARCHED]
    return f"SELECT id FROM items WHERE {' OR '.join(tests)} ORDER BY id"


def stale_apart(conn: Connection) -> list[int]:
    """The items whose ``*_apart`` columns are not what ``searchable.apart``
    makes of their title, text and people now: a column changed by hand
    (``sql --write``) leaves the search index reading the text it was, so
    a CJK word of the new text is not found and one of the old text is."""
    ids = [int(r[0]) for r in conn.exec_driver_sql(_maybe_apart(conn))]
    stale = []
    for listed in id_lists(ids):  # a chunk at a time: their texts in memory, not every CJK item's
        rows = conn.exec_driver_sql(f"SELECT id, {', '.join(_SEARCHED + _APART)} FROM items "
                                    f"WHERE id IN ({listed}) ORDER BY id")
        stale += [int(r[0]) for r in rows if tuple(apart(v) for v in r[1:4]) != tuple(r[4:7])]
    return stale


def mend_apart(store: Store, ids: list[int]) -> int:
    """Write the ``*_apart`` columns of these items (``stale_apart``'s)
    again from their title, text and people, in one transaction; each
    item's trigger indexes it anew.  How many were still stale."""
    update = f"UPDATE items SET {', '.join(f'{c} = :{c}' for c in _APART)} WHERE id = :id"
    mended = 0
    with store.transaction() as conn:
        for listed in id_lists(ids):
            for row in conn.exec_driver_sql(f"SELECT id, {', '.join(_SEARCHED + _APART)} FROM items "
                                            f"WHERE id IN ({listed})").fetchall():
                now = tuple(apart(v) for v in row[1:4])
                if now != tuple(row[4:7]):
                    conn.exec_driver_sql(update, {"id": row[0], **dict(zip(_APART, now))})
                    mended += 1
    return mended


# texts whose SHA-1 is made at a time: read as the query streams them, not all at once
_TEXTS_AT_A_TIME = 500
_FINGERPRINTED_TEXTS = ("SELECT f.item_id, i.text, f.sha1 FROM fingerprints f JOIN items i ON i.id = f.item_id"
                        " WHERE i.text IS NOT NULL")


def stale_fingerprints(conn: Connection) -> list[int]:
    """The items whose text is not the one their fingerprint was made of:
    a text changed by hand (``sql --write``) keeps the old text's SHA-1,
    features and cluster.  Only the SHA-1 of each text is made again
    (``text_sha1``, a twentieth of a whole fingerprint): the features are
    made from the same word stream, so they changed only where it did.
    The texts are streamed (a server cursor on PostgreSQL), so memory holds
    a few hundred of them however large the store."""
    from lifededup.fingerprint import text_sha1  # numpy: loaded by the check alone

    rows = conn.exec_driver_sql(_FINGERPRINTED_TEXTS, execution_options={"stream_results": True,
                                                                         "yield_per": _TEXTS_AT_A_TIME})
    return sorted(int(r[0]) for r in rows if text_sha1(str(r[1])) != r[2])


def _fts_failure(conn: Connection) -> str | None:
    """FTS5's own check, which compares the whole index with the items it
    indexes (``items_searched``), in FTS5's words where it fails (a row
    written by hand reads as 'database disk image is malformed'); it is
    issued as an INSERT, so a read-only store cannot run it."""
    try:
        with conn.begin_nested():
            conn.exec_driver_sql("INSERT INTO items_fts(items_fts, rank) VALUES('integrity-check', 1)")
    except DBAPIError as exc:
        return str(exc.orig)
    return None


# The items FTS5 keeps no row for: it keeps each indexed row's sizes in items_fts_docsize.
_SQLITE_MISSING = ("SELECT i.id FROM items i WHERE NOT EXISTS (SELECT 1 FROM items_fts_docsize d WHERE d.id = i.id) "
                   "ORDER BY i.id")
# FTS5's insert of an item's row, from what it indexes (the store's trigger's own insert)
_SQLITE_INDEX = ("INSERT INTO items_fts (rowid, title, text, people) SELECT id, title, text, people "
                 "FROM items_searched WHERE id IN ({}) AND id NOT IN (SELECT id FROM items_fts_docsize)")
# What check says when FTS5's check fails otherwise: its index holds words
# of no row it can name (a row written by hand keeps no trace of what it was).
UNNAMED = ("items_fts rows that are not their item's title, text and people (written by hand?), which FTS5's "
           "check finds ({}) but cannot name one by one")


def _fts_check(conn: Connection) -> list[Problem]:
    """The items FTS5's check finds wrong: those with no row, named, and
    whether the index still fails with their rows made (in a savepoint,
    undone) -- the rows written by hand, which FTS5 cannot name.  Only
    where FTS5's check fails, which reads every row anyway."""
    failure = _fts_failure(conn)
    if failure is None:
        return []
    missing = [int(r[0]) for r in conn.exec_driver_sql(_SQLITE_MISSING)]
    if missing:
        made = conn.begin_nested()
        try:
            for batch in id_lists(missing):
                conn.exec_driver_sql(_SQLITE_INDEX.format(batch))
            failure = _fts_failure(conn)
        finally:
            made.rollback()
    problems = [Problem("fts-index", MISSING, missing)] if missing else []
    return problems + ([Problem("fts-index", UNNAMED.format(failure))] if failure is not None else [])


def mend_search_words(store: Store, ids: list[int], whole: bool = False) -> int:
    """Make the search words of these items (``check``'s fts-index ones)
    again as the store's trigger makes them, a chunk of ``id_lists`` a transaction:
    on PostgreSQL each one's document (``items_fts_document``) and its
    pieces where its text makes some (revision 0027); on SQLite FTS5's row
    of each item that has none.  ``whole``: FTS5's index is made again
    from every item (``rebuild``, one transaction), for rows written by
    hand that FTS5 cannot name.  How many items were mended."""
    if whole:
        with store.transaction() as conn:
            conn.exec_driver_sql("INSERT INTO items_fts(items_fts) VALUES('rebuild')")
            return int(conn.exec_driver_sql("SELECT count(*) FROM items").scalar_one())
    server = store.location.url is not None
    mended = 0
    for batch in id_lists(sorted(set(ids))):
        with store.transaction() as conn:
            if server:
                mended += _pg_remake(conn, batch)
            else:
                mended += conn.exec_driver_sql(_SQLITE_INDEX.format(batch)).rowcount
    return mended


def _pg_remake(conn: Connection, batch: str) -> int:
    """These items' documents and pieces, as the trigger writes them (revisions 0022 and 0027)."""
    made = conn.exec_driver_sql(f"INSERT INTO items_fts (rowid, document) SELECT i.id, {pg_document('i.')} "
                                f"FROM items i WHERE i.id IN ({batch}) "
                                "ON CONFLICT (rowid) DO UPDATE SET document = excluded.document").rowcount
    conn.exec_driver_sql(f"DELETE FROM items_fts_pieces WHERE rowid IN ({batch})")
    conn.exec_driver_sql(pg_fill_pieces(f"f.rowid IN ({batch})"))
    return made


def _missing_indexes(conn: Connection) -> list[Problem]:
    """The indexes the schema declares that the store lacks (dropped by
    hand: a search reads through ``ix_clusters_members`` by name), each
    with the statement that makes it again."""
    from sqlalchemy import inspect
    from sqlalchemy.schema import CreateIndex

    from lifededup.store.models import Base

    found = inspect(conn)
    problems = []
    for table in Base.metadata.sorted_tables:
        present = {ix["name"] for ix in found.get_indexes(table.name)}
        for index in sorted(table.indexes, key=lambda ix: str(ix.name)):
            if index.name not in present:
                statement = " ".join(str(CreateIndex(index).compile(dialect=conn.dialect)).split())
                problems.append(Problem("missing-index", f"the store has no index {index.name} on {table.name}; "
                                        f"make it again with: lifededup sql --write '{statement}'"))
    return problems


def check_store(store: Store, step: Callable[[str], None] | None = None) -> list[Problem]:
    """Every problem found; an empty list means the store is sound.  A
    damaged file is the one problem reported (the rest cannot be read
    soundly).  ``step(what)`` hears each part as it starts (at a million
    items the whole takes minutes)."""
    step = step or (lambda what: None)
    server = store.location.url is not None
    if not server:
        step("SQLite's integrity check")
    damaged = damage(store)
    if damaged is not None:
        return [damaged]
    # on a server, one snapshot that holds no writer back: a check at a
    # million items takes minutes, and every machine's indexer would wait
    # (SQLite's check of its search index is issued as a write)
    with store.snapshot() if server else store.transaction() as conn:
        step("the cluster invariants")
        problems = ([] if server else _sqlite_checks(conn)) + _missing_indexes(conn)
        for name, message, sql in _INVARIANTS:
            ids = [int(r[0]) for r in conn.exec_driver_sql(sql)]
            if ids:
                problems.append(Problem(name, message, sorted(ids)))
        if store.cluster_method == "conservative":
            rule = store.cluster_rule
            name, message, sql = _CONSERVATIVE if rule.kind == "features" else _VERIFIED
            threshold = store.params.threshold if store.params else 2
            bound = rule.max_word_distance + 1e-9
            ids = [int(r[0]) for r in conn.exec_driver_sql(sql, {"threshold": threshold, "bound": bound})]
            ids += unmeasured_members(conn, store.params.features if store.params else 6)
            if ids:
                problems.append(Problem(name, message, sorted(ids)))
            step("the sketch keys")
            keys = misplaced_keys(conn)
            if keys:
                problems.append(Problem("sketch-keys", "representatives whose sketch_keys rows are not their "
                                        "sketch's values (near copies may go unfound), or keys of other items",
                                        keys))
        problems += _search_index(store, conn, step)
        step("every text against its fingerprint")
        ids = stale_fingerprints(conn)
        if ids:
            problems.append(Problem("fingerprint-stale", f"{len(ids):,} item(s) whose text is not the one their "
                                    "fingerprint and cluster were made from (changed by hand, with sql --write?)",
                                    ids))
    if server and not any(p.check == CONFIGURATION for p in problems):  # its words are made with it
        step("every item's search words")
        problems.extend(_stale_documents(store))
    return problems


# The checks of what the search reads -- its index, and the words apart it
# reads (revision 0022) -- which writing the words apart or the search words
# again (``check --mend``: ``mend_apart``, ``mend_search_words``) changes, and
# nothing else.
SEARCH_CHECKS = frozenset({"fts-index", "cjk-apart", CONFIGURATION})


def check_search(store: Store, step: Callable[[str], None] | None = None) -> list[Problem]:
    """The problems of ``SEARCH_CHECKS`` alone (``check_store``'s parts
    that find them): what ``check --mend`` checks again after writing words
    apart, which can change no cluster, fingerprint or sketch key.  At a
    million items of real text on SQLite these parts took 15 s of a whole
    check's 132 (the sketch keys 47, the texts' SHA-1s 27)."""
    step = step or (lambda what: None)
    server = store.location.url is not None
    with store.snapshot() if server else store.transaction() as conn:
        problems = _search_index(store, conn, step)
    if server and not any(p.check == CONFIGURATION for p in problems):  # its words are made with it
        step("every item's search words")
        problems.extend(_stale_documents(store))
    return [p for p in problems if p.check in SEARCH_CHECKS]


def _search_index(store: Store, conn: Connection, step: Callable[[str], None]) -> list[Problem]:
    """The search index's rows (and on a server its indexes and text search
    configuration), and every CJK item's words apart."""
    server = store.location.url is not None
    problems = []
    if server or not store.readonly:
        step("the search index")
    if server:
        problems.extend(_search_configuration(conn) + _server_fts_check(conn))
    elif not store.readonly:
        problems.extend(_fts_check(conn))
    step("every CJK item's words apart")
    ids = stale_apart(conn)
    if ids:
        problems.append(Problem("cjk-apart", "items whose words apart (title_apart, text_apart, "
                                "people_apart), which the search index reads, are not their title, text "
                                "and people now (changed by hand?)", ids))
    return problems
