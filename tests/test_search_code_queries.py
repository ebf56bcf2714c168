"""Code and reStructuredText pasted into the search box (a real archive's
differential run: ``app.register_error_handler(500``, ``int): return``,
``Fix (:issue:`649`):``, ``Foo-Flask".`` all "cannot understand the query"
on SQLite, answered on PostgreSQL): each is searched for as the phrases of
its words, on both backends, while FTS5's grouping typed as such keeps
working and keeps its error messages.  The text is real documentation:
CPython's help topics (``pydoc_data``) and click's docstrings."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from pydoc_data.topics import topics
from test_search import MALFORMED

from lifededup.cli import main
from lifededup.search import SYNTAX
from lifededup.search.syntax import LEFT_OUT_ALONE

# The documents indexed: file name -> text.
DOCS = {
    "debugger.txt": topics["debugger"],
    "specialnames.txt": topics["specialnames"],
    "string-methods.txt": topics["string-methods"],
    "formatstrings.txt": topics["formatstrings"],
    "sequence-types.txt": topics["sequence-types"],
    "lambda.txt": topics["lambda"],
    # a docstring as `pydoc` saves it: its reST roles are words of a .txt (a .rst is read as its page shows it)
    "click-context-scope.txt": inspect.getdoc(click.Context.scope) or "",
    # a call with a string, and its words apart in another text
    "setenv-call.rst": 'Set it for one test with monkeypatch.setenv("USER", "bob"), which undoes itself.',
    "setenv-apart.rst": "monkeypatch.setenv sets one variable; the USER variable names whoever runs the tests.",
    # a .rst source, read without its roles (extract/rst.py): a role pasted from it found nothing
    "routing.rst": "Use :meth:`Flask.route` to register a view function, or `Flask.add_url_rule`:meth: itself.",
}

# (document, what is pasted from it, the phrases of its words a person means)
CODE = [
    ("specialnames.txt", "object.__eq__(self, other)", '"object __eq__ self" "other"'),
    ("specialnames.txt", "super().__init__([args...])", '"super __init__ args"'),
    ("specialnames.txt", "super().__init_subclass__(**kwargs)", '"super __init_subclass__ kwargs"'),
    ("string-methods.txt", "iskeyword('hello')", '"iskeyword hello"'),
    ("string-methods.txt", 's.upper().isupper()" might be', '"s upper isupper" might be'),
    ("string-methods.txt", "str.removeprefix(", '"str removeprefix"'),
    ("debugger.txt", "pdb.run(statement, globals=None,", '"pdb run statement" "globals None"'),
    ("debugger.txt", "(Pdb) continue", '"Pdb" continue'),
    ("click-context-scope.txt", "local (see :func:`get_current_context`).", 'local "see" "func get_current_context"'),
    ("routing.rst", ":meth:`Flask.route` to register", '"Flask route" to register'),
    ("routing.rst", "`Flask.add_url_rule`:meth:", '"Flask add_url_rule"'),
    # a word left out beside code: not "-word inside parentheses"
    ("specialnames.txt", "super().__init__([args...]) -zzzqqq", '"super __init__ args"'),
]


def indexed(tmp_path: Path, store: str) -> str:
    """The store, with the documents indexed into it by ``lifededup index``."""
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in DOCS.items():
        assert text, f"{name}: no text to index"
        (folder / name).write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["index", "--db", store, str(folder)])
    assert result.exit_code == 0, result.output
    return store


@pytest.fixture
def docs_store(tmp_path: Path, store_url: str) -> str:
    """The documents' store, on each backend."""
    return indexed(tmp_path, store_url)


@pytest.fixture
def sqlite_docs(tmp_path: Path) -> str:
    """The documents' SQLite store: FTS5's query syntax is SQLite's alone."""
    return indexed(tmp_path, str(tmp_path / "docs.db"))


def searched(store: str, query: str) -> tuple[int, str, set[str]]:
    """``lifededup search --all --json``: its exit code, output, and the names of the files it found."""
    result = CliRunner().invoke(main, ["search", "--db", store, "--all", "--json", "--", query])
    if result.exit_code != 0:
        return result.exit_code, result.output, set()
    return 0, result.output, {Path(hit["path"]).name for hit in json.loads(result.output)["hits"]}


def finds_as_meant(store: str, typed: str, meant: str) -> tuple[str, set[str]]:
    """That ``typed`` is searched (not refused) and finds what ``meant`` finds:
    its output, and what both find."""
    code, out, found = searched(store, typed)
    assert code == 0 and "cannot understand" not in out, out
    wanted = searched(store, meant)[2]
    assert found == wanted, f"{typed!r} found {sorted(found)}, {meant} finds {sorted(wanted)}"
    return out, wanted


@pytest.mark.parametrize(("doc", "pasted", "meant"), CODE, ids=[pasted for _, pasted, _ in CODE])
def test_code_pasted_from_a_document_finds_the_phrases_of_its_words(docs_store: str, doc: str, pasted: str,
                                                                     meant: str) -> None:
    assert pasted.split(" -")[0] in DOCS[doc], f"{pasted!r} is not in {doc}: the documentation changed"
    code, out, found = searched(docs_store, pasted)
    assert code == 0 and "cannot understand" not in out, out
    assert json.loads(out)["query"] == pasted, out
    wanted = searched(docs_store, meant)[2]
    assert doc in wanted, f"{meant} does not find {doc}, which holds {pasted!r}: nothing compared"
    assert found == wanted, f"{pasted!r} found {sorted(found)}, {meant} finds {sorted(wanted)}"


@pytest.mark.parametrize("query", MALFORMED)
def test_malformed_fts5_syntax_is_still_refused_with_the_syntax(sqlite_docs: str, query: str) -> None:
    code, out, _ = searched(sqlite_docs, query)
    assert code == 1 and "cannot understand the query" in out and SYNTAX in out, out
    assert "Traceback" not in out, out


def test_a_group_typed_as_such_still_groups(sqlite_docs: str) -> None:
    """``(A OR B) AND C``: the items holding A or B, and C."""
    a, b, c = (searched(sqlite_docs, word)[2] for word in ("breakpoint", "metaclass", "whitespace"))
    assert (a | b) & c and (a | b) & c != c and (a | b) & c != a | b, f"{a} {b} {c}: nothing compared"
    code, out, found = searched(sqlite_docs, "(breakpoint OR metaclass) AND whitespace")
    assert code == 0 and found == (a | b) & c, out


# The queries of the real archive's differential run FTS5 refused, and how they are read: each piece of code the
# phrase of its words (FTS5 reads punctuation in a string as spaces), the plain words as typed.
ARCHIVE = {
    "@app.route('/": "\"@app.route('/\"",
    "int): return": '"int):" return',
    "pytest_addhooks(pluginmanager) hook.": '"pytest_addhooks(pluginmanager)" "hook."',
    "test_get_json(mock_response): result": '"test_get_json(mock_response):" result',
    "Fix (:issue:`649`):": 'Fix "(:issue:`649`):"',
    'Foo-Flask".': '"Foo-Flask."',
    "class:`webob.Response`).": '"class:`webob.Response`)."',
    "async_db_query(...": '"async_db_query(..."',
    "validate_rolls(ctx": '"validate_rolls(ctx"',
    "click.echo('Well": "\"click.echo('Well\"",
    "app.register_error_handler(500": '"app.register_error_handler(500"',
    "show_teardown(exception": '"show_teardown(exception"',
    "pytest_pyfunc_call(pyfuncitem": '"pytest_pyfunc_call(pyfuncitem"',
}


@pytest.mark.parametrize("pasted", ARCHIVE)
def test_the_archives_refused_code_is_searched_for(sqlite_docs: str, pasted: str) -> None:
    from lifededup.search.syntax import as_fts5, quoted_words

    assert quoted_words(as_fts5(pasted)) == ARCHIVE[pasted]
    code, out, _ = searched(sqlite_docs, pasted)
    assert code == 0 and "cannot understand" not in out, out


# What FTS5 refused, or read otherwise than a person means, in queries pasted or typed as on a web search
# engine, and the query FTS5 reads as meant; PostgreSQL reads them alike (websearch: punctuation is space, a
# quote never closed opens a phrase to the end, OR* a prefix; its parentheses are punctuation, so each group
# here is the query's first words).
ALIKE = [
    ("(built-in OR breakpoint)", '"built-in" OR breakpoint'),  # "no such column: in"
    ("(built-in OR breakpoint) AND whitespace", '("built-in" OR breakpoint) AND whitespace'),
    ("object.__getitem__(self, key) -x", '"object __getitem__ self" key -x'),  # -word inside parentheses
    ('examples: "Harold\'s', 'examples "Harold s"'),  # examples: a column; "Harold's never closed
    ('"Harold\'s a clever', '"Harold s a clever"'),  # a quote cut from its partner: the rest is the phrase
    ("pdb.run(statement, globals=None, locals=None) OR iskeyword",  # a ) closing no group, beside an OR
     '"pdb run statement" "globals None" "locals None" OR iskeyword'),
    ("OR*", "or*"),  # FTS5's syntax error; websearch's prefix
    ("is less than or", 'is less than "or"'),  # text ending in or: the word, not a dangling OR
    ("language syntax or", 'language syntax "or"'),
    # a quote cut from its partner in a text holding punctuation besides
    ('omitted for "str.format()", so "\'{} {}\'.format(a, b)', 'omitted for "str format" so "format a b"'),
    ('default, i.e. "case', 'default "i e" case'),
    ('an identifier, "help', "an identifier help"),
    ('The expression "lambda parameters:', 'the expression "lambda parameters"'),  # a colon naming no column
    ('using "step" or "next" (all', "using step OR next all"),  # a ( never closed: text
    # a quote opening a call's argument is punctuation in its run, as websearch reads it (not the phrase
    # monkeypatch setenv AND the word USER)
    ('monkeypatch.setenv("USER', '"monkeypatch setenv USER"'),
    # a hyphen after a closing quote is punctuation (the text's 'the old "%"-formatting'), not -formatting
    ('"%"-formatting', "formatting"),
    ('old "%"-formatting', "old formatting"),
]


@pytest.mark.parametrize(("typed", "meant"), ALIKE, ids=[typed for typed, _ in ALIKE])
def test_what_fts5_refused_finds_what_it_means_on_both_backends(docs_store: str, typed: str, meant: str) -> None:
    out, wanted = finds_as_meant(docs_store, typed, meant)
    assert json.loads(out)["query"] == typed, out
    assert wanted, f"{meant} finds nothing: nothing compared"


# FTS5's own syntax, typed as a person means it, on SQLite (PostgreSQL has no groups or NEAR: README).
MEANT = [
    # FTS5 wants an AND beside a group, which websearch and FTS5 between two words imply
    ("(breakpoint OR metaclass) whitespace", "(breakpoint OR metaclass) AND whitespace"),
    ("whitespace (breakpoint OR metaclass)", "(breakpoint OR metaclass) AND whitespace"),
    ("(breakpoint or metaclass) whitespace", "(breakpoint OR metaclass) AND whitespace"),
    # a word left out beside a group: "-word cannot leave a word out inside parentheses"
    ("(breakpoint OR metaclass) -whitespace", "(breakpoint OR metaclass) NOT whitespace"),
    # a word with punctuation inside NEAR, and NEAR's comma kept beside one quoted elsewhere
    ("NEAR(built-in function, 3)", 'NEAR("built-in" function, 3)'),
    ("NEAR(string literal, 2) e.g.", 'NEAR(string literal, 2) AND "e.g."'),
]


@pytest.mark.parametrize(("typed", "meant"), MEANT, ids=[typed for typed, _ in MEANT])
def test_fts5_syntax_typed_as_people_type_it_reads_as_meant(sqlite_docs: str, typed: str, meant: str) -> None:
    _, wanted = finds_as_meant(sqlite_docs, typed, meant)
    assert wanted and wanted != set(DOCS), f"{meant} finds {sorted(wanted)}: nothing compared"


@pytest.mark.parametrize("typed", ['"river survey', 'whitespace "metaclass'])
def test_a_phrase_left_open_around_words_alone_is_refused_with_the_syntax(sqlite_docs: str, typed: str) -> None:
    """A quote never closed in text holding punctuation (pasted) opens the
    phrase of the rest; one in a query of words alone is a phrase the person
    forgot to close, and the error says how to write it."""
    code, out, _ = searched(sqlite_docs, typed)
    assert code == 1 and "unterminated string" in out and SYNTAX in out, out


@pytest.mark.parametrize("typed", ["-metaclass", '-"built in" -lambda', "______________ -metaclass",
                                   "-metaclass OR -lambda", "- -lambda"])
def test_a_query_that_only_leaves_words_out_is_refused_alike_on_both_backends(docs_store: str, typed: str) -> None:
    """SQLite refused a query of left-out words alone; PostgreSQL listed every
    item without them, a scan of the whole store (2.7 s at a million items),
    and a run of punctuation before them (a line of underscores pasted from a
    mail) found nothing on SQLite.  Both say what to write instead."""
    code, out, _ = searched(docs_store, typed)
    assert code == 1 and LEFT_OUT_ALONE in out and "river -bank" in out, out
