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

import errno
import os
import socket
from collections.abc import Callable
from pathlib import Path

from lifededup.web.access import Access, RemoteRefused, access_for
from lifededup.web.app import create_app
from lifededup.web.diff import WordDiff, word_diff

__all__ = ["Access", "CannotListen", "RemoteRefused", "WordDiff", "access_for", "create_app", "serve", "word_diff"]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


# the hosts that listen on every address of the machine
_EVERY_ADDRESS = ("0.0.0.0", "::")


def address(access: Access, port: int) -> str:
    """The address to open, with the token when one is needed."""
    host = f"[{access.host}]" if ":" in access.host else access.host
    shown = "127.0.0.1" if access.host in _EVERY_ADDRESS else host
    return f"http://{shown}:{port}/" + (f"?token={access.token}" if access.token else "")


def serve(db: str | Path | None, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, *,
          allow_remote: bool = False, token: str | None = None, echo: Callable[[str], object] = print) -> None:
    """Check the host rule, open the store, print the address, and serve
    until Ctrl-C.  Raises :class:`RemoteRefused` and ``StoreError``."""
    import uvicorn

    access = access_for(host, allow_remote=allow_remote, token=token)
    app = create_app(db, access=access)
    # bound here, before the address is printed: uvicorn, given the port,
    # would print its own error after ours said "serving"
    listening = _listen(host, port)
    echo(f"lifededup: serving {app.state.store} read-only at {address(access, port)}  (Ctrl-C stops)")
    if access.host in _EVERY_ADDRESS:
        # the address printed is this machine's own; the person meant another machine (--allow-remote)
        there = address(Access(socket.gethostname(), access.token), port)
        echo(f"from another machine: {there} (or this machine's LAN address in place of its name)")
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", server_header=False))
    server.run(sockets=[listening])


class CannotListen(OSError):
    """The address cannot be listened on (a port in use, a host not here)."""


def _listen(host: str, port: int) -> socket.socket:
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        return socket.create_server((host, port), family=family)
    except OSError as exc:
        taken = exc.errno == errno.EADDRINUSE
        why = exc.strerror if isinstance(exc, socket.gaierror) or not exc.errno else os.strerror(exc.errno)
        raise CannotListen(f"cannot listen on {host}:{port}: {why}"
                           + (" (another program -- or another lifededup serve -- has it: give --port)"
                              if taken else "")) from exc
