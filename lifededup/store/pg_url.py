"""A ``postgresql://`` URL read without SQLAlchemy, exactly as SQLAlchemy
reads it -- or not at all.

Importing SQLAlchemy costs a command about 0.15 s, more than a search of a
PostgreSQL store; a location's URL is compared with others by its text, so
the text must be the one SQLAlchemy would give.  :func:`parse` reads with
SQLAlchemy's own pattern (``sqlalchemy.engine.url._parse_url``), unquoting
and query parsing, and :meth:`PgUrl.render` writes as its
``URL.render_as_string`` does; :meth:`PgUrl.connect_kwargs` gives what its
psycopg dialect's ``create_connect_args`` gives.  Where SQLAlchemy would
raise, or do something this module does not copy (a port that is not
digits, no database, a ``host=h:p`` or several hosts in the query), the
answer is None and the caller asks SQLAlchemy.  ``tests/test_reader.py``
compares both over a table of URLs and generated ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, quote, quote_plus, unquote

# the schemes read here; any other (postgres://, postgresql+psycopg2://,
# sqlite://) goes to SQLAlchemy, which accepts it or says what is wrong
SCHEMES = ("postgresql://", "postgresql+psycopg://")

# SQLAlchemy 2's pattern (sqlalchemy/engine/url.py, _parse_url), as it is
_URL = re.compile(
    r"""
        (?P<name>[\w\+]+)://
        (?:
            (?P<username>[^:/]*)
            (?::(?P<password>[^@]*))?
        @)?
        (?:
            (?:
                \[(?P<ipv6host>[^/\?]+)\] |
                (?P<ipv4host>[^/:\?]+)
            )?
            (?::(?P<port>[^/\?]*))?
        )?
        (?:/(?P<database>[^\?]*))?
        (?:\?(?P<query>.*))?
        """,
    re.X,
)
_DIGITS = re.compile(r"[0-9]+")
# printable ASCII and spaces (which a URL rendered keeps): no control
# character (the pattern's ``.`` stops at a newline) or non-ASCII one
_PLAIN = re.compile(r"[ -~]*")


# libpq's keywords that hold a secret: a URL printed with its password
# hidden (``hide_password``) hides these too (``?password=...``).
SECRET_KEYS = frozenset({"password", "sslpassword"})


@dataclass(frozen=True)
class PgUrl:
    """A PostgreSQL URL's parts, as SQLAlchemy's ``URL`` holds them."""

    username: str | None
    password: str | None
    host: str | None
    port: int | None
    database: str
    query: dict[str, str | tuple[str, ...]]

    def render(self, drivername: str, *, hide_password: bool) -> str:
        """``URL.render_as_string`` of this URL with ``drivername``."""
        s = drivername + "://"
        if self.username is not None:
            s += quote(self.username, safe=" +")
            if self.password is not None:
                s += ":" + ("***" if hide_password else quote(self.password, safe=" +"))
            s += "@"
        if self.host is not None:
            s += f"[{self.host}]" if ":" in self.host else self.host
        if self.port is not None:
            s += ":" + str(self.port)
        s += "/" + quote(self.database, safe=" +/")
        if self.query:
            s += "?" + "&".join(f"{quote_plus(k)}={'***' if hide_password and k in SECRET_KEYS else quote_plus(v)}"
                                for k in sorted(self.query) for v in self._values(k))
        return s

    def _values(self, key: str) -> tuple[str, ...]:
        value = self.query[key]
        return (value,) if isinstance(value, str) else value

    def connect_kwargs(self) -> dict[str, object] | None:
        """What SQLAlchemy's psycopg dialect passes ``psycopg.connect`` for
        this URL (before an engine's ``connect_args``); None for the forms
        not copied here: a key given twice, several hosts or ports, a
        ``host=h:p`` without ``port=``."""
        kwargs: dict[str, object] = {}
        # URL.translate_connect_args: the parts that are set and not empty
        for name, value in (("host", self.host), ("dbname", self.database), ("user", self.username),
                            ("password", self.password), ("port", self.port)):
            if value:
                kwargs[name] = value
        single = {k: v for k, v in self.query.items() if isinstance(v, str)}
        if len(single) != len(self.query):
            return None
        kwargs.update(single)
        host, port = single.get("host"), single.get("port")
        if (host is not None and ("," in host or ":" in host)) or (
                port is not None and _DIGITS.fullmatch(port) is None):
            return None
        if host is not None:
            # the dialect's multi-host reading of one host: the query's port,
            # as a number's text, unless it is 0 or missing
            kwargs["host"] = host
            if port is not None and int(port):
                kwargs["port"] = str(int(port))
        return kwargs


def parse(url: str) -> PgUrl | None:
    """``url``'s parts as SQLAlchemy's ``make_url`` reads them, if it is a
    PostgreSQL URL read here (see module docs); else None."""
    if not url.startswith(SCHEMES) or _PLAIN.fullmatch(url) is None:
        return None
    m = _URL.match(url)
    if m is None:
        return None
    parts = m.groupdict()
    port = parts["port"]
    if port is not None and _DIGITS.fullmatch(port) is None:
        return None  # SQLAlchemy's int() decides (and raises for "" or "5x")
    database = unquote(parts["database"]) if parts["database"] is not None else None
    if not database:
        return None  # no database: the caller's own message, through SQLAlchemy
    query: dict[str, str | tuple[str, ...]] = {}
    if parts["query"] is not None:
        for key, value in parse_qsl(parts["query"]):
            before = query.get(key)
            query[key] = value if before is None else (
                (before, value) if isinstance(before, str) else (*before, value))
    return PgUrl(
        username=unquote(parts["username"]) if parts["username"] is not None else None,
        password=unquote(parts["password"]) if parts["password"] is not None else None,
        host=parts["ipv4host"] or parts["ipv6host"],
        port=int(port) if port else None,
        database=database,
        query=query,
    )
