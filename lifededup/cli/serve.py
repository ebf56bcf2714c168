"""``lifededup serve``: the web view of the store, on this machine."""

from __future__ import annotations

import click

from lifededup.cli import main
from lifededup.cli.options import db_option
from lifededup.store import StoreError

TOKEN_VAR = "LIFEDEDUP_TOKEN"


@main.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Only loopback (127.0.0.1, ::1, localhost) without --allow-remote.")
@click.option("--port", type=click.IntRange(1, 65535), default=8765, show_default=True, help="Port to listen on.")
@click.option("--allow-remote", is_flag=True,
              help="Listen on another address too (e.g. 0.0.0.0); every request then needs the token.")
@click.option("--token", envvar=TOKEN_VAR, show_envvar=True, metavar="TOKEN",
              help="The token remote requests need (16+ characters; default: a fresh one, printed).")
@db_option
def serve_command(host: str, port: int, allow_remote: bool, token: str | None, db: str | None) -> None:
    """Browse the store in a web browser: search with copies collapsed,
    each cluster's members side by side with the words that differ marked,
    every item's text and where its copies live.

    The store is opened read-only; document text is shown as text, never as
    HTML; no file is served but an indexed item's own, as a download.  Every
    page is also JSON: add .json to its path (/search.json?q=..., the same
    object as `lifededup search --json`).  Needs the web extra: pip install
    'lifededup[web]'.

    \b
    Example:
      lifededup serve                     # then open http://127.0.0.1:8765/
      lifededup serve --db ~/archive.db --port 8000
      lifededup serve --host 0.0.0.0 --allow-remote   # prints the address with its token
    """
    try:
        from lifededup.web import CannotListen, RemoteRefused, serve
    except ImportError as exc:
        raise click.ClickException(f"the web view needs its extra ({exc.name} is missing): "
                                   "pip install 'lifededup[web]'") from exc
    try:
        serve(db, host, port, allow_remote=allow_remote, token=token, echo=click.echo)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from exc
    except (CannotListen, RemoteRefused) as exc:
        raise click.ClickException(str(exc)) from exc
