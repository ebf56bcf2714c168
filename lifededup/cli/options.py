"""Options shared by every command group that works on a store."""

from __future__ import annotations

import logging
import math
import os
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import click

from lifededup.model import name_forms, stored_path
from lifededup.model import shown as shown  # re-exported: the commands print names through it
from lifededup.store import (
    ENV_VAR, Queryable, Readable, StoreError, StoreTooNew, damage_of, first_said, is_unavailable, open_reader, open_store,
)

if TYPE_CHECKING:
    from lifededup.store import Store

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
        help="The store: a file path, an sqlite:///PATH URL (PATH from the current folder; four slashes before an "
        "absolute one: sqlite:////home/me/s.db) or a postgresql://USER@HOST/DATABASE URL. "
        "Default: the store in your data folder, $XDG_DATA_HOME/lifededup/lifededup.db "
        "(~/.local/share/lifededup/lifededup.db when XDG_DATA_HOME is not set).",
    )(func)


def same_store(db: str | None) -> str:
    """`` --db STORE`` for a command a message suggests, where this one was given a store (--db)
    that a bare command would not open: without it the command suggested acts on the default
    store, or LIFEDEDUP_DB's (a folder added there, another store's cluster listed)."""
    from lifededup.store.opening import resolve, store_named

    return store_named(str(resolve(db))) if db else ""


class TerminalBar:
    """One tqdm bar at a time, for a command's long work on a terminal
    (``export``'s tables, ``recluster``'s texts); tqdm is imported when a
    bar is first shown.  A new ``start`` closes the bar before it."""

    def __init__(self, unit: str) -> None:
        self.unit = unit
        self._bar: Any = None

    def start(self, what: str, total: int) -> None:
        from tqdm import tqdm  # type: ignore[import-untyped]

        self.close()
        self._bar = tqdm(total=total, desc=what, unit=self.unit, unit_scale=True, dynamic_ncols=True, leave=False)

    @property
    def shown(self) -> bool:
        return self._bar is not None

    def advance(self, done: int) -> None:
        if self._bar is not None:
            self._bar.update(done)

    def reach(self, done: int) -> None:
        if self._bar is not None:
            self._bar.update(done - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        self._bar = None


R = TypeVar("R", bound=Readable)


def on_machine(name: str, machine: str) -> str:
    """An item's name as printed: ``MACHINE:name`` when it is another
    machine's file (a store shared by several), else the name alone."""
    from lifededup.store import machine_name

    return f"{machine}:{name}" if machine and machine != machine_name() else name


def _printed(path: str | os.PathLike[str]) -> str:
    """A path as Python gives it (``os.fsdecode``), printed as the store
    prints the names it holds (``shown(stored_path())``): the text ``show``
    and ``folders remove`` take back."""
    return shown(stored_path(os.fspath(path)))


# a text with no features, to the near-copy rule (compare's verdict, show's shared column)
UNSAMPLED = "a text too short to sample: only an exact copy counts"


def item_name(path: str, part: str, machine: str = "") -> str:
    """An item's name, the one way everywhere: ``path [part]`` for a part
    inside a file, ``MACHINE:`` before it for another machine's file."""
    return on_machine(shown(f"{path} [{part}]" if part else path), machine)


@contextmanager
def opened_store(db: str | None, *, readonly: bool = False, migrate: bool = True, verify: bool = False,
                 too_new: type[click.ClickException] = click.ClickException) -> Iterator[Store]:
    """Open the store for one command; store errors become messages, and so
    does SQLite finding the file damaged, wherever the command meets it.
    ``too_new``: the exception for a store a newer lifededup upgraded (the
    watcher exits with its own code)."""
    with _speaking(lambda: open_store(db, readonly=readonly, migrate=migrate, verify=verify),
                   too_new) as store:
        yield store


@contextmanager
def opened_reader(db: str | None, *, migrate: bool = True) -> Iterator[Queryable]:
    """:func:`opened_store` read-only for a command that only reads through
    ``reading()`` or ``execute_counted()`` (``search``, ``sql``): on the
    driver alone when the store is at head."""
    with _speaking(lambda: open_reader(db, migrate=migrate)) as store:
        yield store


@contextmanager
def opened_listing(db: str | None) -> Iterator[Queryable | None]:
    """:func:`opened_reader` for a listing (``folders list``, ``machines
    list``): None where there is no store file yet -- nothing to list, and
    a listing makes no store."""
    from lifededup.store.opening import resolve

    try:
        location = resolve(db)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from exc
    if location.path is not None and not location.path.exists():
        yield None
        return
    with opened_reader(db) as store:
        yield store


@contextmanager
def _speaking(opening: Callable[[], R],
              too_new: type[click.ClickException] = click.ClickException) -> Iterator[R]:
    """The store ``opening`` gives, its errors turned into messages for a person, closed at the end."""
    try:
        store = opening()
    except StoreTooNew as exc:
        raise too_new(str(exc)) from exc
    except StoreError as exc:
        raise click.ClickException(str(exc)) from exc
    except Exception as exc:
        _raise_refused(exc)
        raise
    if store.location.url is not None and not logging.getLogger().handlers:
        # psycopg logs what it ignores while closing a connection the server
        # dropped ("error ignored terminating <psycopg.Pipeline [BAD]>"):
        # with no logging set up, Python would print that above the one line
        # that says what happened.  (`watch` sets logging up: there it goes
        # to the log.)
        quiet = logging.getLogger("psycopg")
        if not quiet.handlers:  # once a process, however many stores it opens
            quiet.addHandler(logging.NullHandler())
    try:
        yield store
    except StoreError as exc:
        raise click.ClickException(str(exc)) from exc
    except Exception as exc:
        _raise_damage(exc, store)
        _raise_unavailable(exc, store)
        _raise_refused(exc)
        _raise_unconfigured(exc, store)
        raise
    finally:
        store.close()


def _raise_refused(exc: Exception) -> None:
    """A PostgreSQL role that may not do what the command does (one granted
    SELECT alone, for people who only search) as a message, not a traceback."""
    from lifededup.store.errors import is_denied

    if not is_denied(exc):
        return
    said = first_said(exc)
    raise click.ClickException(
        f"the store's server refused this command: {said}. The role in the store's URL may not do this: "
        "reading commands (search, dups, show, stats, check) need SELECT on the store's tables, indexing and "
        "the other writing commands a role that may write them, such as the store's owner (README, "
        "\"Sharing a store\")") from exc


def _raise_unconfigured(exc: Exception, store: Readable) -> None:
    """A PostgreSQL store's search or indexing meeting no text search
    configuration (revision 0029's, dropped by hand) as a message that
    names the command saying how to make it again, not the server's error."""
    if store.location.url is None:
        return
    from lifededup.store.check import LOST_CONFIGURATION, lost_configuration

    if lost_configuration(exc):
        raise click.ClickException(f"{store.location} {LOST_CONFIGURATION}") from exc


def _raise_damage(exc: Exception, store: Readable) -> None:
    """SQLite finding the file damaged, as a message (SQLAlchemy's wrapper of
    it too)."""
    damage = damage_of(exc, store.location)
    if damage is not None:
        raise click.ClickException(str(damage)) from exc


def _raise_unavailable(exc: Exception, store: Readable) -> None:
    """The store refusing work for now -- its disk full, its server stopped
    or gone from under the connection (the NAS reboots) -- as a message:
    every transaction is whole or not there at all, so running the command
    again finishes the work."""
    if not is_unavailable(exc):
        return
    said = first_said(exc)
    if store.location.url is not None:
        what, when = f"lost the store's server, {store.location}: {said}", "once the server is back"
    elif "full" in said:
        what, when = f"the disk holding the store is full ({store.location}: {said})", "once there is room"
    else:
        what, when = f"could not write to the store {store.location}: {said}", "once that is put right"
    raise click.ClickException(f"{what}. What was committed is kept and the store is consistent: "
                               f"run the same command again {when}") from exc


class Finite(click.FloatRange):
    """A FloatRange that also refuses ``nan`` (every comparison with it is false, so a range lets it by)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        number: float = super().convert(value, param, ctx)
        if math.isnan(number):
            self.fail(f"{value!r} is not a number", param, ctx)
        return number


class ExistingPath(click.Path):
    """``click.Path(exists=True)`` that tells a path behind a folder one may
    not enter (``chmod 000``, or ``444``) from one not there: click says
    "does not exist" of both, and sent the user looking for a typo.  A path
    not there as typed, but there with its accents encoded the other way
    (a Mac's copy typed on a keyboard), is taken as it is on disk, and said."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(exists=True, **kwargs)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        refused = unreachable(value)
        if refused is not None:
            self.fail(refused, param, ctx)
        path = self._on_disk(os.fspath(value), param, ctx)
        if not os.path.exists(path):
            # click says it with repr(): a newline as \n where the store prints \x0a, a
            # byte that is not UTF-8 as \udce9 where it prints \xe9
            self.fail(f"{self.name.title()} '{_printed(path)}' does not exist.", param, ctx)
        return super().convert(path, param, ctx)

    def _on_disk(self, typed: str, param: click.Parameter | None, ctx: click.Context | None) -> str:
        """``typed``, or the one other Unicode form of it on disk when it is not there (:func:`forms_there`)."""
        there = forms_there(typed)
        if len(there) > 1:
            self.fail(f"'{_printed(typed)}' is not there as typed, and {len(there)} names differing from it only in "
                      "how their accents are encoded are (" + ", ".join(ascii(form) for form in there)
                      + "): type the one meant as `ls` lists it", param, ctx)
        if there and there[0] != typed:
            say_taken(typed, there[0])
            return there[0]
        return typed


def forms_there(typed: str, there: Callable[[str], bool] = os.path.exists) -> list[str]:
    """``[typed]`` when it is ``there`` (on disk, by default); else the other
    Unicode forms of it that are, in :func:`~lifededup.model.name_forms`'
    order (Linux keeps a name's bytes: "Re\u0301sume\u0301" and
    "R\u00e9sum\u00e9" are two names, which may both be there -- then the
    one typed is meant).  Only the names typed are tried, each a stat."""
    if there(typed):
        return [typed]
    return [form for form in name_forms(typed)[1:] if there(form)]


def say_taken(typed: str, taken: str) -> None:
    """Say on stderr that a path not there as typed is taken with its accents encoded the other way."""
    click.echo(f"'{_printed(typed)}' is not there with its accents {_encoded(typed)}, as typed, but is with "
               f"them {_encoded(taken)}: taking that one", err=True)


def _encoded(path: str) -> str:
    """How a name's accents are encoded, in words."""
    if unicodedata.is_normalized("NFD", path):
        return "decomposed (NFD, as a Mac writes names)"
    if unicodedata.is_normalized("NFC", path):
        return "composed (NFC)"
    return "composed in some names, decomposed in others"


def unreachable(path: str | os.PathLike[str]) -> str | None:
    """What to say of a path that may not be looked at (permission denied
    on a folder on its way), naming that folder; None if it may be (there
    or not)."""
    try:
        os.stat(path)
    except PermissionError:
        from lifededup.index import blocked_by  # the scan's: not for every command

        folder = blocked_by(os.fspath(path))
        where = f": you may not open the folder {_printed(folder)}" if folder is not None else ""
        return f"'{_printed(path)}' cannot be read, permission denied{where}"
    except OSError:
        pass
    return None


# Bounds on every number a command takes: past them a value is a typo, and
# unbounded it would overflow SQLite's 64-bit integers or start a process per unit.
ROWS = click.IntRange(1, 1_000_000)                 # --limit: rows to show
ITEM_ID = click.IntRange(1, 2**63 - 1)              # SQLite's largest rowid
SECONDS = Finite(1, 7 * 24 * 3600)                  # --timeout, --rescan
DELAY = Finite(0.1, 3600)                           # --delay
MEMORY_MB = click.IntRange(64, 1 << 20)             # --memory-mb, per worker (up to 1 TiB)
BATCH = click.IntRange(1, 100_000)                  # --batch
TEXT_MB = Finite(0.01, 1024)                        # --max-text-mb
