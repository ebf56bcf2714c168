"""Alembic environment for a lifededup store.

lifededup runs the revisions itself (``lifededup.store.opening``) on a
connection it already holds inside ``BEGIN IMMEDIATE``, so two processes never
migrate at once; that connection arrives in ``config.attributes``.  Run by hand
(``alembic -x db=PATH upgrade head`` from the source tree) it opens its own.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from lifededup.store.models import Base

config = context.config
target_metadata = Base.metadata


def _include(name: str | None, type_: str, *_: object) -> bool:
    # FTS5 shadow tables and the views are raw SQL, not models.
    return not (type_ == "table" and name is not None and name.startswith("items_fts"))


def run_migrations() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=True,
            include_name=_include,
            # lifededup's progress: each revision said as it is done (store/opening.py, _RevisionsSaid)
            on_version_apply=config.attributes.get("on_version_apply"),
        )
        with context.begin_transaction():
            context.run_migrations()
        return
    db = context.get_x_argument(as_dictionary=True).get("db") or config.get_main_option("sqlalchemy.url")
    if not db:
        raise SystemExit("say which store: alembic -x db=PATH upgrade head")
    url = db if "://" in db else f"sqlite:///{db}"
    with create_engine(url).begin() as own:
        context.configure(
            connection=own, target_metadata=target_metadata, render_as_batch=True, include_name=_include
        )
        with context.begin_transaction():
            context.run_migrations()


run_migrations()
