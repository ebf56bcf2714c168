"""A phrase is found anywhere in a long text on PostgreSQL, as on SQLite
(revision 0027, search/phrases.py).

The long text is real: CPython's own documentation of its language
(``pydoc_data.topics``, about 750 KB and 77,000 words of prose), whose
``tsvector`` keeps no place past its 16,383rd word and at most 256 places of
``the``.  The same folder is indexed through the CLI into the store under
test and into an SQLite store, whose FTS5 keeps every place: the oracle.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_search_bounded import tsquery_text

from lifededup.cli import main
from lifededup.search.phrases import Node, maybe_phrase, parse
from lifededup.store import open_store

_WORD = re.compile(r"[^\W_]+")


def _topics() -> str:
    """The documentation's topics, one after another, as their text."""
    from pydoc_data.topics import topics

    return "\n\n".join(topics[key] for key in sorted(topics))


def _first_after(words: list[str], size: int, start: int, end: int) -> str:
    """The first run of ``size`` words of letters alone that first stands
    between word ``start`` and word ``end``."""
    seen: set[tuple[str, ...]] = set()
    for at in range(len(words) - size):
        run = tuple(words[at:at + size])
        if start <= at < end and run not in seen and all(w.isalpha() and len(w) > 2 for w in run):
            return " ".join(run)
        seen.add(run)
    raise AssertionError(f"no run of {size} words first between {start} and {end}")


class Archive:
    def __init__(self, folder: Path, text: str) -> None:
        self.folder = folder
        words = [w.lower() for w in _WORD.findall(text)]
        self.words = words
        # a phrase first past the 16,383rd word, where the tsvector places none
        self.late = _first_after(words, 3, 30_000, 40_000)
        # "the ..." first past the 300th "the" (and past start.txt), well inside the first 16,383 words
        three_hundredth = [i for i, w in enumerate(words) if w == "the"][300]
        after = [i for i in range(max(three_hundredth, 9_000), 15_000) if words[i] == "the" and words[i + 1].isalpha()
                 and len(words[i + 1]) > 3 and f"the {words[i + 1]}" not in " ".join(words[:i])]
        assert after, "no 'the ...' first past the 300th 'the'"
        self.the_late = f"the {words[after[0] + 1]}"
        # four words across the end of the text's third piece of 1,000 (its words as split by whitespace)
        spaced = text.split()
        self.seam = " ".join(spaced[2998:3002])


def _index(folder: Path, db: str) -> None:
    done = CliRunner().invoke(main, ["index", str(folder), "--db", db])
    assert done.exit_code == 0, done.output


def found(db: str, query: str, *more: str) -> list[str]:
    """The names of the files ``lifededup search --json`` shows (``more``: its options)."""
    done = CliRunner().invoke(main, ["search", "--json", "--limit", "100", *more, "--db", db, "--", query])
    assert done.exit_code == 0, f"{query}: {done.output}"
    return sorted(Path(str(h["path"])).name for h in json.loads(done.output)["hits"])


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Archive:
    """The topics (``topics.txt``), a near copy of them with one word of
    their start changed (``topics-copy.txt``), a short note quoting the
    late phrase, and the topics' first 5,000 words (``start.txt``)."""
    folder = tmp_path_factory.mktemp("long") / "docs"
    folder.mkdir()
    text = _topics()
    (folder / "topics.txt").write_text(text, encoding="utf-8")
    (folder / "topics-copy.txt").write_text(text.replace("Python", "CPython", 1), encoding="utf-8")
    made = Archive(folder, text)
    (folder / "note.txt").write_text(f"A note on the reference: it says {made.late} somewhere.\n", encoding="utf-8")
    (folder / "start.txt").write_text(" ".join(text.split()[:5000]), encoding="utf-8")
    return made


@pytest.fixture(scope="module")
def oracle(archive: Archive, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The folder in an SQLite store: FTS5 finds a phrase wherever it stands."""
    db = str(tmp_path_factory.mktemp("oracle") / "store.db")
    _index(archive.folder, db)
    return db


@pytest.fixture
def indexed(store_url: str, archive: Archive) -> Iterator[str]:
    _index(archive.folder, store_url)
    yield store_url


def _queries(archive: Archive) -> list[str]:
    return [
        f'"{archive.late}"',
        f'"{archive.the_late}"',
        f'"{archive.seam}"',
        f'python -"{archive.late}"',  # left out of the texts holding it, however far on
        f'"{archive.late}" or "{archive.the_late}"',
        f'"{archive.late}" reference',
        f'"{archive.the_late}" -"{archive.late}"',
        "python",  # no phrase: the documents alone
    ]


def test_a_phrase_anywhere_in_a_long_text_is_found_as_sqlite_finds_it(indexed: str, oracle: str,
                                                                     archive: Archive) -> None:
    """Each query finds the same files on both backends, collapsed or not,
    and finds what the texts hold: before revision 0027 PostgreSQL found
    neither topics text for the late phrase, nor for ``the ...`` past the
    256th ``the``, and ``python -"..."`` kept them."""
    def cluster(names: list[str]) -> list[str]:  # a collapsed row shows either topics text, as each ranks
        return [name.replace("topics-copy", "topics") for name in names]

    for query in _queries(archive):
        assert found(indexed, query, "--all") == found(oracle, query, "--all"), query
        assert cluster(found(indexed, query)) == cluster(found(oracle, query)), query
        filtered = ("--all", "--path", "*/topics*")  # a filter reads the items: the pieces' matches too
        assert found(indexed, query, *filtered) == found(oracle, query, *filtered), (query, filtered)
    late = f'"{archive.late}"'
    assert found(indexed, late, "--all") == ["note.txt", "topics-copy.txt", "topics.txt"]
    assert found(indexed, f'"{archive.the_late}"', "--all") == ["topics-copy.txt", "topics.txt"]
    assert found(indexed, f'"{archive.seam}"', "--all") == ["start.txt", "topics-copy.txt", "topics.txt"]
    assert found(indexed, f'python -"{archive.late}"', "--all") == ["start.txt"]


def test_a_long_texts_copy_is_one_step_away_when_its_phrase_is_far_on(indexed: str, archive: Archive) -> None:
    """Collapsed, the topics and their near copy are one row, the other its
    copy, found through the pieces too."""
    done = CliRunner().invoke(main, ["search", "--json", "--db", indexed, "--", f'"{archive.late}"'])
    assert done.exit_code == 0, done.output
    rows = json.loads(done.output)["hits"]
    by_name = {Path(str(r["path"])).name: r for r in rows}
    assert sorted(by_name) in (["note.txt", "topics.txt"], ["note.txt", "topics-copy.txt"]), sorted(by_name)
    shown = by_name.get("topics.txt") or by_name["topics-copy.txt"]
    assert shown["hidden"] == 1 and len(shown["copies"]) == 1, shown
    assert Path(str(shown["copies"][0]["path"])).name in ("topics.txt", "topics-copy.txt")


def test_a_long_text_changed_is_searched_as_it_is_now(indexed: str, archive: Archive, tmp_path: Path) -> None:
    """The late phrase taken out of a text, indexed again: it is found
    there no more, on either backend."""
    folder = tmp_path / "changed"
    folder.mkdir()
    text = (archive.folder / "topics.txt").read_text(encoding="utf-8")
    cut = re.sub(r"[\W_]+".join(archive.late.split()), "", text, flags=re.IGNORECASE)
    assert cut != text
    (folder / "topics.txt").write_text(cut, encoding="utf-8")
    _index(folder, indexed)
    query = f'"{archive.late}"'
    assert "topics.txt" not in [Path(p).name for p in _paths(indexed, query) if p.startswith(str(folder))]
    (folder / "topics.txt").write_text(text, encoding="utf-8")
    _index(folder, indexed)
    assert [p for p in _paths(indexed, query) if p.startswith(str(folder))] == [str(folder / "topics.txt")]


def _paths(db: str, query: str) -> list[str]:
    done = CliRunner().invoke(main, ["search", "--json", "--all", "--limit", "100", "--db", db, "--", query])
    assert done.exit_code == 0, done.output
    return sorted(str(h["path"]) for h in json.loads(done.output)["hits"])


def _rebuilt(node: Node) -> str:
    """The tsquery's text again from ``node``, every operator in parentheses."""
    if node.op == "":
        return f"( {node.text} )"
    if node.op == "!":
        return f"!{_rebuilt(node.children[0])}"
    return "( " + f" {node.op} ".join(_rebuilt(c) for c in node.children) + " )"


@pytest.mark.parametrize("query", [
    '"a b" -"c d" or e-mail debian.org',
    'river -"bank side" -mud or "salt marsh" estuary',
    "-river",
    '"the harbour master" or tide or "low water"',
    "東京 大阪",
    '"debian.or"* upload',
    "url_for don't 14:30",
    "doko@debian.org lists.debian.org/debian-devel",
])
def test_a_tsquery_is_cut_where_its_operators_hold_across_pieces(pg_url: str, query: str) -> None:
    """PostgreSQL's own text of each query's tsquery, cut by
    ``phrases.parse``: put together again it is the same tsquery, and each
    piece of it one tsquery PostgreSQL reads as written."""
    with open_store(pg_url, machine="m") as store, store.reading() as conn:
        text = tsquery_text(conn, query)
        node = parse(text)
        assert node is not None
        again = conn.execute("SELECT CAST(CAST(:t AS tsquery) AS text)", {"t": _rebuilt(node)}).fetchone()[0]
        assert again == text, (query, text, _rebuilt(node))
        assert node.has_phrase() is ("<" in text), text
        leaves, stack = [], [node]
        while stack:
            top = stack.pop()
            stack.extend(top.children)
            leaves += [top.text] if top.op == "" else []
        for leaf in leaves:
            assert conn.execute("SELECT CAST(CAST(:t AS tsquery) AS text)", {"t": leaf}).fetchone()[0] == leaf


@pytest.mark.parametrize("query, phrase", [
    ('"river survey"', True), ("e-mail", True), ("debian.org", True), ("14:30", True), ("foo_bar", True),
    ("東京", True), ("don't", True), ('"debian.or"*', True),
    ("river survey", False), ('"river"', False), ("surv*", False), ("naïve café", False), ("a -b or c", False),
    ("river -bank", False), ('"river" or "bank"', False),
])
def test_a_query_is_read_back_only_where_it_may_hold_a_phrase(pg_url: str, query: str, phrase: bool) -> None:
    """``maybe_phrase`` spares the round trip that reads a query's tsquery
    back: where it says no, PostgreSQL's tsquery holds no phrase."""
    assert maybe_phrase(query) is phrase
    with open_store(pg_url, machine="m") as store, store.reading() as conn:
        text = tsquery_text(conn, query)
    assert ("<" in text) is phrase, text


def test_a_long_texts_snippet_shows_its_phrase_far_on(indexed: str, archive: Archive) -> None:
    """The snippet of a text whose phrase stands only past its first 20,000
    characters shows the phrase marked, on both backends: FTS5's snippet
    finds it anywhere; PostgreSQL's headline is made from the piece that
    holds it (``text_at``), where it showed the text's start, unmarked."""
    done = CliRunner().invoke(main, ["search", "--json", "--all", "--path", "*/topics.txt", "--db", indexed,
                                     "--", f'"{archive.late}"'])
    assert done.exit_code == 0, done.output
    [hit] = json.loads(done.output)["hits"]
    marked = [hit["snippet"][start:end].lower() for start, end in hit["highlights"]]
    words = archive.late.split()  # marked first (PostgreSQL marks their later lone words too)
    assert _WORD.findall(" ".join(marked))[:len(words)] == words, (marked, hit["snippet"])
    assert hit["snippet"].startswith("…"), "the snippet is from far into the text"
