"""The store: one SQLite file, or a PostgreSQL database several machines
share (SQLAlchemy 2 + Alembic, the same revisions on both), holding items,
their fingerprints and conservative clusters, with full-text search on their
text (FTS5; PostgreSQL's tsvector).

Public API (everything else in this package is internal):

``open_store(url_or_path=None, *, readonly=False) -> Store``
    A path, an ``sqlite:///`` URL or a ``postgresql://USER@HOST/DB`` URL
    (the ``postgres`` extra; read-only sessions are READ ONLY on the server,
    writers take turns by an advisory lock); None means ``$LIFEDEDUP_DB``, else
    ``default_path()`` (the XDG data folder).  Creates the file (mode 600) on
    first use and upgrades an older store to the program's schema (under
    SQLite's write lock, so two processes never both migrate); refuses a newer
    one with :class:`StoreTooNew`.  ``readonly=True`` gives a connection SQLite
    itself keeps from writing (``sql`` without ``--write``, ``dups``, ``show``);
    ``migrate=False`` (read-only only) reads an older store as it is, never
    changing the file.  ``verify=True`` runs SQLite's quick check first and
    raises :class:`StoreDamaged` (what ``index`` and ``watch`` do); a damaged
    page met later raises it too, wherever it is met (``damage_of(exc)``).
    ``machine``: whose files the calls by path are about (``store.machine``;
    default ``machine_name()``: ``$LIFEDEDUP_MACHINE``, else the host name);
    ``identity``: which computer that is (default ``machine_identity()``).

``open_reader(url_or_path=None) -> Reader | ServerReader | Store`` (``reader.py``)
    Read-only on the driver alone when the store is at head -- the standard
    library's ``sqlite3`` for an SQLite file, psycopg for a PostgreSQL
    database (no SQLAlchemy import: a search starts in a tenth of a second
    on SQLite, a fifth on PostgreSQL) -- else ``open_store(readonly=True)``.
    All are :class:`Readable`: ``reading()`` gives the driver
    connection inside one read transaction -- ``sqlite3``'s, or a
    ``dialect.PgDriver`` -- with ``execute(sql, params)`` taking ``:name``
    parameters (what ``lifededup.search`` runs on).

``Store`` (see ``store.py``; use as a context manager or call ``close()``)
    ``with store.transaction():``            batch writes in one transaction
    ``with store.snapshot() as conn:``       one consistent read that holds no writer back
    ``upsert_item(ItemRecord, Fingerprint | None) -> int``   add/refresh, re-cluster if changed
    ``record_failure(ItemRecord | path, error, status="failed") -> int``
    ``remove_items(paths) -> int`` / ``remove_ids(ids) -> int``  (children too)
    ``move_item(old_path, new_path) -> int``  ids, text and clusters kept
    ``retitle(item_id, title)``  its title and the search index's words of it
    ``item_id(path, part="") -> int | None``
    ``params`` / ``set_params(FingerprintParams)``  the params the store was built with
    ``recluster(method="conservative" | "transitive", rule=None)``, ``cluster_method``,
        ``cluster_rule`` (a :class:`Rule`: ``verified`` by default, or ``features``)
    ``execute(sql, params) -> (columns, rows)``  one statement, named
        ``:params``; joins an open ``transaction()``, else runs on its own
        (SQL errors: ``sqlite3.Error`` alone, ``sqlalchemy.exc.DBAPIError`` inside)
    Every write keeps the cluster invariants (``check_store`` verifies them).
    One Store per thread; processes share the file (WAL, ``BEGIN IMMEDIATE``).

Queries (``queries.py``): ``collapse_sql(results_sql)`` wraps a SELECT of
``id, rank`` (lower rank better, like bm25) into the paper's step 9: one row
per cluster (its best-ranked result) with ``hidden`` = other results of that
cluster.  ``clusters(store, min_size=2, limit=None) -> list[Cluster]``
(largest first), ``explain(store, id_or_path) -> Explanation`` (shared
features and exact resemblance of each member with the representative),
``find_item(store, id_or_path) -> ItemSummary``: both on a ``Store`` or a
reader (``open_reader``), through ``reading()``; the store's settings so too
(``settings.py``: ``read_settings(db)``, and ``FEATURE_COLUMNS``).
``check_store(store) -> list[Problem]``: the invariants and SQLite's own checks.

An item in full (``details.py``): ``item_details(store, ids) -> {id: ItemDetails}``
(metadata, its date, its cluster), ``item_text(store, id)``,
``item_parts(store, id, limit=200) -> (parts, total)`` (a mailbox's messages,
a mail's attachments).  The date each is filed under, as SQL on both
backends (``dates.py``): ``item_date(postgres)``, ``file_dated(postgres)``
(its date is the file's mtime), read by the details and by a search's rows.

The clustering engine (``engine.py``, ``clustering.py``): ``cluster_members(
members, ClusterSettings, texts)`` forms clusters in memory with the store's
own rule and engine (reports' experiments); ``Rule``, ``Similarity``.

Watched folders (``folders.py``), each machine's own (``store.machine``): ``list_folders(store)``,
``add_folder(store, path, include, exclude)``, ``remove_folder(store, path, forget=False)``,
``items_under(store, path)``,
``mark_scanned(store, path)`` -> :class:`WatchedFolder` (path, include,
exclude, added_at, last_scanned_at).

Machines (``machines.py``): the first write under ``store.machine`` claims the name
for this computer (``store.identity``: ``machine_identity()``, a keyed hash of its
machine ID); ``Store.claim_machine(replace=False)`` does it, and on a shared store
another computer's name raises :class:`MachineTaken` unless ``replace``.
``list_machines(store, name=None) -> list[Machine]`` (name, claimed_at, items, folders, here);
``forget_machine(store, name) -> int | None``: a retired computer's items, folders and claim removed;
``rename_machine(store, old, new) -> int | None``: a machine's items and folders under another name.

Errors: ``StoreError`` and its subclasses ``StoreNotFound``, ``StoreTooNew``, ``StoreDamaged``,
``UnsupportedStore``, ``ParamsMismatch``, ``ItemNotFound``, ``MissingIndex``, ``MachineTaken``:
messages a person can act on.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lifededup import lazy_names
from lifededup.store.reader import Queryable, Readable, Reader, open_reader

# The names below are imported when first used (PEP 562): the read path
# (``open_reader``, a search) stands on sqlite3 alone, and importing the
# clustering engine and SQLAlchemy would cost it most of its start-up.
if TYPE_CHECKING:
    from lifededup.store.check import Problem, check_store
    from lifededup.store.clustering import cluster_members
    from lifededup.store.clustering import Member as ClusterMember
    from lifededup.store.clustering import Settings as ClusterSettings
    from lifededup.store.details import ItemDetails, item_details, item_parts, item_text
    from lifededup.store.errors import (
        ItemNotFound,
        MissingIndex,
        ParamsMismatch,
        StoreDamaged,
        StoreError,
        StoreNotFound,
        StoreTooNew,
        UnsupportedStore,
        driver_said,
        first_said,
        is_unavailable,
        is_unreachable,
    )
    from lifededup.store.folders import WatchedFolder, add_folder, items_under, list_folders, mark_scanned, remove_folder
    from lifededup.store.machines import (
        Machine, MachineTaken, forget_machine, list_machines, machine_identity, rename_machine,
    )
    from lifededup.store.settings import FEATURE_COLUMNS
    from lifededup.store.opening import ENV_VAR, damage_of, default_path, open_engine, resolve
    from lifededup.store.listing import Cluster, ItemSummary, clusters
    from lifededup.store.queries import Explanation, Reason, collapse_sql, explain, find_item
    from lifededup.store.records import MACHINE_ENV, ItemRecord, machine_name
    from lifededup.store.similarity import METHODS, RULES, Method, Rule, Similarity
    from lifededup.store.store import Store

_LAZY: dict[str, tuple[str, str]] = {
    "Problem": ("lifededup.store.check", "Problem"),
    "check_store": ("lifededup.store.check", "check_store"),
    "METHODS": ("lifededup.store.similarity", "METHODS"),
    "Method": ("lifededup.store.similarity", "Method"),
    "cluster_members": ("lifededup.store.clustering", "cluster_members"),
    "ClusterMember": ("lifededup.store.clustering", "Member"),
    "ClusterSettings": ("lifededup.store.clustering", "Settings"),
    "ItemDetails": ("lifededup.store.details", "ItemDetails"),
    "item_details": ("lifededup.store.details", "item_details"),
    "item_parts": ("lifededup.store.details", "item_parts"),
    "item_text": ("lifededup.store.details", "item_text"),
    "ItemNotFound": ("lifededup.store.errors", "ItemNotFound"),
    "MissingIndex": ("lifededup.store.errors", "MissingIndex"),
    "ParamsMismatch": ("lifededup.store.errors", "ParamsMismatch"),
    "StoreDamaged": ("lifededup.store.errors", "StoreDamaged"),
    "StoreError": ("lifededup.store.errors", "StoreError"),
    "StoreNotFound": ("lifededup.store.errors", "StoreNotFound"),
    "StoreTooNew": ("lifededup.store.errors", "StoreTooNew"),
    "UnsupportedStore": ("lifededup.store.errors", "UnsupportedStore"),
    "driver_said": ("lifededup.store.errors", "driver_said"),
    "first_said": ("lifededup.store.errors", "first_said"),
    "is_unavailable": ("lifededup.store.errors", "is_unavailable"),
    "is_unreachable": ("lifededup.store.errors", "is_unreachable"),
    "WatchedFolder": ("lifededup.store.folders", "WatchedFolder"),
    "add_folder": ("lifededup.store.folders", "add_folder"),
    "items_under": ("lifededup.store.folders", "items_under"),
    "list_folders": ("lifededup.store.folders", "list_folders"),
    "mark_scanned": ("lifededup.store.folders", "mark_scanned"),
    "remove_folder": ("lifededup.store.folders", "remove_folder"),
    "Machine": ("lifededup.store.machines", "Machine"),
    "MachineTaken": ("lifededup.store.machines", "MachineTaken"),
    "list_machines": ("lifededup.store.machines", "list_machines"),
    "forget_machine": ("lifededup.store.machines", "forget_machine"),
    "rename_machine": ("lifededup.store.machines", "rename_machine"),
    "machine_identity": ("lifededup.store.machines", "machine_identity"),
    "FEATURE_COLUMNS": ("lifededup.store.settings", "FEATURE_COLUMNS"),
    "ENV_VAR": ("lifededup.store.opening", "ENV_VAR"),
    "damage_of": ("lifededup.store.opening", "damage_of"),
    "default_path": ("lifededup.store.opening", "default_path"),
    "open_engine": ("lifededup.store.opening", "open_engine"),
    "resolve": ("lifededup.store.opening", "resolve"),
    "Cluster": ("lifededup.store.listing", "Cluster"),
    "Explanation": ("lifededup.store.queries", "Explanation"),
    "ItemSummary": ("lifededup.store.listing", "ItemSummary"),
    "Reason": ("lifededup.store.queries", "Reason"),
    "clusters": ("lifededup.store.listing", "clusters"),
    "collapse_sql": ("lifededup.store.queries", "collapse_sql"),
    "explain": ("lifededup.store.queries", "explain"),
    "find_item": ("lifededup.store.queries", "find_item"),
    "ItemRecord": ("lifededup.store.records", "ItemRecord"),
    "machine_name": ("lifededup.store.records", "machine_name"),
    "MACHINE_ENV": ("lifededup.store.records", "MACHINE_ENV"),
    "RULES": ("lifededup.store.similarity", "RULES"),
    "Rule": ("lifededup.store.similarity", "Rule"),
    "Similarity": ("lifededup.store.similarity", "Similarity"),
    "Store": ("lifededup.store.store", "Store"),
}


__getattr__ = lazy_names(__name__, _LAZY)


__all__ = [
    "RULES",
    "Cluster",
    "ClusterMember",
    "ClusterSettings",
    "Rule",
    "Similarity",
    "cluster_members",
    "ENV_VAR",
    "Explanation",
    "ItemDetails",
    "ItemSummary",
    "Problem",
    "Reason",
    "check_store",
    "clusters",
    "collapse_sql",
    "explain",
    "find_item",
    "item_details",
    "item_parts",
    "item_text",
    "FEATURE_COLUMNS",
    "METHODS",
    "ItemNotFound",
    "ItemRecord",
    "MissingIndex",
    "machine_name",
    "MACHINE_ENV",
    "Machine",
    "MachineTaken",
    "list_machines",
    "forget_machine",
    "rename_machine",
    "machine_identity",
    "Method",
    "ParamsMismatch",
    "Store",
    "StoreError",
    "StoreNotFound",
    "StoreDamaged",
    "StoreTooNew",
    "UnsupportedStore",
    "driver_said",
    "first_said",
    "is_unavailable",
    "is_unreachable",
    "WatchedFolder",
    "add_folder",
    "list_folders",
    "mark_scanned",
    "remove_folder",
    "items_under",
    "damage_of",
    "default_path",
    "open_store",
    "open_reader",
    "Reader",
    "Queryable",
    "Readable",
]


def open_store(url_or_path: str | Path | None = None, *, readonly: bool = False, migrate: bool = True,
               verify: bool = False, machine: str | None = None, identity: str | None = None) -> Store:
    """Open the store, creating or upgrading it as needed (see module docs)."""
    from lifededup.store import opening, store
    from lifededup.store.records import machine_name, printed_back

    name = machine or machine_name()
    if not readonly and not printed_back(name):  # before anything is made or changed
        raise UnsupportedStore(f"the machine name {name!r} holds ':' or '/', which a name printed as "
                               "MACHINE:PATH cannot be read back with: set LIFEDEDUP_MACHINE to a name without them")
    location = opening.resolve(url_or_path)
    engine = opening.open_engine(location, readonly=readonly, migrate=migrate, verify=verify)
    return store.Store(engine, location, readonly=readonly, machine=machine, identity=identity)
