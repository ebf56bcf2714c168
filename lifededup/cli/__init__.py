"""The ``lifededup`` command: one module per command group, each a thin layer
that parses options, makes one library call and turns domain errors into
messages a person can act on.

A command's module is imported when that command runs (or its ``--help`` is
asked for), not before: ``lifededup search`` never loads the fingerprinting
engine, and ``lifededup --help`` loads no command at all.  :data:`COMMANDS`
says which module holds each command and the one-line summary ``--help``
lists for it (tests/test_cli_help.py keeps them true to the modules).
"""

from __future__ import annotations

import importlib
from typing import Any

import click


# command -> (its module, the first paragraph of its help: what the
# top-level --help lists without importing the module)
COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("store", "Verify the store: SQLite's integrity check (on an SQLite file), the search index, the "
              "cluster invariants "
              "(one fingerprint and one cluster per item with text; every member an exact or near copy of its "
              "representative; each representative's sketch keys, through which near copies find it), and the "
              "schema's indexes (one dropped by hand is named with the statement that makes it again)."),
    "compare": ("fingerprint", "Say how alike two files are, and whether a store would cluster them: shared "
                "features, exact shingle resemblance (Jaccard) and word edit distance (the fraction of words to "
                "insert, delete or change to turn one into the other)."),
    "daemon": ("watch", "The watcher in the background: start, stop, status, or a systemd user service (unit, install, "
              "uninstall)."),
    "dups": ("dups", "List clusters of copies and near-copies, largest first."),
    "eval": ("eval", "Run each detector over a corpus with known duplicates and print one table: pairwise "
             "precision, recall and F1 of the pairs it puts in one cluster, clusters formed, signature bytes and "
             "milliseconds per document, and the largest and mean word edit distance of accepted pairs (a large "
             "one is a false positive the truth may have missed)."),
    "export": ("transfer", "Copy the whole store to TARGET: a new SQLite file or an empty PostgreSQL database (a "
               "path, sqlite:///PATH or postgresql://USER@HOST/DB)."),
    "failures": ("failures", "List the files and parts that could not be read, and why."),
    "fingerprint": ("fingerprint", "Print the SHA-1 and the six super-shingle features of each file."),
    "folders": ("watch", "The folders the watcher keeps indexed (kept in the store)."),
    "import": ("transfer", "Copy a whole store, SOURCE (an SQLite file or a postgresql:// URL), into the store, "
               "which must be empty (a new file or database is made)."),
    "index": ("index", "Index the files in PATHS (folders or files) into the store."),
    "machines": ("machines", "The machines whose files the store holds, and which computer writes as each."),
    "recluster": ("store", "Rebuild every cluster from the stored fingerprints."),
    "search": ("search", "Search the text and titles of everything indexed, best match first, each document "
               "shown once."),
    "serve": ("serve", "Browse the store in a web browser: search with copies collapsed, each cluster's members "
              "side by side with the words that differ marked, every item's text and where its copies live."),
    "show": ("store", "Show an item (by id or path), its cluster, and why each member is there."),
    "sql": ("sql", "Run one SQL statement against the store and print the rows."),
    "stats": ("report", "How much of your archive is copies: the paper's Tables 2 and 1 for your own store "
              "(seeds/000 sections 3.2 and 4)."),
    "verify": ("report", "Check the clusters for false positives: the word edit distance between the documents "
               "of each cluster (seeds/000 section 3.1)."),
    "watch": ("watch", "Watch folders and keep the store true to them, in the foreground (for a terminal or "
              "systemd; `lifededup daemon start` runs it in the background)."),
}


class LazyGroup(click.Group):
    """A group whose commands are imported on first use.  A command module
    registers its commands with ``@main.command(...)`` when imported, as with
    a plain group; ``commands`` (every command, loaded) stays available for
    code that walks them all."""

    def __init__(self, *args: Any, lazy: dict[str, tuple[str, str]], **kwargs: Any) -> None:
        self._loaded: dict[str, click.Command] = {}
        self.lazy = lazy
        super().__init__(*args, **kwargs)

    @property  # type: ignore[override]
    def commands(self) -> dict[str, click.Command]:
        for name in self.lazy:
            self._load(name)
        return self._loaded

    @commands.setter
    def commands(self, value: dict[str, click.Command]) -> None:
        self._loaded = dict(value)

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        name = name or cmd.name
        if name is None:
            raise TypeError("Command has no name.")
        self._loaded[name] = cmd

    def _load(self, name: str) -> click.Command | None:
        if name not in self._loaded and name in self.lazy:
            importlib.import_module(f"{__name__}.{self.lazy[name][0]}")
        return self._loaded.get(name)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return self._load(cmd_name)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # --db is each command's option, not the group's: click alone would say only
        # "No such option '--db'", and the top-level help names --db
        if args and (args[0] == "--db" or args[0].startswith("--db=")):
            raise click.UsageError("--db goes after the command: lifededup COMMAND --db PATH|URL ..."
                                   " (lifededup search --db ~/archive.db river), or set LIFEDEDUP_DB", ctx)
        return super().parse_args(ctx, args)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self._loaded) | set(self.lazy))

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # the summaries of COMMANDS, so that --help imports no command module
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(map(len, names))
        rows = [(name, self._summary(name, limit)) for name in names
                if name not in self._loaded or not self._loaded[name].hidden]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def _summary(self, name: str, limit: int) -> str:
        if name in self.lazy:
            return click.Command(name, help=self.lazy[name][1]).get_short_help_str(limit)
        return self._loaded[name].get_short_help_str(limit)


def _print_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    # click.version_option would read the version at import, for every command
    if value and not ctx.resilient_parsing:
        import lifededup

        click.echo(f"lifededup, version {lifededup.__version__}")
        ctx.exit()


@click.group(cls=LazyGroup, lazy=COMMANDS,
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version and exit.")
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
      lifededup export TARGET           the whole store into a PostgreSQL database or a file
    \b
    Looking closer:
      lifededup fingerprint FILE...     SHA-1 and super-shingle features of files
      lifededup compare A B             how alike two files are, and why
      lifededup eval                    every near-duplicate detector measured on sample_corpus/
    \b
    The store is one SQLite file in your data folder; a command's --db PATH
    (lifededup search --db ~/archive.db river) or LIFEDEDUP_DB picks another,
    or a PostgreSQL database that several machines share (--db
    postgresql://USER@HOST/DB; README "Sharing a store").
    """
