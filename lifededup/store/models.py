"""The store's tables as SQLAlchemy 2 typed models.

Names follow the paper (seeds/000 section 2.2 steps 7-8): ``fingerprints``
holds each document's SHA-1 and six features, ``clusters`` maps every item to
its cluster, named by the item id of the cluster's representative.  The schema
is created and changed only by the Alembic revisions in ``migrations/``; these
models describe its head (``tests/test_migrations.py`` checks they agree).
The FTS5 table ``items_fts``, its triggers and the views are plain SQL in the
revisions, as SQLAlchemy has no model for them.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from lifededup.store.settings import FEATURE_COLUMNS


# 64-bit integers: SQLite's INTEGER (and its rowid), PostgreSQL's BIGINT
Int64 = BigInteger().with_variant(Integer(), "sqlite")


class Base(DeclarativeBase):
    pass


class Item(Base):
    """One indexed thing: a file, or a part of one (a message in an mbox, an
    attachment in a mail).  ``part`` is ``''`` for a whole file."""

    __tablename__ = "items"
    __table_args__ = (
        # a path names a file on one machine (revision 0009); an SQLite store
        # keeps its UNIQUE (path, part) from revision 0001 instead, which implies it
        UniqueConstraint("machine", "path", "part", name="uq_items_machine_path_part"),
        Index("ix_items_parent_id", "parent_id"),
        Index("ix_items_raw_sha1", "raw_sha1"),
        Index("ix_items_status", "status"),
        Index("ix_items_inode", "inode"),
        Index("ix_items_kind", "kind"),  # revision 0026: the kinds a store holds (listing.kinds_held)
        # AUTOINCREMENT: ids are never reused, so "earliest" (smallest id) is
        # the order of first indexing, which conservative clustering relies on.
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(Int64, primary_key=True)
    # the machine whose file this is (revision 0009; lifededup.store.records.machine_name)
    machine: Mapped[str] = mapped_column(Text, nullable=False)
    path: Mapped[str] = mapped_column(Text, nullable=False)
    part: Mapped[str] = mapped_column(Text, nullable=False, server_default=text("''"))
    parent_id: Mapped[int | None] = mapped_column(
        Int64, ForeignKey("items.id", ondelete="CASCADE"), nullable=True
    )
    kind: Mapped[str] = mapped_column(String, nullable=False, server_default=text("'document'"))
    mime_type: Mapped[str | None] = mapped_column(String, nullable=True)
    size: Mapped[int | None] = mapped_column(Int64, nullable=True)
    mtime: Mapped[float | None] = mapped_column(Float, nullable=True)
    doc_date: Mapped[str | None] = mapped_column(String, nullable=True)
    title: Mapped[str | None] = mapped_column(Text, nullable=True)
    raw_sha1: Mapped[str | None] = mapped_column(String(40), nullable=True)
    # the file's (st_dev, st_ino): how a file moved and changed is recognised (revision 0008)
    device: Mapped[int | None] = mapped_column(Int64, nullable=True)
    inode: Mapped[int | None] = mapped_column(Int64, nullable=True)
    status: Mapped[str] = mapped_column(String, nullable=False, server_default=text("'ok'"))
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    indexed_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    text: Mapped[str | None] = mapped_column(Text, nullable=True)
    # the text's full length in characters when it was cut at the indexer's limit (revision 0007)
    text_cut: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # a mail's sender and recipients, "from NAME <ADDRESS>; to ...; cc ..." (revision 0016)
    people: Mapped[str | None] = mapped_column(Text, nullable=True)
    # title, text and people with their Chinese, Japanese and Korean characters
    # apart, as the search index reads them; NULL where they have none (revision 0022, searchable.py)
    title_apart: Mapped[str | None] = mapped_column(Text, nullable=True)
    text_apart: Mapped[str | None] = mapped_column(Text, nullable=True)
    people_apart: Mapped[str | None] = mapped_column(Text, nullable=True)


class FingerprintRow(Base):
    """The paper's ``fingerprints`` table: SHA-1 of the normalized text and the
    six features as signed 64-bit integers (NULL when the text is too short to
    sample, which makes it exact-match only)."""

    __tablename__ = "fingerprints"
    __table_args__ = (
        # no index on sha1: lookups by SHA-1 use clusters.sha1 (revision 0005)
        # (feature, is_representative): a candidate lookup seeks straight to
        # the representatives holding a feature value, however many members
        # share it; a lookup by feature alone uses the same index's prefix.
        *(Index(f"ix_fingerprints_{f}", f, "is_representative") for f in FEATURE_COLUMNS),
    )

    item_id: Mapped[int] = mapped_column(
        Int64, ForeignKey("items.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    sha1: Mapped[str] = mapped_column(String(40), nullable=False)
    f1: Mapped[int | None] = mapped_column(Int64, nullable=True)
    f2: Mapped[int | None] = mapped_column(Int64, nullable=True)
    f3: Mapped[int | None] = mapped_column(Int64, nullable=True)
    f4: Mapped[int | None] = mapped_column(Int64, nullable=True)
    f5: Mapped[int | None] = mapped_column(Int64, nullable=True)
    f6: Mapped[int | None] = mapped_column(Int64, nullable=True)
    # the 84 Rabin minima the features are hashed from (6 x 14 big-endian
    # uint64, revision 0006): the verified stage's sketch; NULL with features
    sketch: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
    words: Mapped[int] = mapped_column(Int64, nullable=False, server_default=text("0"))
    shingles: Mapped[int] = mapped_column(Int64, nullable=False, server_default=text("0"))
    # Mirrors clusters.item_id = clusters.cluster_id so the feature indexes can
    # be restricted to representatives; `lifededup check` verifies the mirror.
    is_representative: Mapped[bool] = mapped_column(
        Boolean, nullable=False, server_default=text("0")
    )


# ix_clusters_members' rows (search/results.py repeats it to read through the index)
_MEMBERS = "cluster_id <> item_id"


class ClusterRow(Base):
    """The paper's ``clusters`` table: every fingerprinted item and the id of
    its cluster's representative (itself, for a representative)."""

    __tablename__ = "clusters"
    __table_args__ = (
        Index("ix_clusters_cluster_id", "cluster_id"),
        Index("ix_clusters_sha1", "sha1"),
        # the members that are not their cluster's representative (revision 0012)
        Index("ix_clusters_members", "item_id", "cluster_id",
              sqlite_where=text(_MEMBERS), postgresql_where=text(_MEMBERS)),
    )

    item_id: Mapped[int] = mapped_column(
        Int64, ForeignKey("items.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    sha1: Mapped[str] = mapped_column(String(40), nullable=False)
    cluster_id: Mapped[int] = mapped_column(Int64, nullable=False)
    # similarity to the representative (revision 0006): estimated resemblance
    # and word edit distance; 1 and 0 for the representative and exact
    # copies, NULL under transitive clustering (a chain is not measured)
    resemblance: Mapped[float | None] = mapped_column(Float, nullable=True)
    word_distance: Mapped[float | None] = mapped_column(Float, nullable=True)


class SketchKey(Base):
    """The sketch values of each conservative representative (revision
    0006): the candidate lookup of the verified rule, one index seek per
    value.  Rows go with their representative (kept by the clustering code,
    no foreign key: a cascade would need a second index)."""

    __tablename__ = "sketch_keys"
    __table_args__ = ({"sqlite_with_rowid": False},)

    value: Mapped[int] = mapped_column(Int64, primary_key=True, autoincrement=False)
    item_id: Mapped[int] = mapped_column(Int64, primary_key=True, autoincrement=False)


class Param(Base):
    """Settings the store was built with, as JSON: ``fingerprint`` (the
    FingerprintParams and their key) and ``cluster_method``."""

    __tablename__ = "params"

    name: Mapped[str] = mapped_column(String, primary_key=True)
    value: Mapped[str] = mapped_column(Text, nullable=False)


class WatchedFolder(Base):
    """A folder a machine's watcher keeps indexed."""

    __tablename__ = "watched_folders"
    __table_args__ = (UniqueConstraint("machine", "path", name="uq_watched_folders_machine_path"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    machine: Mapped[str] = mapped_column(Text, nullable=False)  # revision 0009
    path: Mapped[str] = mapped_column(Text, nullable=False)
    added_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    last_scanned_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    # JSON lists of shell globs (revision 0004); see lifededup.store.folders
    include: Mapped[str] = mapped_column(Text, nullable=False, server_default=text("'[]'"))
    exclude: Mapped[str] = mapped_column(Text, nullable=False, server_default=text("'[]'"))


class Machine(Base):
    """Which computer writes under each machine name (revision 0013;
    lifededup.store.machines): the first to write claims the name, so two
    computers of one name cannot take each other's files for deleted ones."""

    __tablename__ = "machines"

    name: Mapped[str] = mapped_column(Text, primary_key=True)
    # a keyed hash of the computer's machine ID (machine-id(5)), never the ID itself
    identity: Mapped[str] = mapped_column(Text, nullable=False)
    claimed_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
