"""The web view's pages laid out in a real browser (Debian's Chromium,
headless, driven by Playwright, against `lifededup serve` as its own process),
at a desktop's width and a phone's, on an archive shaped like a real one: deep
folders, a manual as HTML, TXT and PDF-like copies, a mail whose subject is one
long unbroken run of digits (Python's email test suite holds one).

No page may scroll sideways: a wide table scrolls within itself, a long word
wraps. Layout reads no store differently on PostgreSQL: SQLite alone."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from browser_samples import browser_api, launched

sync_api = browser_api()

from store_samples import prose  # noqa: E402
from web_samples import serving  # noqa: E402

from lifededup.index import IndexConfig, run  # noqa: E402
from lifededup.store import open_store  # noqa: E402

DESKTOP, PHONE = 1280, 390
# the subject of msg_27.eml in CPython's email tests, as the real archive holds it
LONG_SUBJECT = "bug demonstration " + "".join(f"123456789{n}" for n in range(1, 10)) * 2 + " more text"
DEEP = Path("manuals") / "debian-policy" / "very-long-folder-name-of-a-release-2015-05-18" / "filesystem-hierarchy"


def _archive(root: Path) -> None:
    manual = root / DEEP
    manual.mkdir(parents=True)
    text = f"Filesystem Hierarchy Standard {prose(3, 1500)}"
    (manual / "fhs-3.0.txt").write_text(text, encoding="utf-8")
    (manual / "fhs-3.0 copy.txt").write_text(text.replace("budget", "budgets", 3), encoding="utf-8")
    (manual / "fhs-3.0.html").write_text(f"<html><head><title>Filesystem Hierarchy Standard</title></head>"
                                         f"<body><p>{text}</p></body></html>", encoding="utf-8")
    (manual / "fhs-3.0 draft.txt").write_bytes(b"")  # empty: a failure, said why
    (root / "mail").mkdir()
    (root / "mail" / "msg_27.eml").write_text(
        f"From: aperson@dom.ain\nTo: bperson@dom.ain\nSubject: {LONG_SUBJECT}\n"
        "Date: Wed, 05 Jun 2002 01:46:59 +0000\n\ntest\n", encoding="utf-8")


@pytest.fixture(scope="module")
def address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("archive")
    _archive(root)
    db = root.parent / "layout.db"
    with open_store(db) as store:
        run(store, [root], IndexConfig(workers=1))
    with ExitStack() as stack:
        yield stack.enter_context(serving(["serve"], db, root.parent / "serve.log"))


@pytest.fixture(scope="module")
def browser() -> Iterator[sync_api.Browser]:
    yield from launched(sync_api)


@pytest.fixture
def opened(browser: sync_api.Browser, address: str) -> Iterator[Callable[[str, int], sync_api.Page]]:
    pages: list[sync_api.Page] = []

    def open_at(path: str, width: int) -> sync_api.Page:
        page = browser.new_page(viewport={"width": width, "height": 900})
        pages.append(page)
        response = page.goto(address + path)
        assert response is not None and response.status < 500, f"{path}: {response and response.status}"
        return page

    yield open_at
    for page in pages:
        page.close()


def _ids(address: str) -> dict[str, int]:
    """The items' ids, by file name, and the manual's cluster."""
    import json
    import urllib.request

    with urllib.request.urlopen(address + "/search.json?q=filesystem+OR+test&all=1") as answer:
        hits = json.load(answer)["hits"]
    ids = {Path(h["path"]).name: int(h["id"]) for h in hits}
    ids["cluster"] = next(int(h["cluster_id"]) for h in hits if h["path"].endswith("fhs-3.0.txt"))
    return ids


def _sideways(page: sync_api.Page) -> tuple[int, int]:
    return page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
@pytest.mark.parametrize("page_of", ["search", "syntax", "refused", "item", "mail", "cluster", "clusters",
                                     "failures", "status"])
def test_no_page_scrolls_sideways(opened: Callable[[str, int], sync_api.Page], address: str, page_of: str,
                                  width: int) -> None:
    """A mail's subject of 190 unbroken characters ran off every page that
    named it (an item's heading, a search row, its cluster's lead), and at a
    phone's width the query syntax (preformatted) and the members' tables
    made the whole page scroll sideways, paths squeezed to four letters a line."""
    ids = _ids(address)
    path = {"search": "/?q=filesystem+OR+demonstration&all=1", "syntax": "/", "refused": "/?q=NOT+bank",
            "item": f"/items/{ids['fhs-3.0.txt']}", "mail": f"/items/{ids['msg_27.eml']}",
            "cluster": f"/clusters/{ids['cluster']}", "clusters": "/clusters", "failures": "/failures",
            "status": "/status"}[page_of]
    page = opened(path, width)
    wide, room = _sideways(page)
    assert wide <= room, f"{path} is {wide} px wide in a {room} px window"


def test_a_wide_table_scrolls_within_itself_its_paths_readable(opened: Callable[[str, int], sync_api.Page],
                                                               address: str) -> None:
    """At a phone's width the cluster's members table kept the page's width
    by squeezing its path column to a few letters a line; it keeps its
    columns readable now and scrolls sideways within its own box."""
    page = opened(f"/clusters/{_ids(address)['cluster']}", PHONE)
    cell = page.locator("table.members td.path").first.bounding_box()
    assert cell is not None and cell["width"] >= 150, f"the path column is {cell and cell['width']} px wide"
    box = page.locator("table.members").first.evaluate(
        "t => [t.parentElement.scrollWidth, t.parentElement.clientWidth, getComputedStyle(t.parentElement).overflowX]")
    assert box[0] > box[1] and box[2] == "auto", f"the table's box does not scroll: {box}"


def test_a_failures_reason_keeps_a_readable_column_on_a_phone(opened: Callable[[str, int], sync_api.Page]) -> None:
    """At a phone's width the failures' table gave the path its room and
    squeezed the reason -- what a person came to read -- to a word a line."""
    page = opened("/failures", PHONE)
    cells = page.locator("table.failures tbody td")
    assert cells.count() >= 3, page.content()
    why = cells.nth(2).bounding_box()
    assert why is not None and why["width"] >= 150, f"the reason's column is {why and why['width']} px wide"
    assert why["x"] + why["width"] <= PHONE, f"the reason is out of view: {why}"


def test_the_clusters_list_names_each_cluster_as_a_name_not_as_a_path(
        opened: Callable[[str, int], sync_api.Page]) -> None:
    """The clusters' list set each representative's name in the path's small
    monospace type, so 'release-4.1.1.rst' read as a second path above the
    path; it is set as a search row's name is."""
    page = opened("/clusters", DESKTOP)
    name = page.locator("table.clusters tbody td.path > a").first
    path = page.locator("table.clusters tbody td.path > div.path").first
    style = "e => [getComputedStyle(e).fontFamily, getComputedStyle(e).fontWeight]"
    (name_font, weight), (path_font, _) = name.evaluate(style), path.evaluate(style)
    assert name_font != path_font and "mono" not in name_font.lower() and int(weight) >= 600, (name_font, weight)


def test_the_keyboard_reaches_each_copy_once_and_never_the_page_itself(
        opened: Callable[[str, int], sync_api.Page], address: str) -> None:
    """Tabbing through an item's copies stopped twice on each (its id and its
    path, one link each to the same page; 232 stops for the real archive's
    116 pytest announcements) and once on the item's own row, a link to the
    page already open. Each copy is one stop; the item's own row none."""
    item = _ids(address)["fhs-3.0.txt"]
    page = opened(f"/items/{item}", DESKTOP)
    inside: list[str] = []
    for _ in range(60):  # through the page until the copies' section is left
        page.keyboard.press("Tab")
        href = page.evaluate("document.activeElement.closest('section.where') ? "
                             "document.activeElement.getAttribute('href') : ''")
        if not href and inside:
            break
        if href:
            inside.append(href)
    copies = [h for h in inside if h.startswith("/items/")]
    others = page.locator("section.where tbody tr").count() - 1
    assert len(copies) == others == len(set(copies)), f"{others} other copies, Tab stopped at {inside}"
    assert f"/items/{item}" not in inside, inside
