"""HTML: the article text and title; scripts, styles, hidden parts, banners and ads dropped."""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lifededup.extract import extract
from lifededup.extract.html import _like_soup, _lxml_tree, _parse_tree, parse_html, parse_html_with_soup
from lifededup.fingerprint.compare import compare
from test_extract_fuzz import CORPUS, mutate  # tests/ is on sys.path (pytest rootdir-relative imports)

ARTICLE = """<p>The ferry to Inishmore leaves Rossaveal three times a day in summer, and the crossing
takes about forty minutes when the sea is calm.</p><p>Bicycles can be hired at the pier; the road
to Dún Aonghasa climbs gently past stone walls and small fields of wild flowers.</p>"""


def page(banner: str, ad: str, stamp: str) -> str:
    return f"""<!DOCTYPE html><html><head><title>Visiting the Aran Islands</title>
<style>p {{ color: red }}</style><script>var tracking = "secret-token";</script></head>
<body><div class="cookie-banner">{banner}</div><nav><a href="/">Home</a> | <a href="/travel">Travel</a></nav>
<div id="ad-slot-1" class="ad">{ad}</div>
<article><h1>Visiting the Aran Islands</h1>{ARTICLE}
<p hidden>Hidden tracking paragraph</p><p style="display: none">Also hidden</p></article>
<aside>Related: ten best beaches</aside><footer>Saved {stamp} &copy; Travel Weekly</footer></body></html>"""


def test_article_kept_furniture_dropped(tmp_path: Path) -> None:
    path = tmp_path / "aran.html"
    path.write_text(page("We use cookies!", "BUY CHEAP FLIGHTS NOW", "2024-05-01 10:00"), encoding="utf-8")
    got = extract(path)
    assert got.title == "Visiting the Aran Islands", got.title
    assert "Rossaveal" in got.text and "Dún Aonghasa" in got.text, got.text
    for junk in ("secret-token", "color: red", "cookies", "CHEAP FLIGHTS", "Hidden tracking", "Also hidden",
                 "Related", "Travel Weekly", "Home"):
        assert junk not in got.text, f"{junk!r} should have been dropped: {got.text!r}"
    assert got.kind == "web page"


def test_a_manuals_navigation_is_dropped_docbook_and_sphinx(tmp_path: Path) -> None:
    """A manual made by DocBook or Sphinx marks its furniture with classes of
    its own: DocBook's navheader and navfooter (the chapter titles around,
    which made a page match a search for the next chapter's title), Sphinx's
    sidebar, footer ("Created using Sphinx") and pilcrow anchors."""
    docbook = tmp_path / "ch02.en.html"
    docbook.write_text(f"""<html><head><title>Chapter 2. Debian package management</title></head><body>
<div class="navheader"><table><tr><th>Chapter 2. Debian package management</th></tr>
<tr><td><a href="ch01.en.html">Prev</a></td><td><a href="ch03.en.html">Next</a></td></tr></table></div>
<div class="chapter"><h2>Chapter 2. Debian package management</h2>{ARTICLE}</div>
<div class="navfooter"><table><tr><td>Chapter 1. GNU/Linux tutorials</td>
<td>Chapter 3. The system initialization</td></tr></table></div></body></html>""", encoding="utf-8")
    sphinx = tmp_path / "quickstart.html"
    sphinx.write_text(f"""<html><head><title>Quickstart</title></head><body>
<div class="document"><div class="body"><h1>Quickstart<a class="headerlink" href="#q">¶</a></h1>{ARTICLE}</div></div>
<div class="sphinxsidebar"><h3>Navigation</h3><ul><li>Installation</li><li>API</li></ul></div>
<div class="footer">&copy; Copyright 2010 Pallets. Created using Sphinx 5.3.0.</div></body></html>""", encoding="utf-8")
    for path, junk in ((docbook, ("Prev", "GNU/Linux tutorials", "system initialization")),
                       (sphinx, ("\u00b6", "Navigation", "Installation", "Created using Sphinx", "Pallets"))):
        text = extract(path).text
        assert "Rossaveal" in text, text
        for word in junk:
            assert word not in text, f"{path.name}: {word!r} kept: {text!r}"
        assert parse_html_with_soup(path.read_bytes()).text == text, "the fast reading and BeautifulSoup's differ"


def test_navigation_named_in_full_is_dropped(tmp_path: Path) -> None:
    """``navigation`` spelled out, as SQLAlchemy's documentation theme
    (``docs-narrow-top-navigation``: Previous, Next, Up and the page's
    contents, half the words of a short page) and WordPress themes
    (``main-navigation``) name it. Kept, it made a page's snippet its menu,
    and pages of one release near copies of each other."""
    sqlalchemy = tmp_path / "pooling.html"
    sqlalchemy.write_text(f"""<html><head><title>Connection Pooling</title></head><body>
<div id="docs-container"><div id="docs-narrow-top-navigation"><ul><li><b>Previous:</b>
<a href="connections.html">Working with Engines and Connections</a></li><li><b>Next:</b>
<a href="events.html">Core Events</a></li><li><b>Up:</b> <a href="../index.html">Home</a></li>
<li><b>On this page:</b></li><ul><li><a href="#a">Switching Pool Implementations</a></li></ul></ul></div>
<div id="docs-body" role="main"><h1>Connection Pooling</h1>{ARTICLE}</div>
<div id="docs-bottom-navigation" class="docs-navigation-links"><a href="events.html">Next: Core Events</a></div>
</div></body></html>""", encoding="utf-8")
    wordpress = tmp_path / "aran.html"
    wordpress.write_text(f"""<html><head><title>Aran</title></head><body><div id="page">
<div id="site-navigation" class="main-navigation"><ul><li>Home</li><li>Destinations</li><li>Contact</li></ul></div>
<div class="entry-content">{ARTICLE}</div></div></body></html>""", encoding="utf-8")
    for path, junk in ((sqlalchemy, ("Previous", "Working with Engines", "Core Events", "Switching Pool", "Home")),
                       (wordpress, ("Destinations", "Contact"))):
        text = extract(path).text
        assert "Rossaveal" in text, text
        for word in junk:
            assert word not in text, f"{path.name}: {word!r} kept: {text!r}"
        assert parse_html_with_soup(path.read_bytes()).text == text, "the fast reading and BeautifulSoup's differ"


def test_two_saved_copies_with_different_banners_are_one_text(tmp_path: Path) -> None:
    a, b = tmp_path / "a.htm", tmp_path / "b.html"
    a.write_text(page("Cookies keep us alive", "Sale on tents", "2024-05-01"), encoding="utf-8")
    b.write_text(page("Subscribe to our newsletter", "Ferry deals", "2025-01-17"), encoding="utf-8")
    result = compare(extract(a).text, extract(b).text)
    assert result.exact, f"the two saved copies differ: {result}"


def saved_as_one_file(html: bytes, *, chrome: bool = True) -> bytes:
    """The page as Chrome saves "Webpage, Single File" (or Internet Explorer
    a .mht): a MIME message of its HTML, a stylesheet and an image, and an
    ad's frame."""
    from email.message import EmailMessage

    saved = EmailMessage()
    saved["From"] = "<Saved by Blink>" if chrome else "<Saved by Windows Internet Explorer 8>"
    if chrome:
        saved["Snapshot-Content-Location"] = "https://travel.example/aran"
    saved["Subject"] = "Visiting the Aran Islands"
    saved["Date"] = "Sat, 9 Mar 2024 10:00:00 -0000"
    saved.make_related()
    for data, maintype, subtype, where in (
            (html, "text", "html", "https://travel.example/aran"),
            (b"<html><body><p>BUY CHEAP FLIGHTS NOW from Galway airport</p></body></html>", "text", "html",
             "https://ads.example/frame"),
            (b"p { color: red; font-family: Georgia, serif }", "text", "css", "https://travel.example/site.css"),
            (b"\x89PNG\r\n\x1a\n" + bytes(200), "image", "png", "https://travel.example/logo.png")):
        part = EmailMessage()
        part.set_content(data, maintype, subtype, cte="quoted-printable" if maintype == "text" else "base64")
        part["Content-Location"] = where
        saved.attach(part)
    return bytes(saved)


def test_a_page_saved_as_one_file_is_a_web_page(tmp_path: Path) -> None:
    """A .mhtml was read as a mail from "<Saved by Blink>", its stylesheet an
    item of its own (found by `search font`, clustered with every other
    saved page's): it is the page, and the same text as the page saved as .html."""
    saved = extract(Path(__file__).parent / "fixtures/mhtml/lighthouse-walk.mhtml")  # by Chromium itself
    original = extract(CORPUS / "Web/Saved pages/lighthouse-walk.html")
    assert (saved.kind, saved.title, saved.text) == ("web page", original.title, original.text), saved
    html = page("We use cookies!", "BUY CHEAP FLIGHTS NOW", "2024-05-01 10:00").encode()
    as_html = tmp_path / "aran.html"
    as_html.write_bytes(html)
    for name, chrome in (("aran.mhtml", True), ("aran.mht", False), ("aran-saved.eml", True)):
        path = tmp_path / name
        path.write_bytes(saved_as_one_file(html, chrome=chrome))
        got = extract(path)
        assert (got.kind, got.title, list(got.children)) == ("web page", "Visiting the Aran Islands", []), (name, got)
        assert got.text == extract(as_html).text, (name, got.text)


def test_charset_from_meta(tmp_path: Path) -> None:
    path = tmp_path / "old.html"
    path.write_bytes('<html><head><meta charset="windows-1252"><title>Café</title></head>'
                     '<body><p>Crème brûlée — “done”</p></body></html>'.encode("cp1252"))
    got = extract(path)
    assert got.title == "Café" and "Crème brûlée — “done”" in got.text, got


def test_a_wrapper_with_a_furniture_class_keeps_the_article(tmp_path: Path) -> None:
    path = tmp_path / "wrapped.html"
    path.write_text(f'<html><body><div class="page has-sidebar nav-collapsed">{ARTICLE}'
                    '<div class="sidebar">Popular posts</div></div></body></html>', encoding="utf-8")
    got = extract(path).text
    assert "Rossaveal" in got and "Popular posts" not in got, got


def test_a_page_whose_words_are_all_comments_is_read_with_them(tmp_path: Path) -> None:
    """A saved page of comments alone (inscriptis' test page from Stack Overflow: each ``<li class="comment">``)
    lost every comment as page furniture, and was "empty: a web page with no text in it".  Its hidden parts
    stay out; on a page with an article beside them, the comments still go; a page of the site's chrome
    alone (a Sphinx page of no content of its own: its sidebar and copyright line) is still no text."""
    comment = ('<li class="comment js-comment"><div class="comment-text"><span class="comment-copy">{}</span> '
               '&ndash; <a class="comment-user" href="/users/1">{}</a></div></li>')
    comments = (comment.format("I obtain NameError: name NamedTuple is not defined", "nbedou")
                + comment.format("See the typing module's documentation of NamedTuple", "nodakai")
                + '<li class="comment" style="display: none">A comment deleted by its moderator</li>')
    alone = tmp_path / "comments.html"
    alone.write_text(f"<ul>{comments}</ul>", encoding="utf-8")
    got = extract(alone)
    assert got.text.split("\n\n") == ["I obtain NameError: name NamedTuple is not defined \u2013 nbedou",
                                       "See the typing module's documentation of NamedTuple \u2013 nodakai"], got.text
    assert parse_html(alone.read_bytes()) == parse_html_with_soup(alone.read_bytes())
    beside = tmp_path / "article.html"
    beside.write_text(f"<html><body><div>{ARTICLE}</div><ul>{comments}</ul></body></html>", encoding="utf-8")
    got = extract(beside)
    assert "Rossaveal" in got.text and "NamedTuple" not in got.text, got.text
    chrome = tmp_path / "_end_doctest.html"
    chrome.write_text('<html><head><title>SQLAlchemy 2.0 Documentation</title></head><body><div class="docs-sidebar">'
                      '<a href="/">Home</a> <a href="/orm">SQLAlchemy ORM</a></div><div class="footer-copyright">'
                      "&copy; Copyright 2007-2023, the SQLAlchemy authors</div></body></html>", encoding="utf-8")
    got = extract(chrome)
    assert (got.title, got.text) == ("SQLAlchemy 2.0 Documentation", ""), (got.title, got.text)
    assert parse_html(chrome.read_bytes()) == parse_html_with_soup(chrome.read_bytes())


# The fast reading (lxml alone) must give what BeautifulSoup gives; pages it cannot match go to
# BeautifulSoup.  The law is checked on generated tag soup and on damaged real pages.
SOUP_TAGS = ("html", "head", "body", "title", "meta", "time", "div", "p", "span", "b", "em", "a", "pre",
             "textarea", "br", "hr", "li", "ul", "h1", "table", "caption", "tr", "td", "th", "article", "main",
             "section", "nav", "header", "footer", "aside", "script", "style", "template", "noscript", "form", "svg",
             "button", "rt", "ruby")
SOUP_ATTRS = ('class="ad"', 'class="page has-sidebar"', 'class="sidebar"', 'id="nav"', 'role="banner"',
              "hidden", 'aria-hidden="true"', 'style="display:none"', 'class=" "', 'id="cookie-notice"',
              'property="og:title" content="OG"', 'property="og:title" content=""',
              'name="date" content="2024-01-02"', 'datetime="2023-05-06T01:02:03Z"')
SOUP_TEXT = ("hello", "word word", "  ", "\n", "\n\n  \n", " \t ", "\r\n", "\f", "exam-\nple", "&amp;", "&nbsp;",
             "é", "\u00a0", "x\n\ny", "<!-- c -->", "<!---->", "<?pi x?>", "<![CDATA[z]]>", "</p>", "</div>",
             "</html>", "<li>", "<p>")


def tag_soup() -> st.SearchStrategy[str]:
    def element(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.builds(lambda tag, attrs, body, closed: f"<{tag} {' '.join(attrs)}>{body}"
                         + (f"</{tag}>" if closed else ""),
                         st.sampled_from(SOUP_TAGS), st.lists(st.sampled_from(SOUP_ATTRS), max_size=2),
                         st.lists(inner, max_size=4).map("".join), st.booleans())
    return st.recursive(st.sampled_from(SOUP_TEXT), element, max_leaves=40)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=tag_soup(), doctype=st.booleans(), encoding=st.sampled_from([None, "utf-8", "cp1252", "utf-16"]))
def test_fast_reading_is_beautifulsoups(body: str, doctype: bool, encoding: str | None) -> None:
    markup: str | bytes = ("<!DOCTYPE html>" if doctype else "") + body
    if encoding:
        markup = markup.encode(encoding, "replace")
    assert parse_html(markup) == parse_html_with_soup(markup), f"readings differ for {markup!r}"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_fast_reading_is_beautifulsoups_on_damaged_pages(seed: int) -> None:
    rng = random.Random(seed)
    pages = sorted((CORPUS / "Web").rglob("*.htm*"))
    markup = mutate(rng.choice(pages).read_bytes(), rng)
    assert parse_html(markup) == parse_html_with_soup(markup), f"readings differ for seed {seed}"


def test_real_pages_take_the_fast_reading() -> None:
    for path in sorted((CORPUS / "Web").rglob("*.htm*")):
        root = _lxml_tree(path.read_bytes())
        assert root is not None and _like_soup(root), f"{path} went to BeautifulSoup"
        assert _parse_tree(root) == parse_html_with_soup(path.read_bytes()), f"readings differ for {path}"


def test_whitespace_between_tags_is_one_newline_outside_pre() -> None:
    # BeautifulSoup's fold, which the fast reading keeps: blank lines between inline tags do not
    # split a paragraph, except inside <pre>.
    got = parse_html("<html><body><b>one</b>\n\n\n<b>two</b><pre><i>three</i>\n\n<i>four</i></pre></body></html>")
    assert got.text == "one two\n\nthree\n\nfour", repr(got.text)


def test_ruby_text_and_a_second_document_read_as_before() -> None:
    ruby = "<html><body><p><ruby>漢<rp>(</rp><rt>kan</rt><rp>)</rp></ruby>字 characters</p></body></html>"
    assert parse_html(ruby).text == "漢字 characters", parse_html(ruby)
    twice = b"<html><body><p>first</p></body></html><html><body><article>second</article></body></html>"
    assert parse_html(twice) == parse_html_with_soup(twice), (parse_html(twice), parse_html_with_soup(twice))


def test_a_damaged_charset_declaration_is_skipped_not_fatal() -> None:
    """A control character in <meta charset> made lxml (and BeautifulSoup,
    which asks lxml for that encoding) raise ValueError; the guess is skipped
    like an unknown encoding (found by the damaged-pages property, seed 4599)."""
    page = b'<html><head><meta charset="ut\x01f-8"><title>Walk</title></head><body><p>caf\xc3\xa9 open</p></body></html>'
    got = parse_html(page)
    assert got == parse_html_with_soup(page)
    assert got.title == "Walk" and got.text == "café open", got


def test_a_doctype_with_an_internal_subset_leaves_no_words_behind() -> None:
    """<!DOCTYPE html [ <!ENTITY ...> ]>: HTML parsers end the DOCTYPE at its
    first '>', and ']>' was read as the page's first words (the title with it)."""
    for doctype in ('<!DOCTYPE html [\n<!ENTITY foo "bar">\n]>', '<!doctype HTML PUBLIC "x" [ <!ENTITY a "b"> ] >'):
        markup = f"{doctype}\n<html><head><title>T</title></head><body><p>The lighthouse.</p></body></html>"
        for given in (markup, markup.encode()):
            page = parse_html(given)
            assert (page.title, page.text) == ("T", "The lighthouse."), (doctype, page)


FIXTURES = Path(__file__).resolve().parent / "fixtures/html"


def test_table_cells_are_words_apart_as_in_the_text_rendering() -> None:
    """Debian policy's fhs-3.0.html (DocBook) writes its tables' cells with no space between
    them: "<td>fdisk</td><td>Partition table ...</td>" read "fdiskPartition", and 176 such
    words kept the page from its own .txt rendering (3.4% apart, 0.0% now).  The fixture is
    section 3.16.3 of the page, and the same section of fhs-3.0.txt."""
    html = FIXTURES / "fhs-3.0-sbin-options.html"
    got = extract(html).text
    assert "\n\nfdisk Partition table manipulator (optional)\n\n" in got, got
    assert "\n\nCommand Description\n\n" in got, got
    txt = (FIXTURES / "fhs-3.0-sbin-options.txt").read_text(encoding="utf-8")
    assert got.split() == txt.split(), "the page and its text rendering read other words"
    assert parse_html_with_soup(html.read_bytes()).text == got, "the fast reading and BeautifulSoup's differ"
    cells = "<table><caption>Tools</caption><tr><th>Name</th><th>Use</th></tr><tr><td>fsck</td><td>repair</td></tr></table>"
    for markup in (f"<html><body>{cells}</body></html>", f"<html><body><p>x</p>{cells}<!-- c --></body></html>"):
        assert parse_html(markup) == parse_html_with_soup(markup)
        assert "Tools\n\nName Use\n\nfsck repair" in parse_html(markup).text, parse_html(markup).text
