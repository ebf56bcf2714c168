"""What the web view's pages say, through HTTP (Starlette's test client) on
real stores, both backends: counts with thousands separators, dates marked as
the file's where the format records none, the links a person follows."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web view needs its extra: pip install '.[web]'")

from starlette.testclient import TestClient  # noqa: E402
from store_samples import fp, prose, revised  # noqa: E402

from lifededup.store import ItemRecord, open_store  # noqa: E402
from lifededup.watch import WatchStatus  # noqa: E402
from lifededup.watch import daemon as daemons  # noqa: E402
from lifededup.web import create_app  # noqa: E402

LOCAL = "http://127.0.0.1:8765"
HERONS = 1001  # copies of one note: a cluster of 1,001


def _client(db: str | Path, state: Path | None = None) -> TestClient:
    paths = daemons.DaemonPaths(state) if state is not None else None
    return TestClient(create_app(db, daemon_paths=paths), base_url=LOCAL)


@pytest.fixture
def revision(store_url: str) -> Iterator[tuple[TestClient, dict[str, int]]]:
    """A report of 1,500 words and its revision (one word changed)."""
    base = prose(5, 1500)
    ids: dict[str, int] = {}
    with open_store(store_url) as store:
        ids["report"] = store.upsert_item(ItemRecord("/docs/report.txt", kind="text", text=base), fp(base))
        near = revised(base, 1)
        ids["revised"] = store.upsert_item(ItemRecord("/docs/report v2.txt", kind="text", text=near), fp(near))
    with _client(store_url) as client:
        yield client, ids


def test_a_clusters_side_by_side_counts_its_words_with_separators(
        revision: tuple[TestClient, dict[str, int]]) -> None:
    """The side by side said "1499 words the same" and "⋯ 1474 words the same ⋯"
    (the real archive's FHS manual: 14654)."""
    client, ids = revision
    cluster = client.get(f"/items/{ids['revised']}.json").json()["cluster_id"]
    other = ids["revised"] if cluster != ids["revised"] else ids["report"]
    html = client.get(f"/clusters/{cluster}?compare={other}").text
    legend = re.search(r'<p class="legend">(.*?)</p>', html)
    assert legend and re.match(r"1,4\d\d words the same; ", legend[1]), legend and legend[1]
    skipped = re.findall(r"⋯ ([\d,]+) words the same ⋯", html)
    assert skipped and all(len(n) < 4 or "," in n for n in skipped) and any("," in n for n in skipped), skipped


def test_a_search_row_counts_its_cluster_and_copies_with_separators(store_url: str) -> None:
    """A row said "+1000 copies" and "the cluster side by side (1001 items)";
    a member's row "cluster of 1001"; the pager "page 1000 of ..."."""
    heron = "a grey heron stood by the weir in the morning mist"
    with open_store(store_url) as store:
        for n in range(HERONS):
            store.upsert_item(ItemRecord(f"/herons/h{n:04}.txt", kind="text", text=heron), fp(heron))
    with _client(store_url) as client:
        collapsed = client.get("/?q=heron").text
        every = client.get("/?q=heron&all=1&limit=1&page=1000").text
    assert "<summary>+1,000 copies</summary>" in collapsed, collapsed
    assert "the cluster side by side (1,001 items)" in collapsed, collapsed
    assert ">cluster of 1,001</a>" in every, every
    assert "<span>page 1,000 of 1,001</span>" in every, every


def test_the_status_page_counts_the_watchers_work_with_separators(tmp_path: Path, store_url: str) -> None:
    """The status page said "12345 in 1001 batch(es)" and "2345" failed items,
    where `daemon status` says 12,345; an older watcher's queue too."""
    paths = daemons.DaemonPaths(tmp_path / "state")
    paths.log.parent.mkdir(parents=True, exist_ok=True)
    status = WatchStatus(watching=["/home/me/Documents"], indexed=12_345, batches=1_001, failed=2_345,
                         failed_here=1_234, state="watching")
    daemons.write_status(paths, status, str(store_url), "laptop")
    open_store(store_url).close()
    with _client(store_url, tmp_path / "state") as client:
        html = client.get("/status").text
        assert "<dd>12,345 in 1,001 batch(es)</dd>" in html, html
        assert "1,234 of this machine's (laptop)" in html and "and 1,111 on other machines" in html, html
        # a watcher before waiting_files was written counted its queue of paths
        report = json.loads(paths.status.read_text(encoding="utf-8"))
        report.pop("waiting_files", None)
        report["pending"] = 4_321
        paths.status.write_text(json.dumps(report), encoding="utf-8")
        assert "<dd>4,321 path(s) in the queue</dd>" in client.get("/status").text


def test_a_clusters_members_say_which_date_is_the_files(tmp_path: Path, store_url: str) -> None:
    """A manual's PDF dated 2015-05-18 (its own date) sat beside its TXT and
    HTML dated 2026-11-27 (the day the files were copied), one column with
    no mark, where its search rows and item pages say 'file date'."""
    from lifededup.index import IndexConfig, run

    body = prose(11, 400)
    folder = tmp_path / "manual"
    folder.mkdir()
    (folder / "notes.txt").write_text(body, encoding="utf-8")
    (folder / "notes.eml").write_text("From: a@example.org\nTo: b@example.org\nSubject: the notes\n"
                                      f"Date: Tue, 1 Oct 2024 10:00:00 +0000\n\n{body}\n", encoding="utf-8")
    with open_store(store_url) as store:
        run(store, [folder], IndexConfig(workers=1))
    with _client(store_url) as client:
        hits = client.get("/search.json?q=" + body.split()[0] + "&all=1").json()["hits"]
        assert len(hits) == 2 and hits[0]["cluster_id"] == hits[1]["cluster_id"], hits
        html = client.get(f"/clusters/{hits[0]['cluster_id']}").text
    rows = {name: row for row in html.split("<tr")[2:] for name in ("notes.txt", "notes.eml") if name + "</a>" in row}
    dates = {name: re.findall(r'<td class="date">(.*?)</td>', row)[0] for name, row in rows.items()}
    assert dates["notes.eml"] == "2024-10-01", dates
    assert re.fullmatch(r'<span title="the file\'s date: its format records none">file date \d{4}-\d\d-\d\d</span>',
                        dates["notes.txt"]), dates


def test_an_item_leads_to_the_other_items_of_its_folder(tmp_path: Path, store_url: str) -> None:
    """An item's page named its folder and led nowhere near it: a person who
    found one release note could not see what else that folder holds. Its
    path line links the search of every item under its folder; the folder's
    name is a glob's escaped (a[1]*? is no pattern: a1-old's items are not its)."""
    from lifededup.index import IndexConfig, run

    root = tmp_path / "archive"
    folder = root / "a[1]*?"
    (folder / "sub").mkdir(parents=True)
    (root / "a1-old").mkdir()
    for path, seed in ((folder / "x.txt", 1), (folder / "y.txt", 2), (folder / "sub" / "z.txt", 3),
                       (root / "a1-old" / "w.txt", 4)):
        path.write_text(f"kestrel {prose(seed, 200)}", encoding="utf-8")
    with open_store(store_url) as store:
        run(store, [root], IndexConfig(workers=1))
    with _client(store_url) as client:
        hits = client.get("/search.json?q=kestrel&all=1").json()["hits"]
        x = next(h["id"] for h in hits if h["path"].endswith("/x.txt"))
        page = client.get(f"/items/{x}").text
        link = re.search(r'<a class="folder" href="([^"]+)">everything in its folder and below</a>', page)
        assert link, page
        listed = client.get(link[1].replace("&amp;", "&"))
        assert listed.status_code == 200, listed.text
        names = sorted(Path(p).name for p in re.findall(r'<div class="path">([^<]+)</div>', listed.text))
    assert names == ["x.txt", "y.txt", "z.txt"], names


def test_every_page_links_its_json_and_the_footers_rule_holds_on_the_search(tmp_path: Path, store_url: str) -> None:
    """The footer says "every page is also JSON: add .json to its path", and
    the search page is at /: /.json?q=... was "nothing at /.json". It is the
    search's JSON now, and each page links its own JSON (a search's with its
    query), which answers."""
    from lifededup.index import IndexConfig, run

    folder = tmp_path / "notes"
    folder.mkdir()
    text = f"osprey {prose(21, 300)}"
    (folder / "a.txt").write_text(text, encoding="utf-8")
    (folder / "b.txt").write_text(text, encoding="utf-8")
    with open_store(store_url) as store:
        run(store, [folder], IndexConfig(workers=1))
    with _client(store_url) as client:
        hit = client.get("/search.json?q=osprey").json()["hits"][0]
        by_hand = client.get("/.json?q=osprey")
        assert by_hand.status_code == 200 and by_hand.json() == client.get("/search.json?q=osprey").json(), \
            by_hand.text
        for url, twin in (("/?q=osprey&all=1", "/search.json?q=osprey&all=1"),
                          ("/search?q=osprey", "/search.json?q=osprey"), ("/clusters", "/clusters.json"),
                          (f"/clusters/{hit['cluster_id']}", f"/clusters/{hit['cluster_id']}.json"),
                          (f"/items/{hit['id']}", f"/items/{hit['id']}.json"), ("/failures", "/failures.json"),
                          ("/status", "/status.json")):
            page = client.get(url).text
            link = re.search(r'<a class="json" href="([^"]+)">', page)
            assert link and link[1].replace("&amp;", "&") == twin, (url, link and link[1])
            assert client.get(twin).status_code == 200, twin
        assert '<a class="json"' not in client.get("/").text, "the empty search page has no JSON of its own"


def test_a_row_found_by_its_title_says_the_title_once(tmp_path: Path, store_url: str) -> None:
    """A mail found by its subject alone ('Lyrics', five of them in the real
    archive) was headed 'Lyrics' and its snippet under it said 'Lyrics' again:
    the heading now marks the words found, and no snippet repeats it. A row
    found in its text keeps its snippet."""
    from lifededup.index import IndexConfig, run

    folder = tmp_path / "mail"
    folder.mkdir()
    (folder / "song.eml").write_text("From: barry@example.org\nTo: dingus@example.org\nSubject: Lyrics of the "
                                     "kingfisher song\nDate: Fri, 20 Apr 2001 19:35:02 -0400\n\nSee you at the "
                                     "weir on Sunday.\n", encoding="utf-8")
    (folder / "note.txt").write_text(f"a kingfisher by the weir {prose(4, 60)}", encoding="utf-8")
    with open_store(store_url) as store:
        run(store, [folder], IndexConfig(workers=1))
    with _client(store_url) as client:
        html = client.get("/?q=kingfisher").text
    rows = {("song" if "song.eml" in row else "note"): row for row in html.split('<li class="hit"')[1:]}
    song = rows["song"]
    assert re.search(r'<a class="name" href="/items/\d+">Lyrics of the <mark>kingfisher</mark> song</a>', song), song
    assert '<p class="snippet">' not in song and song.count("Lyrics of the") == 1, song
    assert '<p class="snippet">' in rows["note"] and "<mark>kingfisher</mark>" in rows["note"], rows["note"]


def test_another_stores_failures_are_said_with_the_command_that_lists_them(tmp_path: Path, store_url: str) -> None:
    """The status page of a watcher writing into another store said '29 in the
    watcher's store (lifededup failures --db it lists them)': the command
    lacked the store it needs, and read as a broken sentence."""
    paths = daemons.DaemonPaths(tmp_path / "state")
    paths.log.parent.mkdir(parents=True, exist_ok=True)
    other = str(tmp_path / "other store.db")
    daemons.write_status(paths, WatchStatus(watching=["/home/me/x"], failed=29, state="watching"), other, "laptop")
    open_store(store_url).close()
    with _client(store_url, tmp_path / "state") as client:
        html = client.get("/status").text
    said = f"29 in the watcher&#39;s store (<code>lifededup failures --db &#39;{other}&#39;</code> lists them)"
    assert said.replace("&#39;s store", "'s store") in html, html


def test_a_part_without_a_title_is_named_by_its_part_not_its_file(tmp_path: Path, store_url: str) -> None:
    """The real archive's msg_07.eml holds dingusfish.gif, which has no text
    (no OCR): the gif's page was headed 'msg_07.eml', the mail's file, as if
    it were the mail. It is headed by its part, as the mail's 'Inside it'
    list names it; the mail keeps its subject. Its size and date rows were
    blank: they say none is known."""
    from lifededup.index import IndexConfig, run

    folder = tmp_path / "mail"
    folder.mkdir()
    gif = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"  # a 1x1 GIF
    (folder / "msg_07.eml").write_text(
        "From: barry@example.org\nTo: dingus@example.org\nSubject: Here is your dingus fish\n"
        "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: text/plain\n\n"
        "Hi there, this is the dingus fish.\n--B\nContent-Type: image/gif; name=dingusfish.gif\n"
        "Content-Transfer-Encoding: base64\nContent-Disposition: attachment; filename=dingusfish.gif\n\n"
        f"{gif}\n--B--\n", encoding="utf-8")
    with open_store(store_url) as store:
        run(store, [folder], IndexConfig(workers=1))
    with _client(store_url) as client:
        mail = client.get("/search.json?q=dingus").json()["hits"][0]
        page = client.get(f"/items/{mail['id']}").text
        part = re.search(r'<li><a href="/items/(\d+)">([^<]+)</a>', page.split("Inside it", 1)[1])
        assert part and part[2].endswith("dingusfish.gif"), page
        gif_page = client.get(f"/items/{part[1]}").text
    heading = re.search(r"<h1>(.*?)</h1>", gif_page)
    assert heading and heading[1] == part[2], heading and heading[1]
    # nor does its page leave a row blank: an image inside a mail has no size or date of its own stored
    assert "<dd></dd>" not in gif_page, gif_page
    assert "<dt>size</dt><dd>unknown</dd>" in gif_page and "<dt>date</dt><dd>none recorded</dd>" in gif_page
    assert "<h1>Here is your dingus fish</h1>" in page


def test_a_page_that_fails_is_a_page_of_the_view_that_says_so(tmp_path: Path, store_url: str) -> None:
    """NEAR(a b, x) -- a distance that is no number -- met SQLite's 'expected
    integer, got "x"' unanswered, and the view said a bare 'Internal Server
    Error', no way back, no word of what failed. A page that fails is now the
    view's error page (its header, a way back, the error's words, where the
    details are), scripts forbidden as on every page; its JSON an error object."""
    open_store(store_url).close()
    with TestClient(create_app(store_url), base_url=LOCAL, raise_server_exceptions=False) as client:
        page = client.get("/?q=NEAR(a b, x)")
        as_json = client.get("/search.json?q=NEAR(a b, x)")
    if page.status_code < 500:  # PostgreSQL's websearch reads any text: nothing fails there
        assert page.status_code in (200, 400) and as_json.status_code in (200, 400), page.text
        return
    assert page.status_code == 500 and '<nav>' in page.text and '<a href="/">Back to search</a>' in page.text, page.text
    assert "expected integer" in page.text and "lifededup serve" in page.text, page.text
    assert "Traceback" not in page.text and "script-src" not in page.text
    assert "default-src 'none'" in page.headers.get("content-security-policy", ""), page.headers
    assert as_json.status_code == 500 and "expected integer" in as_json.json()["error"], as_json.text


def test_an_item_no_longer_there_is_said_in_the_views_words(tmp_path: Path, store_url: str) -> None:
    """/items/5000, an address kept from before a file was removed, said
    "no item '5000' in STORE (give an item id, an indexed path, or PATH
    [PART] as commands print a part inside a file)": the CLI's advice, which
    no address of the view can follow. It says what may have happened and
    what to do here; its cluster's address alike."""
    open_store(store_url).close()
    with _client(store_url) as client:
        for url in ("/items/5000", "/clusters/5000", "/items/5000.json"):
            answer = client.get(url)
            said = answer.json()["error"] if url.endswith(".json") else answer.text
            assert answer.status_code == 404, (url, answer.status_code)
            assert "no item 5000 in this store" in said and "search for it by its words" in said, said
            assert "PATH [PART]" not in said, said


def test_an_item_with_no_copy_says_so_where_its_cluster_is_named(tmp_path: Path, store_url: str) -> None:
    """A mail with no copy (most of a real mailbox) was in 'cluster 2, 1 item',
    a link to a page saying 'This cluster has one item: nothing to compare'.
    Its page says it has no copy, as its search row shows no cluster; an item
    with copies keeps the link."""
    from lifededup.index import IndexConfig, run

    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "alone.txt").write_text(f"wagtail {prose(31, 200)}", encoding="utf-8")
    (folder / "pair a.txt").write_text(f"plover {prose(32, 200)}", encoding="utf-8")
    (folder / "pair b.txt").write_text(f"plover {prose(32, 200)}", encoding="utf-8")
    with open_store(store_url) as store:
        run(store, [folder], IndexConfig(workers=1))
    with _client(store_url) as client:
        alone = client.get("/search.json?q=wagtail").json()["hits"][0]
        pair = client.get("/search.json?q=plover").json()["hits"][0]
        said = re.search(r"<dt>cluster</dt><dd>(.*?)</dd>", client.get(f"/items/{alone['id']}").text)
        paired = re.search(r"<dt>cluster</dt><dd>(.*?)</dd>", client.get(f"/items/{pair['id']}").text)
    assert said and said[1] == "alone: no copy or near copy of it is indexed", said and said[1]
    assert paired and paired[1] == f'<a href="/clusters/{pair["cluster_id"]}">cluster {pair["cluster_id"]}</a>, 2 items'


def test_a_search_with_no_match_says_so_once_and_offers_what_helps(tmp_path: Path, store_url: str) -> None:
    """/?q=zzzqqqxyz said '0 results (0 matching items, copies collapsed; show
    every item)' and then 'No matches.': nothing found, three times, and a
    link to every item of none. It says 'No matches.' once; a search narrowed
    by filters offers the same words without them, which finds them."""
    from lifededup.index import IndexConfig, run

    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.txt").write_text(f"curlew {prose(41, 100)}", encoding="utf-8")
    with open_store(store_url) as store:
        run(store, [folder], IndexConfig(workers=1))
    with _client(store_url) as client:
        for url in ("/?q=zzzqqqxyz", "/?q=zzzqqqxyz&all=1"):
            main = client.get(url).text.split("<main>", 1)[1]
            assert main.count("No matches") == 1 and "0 result" not in main and "0 matching" not in main, main
            assert "show every item" not in main and "collapse copies" not in main, main
        narrowed = client.get("/?q=curlew&path=Mail/*").text
        link = re.search(r'No matches with these filters \(<a href="([^"]+)">without them</a>\)', narrowed)
        assert link, narrowed
        found = client.get("/" + link[1].replace("&amp;", "&")).text
        assert re.search(r'<a class="name" href="/items/\d+">a.txt</a>', found), found


def test_a_clusters_lead_names_its_representative_as_every_page_names_an_item(tmp_path: Path,
                                                                               store_url: str) -> None:
    """The lead of the real archive's cluster 842 said 'Represented by
    /tmp/lifededup-real-archive/archive/projects/pytest-7.0.0/doc/en/announce/release-4.1.1.rst',
    the path its first row says again beneath: it names the representative
    by its title, else its file's name, as the search rows and the clusters'
    list do; a titled one keeps its title."""
    from lifededup.index import IndexConfig, run

    folder = tmp_path / "announce"
    folder.mkdir()
    text = f"pytest 4.1.1 has just been released to PyPI {prose(51, 300)}"
    (folder / "release-4.1.1.rst").write_text(text, encoding="utf-8")
    (folder / "release-4.2.1.rst").write_text(text.replace("4.1.1", "4.2.1"), encoding="utf-8")
    with open_store(store_url) as store:
        run(store, [folder], IndexConfig(workers=1))
    with _client(store_url) as client:
        hit = client.get("/search.json?q=released").json()["hits"][0]
        html = client.get(f"/clusters/{hit['cluster_id']}").text
    lead = re.search(r'<p class="lead">Represented by <a href="/items/(\d+)">(.*?)</a>\.', html)
    assert lead and lead[1] == str(hit["cluster_id"]), html
    assert lead[2] in ("release-4.1.1.rst", "release-4.2.1.rst"), lead[2]


def test_a_members_cluster_address_leads_to_its_cluster_beside_it(tmp_path: Path, store_url: str) -> None:
    """/clusters/120, the real archive's fhs-3.0.pdf (a member of cluster 119),
    said '120 is an item but not a cluster: it is in cluster 119', with no
    link there, after computing the whole cluster's distances (0.9 s). The
    page goes to that cluster with the member beside its representative, as
    `lifededup show 120` shows the item's cluster; its JSON still says it is
    no cluster."""
    from lifededup.index import IndexConfig, run

    folder = tmp_path / "manual"
    folder.mkdir()
    text = f"Filesystem Hierarchy Standard {prose(61, 400)}"
    (folder / "fhs-3.0.txt").write_text(text, encoding="utf-8")
    (folder / "fhs-3.0 copy.txt").write_text(text.replace("budget", "budgets", 2), encoding="utf-8")
    with open_store(store_url) as store:
        run(store, [folder], IndexConfig(workers=1))
    with _client(store_url) as client:
        hits = client.get("/search.json?q=hierarchy&all=1").json()["hits"]
        member = next(h for h in hits if h["id"] != h["cluster_id"])
        went = client.get(f"/clusters/{member['id']}", follow_redirects=False)
        assert went.status_code == 303, (went.status_code, went.text)
        target = f"/clusters/{member['cluster_id']}?compare={member['id']}#diff"
        assert went.headers["location"] == target, went.headers
        page = client.get(target)
        assert page.status_code == 200 and '<tr class="compared">' in page.text, page.text
        assert client.get(f"/clusters/{member['id']}.json").status_code == 404


def test_a_clusters_page_says_what_its_shared_features_count(revision: tuple[TestClient, dict[str, int]],
                                                              store_url: str) -> None:
    """The real archive's cluster of 116 pytest announcements showed "0/6"
    shared features beside each of its 115 near copies, and nothing said
    that a verified near copy may share none: its sketch found it. Under
    the design card's rule (``recluster --rule features``), two are needed."""
    from click.testing import CliRunner

    from lifededup.cli import main

    client, ids = revision
    cluster = client.get(f"/items/{ids['revised']}.json").json()["cluster_id"]
    lead = re.search(r'<p class="lead">(.*?)</p>', client.get(f"/clusters/{cluster}").text, re.S)
    assert lead and ("Shared features are how many of the 6 super-shingle features a member shares with the "
                     "representative: a near copy may share none, found through its sketch") in lead[1], lead
    assert CliRunner().invoke(main, ["recluster", "--rule", "features", "--db", store_url]).exit_code == 0
    with _client(store_url) as again:
        cluster = again.get(f"/items/{ids['revised']}.json").json()["cluster_id"]
        lead = re.search(r'<p class="lead">(.*?)</p>', again.get(f"/clusters/{cluster}").text, re.S)
    assert lead and "a member shares with the representative." in lead[1] and "share none" not in lead[1], lead


def test_a_failure_leads_to_its_items_page(tmp_path: Path, store_url: str) -> None:
    """The failures page named each file that could not be read with no way
    to its item's page (its metadata, its folder, the mailbox it is in);
    each path is now a link there, and ``failures --json`` gives the id."""
    from click.testing import CliRunner

    from lifededup.cli import main

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "empty.txt").write_text("")
    (folder / "note.txt").write_text("a note on the heron at the weir")
    assert CliRunner().invoke(main, ["index", str(folder), "--db", store_url]).exit_code == 0
    listed = json.loads(CliRunner().invoke(main, ["failures", "--json", "--db", store_url]).stdout)
    assert [(Path(f["path"]).name, f["status"]) for f in listed] == [("empty.txt", "empty")], listed
    with _client(store_url) as client:
        page = client.get("/failures").text
        assert f'<a href="/items/{listed[0]["id"]}">' in page, page
        item = client.get(f"/items/{listed[0]['id']}")
    assert item.status_code == 200 and "empty.txt" in item.text and "empty" in item.text, item.text[:500]
