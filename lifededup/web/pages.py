"""What each page shows, from the library's calls alone (``lifededup.store``,
``lifededup.search``, ``lifededup.index``, ``lifededup.watch``): no SQL here,
so the view reads any store those calls read.  The JSON of a page is the
library's own ``to_dict()``, the very shape the CLI's ``--json`` prints."""

from __future__ import annotations

import glob
import os
import stat
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote, urlencode

from lifededup.index import FailedItem, failures
from lifededup.model import fs_path
from lifededup.search import Filters, SearchResult, search
from lifededup.store import (
    Explanation,
    ItemDetails,
    ItemNotFound,
    Reason,
    Store,
    WatchedFolder,
    explain,
    item_details,
    item_parts,
    item_text,
    list_folders,
)
from lifededup.store.errors import server_words
from lifededup.watch import daemon as daemons
from lifededup.web.diff import WordDiff, word_diff

PAGE_ROWS = 20
MAX_ROWS = 100
FAILURES_SHOWN = 1000
LOG_LINES = 12


class BadRequest(ValueError):
    """A parameter the page cannot use; the message says which and why."""


class NotFound(LookupError):
    """No such item or cluster; the message says what to try."""


# -- search ------------------------------------------------------------------


def _day(name: str, value: str | None) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(value) if len(value) == 10 else datetime.fromisoformat(value).date()
    except ValueError:
        raise BadRequest(f"{name}: {value!r} is not a date; write it as YYYY-MM-DD, e.g. 2024-03-01") from None


def _whole(name: str, value: str | None, default: int, low: int, high: int) -> int:
    if not value:
        return default
    if not value.isdigit() or not low <= int(value) <= high:
        raise BadRequest(f"{name} must be a whole number from {low} to {high}, not {value!r}")
    return int(value)


@dataclass(frozen=True)
class SearchForm:
    """The search page's parameters, as ``lifededup search``'s options:
    ``q``, ``kind`` (repeatable), ``since``, ``until``, ``path``, ``all``,
    ``limit``, and ``page`` (from 1)."""

    query: str | None = None
    kinds: tuple[str, ...] = ()
    since: date | None = None
    until: date | None = None
    path: str | None = None
    show_all: bool = False
    limit: int = PAGE_ROWS
    page: int = 1

    @classmethod
    def read(cls, query: str | None, kinds: Sequence[str], values: Mapping[str, str]) -> SearchForm:
        form = cls(
            query=(query or "").strip() or None,
            kinds=tuple(k for k in kinds if k),
            since=_day("since", values.get("since")),
            until=_day("until", values.get("until")),
            path=values.get("path") or None,
            show_all=values.get("all", "") not in ("", "0"),
            limit=_whole("limit", values.get("limit"), PAGE_ROWS, 1, MAX_ROWS),
            page=_whole("page", values.get("page"), 1, 1, 1_000_000),
        )
        _ = form.filters  # a --since after --until is a bad request, said now
        return form

    @property
    def filters(self) -> Filters:
        try:
            return Filters(kinds=self.kinds, since=self.since, until=self.until, path=self.path)
        except ValueError as exc:
            raise BadRequest(str(exc)) from exc

    @property
    def empty(self) -> bool:
        return self.query is None and not self.filters.active

    def link(self, **changes: Any) -> str:
        """This search's query string, with ``changes`` (e.g. ``page=2``)."""
        form = replace(self, **changes)
        pairs: list[tuple[str, str]] = [("q", form.query or "")]
        pairs += [("kind", k) for k in form.kinds]
        pairs += [(k, str(v)) for k, v in (("since", form.since), ("until", form.until), ("path", form.path))
                  if v is not None]
        if form.show_all:
            pairs.append(("all", "1"))
        if form.limit != PAGE_ROWS:
            pairs.append(("limit", str(form.limit)))
        if form.page != 1:
            pairs.append(("page", str(form.page)))
        return "?" + urlencode(pairs)


def run_search(store: Store, form: SearchForm) -> SearchResult:
    """The same call ``lifededup search`` makes, one page further on."""
    if form.empty:
        raise BadRequest("give a query, a kind, a date or a path")
    return search(store, form.query, form.filters, limit=form.limit, collapse=not form.show_all,
                  offset=(form.page - 1) * form.limit)


def pages(result: SearchResult, form: SearchForm) -> int:
    """How many pages the result has; where its rows are a lower bound
    (``rows_exact``), at least one more after a full page."""
    counted = max(1, -(-result.rows // form.limit))
    if result.rows_exact:
        return counted
    return max(counted, form.page + (len(result.hits) == form.limit))


# -- clusters and items -------------------------------------------------------


@dataclass(frozen=True)
class ClusterView:
    """A cluster, each member's details, and one member side by side with
    the representative."""

    explanation: Explanation
    details: dict[int, ItemDetails]
    compared: Reason | None = None
    diff: WordDiff | None = None

    @property
    def cluster_id(self) -> int:
        assert self.explanation.cluster_id is not None
        return self.explanation.cluster_id

    @property
    def representative(self) -> Reason:
        return self.explanation.reasons[0]


def _explain(store: Store, item_id: int, elsewhere: bool) -> Explanation:
    try:
        return explain(store, item_id, elsewhere=elsewhere)
    except ItemNotFound as exc:
        # the store's words are the CLI's (give a path, or PATH [PART]), which no address here can follow
        raise NotFound(f"no item {item_id} in this store: its file was removed from the index since this address "
                       "was kept, or it never was indexed; search for it by its words") from exc


def _default_compared(reasons: list[Reason]) -> Reason | None:
    """The member most worth a look: the nearest that is not a copy."""
    others = [r for r in reasons[1:] if not r.exact]
    return min(others, key=lambda r: (-(r.resemblance or 0.0), r.item.id)) if others else None


def cluster_view(store: Store, cluster_id: int, compare: int | None = None) -> ClusterView:
    """``cluster_id`` is the representative's item id (as ``search`` and
    ``dups`` give it); ``compare`` a member to set beside it."""
    explanation = cluster_explanation(store, cluster_id, elsewhere=False)  # the page does not list them
    details = item_details(store, [r.item.id for r in explanation.reasons])
    if compare is None:
        compared = _default_compared(explanation.reasons)
    else:
        compared = next((r for r in explanation.reasons if r.item.id == compare), None)
        if compared is None:
            raise NotFound(f"item {compare} is not in cluster {cluster_id}")
    diff = None
    if compared is not None:
        diff = word_diff(item_text(store, cluster_id) or "", item_text(store, compared.item.id) or "")
    return ClusterView(explanation, details, compared, diff)


def cluster_holding(store: Store, item_id: int) -> int | None:
    """The cluster of ``item_id`` where it is a member, not the representative
    (None otherwise: a cluster's own id, an item of no cluster, no item) --
    from its details alone, before any distance is computed."""
    details = item_details(store, [item_id]).get(item_id)
    if details is None or details.cluster_id in (None, item_id):
        return None
    return details.cluster_id


def cluster_explanation(store: Store, cluster_id: int, *, elsewhere: bool = True) -> Explanation:
    """``lifededup show CLUSTER_ID``: the cluster as its representative explains it."""
    explanation = _explain(store, cluster_id, elsewhere)
    if explanation.cluster_id != cluster_id:
        where = (f"it is in cluster {explanation.cluster_id}" if explanation.cluster_id is not None
                 else "it has no text, so no cluster")
        raise NotFound(f"{cluster_id} is an item but not a cluster: {where}")
    return explanation


@dataclass(frozen=True)
class ItemView:
    details: ItemDetails
    text: str | None
    explanation: Explanation
    members: dict[int, ItemDetails]
    parent: ItemDetails | None
    parts: list[ItemDetails] = field(default_factory=list)
    parts_total: int = 0
    original: Path | None = None
    # the machine serving the page: an item of another one has no file here
    machine: str = ""

    @property
    def on_another_machine(self) -> str:
        """The machine whose file the item is, when it is not this one ("" when it is)."""
        return self.details.machine if self.details.machine and self.details.machine != self.machine else ""

    @property
    def folder_search(self) -> str:
        """The search page's query string listing every item under the
        item's folder (a glob's ``*`` crosses folders: its subfolders' too),
        the folder's own ``*``, ``?`` and ``[`` escaped as the one character
        they are; "" for a path that is not absolute."""
        folder = str(PurePosixPath(self.details.path).parent)
        if not folder.startswith("/"):
            return ""
        return SearchForm(path=glob.escape(folder.rstrip("/")) + "/*", show_all=True).link()

    @property
    def file_uri(self) -> str:
        """A file:// link to the item's file, for the desktop to open (a name
        that is not UTF-8 is stored escaped: the link names its real bytes)."""
        path = Path(self.details.path)
        if not path.is_absolute() or self.on_another_machine:
            return ""
        return "file://" + quote(os.fsencode(fs_path(self.details.path)))


def item_view(store: Store, item_id: int, *, elsewhere: bool = True) -> ItemView:
    """An item's page (``elsewhere``: with the texts like it in other clusters, which a download does not need)."""
    explanation = _explain(store, item_id, elsewhere)
    ids = [r.item.id for r in explanation.reasons]
    found = item_details(store, [item_id, *ids])
    details = found[item_id]
    parent = None
    if details.parent_id is not None:
        parent = item_details(store, [details.parent_id]).get(details.parent_id)
    parts, total = item_parts(store, item_id)
    return ItemView(details, item_text(store, item_id), explanation, {i: found[i] for i in ids if i in found},
                    parent, parts, total, original_file(details, store.machine), store.machine)


def original_file(details: ItemDetails, machine: str) -> Path | None:
    """The file an item was read from, if it may be handed out: an indexed
    item's own file, by its stored absolute path, still a regular file
    there, reached through no link (a link swapped in since indexing could
    point anywhere), and a file of this machine (``machine``, the store's):
    another machine's item at the same path is another file -- a tester's
    laptop item, downloaded from the desktop, was the desktop's private
    letter.  No other file is ever served."""
    if details.machine and details.machine != machine:
        return None
    path = Path(fs_path(details.path))
    try:
        real = os.path.realpath(path)
    except OSError:  # a link on the way swapped for a folder as it was read (EINVAL)
        return None
    if not path.is_absolute() or Path(real) != Path(os.path.normpath(path)):
        return None
    return path if path.is_file() else None


def open_original(path: Path) -> tuple[int, int] | None:
    """:func:`original_file`'s path opened to be handed out, as (descriptor,
    size): each folder on the way and the file opened without following a
    link, so a folder swapped for a link between the check and the read
    (a tester's swap in a loop served an outside file 32 times in 400)
    leads nowhere; None when the path is not such a regular file now."""
    parts = [p for p in str(path).split("/") if p]
    if not parts or any(p in (".", "..") for p in parts):
        return None
    try:
        folder = os.open("/", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        for part in parts[:-1]:
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
            os.close(folder)
            folder = inner
        opened = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder)
    except OSError:
        return None
    finally:
        os.close(folder)
    found = os.fstat(opened)
    if not stat.S_ISREG(found.st_mode):
        os.close(opened)
        return None
    return opened, found.st_size


# -- failures and status --------------------------------------------------------


def failed_items(store: Store, limit: int = FAILURES_SHOWN, *, machine: str | None = None,
                 statuses: Sequence[str] = ()) -> list[FailedItem]:
    """``lifededup failures --limit N [--machine NAME] [--status STATUS...]``."""
    return failures(store, limit, machine=machine, statuses=statuses)


def failed_kinds(store: Store, *, machine: str | None = None) -> dict[str, int]:
    """How many failed of each status (the last line of ``lifededup failures``)."""
    from lifededup.store.failures import failed_by_status

    return failed_by_status(store, machine=machine)


@dataclass(frozen=True)
class StatusView:
    """The store, its watched folders, and the watcher daemon as its status
    file and log tell it."""

    store: str
    folders: list[WatchedFolder]
    daemon: daemons.DaemonStatus
    log: list[str]
    log_path: str  # empty when the watcher writes none (run in a terminal or under systemd)
    # the store's server cannot be reached, or refuses this view (server_words), its folders unread; else ""
    server: str = ""

    @property
    def same_store(self) -> str:
        """`` --db STORE`` for the commands the page suggests, where the view shows another store than
        the one a bare command opens (the default, or LIFEDEDUP_DB's): `lifededup daemon start` as the
        page said it watched the default store's folders, not these."""
        return self.named(self.store)

    @staticmethod
    def named(store: str) -> str:
        """`` --db STORE`` for a command said about ``store`` (the watcher's), as the CLI says it."""
        from lifededup.store.opening import store_named

        return store_named(store)

    def to_dict(self) -> dict[str, Any]:
        return {
            "store": self.store,
            "folders": [_folder_dict(f) for f in self.folders],
            "daemon": self.daemon.to_dict(),
            "log": self.log,
            "log_path": self.log_path,
            "server": self.server or None,
        }


def _folder_dict(folder: WatchedFolder) -> dict[str, Any]:
    return {"path": folder.path, "include": list(folder.include), "exclude": list(folder.exclude),
            "added_at": _iso(folder.added_at), "last_scanned_at": _iso(folder.last_scanned_at)}


def _iso(when: datetime | None) -> str | None:
    return None if when is None else when.isoformat(sep=" ", timespec="seconds")


def _tail(path: Path, lines: int = LOG_LINES) -> list[str]:
    """The last lines of the daemon's log: its last errors."""
    try:
        with path.open("rb") as log:
            log.seek(0, os.SEEK_END)
            log.seek(max(0, log.tell() - 16384))
            return log.read().decode("utf-8", errors="replace").splitlines()[-lines:]
    except OSError:
        return []


def status_view(store: Callable[[], Store], location: str, paths: daemons.DaemonPaths) -> StatusView:
    """The status of ``store`` (opened when asked), ``location`` as it is
    named.  A store whose server cannot be reached or refuses the view (the
    NAS off, its role renamed) still shows the watcher's part -- which says
    whether the watcher waits for that server -- where the page was an
    error, and said "cannot be reached" of a server that refused."""
    daemon = daemons.read_status(paths)
    log, log_path = ([], "") if daemon.writes_no_log() else (_tail(paths.log), str(paths.log))
    try:
        folders, server = list_folders(store()), ""
    except Exception as exc:
        words = server_words(exc)
        if words is None:
            raise
        folders, server = [], words
    return StatusView(location, folders, daemon, log, log_path, server)
