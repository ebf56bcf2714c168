"""What a search row's snippet shows, on both backends: an identifier
searched for whole, where the window of FTS5's snippet() or PostgreSQL's
ts_headline ends or starts inside it; and a long text's snippet made of
its first HEADLINE_CHARS characters on SQLite too, as on PostgreSQL (FTS5's
snippet() over a whole long text cost the square of a common word's
matches: ``the`` 0.3 s on a real archive's page)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from store_samples import fp

from lifededup.cli import main
from lifededup.search import search
from lifededup.search.snippet import ELLIPSIS, HEADLINE_CHARS
from lifededup.store import ItemRecord, open_store

IDENTIFIER = "pytest_collection_modifyitems"

# A test runner's reference page, shaped as pytest's reference.rst is: the
# hook named once, in a note, the last word of a sentence's 24 (FTS5's
# snippet() starts its window at the sentence and ends it after the
# identifier's first word); its words apart in the other sections.
_SECTION = """
.. _`{name} ref`:

runner.mark.{name}
~~~~~~~~~~~~~~~~~~~~~~~

**Tutorial**: :ref:`{name}`

Mark a test function so that the runner treats it as {name}; a collection hook may
read the mark, and a plugin may add it while the items are collected.

.. py:function:: runner.mark.{name}(*args)

    :param args: what the mark carries, as strings.
"""
_NOTE = """
.. note::

    Hooks that add marks run once, so a mark added by one reaches only the items it then sees
    (add it in the `pytest_collection_modifyitems` hook).

    A mark added to a fixture does nothing.
"""
_SECTIONS = "".join(_SECTION.format(name=n) for n in ("skip", "skipif", "timeout", "parametrize", "filterwarnings",
                                                      "usefixtures", "flaky", "order", "xfail", "slow"))
REFERENCE = _SECTIONS[:len(_SECTIONS) // 2] + _NOTE + _SECTIONS[len(_SECTIONS) // 2:]

# A how-to page, shaped as pytest's writing_hook_functions.rst is: the hook
# twice, 25 words apart (ts_headline's 24 words cut the first at its start).
HOWTO = """
hook function validation and execution
--------------------------------------

Plugins register hook functions, and the runner calls each of them for
the hooks it knows.  Take a typical hook function
for the ``pytest_collection_modifyitems(session, config,
items)`` hook which it calls after collection of all test items is
done.

When we implement a ``pytest_collection_modifyitems`` function in a plugin
the runner checks at registration that its argument
names match the specification, and refuses it if not.
"""


def _stored(db: str, texts: dict[str, str]) -> None:
    with open_store(db) as store:
        for path, text in texts.items():
            store.upsert_item(ItemRecord(path=path, text=text), fp(text))


def _shown(db: str, query: str) -> dict[str, tuple[str, list[list[int]]]]:
    """Each row of ``lifededup search --all --json``: its path's snippet and highlights."""
    done = CliRunner().invoke(main, ["search", "--all", "--json", "--db", db, "--", query])
    assert done.exit_code == 0, done.output
    return {h["path"]: (h["snippet"], h["highlights"]) for h in json.loads(done.output)["hits"]}


def test_an_identifier_searched_for_shows_whole_in_its_snippet(store_url: str) -> None:
    """The identifier is three words to both indexes; the snippet shows it
    whole, each of its letters marked -- FTS5's window ended after
    ``pytest`` ("...(add it in the `pytest..."), ts_headline's started at
    ``collection`` ("...collection_modifyitems(session, ...")."""
    _stored(store_url, {"/docs/reference.rst": REFERENCE, "/docs/how-to.rst": HOWTO})
    shown = _shown(store_url, IDENTIFIER)
    assert set(shown) == {"/docs/reference.rst", "/docs/how-to.rst"}, shown
    for path, (snippet, highlights) in shown.items():
        whole = snippet.count(IDENTIFIER)
        assert whole >= 1, f"{path}: the identifier is not whole in {snippet!r}"
        assert snippet.count("pytest_collection") == snippet.count("collection_modifyitems") == whole, \
            f"{path}: a piece of the identifier alone in {snippet!r}"
        _marked_whole(path, snippet, highlights)


def _marked_whole(path: str, snippet: str, highlights: list[list[int]]) -> None:
    """The identifier stands in ``snippet``, each of its letters marked."""
    marked = {k for start, end in highlights for k in range(start, end)}
    at = snippet.find(IDENTIFIER)
    assert at >= 0, f"{path}: the identifier is not in {snippet!r}"
    unmarked = [snippet[k] for k in range(at, at + len(IDENTIFIER)) if snippet[k] != "_" and k not in marked]
    assert not unmarked, f"{path}: {''.join(unmarked)!r} of the identifier unmarked in {snippet!r}"


def test_a_word_ending_the_snippet_shows_to_its_end(store_url: str) -> None:
    """A snippet whose window ends on a match goes on to the end of its
    word, a few characters at most, where the text goes on without a space."""
    _stored(store_url, {"/docs/reference.rst": REFERENCE})
    snippet, highlights = _shown(store_url, "pytest")["/docs/reference.rst"]
    assert "`pytest_collection_modifyitems`" in snippet, snippet
    assert [snippet[a:b] for a, b in highlights] == ["pytest"], (snippet, highlights)


def _long_text(early: str, late: str) -> str:
    """Real prose (CPython's help topics) past HEADLINE_CHARS, ``early``
    within its first 5,000 characters and ``late`` past its 40,000th."""
    from pydoc_data.topics import topics

    prose = "\n\n".join(topics[key] for key in sorted(topics))
    return prose[:4_000] + early + prose[4_000:40_000] + late + prose[40_000:60_000]


def test_a_long_texts_snippet_is_of_its_start_on_both_backends(store_url: str) -> None:
    """A text past HEADLINE_CHARS shows a match in its first HEADLINE_CHARS
    characters on SQLite as PostgreSQL shows it -- where SQLite's showed
    the window of most matches anywhere (here the late sentence, four
    times the word), weighing every match against every other."""
    early = ". The lighthouse stands on the cape. "
    late = ". The lighthouse keeper, the lighthouse lamp, the lighthouse stair and the lighthouse door. "
    text = _long_text(early, late)
    _stored(store_url, {"/notes/long.txt": text})
    snippet, highlights = _shown(store_url, "lighthouse")["/notes/long.txt"]
    assert [snippet[a:b] for a, b in highlights] == ["lighthouse"], (snippet, highlights)
    assert "stands on the cape" in snippet and snippet.startswith(ELLIPSIS) and snippet.endswith(ELLIPSIS), snippet


def test_a_long_texts_match_past_its_start_alone_is_shown_on_both_backends(store_url: str) -> None:
    """Where a long text matches past its first HEADLINE_CHARS characters
    only, its snippet shows the match: SQLite's is of the whole text;
    PostgreSQL's headline of the text's start marked nothing, and is made
    again from where the text matches: its first piece that does (revision
    0027 keeps both texts in pieces, each holding a word 255 times or more;
    a text without pieces is the next test's)."""
    from pydoc_data.topics import topics

    late = " the keeper of the lighthouse rang twice. "
    prose = "\n\n".join(topics[key] for key in sorted(topics))
    assert len(prose) > 200_000
    texts = {"/notes/long.txt": _long_text("", late),
             "/notes/longer.txt": prose[:150_000] + late + prose[150_000:200_000]}
    _stored(store_url, texts)
    shown = _shown(store_url, "lighthouse")
    assert set(shown) == set(texts), shown
    for path, (snippet, highlights) in shown.items():
        assert [snippet[a:b] for a, b in highlights] == ["lighthouse"] and "rang twice" in snippet, (path, snippet)


# pytest's how-to/output.rst: its own name early (its title), the hook past
# its 21,000th character, in a conftest.py's example
OUTPUT_EXAMPLE = """

.. code-block:: python

    # content of conftest.py
    def pytest_collection_modifyitems(session, config, items):
        for item in items:
            for marker in item.iter_markers(name="test_id"):
                item.user_properties.append(("test_id", marker.args[0]))
"""


def test_an_identifier_deep_in_a_long_text_shows_in_its_snippet(store_url: str) -> None:
    """A text past HEADLINE_CHARS that names the identifier past them alone,
    beside its own words early (``pytest``), shows the identifier in its
    snippet, marked -- PostgreSQL showed the text's start, ``pytest``
    marked there (ts_headline marks a phrase's words where the phrase is
    not), and a row of no sign why it matched; SQLite's showed it."""
    from pydoc_data.topics import topics

    # prose of 24,000 characters whose words each stand fewer than 255 times
    # (183 ``the``): PostgreSQL keeps no pieces of it (revision 0027), as of
    # pytest's 26,976 characters: only its headline past its start shows the phrase
    prose = "\n\n".join(topics[key] for key in sorted(topics))[336_000:360_000]
    output = "Managing pytest's output\n========================\n\n" + prose[:21_000] + OUTPUT_EXAMPLE + prose[21_000:]
    texts = {"/docs/reference.rst": REFERENCE, "/docs/how-to.rst": HOWTO, "/docs/output.rst": output}
    _stored(store_url, texts)
    shown = _shown(store_url, IDENTIFIER)
    assert set(shown) == set(texts), shown
    for path, (snippet, highlights) in shown.items():
        _marked_whole(path, snippet, highlights)


def test_a_long_texts_snippet_at_its_starts_end_says_the_text_goes_on(tmp_path: Path) -> None:
    """A window that reaches the end of the first HEADLINE_CHARS characters
    ends in an ellipsis: the text goes on (FTS5 writes none at the end of
    the text it was given)."""
    from pydoc_data.topics import topics

    prose = "\n\n".join(topics[key] for key in sorted(topics))
    head = prose[:HEADLINE_CHARS - 40].rsplit(" ", 1)[0]
    text = head + " lighthouse " + prose[HEADLINE_CHARS:HEADLINE_CHARS + 30_000]
    db = f"{tmp_path}/s.db"
    _stored(db, {"/notes/long.txt": text})
    snippet, highlights = _shown(db, "lighthouse")["/notes/long.txt"]
    assert [snippet[a:b] for a, b in highlights] == ["lighthouse"], (snippet, highlights)
    assert snippet.endswith(ELLIPSIS), snippet


@pytest.mark.parametrize("query", ["the", "lighthouse OR function", '"of the"', "the NOT zzzz", "text:the"])
def test_a_text_within_headline_chars_shows_fts5s_own_snippet(tmp_path: Path, query: str) -> None:
    """Texts of at most HEADLINE_CHARS characters (CPython's help topics)
    show what FTS5's snippet() makes of them, as before -- but a window
    that ends on a match goes on to the end of its word (``"of the"``:
    "...in reverse order of the..." where snippet() ends at ``of``)."""
    from pydoc_data.topics import topics

    texts = {f"/topics/{key}.txt": topics[key] for key in sorted(topics)
             if 2_000 < len(topics[key]) <= HEADLINE_CHARS}
    db = f"{tmp_path}/s.db"
    _stored(db, texts)
    with open_store(db, readonly=True) as store:
        found = search(store, query, collapse=False, limit=len(texts))
    assert len(found.hits) > 10, f"{query}: too few texts to compare"
    with sqlite3.connect(db) as conn:
        own = {r[0]: r[1] for r in conn.execute(
            "SELECT i.path, snippet(items_fts, -1, char(2), char(3), ?, 24) FROM items_fts "
            "JOIN items i ON i.id = items_fts.rowid WHERE items_fts MATCH ?", (ELLIPSIS, query))}
    differ = []
    for hit in found.hits:
        marked = own[hit.path]
        plain = " ".join(marked.replace("\x02", "").replace("\x03", "").split())
        ends_on_a_match = marked.endswith("\x03" + ELLIPSIS)
        if hit.snippet.text != plain and not (ends_on_a_match and hit.snippet.text.startswith(plain[:-1])):
            differ.append((hit.path, hit.snippet.text, plain))
    assert not differ, f"{query}: {differ[:2]} show other snippets than snippet()'s"


# A word past a long text's start, in a table whose cells hold no ``the``:
# 30 cells either side (snippet()'s window is 24 words).
_CELLS = " | ".join(str(k) for k in range(30))
_TABLE_ROW = f"\n| {_CELLS} | lighthouse | {_CELLS} |\n"


@pytest.mark.parametrize("query", ["the lighthouse", "lighthouse the -harbour", '"the lighthouse"', "the lighthou*",
                                   "the keeper lighthouse"])
def test_a_common_word_and_one_past_the_start_show_the_latter_on_both_backends(store_url: str, query: str) -> None:
    """``the lighthouse``, the latter past a long text's first HEADLINE_CHARS
    characters (and the query's other forms): the snippet shows it marked,
    and the sentence it stands in -- SQLite finds it by highlight() of it
    alone, where snippet() of the query over the whole text cost the square
    of ``the``'s matches."""
    _stored(store_url, {"/notes/long.txt": _long_text("", " the keeper of the lighthouse rang twice. ")})
    snippet, highlights = _shown(store_url, query)["/notes/long.txt"]
    marked = [snippet[a:b] for a, b in highlights]  # a phrase marked whole: "the lighthouse"
    assert any("lighthouse" in m for m in marked) and "rang twice" in snippet, (snippet, highlights)
    assert snippet.startswith(ELLIPSIS) and snippet.endswith(ELLIPSIS), snippet


def test_a_word_past_the_start_without_the_common_one_near_is_shown_on_both_backends(store_url: str) -> None:
    """``the lighthouse``, the latter past a long text's first HEADLINE_CHARS
    characters in a table without ``the`` near it: the snippet shows
    ``lighthouse`` marked -- FTS5's snippet() weighs a window by the words
    from its first match on (a thousand a word, one a repeat), and showed
    a window of ``the`` alone; PostgreSQL's headline past the start held
    no match (its cover of both words is longer than its 24 words) and the
    text's start was shown: neither a sign why the text matched."""
    _stored(store_url, {"/notes/table.txt": _long_text("", _TABLE_ROW)})
    snippet, highlights = _shown(store_url, "the lighthouse")["/notes/table.txt"]
    assert "lighthouse" in [snippet[a:b] for a, b in highlights], (snippet, highlights)
    assert "lighthouse | 0 | 1 |" in snippet, snippet


def test_an_and_of_words_far_apart_shows_the_rarer_past_the_start_on_both_backends(store_url: str) -> None:
    """``keeper lighthouse``: ``keeper`` thrice in a long text's first lines
    (and in three other notes), ``lighthouse`` once past its 40,000th
    character, in no other: the snippet shows ``lighthouse``, the rarer --
    SQLite's snippet() over the whole text weighed the three ``keeper``
    above it, and PostgreSQL's headline past the start held no match of
    both: each showed the text's start."""
    early = " The keeper said: the keeper keeps the keeper's keys. "
    texts = {"/notes/long.txt": _long_text(early, " Then the lighthouse was lit. "),
             **{f"/notes/keeper{k}.txt": "a keeper's note" for k in range(3)}}
    _stored(store_url, texts)
    snippet, highlights = _shown(store_url, "keeper lighthouse")["/notes/long.txt"]
    assert "lighthouse" in [snippet[a:b] for a, b in highlights] and "was lit" in snippet, (snippet, highlights)


@pytest.mark.parametrize("query", ["the lighthouse", "the", "lighthouse OR keeper"])
def test_a_long_texts_match_in_its_start_shows_its_starts_snippet(tmp_path: Path, query: str) -> None:
    """Where a long text matches in its first HEADLINE_CHARS characters, its
    snippet is FTS5's of them (cut at a space), as before: the words past
    them are not sought."""
    text = _long_text(" The lighthouse stands on the cape. ", " the keeper of the lighthouse rang twice. ")
    db = f"{tmp_path}/s.db"
    _stored(db, {"/notes/long.txt": text})
    start = text[:HEADLINE_CHARS].rsplit(" ", 1)[0]
    with sqlite3.connect(":memory:") as scratch:
        scratch.execute("CREATE VIRTUAL TABLE t USING fts5(text, tokenize='unicode61 remove_diacritics 2')")
        scratch.execute("INSERT INTO t (text) VALUES (?)", (start,))
        own = scratch.execute("SELECT snippet(t, 0, '', '', ?, 24) FROM t WHERE t MATCH ?",
                              (ELLIPSIS, query)).fetchone()
    snippet, _ = _shown(db, query)["/notes/long.txt"]
    assert snippet.removesuffix(ELLIPSIS) == " ".join(own[0].split()).removesuffix(ELLIPSIS), (snippet, own[0])
