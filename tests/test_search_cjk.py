"""Chinese, Japanese and Korean words found inside a sentence (revision 0022,
store/searchable.py): real manual pages (tests/fixtures/cjk) indexed through
the CLI and searched, on both backends, with the snippets showing the text
as it is."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from store_samples import fp

from lifededup.cli import main
from lifededup.search import search
from lifededup.search.snippet import CLOSE, OPEN, Snippet
from lifededup.search.syntax import as_fts5, cjk_apart
from lifededup.store import ItemRecord, open_store
from lifededup.store.check import check_store
from lifededup.store.searchable import APART, apart

FIXTURES = Path(__file__).parent / "fixtures" / "cjk"
JA, ZH = "ls-ja.txt", "ls-zh_CN.html"


@pytest.fixture
def indexed(store_url: str, tmp_path: Path) -> str:
    """The Japanese .txt and the Chinese .html, indexed by ``lifededup index``."""
    folder = tmp_path / "docs"
    shutil.copytree(FIXTURES, folder, ignore=shutil.ignore_patterns("*.md"))
    done = CliRunner().invoke(main, ["index", str(folder), "--db", store_url])
    assert done.exit_code == 0, done.output
    return store_url


def found(store_url: str, query: str) -> list[dict[str, object]]:
    """The hits of ``lifededup search QUERY --json --all``."""
    done = CliRunner().invoke(main, ["search", "--json", "--all", "--db", store_url, "--", query])
    assert done.exit_code == 0, f"{query}: {done.output}"
    return list(json.loads(done.output)["hits"])


def names(hits: list[dict[str, object]]) -> list[str]:
    return sorted(Path(str(h["path"])).name for h in hits)


@pytest.mark.parametrize("query, files", [
    ("一覧表示", [JA]),  # inside 一覧表示します and 一覧表示しない
    ("ディレクトリ", [JA]),
    ("目录", [ZH]),  # inside 列出目录内容
    ('"列出目录"', [ZH]),  # a phrase across two words
    ("作者", [JA, ZH]),  # both pages
    ("作者 ソート", [JA]),  # both words
    ("作者 -目录", [JA]),  # the one without
    ("作者 Richard", [JA, ZH]),  # a CJK word and a Latin one
    ("目录 OR ソート", [JA, ZH]),
    ("ディレ*", [JA]),  # a prefix
    ("表", [JA, ZH]),  # one character: 表示 and 表示为
    ("東京", []),  # in neither
])
def test_a_word_inside_cjk_text_is_found_through_the_cli(indexed: str, query: str, files: list[str]) -> None:
    got = names(found(indexed, query))
    assert got == files, f"{query!r}: {got}, wanted {files}"


def test_the_title_of_a_chinese_page_is_searched_by_its_words(indexed: str) -> None:
    """An HTML page's title (ls - 列出目录内容) is indexed apart too: on
    SQLite a column filter finds it there."""
    if "://" not in indexed:
        assert names(found(indexed, "title:目录")) == [ZH]
        assert names(found(indexed, "title:一覧表示")) == []


@pytest.mark.parametrize("query, word", [("一覧表示", "一覧表示"), ("目录", "目录"), ('"列出目录"', "列出目录")])
def test_snippets_show_the_text_as_it_is_and_mark_the_cjk_word(indexed: str, query: str, word: str) -> None:
    hits = found(indexed, query)
    assert hits, query
    for hit in hits:
        text, marked = str(hit["snippet"]), _marked(hit)
        assert APART not in text and OPEN not in text and CLOSE not in text, f"{query}: {text!r}"
        assert word in marked, f"{query}: the word is marked whole in {text!r}: {marked}"
        with open_store(indexed, readonly=True) as store:
            _, rows = store.execute("SELECT text FROM items WHERE id = :id", {"id": hit["id"]})
        assert text.strip("…") in " ".join(str(rows[0][0]).split()), f"{query}: the text's own words {text!r}"


def _marked(hit: dict[str, object]) -> list[str]:
    text, spans = str(hit["snippet"]), hit["highlights"]
    assert isinstance(spans, list)
    return [text[int(start):int(end)] for start, end in spans]


def test_a_new_item_a_changed_one_and_a_removed_one_keep_the_index_true(store_url: str) -> None:
    """Written by the store's own calls (the triggers index the CJK columns):
    found, found again by its new words after a change, and the index
    checks clean on both backends."""
    with open_store(store_url, machine="m") as store:
        first = "私は東京に住んでいます。"
        item = store.upsert_item(ItemRecord("/a.txt", text=first, title="日記"), fp(first))
        assert [h.id for h in search(store, "東京", collapse=False).hits] == [item]
        assert [h.id for h in search(store, "日記", collapse=False).hits] == [item]
        second = "私は大阪に住んでいます。"
        store.upsert_item(ItemRecord("/a.txt", text=second, title="日記"), fp(second))
        assert search(store, "東京", collapse=False).hits == []
        assert [h.id for h in search(store, "大阪", collapse=False).hits] == [item]
        latin = "Plain words, no characters apart."
        other = store.upsert_item(ItemRecord("/b.txt", text=latin), fp(latin))
        _, rows = store.execute("SELECT text_apart, title_apart FROM items WHERE id = :id", {"id": other})
        assert rows == [(None, None)], "a text without CJK characters is not kept twice"
        assert [p for p in check_store(store) if p.check == "fts-index"] == []
        store.remove_items(["/a.txt"])
        assert search(store, "大阪", collapse=False).hits == []
        assert [p for p in check_store(store) if p.check == "fts-index"] == []


def test_korean_particles_and_mixed_scripts(store_url: str) -> None:
    """Hangul keeps its spaces (a snippet shows them) and a particle joined
    to a word no longer hides it; a CJK word glued to Latin letters or
    digits is found by either."""
    with open_store(store_url, machine="m") as store:
        korean = "저는 서울에 살아요. 서울은 큽니다."
        ko = store.upsert_item(ItemRecord("/ko.txt", text=korean), fp(korean))
        mixed = "Release 2024年版 of the Tokyo東京 guide."
        mx = store.upsert_item(ItemRecord("/mx.txt", text=mixed), fp(mixed))
        hits = search(store, "서울", collapse=False).hits
        assert [h.id for h in hits] == [ko]
        assert "서울에 살아요" in hits[0].snippet.text, hits[0].snippet.text
        for query in ("2024年", "年版", "東京", "tokyo", "Tokyo東京", "guide 東京"):
            assert [h.id for h in search(store, query, collapse=False).hits] == [mx], query


@pytest.mark.parametrize("typed, fts5", [
    ("東京", '"東 京"'),
    ("title:東京", 'title:"東 京"'),
    ("tokyo -東京", 'tokyo NOT "東 京"'),
    ('"私は東京"', '"私 は 東 京"'),
    ("Tokyo東京", '"Tokyo 東 京"'),
    ("東京*", '"東 京"'),  # each character a whole word of the index: the prefix is the word
    ("東京tow*", '"東 京 tow"*'),
    ("NEAR(東京 大阪, 5)", 'NEAR("東 京" "大 阪", 5)'),
    ("river survey", "river survey"),  # Latin as typed
    ('"river survey"', '"river survey"'),
])
def test_a_cjk_word_is_read_as_the_phrase_of_its_characters(typed: str, fts5: str) -> None:
    assert as_fts5(typed) == fts5, typed
    assert cjk_apart(fts5) == fts5, "read twice, the same"


def test_apart_puts_a_separator_only_beside_cjk_characters() -> None:
    assert apart("plain text, 1.2") is None
    assert apart("私は東京") == APART.join("私は東京")
    assert apart("Tokyo東京 2024年") == f"Tokyo{APART}東{APART}京 2024{APART}年"
    assert apart("서울에 살아요") == f"서{APART}울{APART}에 살{APART}아{APART}요"


def test_a_snippet_marked_character_by_character_is_one_marked_word() -> None:
    """ts_headline marks each character of the phrase: read, the word is marked whole."""
    snippet = Snippet.from_marked(f"私{APART}は{APART}{OPEN}東{CLOSE}{APART}{OPEN}京{CLOSE}{APART}に")
    assert snippet.text == "私は東京に" and snippet.matched == ["東京"], snippet
    latin = Snippet.from_marked(f"{OPEN}river{CLOSE} {OPEN}survey{CLOSE}")
    assert latin.matched == ["river", "survey"], "words apart stay apart"
