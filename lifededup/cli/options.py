"""Options shared by every command group that works on a store."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

import click

from lifededup.store import ENV_VAR, Store, StoreError, open_store

F = TypeVar("F", bound=Callable[..., object])


def db_option(func: F) -> F:
    """``--db PATH|URL``, also read from ``$LIFEDEDUP_DB``."""
    return click.option(
        "--db",
        "db",
        envvar=ENV_VAR,
        show_envvar=True,
        metavar="PATH|URL",
        default=None,
        help="The store: a file path or an sqlite:///PATH URL. "
        "Default: the store in your data folder (~/.local/share/lifededup/lifededup.db).",
    )(func)


@contextmanager
def opened_store(db: str | None, *, readonly: bool = False) -> Iterator[Store]:
    """Open the store for one command; store errors become messages."""
    try:
        store = open_store(db, readonly=readonly)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from exc
    try:
        yield store
    except StoreError as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        store.close()
