"""The web application: routes, each a page and its ``.json`` twin, over a
read-only store (one connection per server thread, as ``Store`` asks)."""

from __future__ import annotations

import os
import shlex
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, StrictUndefined
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from lifededup.model import REORDERING, fs_path
from lifededup.search import QuerySyntaxError, items_said, syntax_of
from lifededup.store import ItemDetails, Store, StoreError, clusters, driver_said, is_unavailable, machine_name, open_store
from lifededup.store.errors import refusal
from lifededup.store.listing import kinds_held
from lifededup.watch import daemon as daemons
from lifededup.watch.status import said_when
from lifededup.web import pages
from lifededup.web.access import SECURITY_HEADERS, Access, Guard
from lifededup.web.pages import BadRequest, NotFound, SearchForm

# the dups page: the largest clusters
CLUSTERS_SHOWN = 100


class Stores:
    """One read-only :class:`Store` per server thread, opened on first use."""

    def __init__(self, db: str | Path | None) -> None:
        self.db = db
        self._local = threading.local()
        self._opened: list[Store] = []
        self._lock = threading.Lock()
        first = open_store(db, readonly=True)  # a missing or foreign store fails here, not on a page
        self.location = str(first.location)
        self.postgres = first.location.url is not None
        self._local.store = first
        self._opened.append(first)

    def get(self) -> Store:
        store: Store | None = getattr(self._local, "store", None)
        if store is None:
            store = self._local.store = open_store(self.db, readonly=True)
            with self._lock:
                self._opened.append(store)
        return store

    def close(self) -> None:
        with self._lock:
            for store in self._opened:
                store.close()
            self._opened.clear()


def _home(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home):] if home != "/" and path.startswith(home + os.sep) else path


def _place(item: Any, full: bool = False) -> str:
    """Where an item's file is, as the CLI prints it: ``MACHINE:PATH`` for
    another machine's file of a shared store (two machines' files at one
    path looked the same on every page), else its path, ``~`` for the home
    folder unless ``full``."""
    machine = str(getattr(item, "machine", "") or "")
    if machine and machine != machine_name():
        return f"{machine}:{item.path}"
    return str(item.path) if full else _home(str(item.path))


def _name(item: Any) -> str:
    """What a page calls an item: its title, else its file's name (the
    folders are on the path line below it, or a click away), as a desktop
    search names a file without a title -- the whole path as the name,
    then again as the path, said every untitled text twice.  A part without
    a title is named by its own level of the part (``attachment 1:
    dingusfish.gif``, as the list of its container's parts names it), not
    by its container's file, which named a mail's image as the mail."""
    title = getattr(item, "title", None)
    if title:
        return str(title)
    part = str(getattr(item, "part", "") or "")
    if part:
        return part.rsplit(" / ", 1)[-1]
    path = str(item.path)
    return path.rsplit("/", 1)[-1] or path


def _found_in_title(hit: Any) -> bool:
    """Whether a search row's snippet is its title (a mail found by its
    subject alone), which the row's heading then shows marked."""
    title = getattr(hit, "title", None)
    return bool(title) and hit.snippet.spans != () and hit.snippet.text == " ".join(str(title).split())


def _failures_asked(request: Request) -> tuple[str | None, list[str]]:
    """The failures a page or its JSON asks for: ``?machine=NAME``'s (every
    machine's without), of ``?status=STATUS`` (repeatable; every status without)."""
    return (request.query_params.get("machine") or None,
            [status for status in request.query_params.getlist("status") if status])


def _twin(request: Request) -> str:
    """The address of a page's JSON, its query kept: ``/search.json`` of the
    search page at ``/`` (the footer's rule, add .json to the path, made
    ``/.json``, which answers too)."""
    path = request.url.path
    query = request.url.query
    return ("/search.json" if path in ("/", "/search") else path + ".json") + ("?" + query if query else "")


def _size(value: int | None) -> str:
    if value is None:
        return ""
    size = float(value)
    for unit in ("B", "kB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return ""  # pragma: no cover


def _format(details: ItemDetails) -> str:
    """A short name for an item's format: its file's suffix, else its MIME type's last word."""
    suffix = Path(details.path).suffix.lstrip(".")
    if suffix and not details.part:
        return suffix.upper()
    return (details.mime_type or details.kind).rsplit("/", 1)[-1]


def _fraction(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _count(number: int) -> str:
    """A count as the CLI prints it: 19,827."""
    return f"{number:,}"


def _items_said(count: int, exact: bool = True) -> str:
    """The template's filter: ``count`` matching items, as the CLI says them."""
    return items_said(count, exact=exact)


def _unreordered(value: object) -> object:
    """Every value a page shows, with the characters that reorder text made
    visible as the CLI prints them (``model.REORDERING``): "photo<U+202E>gnp.txt"
    read as "phototxt.png" on every page that named it."""
    return value.translate(REORDERING) if isinstance(value, str) else value


def _environment() -> Environment:
    env = Environment(loader=PackageLoader("lifededup.web", "templates"), autoescape=True,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True, finalize=_unreordered)
    env.filters.update(home=_home, place=_place, name=_name, size=_size, format=_format, fraction=_fraction,
                       when=said_when, count=_count, items=_items_said,
                       found_in_title=_found_in_title, shell=shlex.quote)
    return env


class View:
    """The routes, over one store."""

    def __init__(self, stores: Stores, daemon_paths: daemons.DaemonPaths) -> None:
        self.stores = stores
        self.daemon_paths = daemon_paths
        self.env = _environment()

    def html(self, template: str, status_code: int = 200, *, twin: str = "", **context: Any) -> HTMLResponse:
        """The page ``template`` renders; ``twin``: its JSON's address, linked in the footer ("": none)."""
        page = self.env.get_template(template).render(store=self.stores.location, twin=twin,
                                                      SYNTAX=syntax_of(self.stores.postgres), **context)
        return HTMLResponse(page, status_code=status_code)

    # -- search ------------------------------------------------------------

    def _form(self, request: Request) -> SearchForm:
        params = request.query_params
        return SearchForm.read(params.get("q"), params.getlist("kind"), params)

    def search_page(self, request: Request) -> Response:
        try:
            form = self._form(request)
        except BadRequest as exc:
            return self.html("search.html", 400, form=SearchForm(), result=None, error=str(exc), pages=1,
                             kinds=self._kinds(SearchForm()))
        if form.empty:
            return self.html("search.html", form=form, result=None, error=None, pages=1, kinds=self._kinds(form))
        try:
            result = pages.run_search(self.stores.get(), form)
        except (BadRequest, ValueError) as exc:  # QuerySyntaxError, a kind no item has
            syntax = isinstance(exc, QuerySyntaxError)
            # a syntax error's message ends with the syntax, which the page shows as it is (preformatted)
            return self.html("search.html", 400, form=form, result=None, pages=1, syntax=syntax,
                             error=str(exc).split("\n\n")[0] if syntax else str(exc), kinds=self._kinds(form))
        return self.html("search.html", form=form, result=result, error=None, pages=pages.pages(result, form),
                         kinds=self._kinds(form), twin=_twin(request))

    def _kinds(self, form: SearchForm) -> list[str]:
        """The kinds the filter offers: those the store holds, and any chosen
        (a kind its items no longer have stays ticked, to be unticked)."""
        return sorted(set(kinds_held(self.stores.get())) | set(form.kinds))

    def search_json(self, request: Request) -> Response:
        """``lifededup search --json``'s object."""
        try:
            result = pages.run_search(self.stores.get(), self._form(request))
        except ValueError as exc:
            raise BadRequest(str(exc)) from exc
        return JSONResponse(result.to_dict())

    # -- clusters -----------------------------------------------------------

    def clusters_page(self, request: Request) -> Response:
        return self.html("clusters.html", clusters=clusters(self.stores.get(), limit=CLUSTERS_SHOWN),
                         twin=_twin(request))

    def clusters_json(self, request: Request) -> Response:
        """``lifededup dups --json --limit 100``'s list."""
        return JSONResponse([c.to_dict() for c in clusters(self.stores.get(), limit=CLUSTERS_SHOWN)])

    def cluster_page(self, request: Request) -> Response:
        compare = request.query_params.get("compare")
        if compare is not None and not compare.isdigit():
            raise BadRequest(f"compare must be an item id, not {compare!r}")
        cluster_id = request.path_params["cluster_id"]
        holding = pages.cluster_holding(self.stores.get(), cluster_id)
        if holding is not None:  # a member's id, as `show ID` takes it: its cluster, the member compared
            return RedirectResponse(f"/clusters/{holding}?compare={cluster_id}#diff", status_code=303)
        view = pages.cluster_view(self.stores.get(), cluster_id, None if compare is None else int(compare))
        return self.html("cluster.html", view=view, twin=_twin(request))

    def cluster_json(self, request: Request) -> Response:
        """``lifededup show CLUSTER_ID --json``'s object."""
        found = pages.cluster_explanation(self.stores.get(), request.path_params["cluster_id"])
        return JSONResponse(found.to_dict())

    # -- items --------------------------------------------------------------

    def item_page(self, request: Request) -> Response:
        return self.html("item.html", view=pages.item_view(self.stores.get(), request.path_params["item_id"]),
                         twin=_twin(request))

    def item_json(self, request: Request) -> Response:
        """``lifededup show ITEM_ID --json``'s object."""
        return JSONResponse(pages.item_view(self.stores.get(), request.path_params["item_id"]).explanation.to_dict())

    def original(self, request: Request) -> Response:
        """The item's own file, as a download: never shown in this origin,
        where a hostile HTML file could act as the view."""
        view = pages.item_view(self.stores.get(), request.path_params["item_id"], elsewhere=False)
        opened = None if view.original is None else pages.open_original(view.original)
        if opened is None and view.on_another_machine:
            raise NotFound(f"the file of item {view.details.id} is on {view.on_another_machine}, not on this "
                           "computer: this one's file at that path is another file")
        if opened is None:
            raise NotFound(f"the file of item {view.details.id} is not there to hand out "
                           "(moved, gone, or reached through a link)")
        descriptor, size = opened
        name = download_name(view.details.path)
        quoted = quote(name)
        disposition = (f"attachment; filename*=utf-8''{quoted}" if quoted != name
                       else f'attachment; filename="{name}"')
        # streamed from the descriptor opened link by link, never opened again by its name
        return StreamingResponse(_chunks(descriptor), media_type="application/octet-stream",
                                 headers={"content-disposition": disposition, "content-length": str(size)})

    # -- failures and status ----------------------------------------------------

    def failures_page(self, request: Request) -> Response:
        """Every machine's failures, or ``?machine=NAME``'s (the status page's
        link where a shared store holds other machines' too)."""
        machine, statuses = _failures_asked(request)
        store = self.stores.get()
        found = pages.failed_items(store, machine=machine, statuses=statuses)
        return self.html("failures.html", failures=found, limit=pages.FAILURES_SHOWN, machine=machine,
                         statuses=statuses, kinds=pages.failed_kinds(store, machine=machine), twin=_twin(request))

    def failures_json(self, request: Request) -> Response:
        """``lifededup failures --json --limit 1000 [--machine NAME] [--status STATUS...]``'s list."""
        machine, statuses = _failures_asked(request)
        return JSONResponse([f.to_dict() for f in pages.failed_items(self.stores.get(), machine=machine,
                                                                     statuses=statuses)])

    def status_page(self, request: Request) -> Response:
        return self.html("status.html", view=pages.status_view(self.stores.get, self.stores.location,
                                                                self.daemon_paths), twin=_twin(request))

    def status_json(self, request: Request) -> Response:
        return JSONResponse(pages.status_view(self.stores.get, self.stores.location, self.daemon_paths).to_dict())

    def routes(self) -> list[Route | Mount]:
        pairs: list[tuple[str, Callable[[Request], Response], Callable[[Request], Response]]] = [
            ("/search", self.search_page, self.search_json),
            ("/clusters", self.clusters_page, self.clusters_json),
            ("/clusters/{cluster_id:int}", self.cluster_page, self.cluster_json),
            ("/items/{item_id:int}", self.item_page, self.item_json),
            ("/failures", self.failures_page, self.failures_json),
            ("/status", self.status_page, self.status_json),
        ]
        routes: list[Route | Mount] = [Route("/", self.search_page), Route("/.json", self.search_json)]
        for path, page, as_json in pairs:
            routes += [Route(path, page), Route(path + ".json", as_json)]
        routes.append(Route("/items/{item_id:int}/original", self.original))
        routes.append(Mount("/static", StaticFiles(packages=[("lifededup.web", "static")]), name="static"))
        return routes

    # -- errors -------------------------------------------------------------

    def error(self, request: Request, exc: Exception) -> Response:
        status = 404 if isinstance(exc, NotFound) else 400 if isinstance(exc, BadRequest) else 500
        message = str(exc)
        if is_unavailable(exc):  # the store's server stopped (the NAS reboots): the next request connects again
            said = driver_said(exc).partition("\n")[0] or "no answer"
            status, message = 503, f"the store's server cannot be reached ({said}); reload this page once it is back"
            refused = refusal(exc)
            if refused is not None:  # its role or database renamed, its password changed: no network problem
                message = (f"the store's server refuses this view's connection: {refused}; reload this page once "
                           "its admin puts it right")
        if request.url.path.endswith(".json"):
            return JSONResponse({"error": message}, status_code=status)
        return self.html("error.html", status, status=status, message=message)

    def failed(self, request: Request, exc: Exception) -> Response:
        """A page that failed unforeseen (``NEAR(a b, x)`` met SQLite's 'expected
        integer'): the view's own error page, with the error's words and
        where its details are, not a bare 'Internal Server Error'. Outside
        the guard (Starlette answers it last), so the headers are set here."""
        if is_unavailable(exc):
            return self.error(request, exc)
        message = (f"this page failed: {type(exc).__name__}: {exc}. The details are in the output of "
                   "lifededup serve; please report them")
        response = (JSONResponse({"error": message}, status_code=500) if request.url.path.endswith(".json")
                    else self.html("error.html", 500, status=500, message=message))
        response.headers.update(SECURITY_HEADERS)
        return response

    def not_found(self, request: Request, exc: Exception) -> Response:
        return self.error(request, NotFound(f"nothing at {request.url.path}"))


def create_app(db: str | Path | None = None, *, access: Access = Access("127.0.0.1", None),
               daemon_paths: daemons.DaemonPaths | None = None) -> Starlette:
    """The view of the store ``db`` (a path, an ``sqlite:///`` or a ``postgresql://`` URL; None: the
    default store), read-only, guarded by ``access``.  Raises ``StoreError``
    when there is no usable store."""
    stores = Stores(db)
    view = View(stores, daemon_paths or daemons.DaemonPaths.default())

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        stores.close()

    handlers: dict[Any, Callable[[Request, Exception], Response]] = {
        NotFound: view.error, BadRequest: view.error, StoreError: view.error, 404: view.not_found,
        Exception: view.failed}
    if stores.postgres:  # a server that stops while the view runs
        import psycopg
        from sqlalchemy.exc import OperationalError

        handlers.update({psycopg.OperationalError: view.error, OperationalError: view.error})
    app = Starlette(
        routes=view.routes(),
        middleware=[Middleware(Guard, access=access)],
        exception_handlers=handlers,
        lifespan=lifespan,
    )
    app.state.store = stores.location
    return app


def download_name(stored: str) -> str:
    """The name a download is saved under: the file's own, its bytes read as
    UTF-8 -- or, where they are not (a name from an older system), as
    Windows-1252, its most likely encoding -- rather than the store's
    escapes (``caf\\xe9.txt``, ``a\\\\b.txt``), which a header could carry but
    no one means."""
    raw = os.fsencode(Path(fs_path(stored)).name)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp1252", "replace")


def _chunks(descriptor: int, size: int = 1 << 16) -> Iterator[bytes]:
    """A file's bytes from an open descriptor, closed at the end (or when the client goes)."""
    with open(descriptor, "rb") as handle:
        while chunk := handle.read(size):
            yield chunk
