"""The web view: search with copies collapsed, each cluster side by side
with its differences marked, every item with where its copies live -- in a
browser, on this machine, read-only.

At the top of the flow, beside the CLI: it reads the store only through the
library (``lifededup.store``, ``lifededup.search``, ``lifededup.index``'s
failures, ``lifededup.watch``'s status file), and nothing but the CLI imports
it.  Needs the ``web`` extra (Starlette, Jinja2, uvicorn).

Public API:

``create_app(db=None, *, access=Access("127.0.0.1", None), daemon_paths=None) -> Starlette``
    The ASGI application over the store ``db``, opened read-only.
``access_for(host, *, allow_remote=False, token=None) -> Access``
    The host rule: loopback needs nothing; any other address needs
    ``allow_remote`` and then a token.  :class:`RemoteRefused` otherwise.
``serve(db, host="127.0.0.1", port=8765, *, allow_remote=False, token=None, echo=print)``
    Run the view with uvicorn until interrupted.
``word_diff(representative_text, member_text) -> WordDiff``: the side-by-side rows.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lifededup.web.access import Access, RemoteRefused, access_for
from lifededup.web.app import create_app
from lifededup.web.diff import WordDiff, word_diff

__all__ = ["Access", "RemoteRefused", "WordDiff", "access_for", "create_app", "serve", "word_diff"]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


def address(access: Access, port: int) -> str:
    """The address to open, with the token when one is needed."""
    host = f"[{access.host}]" if ":" in access.host else access.host
    shown = "127.0.0.1" if access.host in ("0.0.0.0", "::") else host
    return f"http://{shown}:{port}/" + (f"?token={access.token}" if access.token else "")


def serve(db: str | Path | None, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, *,
          allow_remote: bool = False, token: str | None = None, echo: Callable[[str], object] = print) -> None:
    """Check the host rule, open the store, print the address, and serve
    until Ctrl-C.  Raises :class:`RemoteRefused` and ``StoreError``."""
    import uvicorn

    access = access_for(host, allow_remote=allow_remote, token=token)
    app = create_app(db, access=access)
    echo(f"lifededup: serving {app.state.store} read-only at {address(access, port)}  (Ctrl-C stops)")
    uvicorn.run(app, host=host, port=port, log_level="warning", server_header=False)
