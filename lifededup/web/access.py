"""Who may read the archive through the web view.

By default the view listens on 127.0.0.1 and answers only requests addressed
to this machine by name (``Host: 127.0.0.1``, ``localhost``, ``[::1]``): a web
page elsewhere cannot point a name of its own at 127.0.0.1 (DNS rebinding) and
read the archive through the visitor's browser.  Listening on another address
must be asked for (``--allow-remote``), and then every request must carry a
token.  Every response forbids scripts, framing and sniffing: the pages show
hostile documents' text, and the view itself runs no JavaScript.
"""

from __future__ import annotations

import ipaddress
import secrets
from dataclasses import dataclass
from urllib.parse import urlencode

from starlette.datastructures import URL, MutableHeaders
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

LOCAL_NAMES = ("127.0.0.1", "localhost", "::1")
TOKEN_COOKIE = "lifededup_token"
TOKEN_PARAM = "token"
SECURITY_HEADERS = {
    # no script may run, no page may frame this one, forms post only here
    "content-security-policy": "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
    "base-uri 'none'; frame-ancestors 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cross-origin-resource-policy": "same-origin",
}


class RemoteRefused(ValueError):
    """Listening beyond this machine was not asked for."""


@dataclass(frozen=True)
class Access:
    """Where the view listens and what a request needs: ``token`` None means
    loopback only, by name."""

    host: str
    token: str | None

    @property
    def local(self) -> bool:
        return self.token is None


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def access_for(host: str, *, allow_remote: bool = False, token: str | None = None) -> Access:
    """The rule: loopback needs nothing; any other address needs
    ``allow_remote`` and then a token (a fresh one if none is given)."""
    if not allow_remote:
        if not is_loopback(host):
            raise RemoteRefused(
                f"refusing to listen on {host}: anyone who can reach it could read your whole archive. "
                "Keep the default (127.0.0.1), or pass --allow-remote to mean it; a token is then required "
                "(--token or LIFEDEDUP_TOKEN, else one is made and printed)")
        return Access(host, None)
    if token is not None and len(token) < 16:
        raise RemoteRefused("a token must be at least 16 characters: it is all that guards the archive")
    return Access(host, token or secrets.token_urlsafe(24))


def _host_name(header: str) -> str:
    """The host a Host header names, as DNS compares names: case aside, and
    a fully qualified name's final dot aside (LOCALHOST, localhost.)."""
    if header.startswith("["):
        return header[1:].split("]", 1)[0].lower()
    name = header.rsplit(":", 1)[0] if header.count(":") == 1 else header
    return name.lower().removesuffix(".")


def _same(given: str, token: str) -> bool:
    return secrets.compare_digest(given.encode(), token.encode())


class Guard:
    """ASGI middleware enforcing :class:`Access` and adding the security
    headers to every response."""

    def __init__(self, app: ASGIApp, access: Access) -> None:
        self.app = app
        self.access = access

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)

        refusal = self.refusal(Request(scope))
        if refusal is not None:
            await refusal(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)

    def refusal(self, request: Request) -> Response | None:
        """The response that turns this request away, or None to serve it."""
        if self.access.token is None:
            name = _host_name(request.headers.get("host", ""))
            if name not in LOCAL_NAMES:
                return PlainTextResponse(
                    f"lifededup serve answers only requests to this machine (127.0.0.1 or localhost), "
                    f"not to {name!r}", status_code=400)
            return None
        token = self.access.token
        given = request.query_params.get(TOKEN_PARAM)
        if given is not None and _same(given, token):
            # remember it in a cookie and take it out of the address bar
            rest = [(k, v) for k, v in request.query_params.multi_items() if k != TOKEN_PARAM]
            # one leading slash: "//evil.example/x" is another site's address to a browser
            target = URL(path="/" + request.url.path.lstrip("/"), query=urlencode(rest))
            redirect = RedirectResponse(str(target), status_code=303)
            redirect.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="strict")
            return redirect
        header = request.headers.get("authorization", "")
        candidates = [request.cookies.get(TOKEN_COOKIE, ""), header.removeprefix("Bearer ")]
        if any(c and _same(c, token) for c in candidates):
            return None
        return PlainTextResponse(
            "a token is needed: open the address `lifededup serve` printed (it ends in ?token=...), "
            "or send the header 'Authorization: Bearer TOKEN'", status_code=401)
