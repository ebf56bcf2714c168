"""The ``lifededup`` command: one module per command group, each a thin layer
that parses options, makes one library call and turns domain errors into
messages a person can act on."""

from __future__ import annotations

import click

from lifededup import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="lifededup")
def main() -> None:
    """Find the copies and near-copies in a lifetime of documents, mail and
    saved web pages, and show each document once.

    \b
    Start here:
      lifededup index FOLDER...         read, fingerprint and cluster everything in them
      lifededup search WORDS            search, each document shown once (copies collapsed)
      lifededup dups / show ITEM        the clusters of copies, and why an item is in its cluster
      lifededup stats / verify          how much of the archive is copies; are the clusters sound
      lifededup failures                what could not be read, and why
      lifededup folders add PATH        keep a folder indexed: `lifededup watch` or `daemon start`
      lifededup sql "SELECT ..."        read-only SQL on the store (tables: README, "The store")
      lifededup serve                   the same in a web browser, clusters side by side
    \b
    Looking closer:
      lifededup fingerprint FILE...     SHA-1 and super-shingle features of files
      lifededup compare A B             how alike two files are, and why
      lifededup eval                    every near-duplicate detector measured on sample_corpus/
    \b
    The store is one SQLite file in your data folder; --db PATH or
    LIFEDEDUP_DB picks another.
    """


def _register() -> None:
    # Each command group lives in its own module; importing it adds its commands.
    from lifededup.cli import fingerprint  # noqa: F401
    from lifededup.cli import store  # noqa: F401
    from lifededup.cli import eval  # noqa: F401
    from lifededup.cli import search  # noqa: F401
    from lifededup.cli import report  # noqa: F401
    from lifededup.cli import index  # noqa: F401
    from lifededup.cli import watch  # noqa: F401
    from lifededup.cli import serve  # noqa: F401


_register()
