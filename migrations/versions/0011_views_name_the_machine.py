"""The views name each item's machine.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-23

Since revision 0009 a store may hold several machines' files, one path on
each (PostgreSQL), but the views ``representatives`` and ``collapsed_items``
still showed only a path: in a shared store, where does that file live?
Both gain a last column, ``machine`` (``items.machine``), so a query over
them says which machine holds the file, as ``search`` does; the columns
before it are unchanged, so a query naming them keeps working.  Both
backends: the views are dropped and made again.
"""

from __future__ import annotations

from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def _representatives(machine: str) -> str:
    return f"""
CREATE VIEW representatives AS
SELECT i.id, i.path, i.part, i.kind, i.title, s.members, s.hidden{machine}
FROM cluster_sizes s
JOIN items i ON i.id = s.cluster_id
"""


def _collapsed(machine: str, postgres: bool) -> str:
    if postgres:
        return f"""
CREATE VIEW collapsed_items AS
SELECT DISTINCT ON (coalesce(c.cluster_id, i.id))
       i.id, i.path, i.part, i.kind, i.title, coalesce(c.cluster_id, i.id) AS cluster_id,
       count(*) OVER (PARTITION BY coalesce(c.cluster_id, i.id)) - 1 AS hidden{machine}
FROM items i
LEFT JOIN clusters c ON c.item_id = i.id
ORDER BY coalesce(c.cluster_id, i.id), i.id
"""
    # SQLite: the other columns of an aggregate's min() row are that row's
    return f"""
CREATE VIEW collapsed_items AS
SELECT min(i.id) AS id, i.path, i.part, i.kind, i.title,
       coalesce(c.cluster_id, i.id) AS cluster_id, count(*) - 1 AS hidden{machine}
FROM items i
LEFT JOIN clusters c ON c.item_id = i.id
GROUP BY coalesce(c.cluster_id, i.id)
"""


def _views(machine: str) -> None:
    postgres = op.get_bind().dialect.name == "postgresql"
    op.execute("DROP VIEW collapsed_items")
    op.execute("DROP VIEW representatives")
    op.execute(_representatives(machine))
    op.execute(_collapsed(machine, postgres))


def upgrade() -> None:
    _views(", i.machine")


def downgrade() -> None:
    _views("")
