"""Markdown is read as its page shows it (``extract/markdown.py``): a real
page of the Node.js reference and the HTML built from it are read alike and
share a cluster; link targets, reference definitions and pictures' paths are
no words; a note's title is its front matter's, its heading or its first
line, never its markup."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from lifededup.extract import extract
from lifededup.extract.text import decode
from lifededup.fingerprint.compare import compare
from lifededup.index import IndexConfig, run
from lifededup.store import open_store

PAGES = Path(__file__).parent / "fixtures" / "markdown"

NOTE = """\
[![Build](https://ci.example.org/badge-xyzzy.svg)](https://ci.example.org/plugh)

# Tides of the harbour

The [tide tables](https://example.org/tables-frobozz "the port's own") are [here][tables], and
![a chart of the bay](charts/bay-quux.png) shows the <kbd>moorings</kbd>.
See <https://example.org/autolinked> too.

| hour | height |
|------|--------|
| nine | high   |

- [x] check the anchor[^1]

```python
print("the fence's code is shown")
```

<!-- a note to myself, kept as words -->

<script>var hidden = "scriptword";</script>

[^1]: The footnote is shown.

[tables]: https://example.org/reference-grue
"""


def _words(path: Path) -> list[str]:
    return extract(path).text.split()


def test_link_targets_and_pictures_paths_are_no_words_and_what_the_page_shows_is(tmp_path: Path) -> None:
    (tmp_path / "tides.md").write_text(NOTE)
    read = extract(tmp_path / "tides.md")
    shown = " ".join(read.text.split())
    # a picture is no text of the page (an HTML page's <img alt> is not read either)
    for markup in ("xyzzy", "plugh", "frobozz", "quux", "grue", "python", "port's", "scriptword", "[tables]",
                   "kbd", "![a", "|", "Build", "chart", "anchor1", "\u21a9"):
        assert markup not in shown, f"{markup!r} read as a word: {shown}"
    for kept in ("Tides of the harbour", "The tide tables are here, and shows the moorings.",
                 "https://example.org/autolinked", "hour", "nine high", "check the anchor",
                 "print(\"the fence's code is shown\")", "a note to myself, kept as words", "The footnote is shown."):
        assert kept in shown, f"{kept!r} not read: {shown}"
    assert read.title == "Tides of the harbour", "the level-one heading, not the row of badges first"
    assert read.mime == "text/markdown"


@pytest.mark.parametrize(("source", "title"), [
    ("---\ntitle: 'Shopping, 2019'\ntags: [food, groceries]\n---\n\nMilk and [bread](https://shop).\n",
     "Shopping, 2019"),
    ("+++\ntitle = \"A Hugo post\"\ndate = 2020-01-02\n+++\n\n## Not the title\n\nBody.\n", "A Hugo post"),
    ("Meeting with Sam, 2 March\nabout the roof\n\n## Action items\n\n- call the roofer\n",
     "Meeting with Sam, 2 March"),
    ("Roof repairs\n============\n\nQuotes from three roofers.\n", "Roof repairs"),
    ("<!-- draft: not for the title -->\n\n### Letters to the council\n\nDear sirs.\n", "Letters to the council"),
    ("```{include} ../CHANGELOG.md\n```\n", ""),
    ("[![PyPI](https://pypi/badge.svg)](https://pypi) ![CI](https://ci/badge.svg)\n\n## tide-tables\n\nText.\n",
     "tide-tables"),
])
def test_a_notes_title_is_its_front_matters_its_heading_or_its_first_line(tmp_path: Path, source: str,
                                                                            title: str) -> None:
    (tmp_path / "note.md").write_text(source)
    read = extract(tmp_path / "note.md")
    assert read.title == title
    assert "tags" not in read.text and "date" not in read.text, "front matter is not text of the page"


def test_a_node_page_and_the_html_built_from_it_are_read_alike(tmp_path: Path) -> None:
    """Node.js's ``documentation.md`` as plain text was 25.5% of words from its own HTML page (its link
    targets and reference definitions); read as shown, under 10%."""
    source, page = PAGES / "documentation.md", PAGES / "documentation.html"
    html = extract(page).text
    assert compare(decode(source.read_bytes())[0], html).word_edit_distance > 0.2, "the source as plain text"
    read = extract(source)
    assert compare(read.text, html).word_edit_distance < 0.1
    assert read.title == "About this documentation" == extract(page).title.split(" | ")[0]
    assert "https://github.com/nodejs/node/issues/new" not in read.text
    # gzipped, as Debian ships it: read as the Markdown file it holds; so is a Sphinx build's copy of a source
    (tmp_path / "documentation.md.gz").write_bytes(gzip.compress(source.read_bytes()))
    shutil.copyfile(source, tmp_path / "documentation.md.txt")
    for copy in ("documentation.md.gz", "documentation.md.txt"):
        assert extract(tmp_path / copy).text == read.text, copy


def test_the_source_and_its_page_share_a_cluster_with_their_distance_as_read(store_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "api"
    folder.mkdir()
    for name in ("documentation.md", "documentation.html"):
        shutil.copyfile(PAGES / name, folder / name)
    with open_store(store_url) as store:
        run(store, [folder], IndexConfig(workers=1))
        _, rows = store.execute("SELECT i.path, c.cluster_id, c.word_distance FROM items i "
                                "JOIN clusters c ON c.item_id = i.id ORDER BY i.path")
    assert len(rows) == 2 and rows[0][1] == rows[1][1], rows
    assert max(float(r[2]) for r in rows) < 0.1, rows


def test_markdown_nested_past_lxmls_depth_and_a_source_of_no_shown_words_are_read_whole(tmp_path: Path) -> None:
    (tmp_path / "deep.md").write_text(">" * 600 + " the innermost quote\n")
    assert _words(tmp_path / "deep.md") == ["the", "innermost", "quote"]
    (tmp_path / "links.md").write_text("[home]: https://example.org/home\n")
    assert _words(tmp_path / "links.md") == ["[home]:", "https://example.org/home"], "not read as empty"


def test_raw_html_nested_past_lxmls_depth_is_read_by_its_tags_as_the_page_shows_it(tmp_path: Path) -> None:
    """300 unclosed links nest past lxml's depth: the page is scanned for its words (the HTML reader took 5 s
    over 28 KB so), its script, footnote marks and tags left out and its comment's words kept."""
    source = ("Harbour[^1] <!-- kept -->\n\n<script>var scriptword = 1;</script>\n\n"
              + "<a href='https://example.org/frobozz'>" * 300 + " tides &amp; moorings\n\n[^1]: The footnote.\n")
    (tmp_path / "deep.md").write_text(source)
    assert _words(tmp_path / "deep.md") == ["Harbour", "kept", "tides", "&", "moorings", "The", "footnote."]


def test_a_markdown_file_too_long_to_render_is_read_as_plain_text(tmp_path: Path) -> None:
    from lifededup.extract.markdown import MAX_RENDERED

    line = "A [line](https://example.org/target) of a log named .md\n"
    (tmp_path / "dump.md").write_text(line * (MAX_RENDERED // len(line) + 1))
    read = extract(tmp_path / "dump.md")
    assert read.text.startswith(line) and read.title == ""
