"""The same query finds the same items on SQLite and on PostgreSQL where a
text's words are joined by punctuation (revision 0028).

FTS5 reads every punctuation mark as a space; PostgreSQL's parser kept
``sys.stdout``, ``built-in``, ``key/value`` and ``i:j:k`` as words of their
own, so a phrase that ran into one, or a hyphenated word typed with a
space, found other items than SQLite did (on a real archive, 37 to 48
queries in 300 taken from its own text).  The text here is real: CPython's
own help topics (``pydoc_data.topics``), one file each, indexed through the
CLI into the store under test and into an SQLite store, the oracle; the
queries are taken from the text: each joined word bare, quoted, as a
prefix, and inside the phrase it stands in.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_search_long_texts import _index

from lifededup.cli import main

# a word joined to the next by . - / : or @ (sys.stdout, built-in, key/value, i:j:k)
_JOINED = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:[-./:@]\w+)+")


def _topics() -> dict[str, str]:
    from pydoc_data.topics import topics

    return dict(topics)


def _search(db: str, query: str) -> dict[str, object]:
    done = CliRunner().invoke(main, ["search", "--json", "--all", "--limit", "200", "--db", db, "--", query])
    assert done.exit_code == 0, f"{query}: {done.output}"
    result: dict[str, object] = json.loads(done.output)
    return result


def _names(found: dict[str, object]) -> list[str]:
    hits = found["hits"]
    assert isinstance(hits, list)
    return sorted(Path(str(h["path"])).name for h in hits)


def _queries(texts: dict[str, str]) -> list[str]:
    """For the 12 commonest joined words: the word bare (``sys.exception``),
    quoted, typed with a prefix's ``*`` for its last letter (``sys.exceptio*``;
    ``i.*``, after punctuation, is the word ``i`` on both), and the
    phrase of the words around its first use as written there (``"the
    built-in function"``); and each hyphenated one typed with a space."""
    counts = Counter(m.group(0) for text in texts.values() for m in _JOINED.finditer(text))
    queries: list[str] = []
    for word, _ in counts.most_common(12):
        text = next(t for t in texts.values() if word in t)
        at = text.index(word)
        around = " ".join(text[max(0, at - 40):at + len(word) + 40].split()[1:-1])
        queries += [word, f'"{word}"', word[:-1] + "*", f'"{around}"']
        if "-" in word:
            queries.append(f'"{word.replace("-", " ")}"')
    return queries


def _written(factory: pytest.TempPathFactory, name: str, texts: dict[str, str]) -> Path:
    """A folder of ``texts`` (file name -> text), one file each."""
    docs = factory.mktemp(name) / "docs"
    docs.mkdir()
    for file, text in texts.items():
        (docs / file).write_text(text, encoding="utf-8")
    return docs


def _sqlite_of(folder: Path, factory: pytest.TempPathFactory, name: str) -> str:
    """``folder`` indexed into an SQLite store of its own: the oracle."""
    db = str(factory.mktemp(name) / "store.db")
    _index(folder, db)
    return db


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _written(tmp_path_factory, "topics", {f"{name}.txt": text for name, text in _topics().items()})


@pytest.fixture(scope="module")
def oracle(folder: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The topics in an SQLite store: FTS5 reads punctuation as spaces."""
    return _sqlite_of(folder, tmp_path_factory, "oracle")


@pytest.fixture(scope="module")
def indexed(module_stores: Callable[[], str], folder: Path) -> str:
    """The topics indexed once for the module on each backend: its tests only search them."""
    url = module_stores()
    _index(folder, url)
    return url


def test_a_query_through_punctuation_finds_the_same_items_on_both_backends(indexed: str, oracle: str) -> None:
    queries = _queries(_topics())
    wanted = {q: _names(_search(oracle, q)) for q in queries}
    assert len(queries) >= 48 and sum(1 for names in wanted.values() if names) >= 44, \
        f"the queries should find something: {wanted}"
    assert {q: _names(_search(indexed, q)) for q in queries} == wanted


def test_the_snippet_shows_the_text_as_written_with_the_words_marked(indexed: str) -> None:
    """PostgreSQL's headline is made over the text with punctuation as spaces:
    its parser kept ``sys.exc_info`` one word and marked no ``exc_info``
    inside it, so the snippet was the text's start, unmarked.  The snippet
    is the text itself, ``sys.exc_info()`` as written, with ``exc`` and
    ``info`` marked (FTS5 marks the phrase whole)."""
    found = _search(indexed, "exc_info")
    hits = found["hits"]
    assert isinstance(hits, list) and len(hits) >= 3
    for hit in hits:
        snippet, marked = hit["snippet"], [hit["snippet"][s:e] for s, e in hit["highlights"]]
        assert "exc_info" in snippet, snippet
        assert marked and set(re.findall(r"[a-z]+", " ".join(marked))) == {"exc", "info"}, (snippet, marked)


@pytest.mark.parametrize(("typed", "meant"), [
    ("- class", "class"),  # a hyphen apart from the word is punctuation (websearch read it as NOT)
    ("object --class", "object class"),  # so are two (--upgrade, an option's name)
    ("_ OR lambda", "lambda"),  # punctuation alone is nothing, and an OR beside it joins nothing
    (".. built-in", '"built in"'),  # websearch read .. as a word
    ("i.*", "i"),  # a prefix's * after punctuation: the word
    ("class *", "class"),  # a * after a space is nothing (FTS5 read it as class's prefix)
    ("_*", "zzzqqqnothing"),  # made websearch a prefix of no word: a syntax error on PostgreSQL
    ('RuntimeError("Something', '"RuntimeError Something"'),  # a quote inside code: websearch opened a phrase
    ('-"built in" class', 'class -"built in"'),  # a quote after a hyphen leaves the phrase out
])
def test_punctuation_around_words_reads_alike_on_both_backends(indexed: str, typed: str, meant: str) -> None:
    assert _names(_search(indexed, typed)) == _names(_search(indexed, meant))


# Accents (revision 0029): SQLite's index reads a word without its diacritics
# (remove_diacritics 2), and a PostgreSQL store's configuration reads it
# through unaccent; the texts written as people write them, one with its
# accents as combining marks (NFD, as macOS names and some PDFs hold them).
_ACCENTED = {
    "lotkolben.txt": "Der Lötkolben liegt im Keller neben der Werkbank.",
    "quan.txt": "Nguyễn Văn Quân viết thư từ Hà Nội.",
    "resume.txt": "Mon résumé: un café, une crème brûlée et une façade naïve.",
    "plain.txt": "A resume of the cafe menu, in plain ASCII.",
    "decomposed.txt": "Le re\u0301sume\u0301 de\u0301compose\u0301 d'un cafe\u0301 a\u0300 Montre\u0301al.",
    "strasse.txt": "Die Hauptstraße in Łódź: καλημέρα.",
}
_ACCENT_QUERIES = {
    "Lotkolben": ["lotkolben.txt"],
    "lötkolben": ["lotkolben.txt"],
    "Lötk*": ["lotkolben.txt"],
    "lotk*": ["lotkolben.txt"],
    "Quan": ["quan.txt"],
    "nguyen": ["quan.txt"],
    '"nguyen van quan"': ["quan.txt"],
    '"ha noi"': ["quan.txt"],
    "resume": ["decomposed.txt", "plain.txt", "resume.txt"],
    "RÉSUMÉ": ["decomposed.txt", "plain.txt", "resume.txt"],
    '"creme brulee"': ["resume.txt"],
    "cafe -resume": [],
    "facade OR montreal": ["decomposed.txt", "resume.txt"],
    "decompose": ["decomposed.txt"],
}


@pytest.fixture(scope="module")
def accented_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _written(tmp_path_factory, "accents", _ACCENTED)


@pytest.fixture(scope="module")
def accented_oracle(accented_folder: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    return _sqlite_of(accented_folder, tmp_path_factory, "accents-oracle")


@pytest.fixture(scope="module")
def accented(module_stores: Callable[[], str], accented_folder: Path) -> str:
    url = module_stores()
    _index(accented_folder, url)
    return url


def test_a_word_is_found_whatever_its_accents_on_both_backends(accented: str, accented_oracle: str) -> None:
    """``Lotkolben`` finds ``Lötkolben``, ``Quan`` ``Quân``, ``resume``
    ``résumé`` (composed or not): PostgreSQL's documents kept the accents
    (the ``simple`` configuration) and found none of them."""
    assert {q: _names(_search(accented_oracle, q)) for q in _ACCENT_QUERIES} == _ACCENT_QUERIES, "SQLite, the oracle"
    assert {q: _names(_search(accented, q)) for q in _ACCENT_QUERIES} == _ACCENT_QUERIES


def test_the_snippet_marks_the_accented_word_a_query_without_accents_found(accented: str) -> None:
    """The headline shows the text as written, ``Lötkolben`` marked for ``Lotkolben``."""
    for query, word in (("Lotkolben", "Lötkolben"), ("quan", "Quân"), ('"creme brulee"', "crème brûlée")):
        [hit] = _search(accented, query)["hits"]  # type: ignore[misc]
        snippet = hit["snippet"]
        marked = " ".join(snippet[s:e] for s, e in hit["highlights"])
        assert word in snippet and marked == word, (query, snippet, marked)


@pytest.mark.parametrize("query", ["Hauptstrasse", "lodz", "καλημερα"])
def test_what_still_differs_is_the_letters_unaccent_folds_and_fts5_keeps(accented: str, query: str) -> None:
    """As README's search differences say: PostgreSQL's unaccent folds ß, ł
    and Greek accents, which FTS5's remove_diacritics keeps as letters of
    their own; the word as written is found on both."""
    postgres = "://" in accented
    assert _names(_search(accented, query)) == (["strasse.txt"] if postgres else [])
    assert _names(_search(accented, {"Hauptstrasse": "Hauptstraße", "lodz": "Łódź"}.get(query, "καλημέρα"))) == [
        "strasse.txt"]
