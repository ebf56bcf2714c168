"""The web view in a real browser: Debian's Chromium, headless, driven by
Playwright (its Python package and driver; the browser is the system's,
never downloaded), against `lifededup serve` running as its own process.

Search, expand a row's copies in place, open the cluster, see the words that
differ marked, follow a link to an item -- on an SQLite store and on a
PostgreSQL one; a hostile mail's script shows as text and never runs;
nothing is fetched from anywhere but the view.

LIFEDEDUP_SCREENSHOT=docs/web-view.png python -m pytest tests/test_web_browser.py
writes the README's screenshot."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from browser_samples import browser_api, launched

sync_api = browser_api()

from corpus_store import CorpusStore  # noqa: E402
from web_samples import SCRIPT, hostile_store, serving  # noqa: E402



@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[Path], str]]:
    """Start `lifededup serve` on a store; returns the view's address."""
    with ExitStack() as servers:
        yield lambda db: servers.enter_context(serving(["serve"], db, tmp_path_factory.mktemp("serve") / "serve.log"))


@pytest.fixture(scope="module")
def browser() -> Iterator[sync_api.Browser]:
    yield from launched(sync_api)


def watched_page(browser: sync_api.Browser, address: str) -> tuple[sync_api.Page, list[str], list[str]]:
    """A page that records every request it makes and every dialog a script opens."""
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    requests: list[str] = []
    dialogs: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    return page, requests, dialogs


def test_search_expand_compare_and_follow(browser: sync_api.Browser, served: Callable[[Path], str],
                                          corpus: CorpusStore, tmp_path: Path) -> None:
    address = served(corpus.db)
    page, requests, _ = watched_page(browser, address)
    page.goto(address + "/")
    page.fill("input[name=q]", "river survey")
    page.press("input[name=q]", "Enter")
    page.wait_for_selector("ol.hits li.hit")

    # a row stands for its cluster; its copies expand in place
    row = page.locator("li.hit", has=page.locator("details.copies")).first
    copies = row.locator("details.copies ul li a")
    assert not copies.first.is_visible(), "the copies should be folded until asked for"
    row.locator("details.copies summary").click()
    assert copies.first.is_visible() and copies.count() >= 2, "clicking +N copies did not show them"
    assert "copies" in row.locator("summary").inner_text()
    marks = [m.lower() for m in row.locator(".snippet mark").all_inner_texts()]
    assert marks and set(marks) <= {"river", "survey"}, f"the snippet marks {marks}"

    # the cluster, a near copy side by side with its representative
    row.locator("a.cluster", has_text="side by side").click()
    page.wait_for_selector("table.members")
    assert page.locator("h1").inner_text().startswith("Cluster"), page.url
    near = page.locator("table.members tr", has=page.locator("td.why", has_text="near copy")).first
    member_id = near.locator("td").first.inner_text().strip()
    near.locator("a.compare").click()
    page.wait_for_selector("table.side")
    assert f"compare={member_id}" in page.url, page.url
    marked = page.locator("table.side ins, table.side del")
    assert marked.count() > 0 and marked.first.is_visible(), "no inserted or deleted words are marked"
    inserted = page.locator("table.side ins").first
    assert inserted.evaluate("e => getComputedStyle(e).backgroundColor") != "rgba(0, 0, 0, 0)", \
        "inserted words are not highlighted (the stylesheet did not load)"
    page.locator("h1").scroll_into_view_if_needed()
    on_sqlite = not str(corpus.db).startswith("postgresql://")  # the README's screenshot is the SQLite store's
    shot = Path((os.environ.get("LIFEDEDUP_SCREENSHOT") if on_sqlite else None) or tmp_path / "web-view.png")
    page.screenshot(path=str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", "the screenshot is not a PNG"

    # and on to the item: its text and where its copies live
    near.locator("td.path a").click()
    page.wait_for_selector("pre.text")
    assert page.url.endswith(f"/items/{member_id}"), page.url
    assert "survey" in page.locator("pre.text").inner_text().lower()
    assert page.locator("section.where tr").count() >= 3, "the item's copies are not listed"

    outside = [url for url in requests if not url.startswith(address)]
    assert not outside, f"the view fetched from elsewhere: {outside}"


def test_a_hostile_mail_shows_its_script_as_text(browser: sync_api.Browser, served: Callable[[Path], str],
                                                 tmp_path: Path) -> None:
    folder = tmp_path / "hostile"
    folder.mkdir()
    address = served(hostile_store(folder))
    page, requests, dialogs = watched_page(browser, address)
    page.goto(address + "/?q=alert")
    page.wait_for_selector("ol.hits li.hit")
    assert SCRIPT in page.locator("ol.hits").inner_text(), "the script should be shown, as text"
    mail = page.locator("li.hit", has_text="friend").first
    mail.locator("a.name").click()
    page.wait_for_selector("pre.text")
    assert SCRIPT in page.locator("pre.text").inner_text() and SCRIPT in page.locator("h1").inner_text()
    assert page.locator("script, img, iframe").count() == 0, "a hostile tag became an element"
    assert not dialogs, f"a document's script ran: {dialogs}"
    assert all(url.startswith(address) for url in requests), requests


def test_a_snippet_of_one_long_run_wraps_within_the_page(browser: sync_api.Browser, served: Callable[[Path], str],
                                                         tmp_path: Path) -> None:
    """A reStructuredText heading's line of ==== (or a long URL) in a snippet
    made the search page scroll sideways: it wraps within the page now."""
    from store_samples import fp

    from lifededup.store import ItemRecord, open_store

    db = tmp_path / "rst.db"
    text = "Release notes\n" + "=" * 600 + "\nThe lighthouse keeper's log was mended. " + "x" * 400 + " end."
    with open_store(db) as store:
        store.upsert_item(ItemRecord("/docs/notes.rst", text=text), fp(text))
    address = served(db)
    page, _, _ = watched_page(browser, address)
    page.goto(address + "/?q=lighthouse")
    page.wait_for_selector("ol.hits li.hit p.snippet")
    assert "=====" in page.locator("p.snippet").inner_text() or "xxxxx" in page.locator("p.snippet").inner_text()
    wide, room = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert wide <= room, f"the page is {wide} px wide in a {room} px window"
