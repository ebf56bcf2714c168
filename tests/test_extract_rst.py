"""reStructuredText is read as its built page shows it (``extract/rst.py``):
SQLAlchemy's real sources and the page Sphinx built of one are read alike,
and the drafts of three releases, source and page, share one cluster."""

from __future__ import annotations

import shutil
from pathlib import Path

from lifededup.extract import extract
from lifededup.fingerprint.compare import compare
from lifededup.index import IndexConfig, run
from lifededup.store import open_store

DRAFTS = Path(__file__).parent / "fixtures" / "drafts"

SOURCE = """\
.. _overview:

========
Overview
========

.. this comment is not shown,
   nor the rest of its block

The :class:`.Session` and :term:`unit of work` are shown as `their titles <glossary.html>`_,
the `DML`:term: too.

.. versionchanged:: 2.0  The C extensions were rewritten.

.. sourcecode:: pycon+sql
   :linenos:

   >>> session.commit()

.. [1] A footnote is shown.

.. automodule:: sqlalchemy.orm
"""


def test_markup_the_page_does_not_show_is_no_words(tmp_path: Path) -> None:
    (tmp_path / "overview.rst").write_text(SOURCE)
    words = extract(tmp_path / "overview.rst").text.split()
    for markup in ("_overview:", "comment", "block", ":class:", ":term:", "glossary.html", "versionchanged::",
                   "sourcecode::", "pycon+sql", ":linenos:", "[1]", "automodule::", "sqlalchemy.orm"):
        assert markup not in words, f"{markup!r} read as a word: {words}"
    shown = " ".join(words)
    for kept in ("Overview", "`.Session`", "`unit of work`", "`their titles`", "`DML`", "2.0 The C extensions",
                 ">>> session.commit()", "A footnote is shown."):
        assert kept in shown, f"{kept!r} not read: {shown}"


def test_a_source_all_markup_is_read_as_it_is(tmp_path: Path) -> None:
    """A page of API entries alone is no empty file: its directives are its only words."""
    (tmp_path / "api.rst").write_text(".. automodule:: sqlalchemy.ext.asyncio\n   :members:\n")
    assert extract(tmp_path / "api.rst").text.split() == ["..", "automodule::", "sqlalchemy.ext.asyncio", ":members:"]


def test_a_release_s_source_reads_as_its_page(tmp_path: Path) -> None:
    """2.0.20's ``intro.rst`` was 8.6% of words from its own ``intro.html``
    read as plain text (its roles, directives and comments as words); the
    same file as a Sphinx build's ``_sources`` copy (``.rst.txt``) likewise."""
    copy = tmp_path / "_sources" / "intro.rst.txt"
    copy.parent.mkdir()
    shutil.copyfile(DRAFTS / "sqlalchemy-2.0.20/doc/build/intro.rst", copy)
    page = extract(DRAFTS / "sqlalchemy-2.0.20/doc/intro.html").text
    for source in (DRAFTS / "sqlalchemy-2.0.20/doc/build/intro.rst", copy):
        distance = compare(extract(source).text, page).word_edit_distance
        assert distance < 0.035, f"{source.name}: {distance:.1%} of words from its page"


def test_three_releases_sources_and_page_share_one_cluster(tmp_path: Path, store_url: str) -> None:
    """Read as plain text, 1.4's source was over 30% of words from 2.0.20's
    page: two clusters, the page's gathering the 2.0 sources
    (test_clusters_gather); read as shown, each 2.0 text is within 29% of
    1.4's source and joins it as it comes."""
    root = tmp_path / "docs"
    shutil.copytree(DRAFTS, root, ignore=shutil.ignore_patterns("README.md"))
    with open_store(store_url) as store:
        run(store, [root], IndexConfig(workers=1))
        _, rows = store.execute("SELECT i.path, r.path FROM clusters c JOIN items i ON i.id = c.item_id"
                                " JOIN items r ON r.id = c.cluster_id")
    found = {str(Path(str(p)).relative_to(root)): str(Path(str(r)).relative_to(root)) for p, r in rows}
    assert set(found.values()) == {"sqlalchemy-1.4.49/doc/build/intro.rst"}, found


def test_a_source_is_titled_as_its_page_by_its_first_section() -> None:
    """A .rst was untitled (its name stood for it in search results, where its page says "Overview")."""
    source, page = DRAFTS / "sqlalchemy-2.0.20/doc/build/intro.rst", DRAFTS / "sqlalchemy-2.0.20/doc/intro.html"
    assert extract(source).title == "Overview" == extract(page).title.split(" \u2014 ")[0]


def test_a_title_is_a_section_title_as_the_page_shows_it_never_a_tables_border(tmp_path: Path) -> None:
    cases = {
        ".. _api:\n\nThe ``Session`` and :class:`.Query` API\n==============\n\nText.\n": "The Session and .Query API",
        "=====  =====\ncol 1  col 2\n=====  =====\n\n*******\nInside\n*******\n": "Inside",
        "A paragraph.\n\n--------\n\nAnother, after a transition.\n": "",
        "A paragraph's first line,\nits last over a rule\n------\n\nAfter it\n========\n": "After it",
        "======\n------\n\n   Indented\n   ========\n\nBody\n~~~~\n": "Body",
    }
    for number, (source, title) in enumerate(cases.items()):
        (tmp_path / f"{number}.rst").write_text(source)
        assert extract(tmp_path / f"{number}.rst").title == title, source
