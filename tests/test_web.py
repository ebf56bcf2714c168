"""The web view (``lifededup serve``) through HTTP, with Starlette's test
client, on real stores: sample_corpus/ indexed by the indexer, and a folder of
hostile documents.  Every route; each ``.json`` page against the CLI's
``--json`` on the same store; escaping; path traversal; the host and token
rule; and a store left untouched.  The stores' pages run on SQLite and on
PostgreSQL (the ``corpus`` and ``hostile`` fixtures give each); what does not
read a store (the host rule, the word diff) runs once."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shlex
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import quote_from_bytes

import pytest

pytest.importorskip("starlette", reason="the web view needs its extra: pip install '.[web]'")

from click.testing import CliRunner  # noqa: E402
from corpus_store import CorpusStore  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from pg_server import Server  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402
from web_samples import PROSE, hostile_store, prose  # noqa: E402

from lifededup.cli import main  # noqa: E402
from lifededup.index import IndexConfig, run  # noqa: E402
from lifededup.search import results as search_results  # noqa: E402
from lifededup.store import open_store, resolve  # noqa: E402
from lifededup.watch import WatchStatus  # noqa: E402
from lifededup.watch.status import AbsentFolder  # noqa: E402
from lifededup.watch import daemon as daemons  # noqa: E402
from lifededup.web import RemoteRefused, access_for, create_app, word_diff  # noqa: E402
from lifededup.web.access import TOKEN_COOKIE  # noqa: E402
from lifededup.web.diff import CONTEXT_WORDS, tokens  # noqa: E402

LOCAL = "http://127.0.0.1:8765"


def cli_json(*args: str) -> Any:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, f"lifededup {' '.join(args)} failed: {result.output}"
    return json.loads(result.output)


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> daemons.DaemonPaths:
    """The daemon's folder, as a watcher would leave it: a status file and a log."""
    paths = daemons.DaemonPaths(tmp_path_factory.mktemp("state"))
    status = WatchStatus(watching=["/home/me/Documents", "/media/usb"], pending=3, waiting_files=2, waiting_folders=1,
                         indexed=41, failed=2, state="watching", last_indexed_at=1_700_000_000.0,
                         absent=[AbsentFolder("/media/usb", "empty", 1_204)])
    daemons.write_status(paths, status, "/home/me/.local/share/lifededup/lifededup.db")
    paths.log.write_text("started\nerror: /home/me/Documents/<broken>.pdf: not a PDF\n", encoding="utf-8")
    return paths


@pytest.fixture(scope="module")
def client(corpus: CorpusStore, state: daemons.DaemonPaths) -> Iterator[TestClient]:
    with TestClient(create_app(corpus.db, daemon_paths=state), base_url=LOCAL) as client:
        yield client


def is_postgres(corpus: CorpusStore) -> bool:
    return str(corpus.db).startswith("postgresql://")


def get(client: TestClient, url: str, status: int = 200) -> Any:
    response = client.get(url)
    assert response.status_code == status, f"GET {url}: {response.status_code}, wanted {status}: {response.text[:500]}"
    return response


# -- search -------------------------------------------------------------------

SEARCHES = [
    (["river survey"], "q=river+survey"),
    (["survey", "--kind", "document", "--limit", "5"], "q=survey&kind=document&limit=5"),
    (["--kind", "email", "--since", "2024-10-01", "--until", "2024-10-31"],
     "kind=email&since=2024-10-01&until=2024-10-31"),
    (["sourdough", "--all", "--path", "Web/*"], "q=sourdough&all=1&path=Web%2F*"),
    (["report", "--kind", "document", "--kind", "email"], "q=report&kind=document&kind=email"),
]


@pytest.mark.parametrize("args, query", SEARCHES, ids=[q for _, q in SEARCHES])
def test_search_json_is_the_cli_json(corpus: CorpusStore, client: TestClient, args: list[str], query: str) -> None:
    want = cli_json("search", *args, "--json", "--db", str(corpus.db))
    got = get(client, f"/search.json?{query}").json()
    assert got == want, f"/search.json?{query} differs from lifededup search {args} --json"
    assert want["hits"], f"the check is empty: lifededup search {args} found nothing"


def test_search_pages_are_the_cli_rows_further_on(corpus: CorpusStore, client: TestClient) -> None:
    want = cli_json("search", "the", "--limit", "9", "--json", "--db", str(corpus.db))
    pages = [get(client, f"/search.json?q=the&limit=3&page={n}").json() for n in (1, 2, 3)]
    assert [h for p in pages for h in p["hits"]] == want["hits"], "pages 1-3 of 3 rows are not the first 9 rows"
    html = get(client, "/?q=the&limit=3&page=2").text
    assert 'href="?q=the&amp;limit=3"' in html and 'href="?q=the&amp;limit=3&amp;page=3"' in html, \
        "page 2 does not link to pages 1 and 3"
    assert re.search(r'<ol class="hits" start="4">', html), "page 2 does not number its rows from 4"


def test_a_page_past_the_last_says_so_and_links_to_the_first(client: TestClient) -> None:
    html = get(client, "/?q=the&limit=7&page=9999").text
    assert "No matches on this page" in html and 'href="?q=the&amp;limit=7">the first page</a>' in html, html
    last = re.search(r"page 9,999 of (?:at least )?(\d+)", html)  # counted as every count is
    assert last and f'rel="prev" href="?q=the&amp;limit=7&amp;page={last.group(1)}"' in html, \
        "'previous' past the last page goes to page 9998, not the last"
    assert "No matches on this page" not in get(client, "/?q=nosuchwordanywhere").text


def test_a_lower_bound_of_results_says_so_and_pages_on(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    # past EXACT_ROWS matches (10,000; brought down to the corpus's size) the
    # results are a lower bound: the page says "at least" and a full page
    # links to the next one, however many pages the bound makes (the bound
    # is at least the rows shown up to the page: it grows as pages go on)
    # (a bound of at most 20 rows keeps the last page's reads short of the
    # corpus's 208 matches, which read whole would make the count exact)
    monkeypatch.setattr(search_results, "EXACT_ROWS", 20)
    monkeypatch.setattr(search_results, "_READ_ROWS", 8)  # else the page's read holds every match: exact
    found = get(client, "/search.json?q=the&limit=7").json()
    assert found["rows_exact"] is False and found["rows"] <= 20, found
    last_counted = -(-found["rows"] // 7)
    html = get(client, f"/?q=the&limit=7&page={last_counted}").text
    assert f"of at least {last_counted * 7} results" in html, "the summary does not say the rows are a lower bound"
    assert f'href="?q=the&amp;limit=7&amp;page={last_counted + 1}"' in html, \
        "a full last page of the bound does not link to the next"


def test_search_page_collapses_copies_and_marks_matches(client: TestClient) -> None:
    found = get(client, "/search.json?q=river+survey").json()
    row = next(h for h in found["hits"] if h["hidden"])
    html = get(client, "/?q=river+survey").text
    assert get(client, "/search?q=river+survey").text == html, "/search is not the search page"
    block = html[html.index(f'id="hit-{row["id"]}"'):]
    block = block[:block.index("</li>\n  <li") if "</li>\n  <li" in block else len(block)]
    assert f"+{row['hidden']} copies</summary>" in block, f"no '+N copies' to expand for row {row['id']}"
    for copy in row["copies"]:
        assert f'href="/items/{copy["id"]}"' in block, f"copy {copy['id']} is not listed under its row"
        # newest first, each with its date
        assert f'<span class="date">{copy["date"][:10]}</span>' in block, f"copy {copy['id']} has no date"
    assert [c["date"] for c in row["copies"]] == sorted((c["date"] for c in row["copies"]), reverse=True)
    assert f'href="/clusters/{row["cluster_id"]}"' in block, "the row does not link to its cluster"
    marked = re.findall(r"<mark>(.*?)</mark>", block)
    assert marked and {m.lower() for m in marked} <= {"river", "survey"}, f"snippet marks {marked}"


def test_search_errors_say_what_to_do(corpus: CorpusStore, client: TestClient) -> None:
    assert "not a date" in get(client, "/?q=x&since=yesterday", 400).text
    # FTS5 cannot parse an unbalanced quote; PostgreSQL's websearch reads any text, but a NUL
    syntax = get(client, "/?q=river%00" if is_postgres(corpus) else "/?q=%22unbalanced", 400).text
    assert syntax.count("Query syntax") == 1, "a query the store cannot read should show the syntax, once"
    said = "websearch" if is_postgres(corpus) else "SQLite FTS5"
    assert said in syntax and said in get(client, "/").text, f"the syntax shown is not the store's ({said})"
    assert "no item of kind" in get(client, "/?q=river&kind=novel", 400).text
    assert "error" in get(client, "/search.json?q=river&since=2025-01-01&until=2024-01-01", 400).json()
    assert "give a query" in get(client, "/search.json", 400).json()["error"]
    home = get(client, "/").text
    assert "Query syntax" in home and 'name="q"' in home, "the empty search page should teach the syntax"


# -- clusters and items --------------------------------------------------------


def test_cluster_json_is_show_json_and_dups_json(corpus: CorpusStore, client: TestClient) -> None:
    dups = cli_json("dups", "--limit", "100", "--json", "--db", str(corpus.db))
    assert get(client, "/clusters.json").json() == dups, "/clusters.json is not `dups --limit 100 --json`"
    for cluster in dups[:4]:
        cid = cluster["cluster_id"]
        want = cli_json("show", str(cid), "--json", "--db", str(corpus.db))
        assert get(client, f"/clusters/{cid}.json").json() == want, f"/clusters/{cid}.json is not `show {cid} --json`"
        member = cluster["members"][-1]["id"]
        want = cli_json("show", str(member), "--json", "--db", str(corpus.db))
        assert get(client, f"/items/{member}.json").json() == want, f"/items/{member}.json is not `show --json`"
    html = get(client, "/clusters").text
    assert all(f'href="/clusters/{c["cluster_id"]}"' in html for c in dups), "the clusters page misses clusters"


def near_cluster(corpus: CorpusStore, client: TestClient) -> dict[str, Any]:
    """A cluster with a near copy (not only exact ones)."""
    for cluster in get(client, "/clusters.json").json():
        shown = get(client, f"/clusters/{cluster['cluster_id']}.json").json()
        if any(not (m["exact"] or m["representative"]) for m in shown["members"]):
            return shown
    raise AssertionError("sample_corpus has no cluster with a near copy")


def test_cluster_page_shows_members_and_their_differences(corpus: CorpusStore, client: TestClient) -> None:
    shown = near_cluster(corpus, client)
    cid = shown["cluster_id"]
    html = get(client, f"/clusters/{cid}").text
    for member in shown["members"]:
        path = member["item"]["path"]
        assert f'href="/items/{member["item"]["id"]}"' in html, f"member {path} is not on the cluster page"
        assert f"{member['resemblance']:.3f}" in html and f"{member['word_edit_distance']:.3f}" in html, \
            f"resemblance or edit distance of {path} missing"
    for why in ("representative", "near copy"):
        assert f'<td class="why">{why}</td>' in html, f"no member is shown as {why!r}"
    near = next(m for m in shown["members"] if not (m["exact"] or m["representative"]))
    html = get(client, f"/clusters/{cid}?compare={near['item']['id']}").text
    side = html[html.index('<table class="side">'):]
    assert "<del>" in side or "<ins>" in side, "a near copy side by side shows no inserted or deleted words"
    assert f"item {near['item']['id']}:" in side, "the side-by-side view is not of the member asked for"
    assert "not in cluster" in get(client, f"/clusters/{cid}?compare=999999", 404).text
    assert "compare must be an item id" in get(client, f"/clusters/{cid}?compare=x", 400).text


def test_cluster_page_says_the_rule_its_members_were_admitted_by(tmp_path: Path, sqlite_corpus: CorpusStore,
                                                                   state: daemons.DaemonPaths) -> None:
    """The page states the store's own rule, as `show` does: verified by word edit
    distance by default, the six shared features after `recluster --rule features`."""
    import sqlite3

    corpus = sqlite_corpus
    db = tmp_path / "copy.db"
    with sqlite3.connect(corpus.db) as source, sqlite3.connect(db) as copy:
        source.backup(copy)  # the store as it stands, WAL included; the module's store is left as it is
    wants = {None: "a near copy within 30% word edit distance of the representative, verified",
             "features": "a near copy shares at least 2 of its 6 features with the representative"}
    for rule, want in wants.items():
        if rule is not None:
            assert CliRunner().invoke(main, ["recluster", "--rule", rule, "--db", str(db)]).exit_code == 0
        with TestClient(create_app(db, daemon_paths=state), base_url=LOCAL) as fresh:
            cid = get(fresh, "/clusters.json").json()[0]["cluster_id"]
            html = " ".join(get(fresh, f"/clusters/{cid}").text.split())
        shown = CliRunner().invoke(main, ["show", str(cid), "--db", str(db)]).output
        assert want in html, f"rule {rule or 'default'}: the cluster page does not say {want!r}"
        assert want in " ".join(shown.split()), f"rule {rule or 'default'}: show does not say {want!r}:\n{shown}"


def test_cluster_page_of_a_note_too_short_to_sample_counts_no_features(tmp_path: Path, store_url: str) -> None:
    """A short note and its copy have no features: their page said each
    shares "0/6" with the representative, the note itself included, where
    nothing was counted. The cell says so, as show does, on both backends."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "key.txt").write_text("Key under the blue pot. Back Sunday.\n", encoding="utf-8")
    (folder / "key copy.txt").write_text("key under the blue pot -- back Sunday\n", encoding="utf-8")
    with open_store(store_url) as store:
        run(store, [folder], IndexConfig(workers=1))
    with TestClient(create_app(store_url), base_url=LOCAL) as client:
        cluster = get(client, "/search.json?q=pot").json()["hits"][0]["cluster_id"]
        html = get(client, f"/clusters/{cluster}").text
        members = html.split('<table class="members">', 1)[1].split("</table>", 1)[0]
        assert "/6" not in members, f"features counted for texts too short to sample: {members}"
        unsampled = '<span title="a text too short to sample: only an exact copy counts">&ndash;</span>'
        assert members.count(unsampled) == 2, members
        assert [m["sampled"] for m in get(client, f"/clusters/{cluster}.json").json()["members"]] == [False, False]


def test_an_item_without_a_title_is_named_by_its_file(tmp_path: Path, store_url: str) -> None:
    """A text file has no title: its row, its cluster's line and its page
    were headed by its whole path, and the path line under the row said it
    again. They are headed by the file's name now, the path said once; a
    titled item (a saved page) keeps its title, on both backends."""
    folder = tmp_path / "archive" / "projects" / "werkzeug-2.0.0" / "docs"
    folder.mkdir(parents=True)
    text = f"zanzibarquill {prose(7, 120)}"
    (folder / "routing.rst").write_text(text, encoding="utf-8")
    (folder.parent / "routing-copy.rst").write_text(text, encoding="utf-8")
    page_text = f"<html><head><title>URL Routing</title></head><body><p>zanzibarquill {prose(8, 120)}</p></body></html>"
    (folder / "page.html").write_text(page_text, encoding="utf-8")
    with open_store(store_url) as store:
        run(store, [tmp_path / "archive"], IndexConfig(workers=1))
    with TestClient(create_app(store_url), base_url=LOCAL) as client:
        hits = get(client, "/search.json?q=zanzibarquill&all=1").json()["hits"]
        rst = next(h for h in hits if h["path"].endswith("/docs/routing.rst"))
        page = next(h for h in hits if h["path"].endswith("page.html"))
        html = get(client, "/?q=zanzibarquill&all=1").text
        names = re.findall(r'<a class="name" href="/items/(\d+)">(.*?)</a>', html)
        assert (str(rst["id"]), "routing.rst") in names, names
        assert (str(page["id"]), "URL Routing") in names, names
        assert html.count(rst["path"]) == 1, "the path is said more than once in its row"
        assert "<h1>routing.rst</h1>" in get(client, f"/items/{rst['id']}").text
        listed = get(client, "/clusters").text
        row = listed[listed.index(f'href="/clusters/{rst["cluster_id"]}">', listed.index("<tbody>")):]
        row = row[:row.index("</tr>")]
        assert re.search(r'>routing(-copy)?\.rst</a>', row) and row.count("/archive/projects/") == 1, row


def test_a_member_is_not_a_cluster(client: TestClient) -> None:
    cluster = get(client, "/clusters.json").json()[0]
    member = cluster["members"][0]["id"]
    said = get(client, f"/clusters/{member}.json", 404).json()["error"]
    assert f"it is in cluster {cluster['cluster_id']}" in said, said
    assert "no item" in get(client, "/clusters/987654", 404).text


def test_item_page_shows_text_metadata_cluster_and_original(corpus: CorpusStore, client: TestClient) -> None:
    cluster = get(client, "/clusters.json").json()[0]
    item = cluster["members"][0]
    html = get(client, f"/items/{item['id']}").text
    path = Path(item["path"])
    assert f'href="{path.as_uri()}"' in html, "no file:// link to open the original"
    assert f'href="/clusters/{cluster["cluster_id"]}"' in html, "the item does not link to its cluster"
    others = [m for m in cluster["members"] if m["id"] != item["id"]]
    assert all(f'href="/items/{m["id"]}"' in html for m in others), "its copies are not all listed"
    assert f'href="/items/{item["id"]}"' not in html, "the page links to itself"
    with open_store(corpus.db, readonly=True) as store:
        _, [(text, mime)] = store.execute("SELECT text, mime_type FROM items WHERE id = :i", {"i": item["id"]})
    first_line = str(text).strip().splitlines()[0]
    assert first_line.replace("&", "&amp;").replace("'", "&#39;").replace('"', "&#34;") in html, \
        "the item's text is not on its page"
    assert str(mime) in html, "the item's format is not on its page"
    original = get(client, f"/items/{item['id']}/original")
    assert original.content == path.read_bytes(), "the download is not the item's file"
    assert original.headers["content-disposition"].startswith("attachment"), "the original must be a download"


def test_item_page_lists_texts_like_it_in_other_clusters(corpus: CorpusStore, client: TestClient) -> None:
    """sample_corpus's journal keeps entries of one template, 34-48% apart:
    each in a cluster of its own, listed on each other's pages with their
    distance, as `show --json` lists them."""
    with open_store(corpus.db, readonly=True) as store:
        _, [(entry,)] = store.execute("SELECT id FROM items WHERE path LIKE '%/Journal/2023/2023-04-10.txt'")
    shown = get(client, f"/items/{entry}.json").json()
    assert shown == cli_json("show", str(entry), "--json", "--db", str(corpus.db))
    assert shown["elsewhere"], "the journal entry has no text like it in another cluster"
    html = get(client, f"/items/{entry}").text
    section = html.split("<h2>Like it, in other clusters</h2>", 1)[1].split("</section>", 1)[0]
    for near in shown["elsewhere"]:
        assert near["cluster_id"] != shown["cluster_id"] and 0.3 < near["word_edit_distance"] <= 0.5, near
        assert f'href="/items/{near["item"]["id"]}"' in section and f'href="/clusters/{near["cluster_id"]}"' in section
        assert f"{near['word_edit_distance']:.3f}" in section, section


def test_another_machines_item_names_its_machine_and_is_never_served_from_here(
        pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A shared store holds the laptop's and the desktop's file at one path.
    Served on the desktop, the laptop item's "download it" handed out the
    desktop's own file at that path (a private letter), its file:// link
    opened it, and no page named a machine: the two rows looked the same."""
    folder = tmp_path / "docs"
    folder.mkdir()
    letter = folder / "letter.txt"
    ids = {}
    for machine, text in (("laptop", "laptop copy: the boat trip is on Saturday at the harbour " * 5),
                          ("desktop", "desktop copy: a private medical letter about the knee " * 5)):
        letter.write_text(text)
        with open_store(pg_url, machine=machine) as store:
            run(store, [folder], IndexConfig(workers=1))
            [(ids[machine],)] = store.execute("SELECT id FROM items WHERE machine = :m", {"m": machine})[1]
    monkeypatch.setenv("LIFEDEDUP_MACHINE", "desktop")
    with TestClient(create_app(pg_url), base_url=LOCAL) as client:
        page = get(client, f"/items/{ids['laptop']}").text
        assert f"laptop:{letter}" in page and "This file is on laptop, not on this computer" in page, page
        assert "/original" not in page and "file://" not in page, "the laptop's item links a file of this computer"
        refused = get(client, f"/items/{ids['laptop']}/original", 404).text
        assert "is on laptop" in refused and "private medical" not in refused, refused
        assert get(client, f"/items/{ids['desktop']}/original").content == letter.read_bytes()
        own = get(client, f"/items/{ids['desktop']}").text
        assert f"<code>{letter}</code>" in own and "desktop:" not in own, own
        assert f"laptop:{letter}" in get(client, "/?q=boat").text, "search does not say the hit is the laptop's"


def test_item_in_a_mailbox_links_its_container(corpus: CorpusStore, client: TestClient) -> None:
    found = get(client, "/search.json?kind=email&path=*.mbox&limit=1").json()["hits"]
    assert found and found[0]["part"], f"expected a message inside a mailbox, got {found}"
    mail = found[0]
    html = get(client, f"/items/{mail['id']}").text
    assert "<dt>inside</dt>" in html, "a message does not link the mailbox it is in"
    parent = int(re.search(r'<dt>inside</dt><dd><a href="/items/(\d+)"', html).group(1))  # type: ignore[union-attr]
    assert f'href="/items/{mail["id"]}"' in get(client, f"/items/{parent}").text, "the mailbox does not list it"
    # its download is the whole mailbox: said so (a tester took 'download it' for the one message)
    assert f"download the file that holds it ({mail['part']} is inside)" in html, html


# -- failures and status ---------------------------------------------------------


def test_failures_are_the_cli_failures(corpus: CorpusStore, client: TestClient) -> None:
    want = cli_json("failures", "--limit", "1000", "--json", "--db", str(corpus.db))
    assert want, "sample_corpus has bad files: the check is empty"
    assert get(client, "/failures.json").json() == want, "/failures.json is not `failures --json`"
    html = get(client, "/failures").text
    for failed in want:
        assert failed["reason"].replace("'", "&#39;").replace('"', "&#34;")[:40] in html, \
            f"the reason for {failed['path']} is not shown"
    with open_store(corpus.db, readonly=True) as store:
        _, [(failed_id,)] = store.execute("SELECT id FROM items WHERE path = :p AND part = :q",
                                          {"p": want[0]["path"], "q": want[0]["part"]})
    item = get(client, f"/items/{failed_id}").text
    assert "No text was extracted" in item and want[0]["status"] in item, "a failed item's page should say why"
    assert "it has no text" in get(client, f"/clusters/{failed_id}.json", 404).json()["error"]


def test_a_server_that_stops_under_the_view_is_a_page_that_says_so(postgres: Server, tmp_path: Path) -> None:
    """The store's server stops while the view runs (the NAS reboots): a page
    says so (503, the view's own page; the JSON an error), and once the
    server is back the same page is shown again, without restarting the
    view.  (A server of its own, which this test stops and starts again.)"""
    server = Server.start()
    try:
        url = server.new_database()
        (tmp_path / "notes.txt").write_text(PROSE + "\n")
        with open_store(url) as store:
            run(store, [tmp_path], IndexConfig(workers=1))
        with TestClient(create_app(url), base_url=LOCAL) as client:
            assert "notes.txt" in get(client, "/search?q=river").text
            server.stop(keep=True)
            page = get(client, "/search?q=river", 503).text
            assert "The store cannot be reached" in page and "reload this page once it is back" in page, page
            assert "cannot be reached" in get(client, "/search.json?q=river", 503).json()["error"]
            server = Server.start(root=server.root)
            assert "notes.txt" in get(client, "/search?q=river").text, "the view connects again by itself"
    finally:
        server.stop()


def test_status_shows_the_daemon_folders_and_last_errors(client: TestClient, state: daemons.DaemonPaths) -> None:
    got = get(client, "/status.json").json()
    assert got["daemon"]["report"]["pending"] == 3 and got["daemon"]["running"] is False, got
    assert got["log"][-1].endswith("not a PDF"), got["log"]
    html = get(client, "/status").text
    assert "Not running" in html and "/home/me/Documents" in html, html
    assert "2 files with changes not yet read, 1 folder to scan" in html, "what waits, as daemon status says it"
    assert ("<code>/media/usb</code>: the store keeps its 1,204 items, but it is empty now" in html
            and "lifededup folders remove /media/usb --forget --db " in html), \
        "a folder gone empty whose items are kept"
    assert "&lt;broken&gt;.pdf: not a PDF" in html, "the log's last error is not shown (escaped)"
    # its failures are its store's: the served store's list is not theirs (a tester's 12 against 39)
    assert "2 in the watcher's store" in html and 'href="/failures">why' not in html, html


def test_status_page_names_the_store_it_shows_in_the_commands_it_suggests(store_url: str, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The view of a store given with --db said "Start it with lifededup daemon start" and "Add one
    with lifededup folders add PATH": run as said, they act on the default store, not this one."""
    import html as markup

    with open_store(store_url):
        pass
    paths = daemons.DaemonPaths(tmp_path / "state")
    monkeypatch.delenv("LIFEDEDUP_DB", raising=False)
    with TestClient(create_app(store_url, daemon_paths=paths), base_url=LOCAL) as view:
        page = markup.unescape(get(view, "/status").text)
    named = f" --db {shlex.quote(str(resolve(store_url)))}"
    for said in (f"lifededup daemon start{named}</code> (or <code>lifededup watch{named}</code>)",
                 f"Add one with <code>lifededup folders add PATH{named}</code>"):
        assert said in page, page
    monkeypatch.setenv("LIFEDEDUP_DB", store_url)  # the store a bare command opens: no --db said
    with TestClient(create_app(store_url, daemon_paths=paths), base_url=LOCAL) as view:
        page = markup.unescape(get(view, "/status").text)
    assert "Start it with <code>lifededup daemon start</code>" in page and " --db " not in page, page


def test_status_sees_a_running_watcher(corpus: CorpusStore, tmp_path: Path) -> None:
    paths = daemons.DaemonPaths(tmp_path)
    daemons.claim(paths)  # what a watcher does as it starts: this process is the watcher
    # the watcher names its store as the store names itself (a server's password hidden)
    store = str(resolve(corpus.db))
    daemons.write_status(paths, WatchStatus(watching=[str(tmp_path)], state="indexing", pending=7,
                                            state_since=1_700_000_000.0), store)
    try:
        with TestClient(create_app(corpus.db, daemon_paths=paths), base_url=LOCAL) as client:
            html = get(client, "/status").text
            since = datetime.fromtimestamp(1_700_000_000.0).strftime("%Y-%m-%d %H:%M")
            assert f"Running (pid {os.getpid()}), indexing since {since}" in html, html
            assert "(not the store shown here)" not in html, "the watcher's store is the one shown"
            assert get(client, "/status.json").json()["daemon"]["running"] is True
            # a watcher in a terminal (or under systemd) writes no log file: an
            # earlier daemon's log is not its own
            paths.log.write_text("2026-01-01 ERROR old.pdf: an earlier daemon's news\n")
            daemons.write_status(paths, WatchStatus(watching=[str(tmp_path)], state="watching"), store, log=False)
            html = get(client, "/status").text
            assert "This watcher was not started by" in html and "earlier daemon" not in html, html
            daemons.write_status(paths, WatchStatus(watching=[str(tmp_path)], state="watching"), store)
            assert "earlier daemon" in get(client, "/status").text
    finally:
        daemons.release(paths)


def test_status_page_says_its_times_in_local_time_with_its_zone(store_url: str, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The page said the watcher's last full scan in local time, and beside it
    its folder's last scan as the store keeps it, in UTC, neither zone named:
    04:08:09 and 03:08 for one scan, in Paris. Both are said as `daemon
    status` says them: local time, the zone named."""
    import time

    from lifededup.store import add_folder
    from lifededup.store.folders import mark_scanned

    monkeypatch.setenv("TZ", "Asia/Kolkata")  # 5 h 30 min ahead of UTC, no summer time
    time.tzset()
    try:
        folder, paths = tmp_path / "docs", daemons.DaemonPaths(tmp_path / "state")
        folder.mkdir()
        paths.folder.mkdir()
        scanned = datetime(2026, 11, 27, 3, 8, 9)  # UTC, as the store keeps it
        with open_store(store_url) as store:
            add_folder(store, str(folder))
            mark_scanned(store, str(folder), scanned)
        at = scanned.replace(tzinfo=timezone.utc).timestamp()
        daemons.write_status(paths, WatchStatus(watching=[str(folder)], state="watching", last_rescan_at=at),
                             str(resolve(store_url)))
        with TestClient(create_app(store_url, daemon_paths=paths), base_url=LOCAL) as client:
            html = get(client, "/status").text
        said = "2026-11-27 08:38:09 IST"
        assert f"<dt>last full scan</dt><dd>{said}</dd>" in html, html
        assert f"<td>{said}</td>" in html, f"the folder's last scan is not said as the watcher's: {html}"
    finally:
        monkeypatch.undo()
        time.tzset()


# -- hostile documents -------------------------------------------------------------

@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def hostile(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
            ) -> Iterator[tuple[TestClient, Path]]:
    folder = tmp_path_factory.mktemp("hostile")
    server = request.getfixturevalue("postgres") if request.param == "postgresql" else None
    db = hostile_store(folder, None if server is None else server.new_database("hostile"))
    with TestClient(create_app(db), base_url=LOCAL) as client:
        yield client, folder
    if server is not None:
        server.drop_database(str(db))


def test_hostile_text_is_shown_as_text(hostile: tuple[TestClient, Path]) -> None:
    client, folder = hostile
    pages = {"search": get(client, "/?q=alert").text}
    hits = get(client, "/search.json?q=alert&all=1").json()["hits"]
    assert len(hits) >= 3, f"the hostile documents were not all indexed: {hits}"
    for hit in hits:
        pages[f"item {hit['id']}"] = get(client, f"/items/{hit['id']}").text
        pages[f"cluster {hit['cluster_id']}"] = get(client, f"/clusters/{hit['cluster_id']}").text
    for where, html in pages.items():
        assert "<script" not in html and "<iframe" not in html and "<img" not in html, f"{where}: markup got through"
        assert "\u202e" not in html, f"{where}: a name that reorders the text after it is shown as it is"
    assert "photo\\u202egnp.txt" in pages["search"], "the reversing name is not shown escaped"
    assert "&lt;script&gt;alert(&#39;owned&#39;)&lt;/script&gt;" in pages["search"], "the script is not shown as text"
    assert any("&lt;b&gt;notes&lt;i&gt;" in html for html in pages.values()), "the file name is not escaped"
    pair = next(h for h in hits if "notes" in h["path"] and h["cluster_size"] == 2)
    diff = get(client, f"/clusters/{pair['cluster_id']}").text
    assert "<ins>&lt;/td&gt;&lt;ins&gt;sneaky&lt;/ins&gt; </ins>" in diff, "inserted hostile words not escaped"


def test_every_page_forbids_scripts(hostile: tuple[TestClient, Path]) -> None:
    client, _ = hostile
    for url in ("/", "/search.json?q=alert", "/items/1", "/static/style.css", "/nowhere"):
        headers = client.get(url).headers
        assert "default-src 'none'" in headers["content-security-policy"], f"{url}: no CSP"
        assert headers["x-content-type-options"] == "nosniff", f"{url}: no nosniff"


TRAVERSALS = [
    "/static/../../../../etc/passwd",
    "/static/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "/static/..%2f..%2f..%2f..%2fetc%2fpasswd",
    "/static//etc/passwd",
    "/items/..%2f..%2f..%2fetc%2fpasswd",
    "/items/1/../../../../etc/passwd",
    "/items/%2fetc%2fpasswd/original",
    "/items/-1/original",
    "/clusters/1%00.json",
    "/static/style.css%00.html",
]


@pytest.mark.parametrize("url", TRAVERSALS)
def test_no_path_reaches_outside(hostile: tuple[TestClient, Path], url: str) -> None:
    client, _ = hostile
    response = client.get(url)
    assert response.status_code in (400, 404), f"{url}: {response.status_code}"
    assert "root:" not in response.text, f"{url} served /etc/passwd"


def test_an_original_swapped_for_a_link_is_not_served(hostile: tuple[TestClient, Path], tmp_path: Path) -> None:
    client, folder = hostile
    item = next(h for h in get(client, "/search.json?q=bold&all=1").json()["hits"] if h["path"].endswith(".html"))
    assert get(client, f"/items/{item['id']}/original").content.startswith(b"<html>")
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0", encoding="utf-8")
    page = folder / "page.html"
    kept = page.read_bytes()
    page.unlink()
    page.symlink_to(secret)
    try:
        refused = get(client, f"/items/{item['id']}/original", 404)
        assert "root:" not in refused.text and "link" in refused.text, refused.text
        assert 'href="/items/%d/original"' % item["id"] not in get(client, f"/items/{item['id']}").text
    finally:
        page.unlink()
        page.write_bytes(kept)


def test_an_original_whose_folder_is_swapped_for_a_link_meanwhile_is_never_served(tmp_path: Path) -> None:
    """The download checked the path, then opened it by name: a folder
    swapped for a link to outside between the two (a tester's swap in a loop)
    served the outside file 32 times in 400. The file is now opened folder
    by folder without following a link, and streamed from that descriptor."""
    from hostile_corpus import swapping

    from lifededup.index import IndexConfig, run

    inside, outside = tmp_path / "watched", tmp_path / "outside"
    (inside / "D").mkdir(parents=True)
    (outside / "D").mkdir(parents=True)
    (inside / "D" / "f.txt").write_text("inside file apple banana cherry\n")
    (outside / "D" / "f.txt").write_text("OUTSIDESECRET never to be served\n")
    db = tmp_path / "web.db"
    with open_store(db) as store:
        run(store, [inside], IndexConfig(workers=1))
        _, rows = store.execute("SELECT id FROM items WHERE path LIKE '%/D/f.txt'")
    item = int(str(rows[0][0]))
    (inside / "Dl").symlink_to(outside / "D")
    served = {"inside": 0, "outside": 0, "refused": 0}
    with swapping(inside / "D", inside / "Dl"), TestClient(create_app(str(db)), base_url=LOCAL) as client:
        for _ in range(400):
            response = client.get(f"/items/{item}/original")
            key = ("refused" if response.status_code == 404 else
                   "outside" if b"OUTSIDESECRET" in response.content else "inside")
            served[key] += 1
    assert served["outside"] == 0, f"the outside file was served: {served}"
    assert served["inside"] > 0, f"the swap left no moment the file could be served: {served}"


def test_an_original_with_a_name_that_is_not_utf8_is_linked_and_served(tmp_path: Path, store_url: str) -> None:
    """Issue 13's escaped names in issue 16's view: the file:// link names the
    file's real bytes, and the download is the file, not a 404."""
    folder = tmp_path / "odd"
    folder.mkdir()
    raw = os.fsencode(folder) + b"/caf\xe9 notes.txt"
    with open(raw, "wb") as out:
        out.write(f"{PROSE} {prose(3, 300)}".encode())
    db = store_url
    with open_store(db) as store:
        run(store, [folder], IndexConfig(workers=1))
    with TestClient(create_app(db), base_url=LOCAL) as client:
        item = get(client, "/search.json?q=" + PROSE.split()[0]).json()["hits"][0]
        assert item["path"].endswith("caf\\xe9 notes.txt"), f"not the escaped name: {item['path']}"
        html = get(client, f"/items/{item['id']}").text
        uri = "file://" + quote_from_bytes(raw)
        links = re.findall(r'file://[^"]*', html)
        assert f'href="{uri}"' in html, f"no file:// link to the real bytes {uri}: {links}"
        download = get(client, f"/items/{item['id']}/original")
        assert download.content == open(raw, "rb").read(), "the download is not the file"
        assert download.headers["content-disposition"].startswith("attachment"), download.headers
        # saved under the name the user gave it (Latin-1 bytes read as such), not the store's escape
        assert download.headers["content-disposition"].endswith("filename*=utf-8''caf%C3%A9%20notes.txt"), \
            download.headers


# -- who may connect ------------------------------------------------------------------


def test_only_loopback_without_asking() -> None:
    for host in ("127.0.0.1", "localhost", "::1", "127.0.0.2"):
        assert access_for(host).token is None
    for host in ("0.0.0.0", "192.168.1.20", "::", "example.org"):
        with pytest.raises(RemoteRefused, match="--allow-remote"):
            access_for(host)
    given = access_for("0.0.0.0", allow_remote=True, token="a-long-enough-token")
    assert given.token == "a-long-enough-token"
    made = access_for("0.0.0.0", allow_remote=True)
    assert made.token and len(made.token) >= 24, "a made-up token should be long"
    with pytest.raises(RemoteRefused, match="16 characters"):
        access_for("0.0.0.0", allow_remote=True, token="short")


def test_serve_refuses_another_host_before_opening_anything(sqlite_corpus: CorpusStore) -> None:
    corpus = sqlite_corpus
    result = CliRunner().invoke(main, ["serve", "--host", "0.0.0.0", "--db", str(corpus.db)])
    assert result.exit_code == 1 and "--allow-remote" in result.output, result.output
    missing = CliRunner().invoke(main, ["serve", "--db", str(corpus.db.parent / "none.db")])
    assert missing.exit_code == 1 and "no store at" in missing.output, missing.output


def test_serve_on_a_port_in_use_says_so_and_never_says_serving(sqlite_corpus: CorpusStore) -> None:
    """A second view on the first's port: one error naming the port, not
    "serving ..." and then the server's own traceback-like line."""
    import socket

    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        result = CliRunner().invoke(main, ["serve", "--port", str(port), "--db", str(sqlite_corpus.db)])
    assert result.exit_code == 1, result.output
    assert f"cannot listen on 127.0.0.1:{port}: Address already in use" in result.output, result.output
    assert "--port" in result.output and "serving" not in result.output, result.output


def test_serve_on_every_address_prints_the_address_another_machine_opens(sqlite_corpus: CorpusStore,
                                                                        tmp_path: Path) -> None:
    """`serve --host 0.0.0.0 --allow-remote` is for another machine, but printed only
    http://127.0.0.1:PORT/?token=...: it also names this machine, and that address answers."""
    import http.client
    import socket
    import subprocess
    import sys
    import time

    from web_samples import free_port

    port, log = free_port(), tmp_path / "serve.log"
    with log.open("wb") as out:
        server = subprocess.Popen([sys.executable, "-m", "lifededup", "serve", "--host", "0.0.0.0", "--allow-remote",
                                   "--port", str(port), "--db", str(sqlite_corpus.db)], stdout=out, stderr=out)
    try:
        deadline = time.monotonic() + 30
        while len(log.read_text().splitlines()) < 2 and server.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        lines = log.read_text().splitlines()
        name = socket.gethostname()
        said = re.fullmatch(rf"from another machine: http://{re.escape(name)}:{port}/\?token=(\S+) "
                            r"\(or this machine's LAN address in place of its name\)", lines[1])
        assert said is not None and f"/?token={said.group(1)}  (Ctrl-C stops)" in lines[0], lines
        for token, status in ((said.group(1), 303), ("", 401)):  # the token traded for a cookie; none: refused
            asked = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            asked.request("GET", f"/?token={token}" if token else "/", headers={"Host": f"{name}:{port}"})
            assert asked.getresponse().status == status
            asked.close()
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_loopback_answers_only_its_own_names(sqlite_corpus: CorpusStore) -> None:
    corpus = sqlite_corpus
    app = create_app(corpus.db)
    for base in ("http://127.0.0.1:8765", "http://localhost:8765", "http://[::1]:8765", "http://LOCALHOST:8765",
                 "http://localhost.:8765"):
        with TestClient(app, base_url=base) as client:
            assert client.get("/clusters.json").status_code == 200, base
    # a name of an attacker's, pointed at 127.0.0.1 (DNS rebinding)
    with TestClient(app, base_url="http://evil.example:8765") as client:
        refused = client.get("/clusters.json")
        assert refused.status_code == 400 and "evil.example" in refused.text, refused.text


def test_a_remote_view_needs_the_token(sqlite_corpus: CorpusStore) -> None:
    corpus = sqlite_corpus
    token = "correct-horse-battery-staple"
    app = create_app(corpus.db, access=access_for("0.0.0.0", allow_remote=True, token=token))
    with TestClient(app, base_url="http://192.168.1.20:8765") as client:
        for headers in ({}, {"Authorization": "Bearer wrong-token-wrong-token"}, {"Authorization": "Bearer ∞".encode()}):
            refused = client.get("/clusters.json", headers=headers)
            assert refused.status_code == 401 and "token" in refused.text, refused.text
        for wrong in ("nope", "%E2%88%9E"):
            assert client.get(f"/search.json?q=river&token={wrong}").status_code == 401, wrong
        assert client.get("/clusters.json", headers={"Authorization": f"Bearer {token}"}).status_code == 200
        first = client.get(f"/search.json?q=river&token={token}", follow_redirects=False)
        assert first.status_code == 303 and first.headers["location"] == "/search.json?q=river", first.headers
        assert TOKEN_COOKIE in client.cookies, "the token was not kept in a cookie"
        elsewhere = client.get(f"http://192.168.1.20:8765//evil.example/x?token={token}", follow_redirects=False)
        assert elsewhere.headers["location"] == "/evil.example/x", "the redirect left this site"
        assert client.get("/search.json?q=river").status_code == 200, "the cookie did not let the browser in"


def test_the_store_is_only_read(tmp_path: Path, sqlite_corpus: CorpusStore) -> None:
    corpus = sqlite_corpus
    db = tmp_path / "copy.db"
    db.write_bytes(corpus.db.read_bytes())
    before = hashlib.sha1(db.read_bytes()).hexdigest()
    with TestClient(create_app(db), base_url=LOCAL) as client:
        for url in ("/?q=river", "/search.json?q=survey&all=1", "/clusters", "/clusters/1", "/items/1",
                    "/failures", "/status"):
            assert client.get(url).status_code in (200, 404), url
    assert hashlib.sha1(db.read_bytes()).hexdigest() == before, "browsing changed the store file"
    with open_store(db, readonly=True) as store:  # what the view opens: SQLite itself refuses writes
        with pytest.raises(Exception, match="readonly|read-only|query_only"):
            store.execute("DELETE FROM items")


# -- the word diff -------------------------------------------------------------------


def test_word_diff_marks_what_changed_and_ignores_case_and_punctuation() -> None:
    rep = "The river was sampled at nine places, every second week."
    member = "the river was sampled at ten places every second week by volunteers"
    diff = word_diff(rep, member)
    changes = [(r.left.strip(), r.right.strip()) for r in diff.rows if r.kind == "change"]
    assert changes == [("nine", "ten"), ("", "by volunteers")], changes
    assert (diff.deleted, diff.inserted) == (1, 3), diff
    assert word_diff("Hello, World!", "hello world").identical


def test_long_unchanged_runs_show_their_ends_only() -> None:
    words = [f"w{n}" for n in range(500)]
    member = words[:250] + ["changed"] + words[251:]
    diff = word_diff(" ".join(words), " ".join(member))
    skipped = [r.skipped for r in diff.rows if r.kind == "skip"]
    assert skipped == [250 - CONTEXT_WORDS, 249 - CONTEXT_WORDS], skipped
    assert [r.left.strip() for r in diff.rows if r.kind == "change"] == ["w250"]
    same = word_diff(" ".join(words), " ".join(words))
    assert same.identical and [r.kind for r in same.rows] == ["same", "skip", "same"], same.rows
    assert same.rows[0].left.split() == words[:CONTEXT_WORDS], "an unchanged text should show its start"


words_st = st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta", "Alpha,", "x"]), max_size=30)


@settings(max_examples=150, deadline=None)
@given(words_st, words_st)
def test_the_rows_put_back_together_are_the_two_texts(a: list[str], b: list[str]) -> None:
    rep, member = " ".join(a), " ".join(b)
    rows = word_diff(rep, member).rows
    assert all(r.kind != "skip" for r in rows), "short texts should show whole"
    left = "".join(r.left for r in rows)
    right = "".join(r.right for r in rows)
    assert tokens(left)[0] == tokens(rep)[0] and tokens(right)[0] == tokens(member)[0], (rows, rep, member)


def test_long_texts_diff_without_a_bit_matrix() -> None:
    base = [f"w{n % 997}" for n in range(12_000)]
    member = base[:6000] + ["inserted", "words"] + base[6000:]
    diff = word_diff(" ".join(base), " ".join(member))
    assert (diff.deleted, diff.inserted) == (0, 2), (diff.deleted, diff.inserted)
    # a long document full of one common word and its copy with a few words
    # changed (a changelog and its edit took 5 minutes a page; difflib tried
    # every "the" as an anchor): the changes, and only they, are marked
    rng = random.Random(5)
    vocabulary = ["the"] * 400 + ["of"] * 200 + ["and"] * 150 + [f"w{n}" for n in range(4000)]  # "the": 8%
    long = [rng.choice(vocabulary) for _ in range(40_000)]
    edited = list(long)
    for at in (100, 9_000, 20_000, 31_000, 39_900):
        edited[at] = "CHANGED"

    def lines(words: list[str]) -> str:
        return "\n".join(" ".join(words[n:n + 12]) for n in range(0, len(words), 12))

    diff = word_diff(lines(long), lines(edited))
    assert (diff.deleted, diff.inserted) == (5, 5), (diff.deleted, diff.inserted)
    assert [row.right.split()[-1] for row in diff.rows if row.kind == "change"] == ["CHANGED"] * 5
    assert diff.same == 40_000 - 5


def test_a_postgresql_store_is_only_read(pg_url: str, state: daemons.DaemonPaths, tmp_path: Path) -> None:
    """The view's server sessions are READ ONLY: browsing changes no row, and
    the store it opens has the server refuse a write."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text(f"{PROSE} {prose(1, 200)}", encoding="utf-8")
    (folder / "b.txt").write_text(f"{PROSE} {prose(1, 200)} and one more line", encoding="utf-8")
    url = pg_url
    checksum = ("SELECT md5(string_agg(concat_ws('|', i.id, i.path, i.text, c.cluster_id), ',' ORDER BY i.id)) "
                "FROM items i LEFT JOIN clusters c ON c.item_id = i.id")
    with open_store(url) as store:
        run(store, [folder], IndexConfig(workers=1))
        before = store.execute(checksum)[1]
    with TestClient(create_app(url, daemon_paths=state), base_url=LOCAL) as client:
        hit = get(client, "/search.json?q=allotment").json()["hits"][0]
        for page in ("/?q=allotment", "/search.json?q=allotment&all=1", "/clusters", f"/clusters/{hit['cluster_id']}",
                     f"/items/{hit['id']}", "/failures", "/status"):
            get(client, page)
    with open_store(url, readonly=True) as store:
        assert store.execute(checksum)[1] == before, "browsing changed the store"
        with pytest.raises(Exception, match="read-only transaction"):
            store.execute("DELETE FROM items")


def test_the_kind_filter_offers_the_kinds_the_store_holds(corpus: CorpusStore, client: TestClient) -> None:
    from lifededup.extract.base import KINDS
    from lifededup.store import open_reader
    from lifededup.store.listing import kinds_held

    with open_reader(corpus.db) as reader:
        held = kinds_held(reader)
    absent = [k for k in KINDS if k not in held]
    assert held and absent, f"the corpus should hold some kinds and not others: {held}"
    offered = re.findall(r'name="kind" value="([^"]+)"', get(client, "/").text)
    assert offered == held, f"offered {offered}, the store holds {held}"
    # a kind chosen that no item has (a bookmark from before) stays offered, ticked, beside the error
    html = get(client, f"/?q=river&kind={quote_from_bytes(absent[0].encode())}", 400).text
    assert f'value="{absent[0]}" checked' in html and "no item of kind" in html, html


def test_the_summary_counts_as_the_cli_does(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Explorer K: the web view printed 19827 where the CLI prints 19,827."""
    from lifededup.web import app as web_app

    assert web_app._count(19827) == "19,827" and web_app._items_said(2500) == "2,500 matching items"
    assert web_app._items_said(1001, exact=False) == "more than 1,000 matching items"
    found = get(client, "/search.json?q=the&limit=3").json()
    html = " ".join(get(client, "/?q=the&limit=3").text.split())
    assert f"1–3 of {found['rows']:,} results ({found['matches']:,} matching items, copies collapsed" in html, html

