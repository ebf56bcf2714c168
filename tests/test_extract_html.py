"""HTML: the article text and title; scripts, styles, hidden parts, banners and ads dropped."""

from __future__ import annotations

from pathlib import Path

from lifededup.extract import extract
from lifededup.fingerprint.compare import compare

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


def test_two_saved_copies_with_different_banners_are_one_text(tmp_path: Path) -> None:
    a, b = tmp_path / "a.htm", tmp_path / "b.html"
    a.write_text(page("Cookies keep us alive", "Sale on tents", "2024-05-01"), encoding="utf-8")
    b.write_text(page("Subscribe to our newsletter", "Ferry deals", "2025-01-17"), encoding="utf-8")
    result = compare(extract(a).text, extract(b).text)
    assert result.exact, f"the two saved copies differ: {result}"


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
