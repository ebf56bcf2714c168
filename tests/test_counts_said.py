"""Every count a person reads is printed as `search` prints its own:
"19,827 matching items", where `check` said "ok: 1000000 items, 601942
clusters" and `export` "29064 sketch_keys".  A store of over a thousand
items, through the CLI as a person runs it, on both backends; the daemon's
status, whose report is the watcher's own, on SQLite."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from lifededup.cli import main

PAIRS = 1000  # texts held twice: 1,000 clusters with copies, 2,000 exact duplicates (with the herons)
HERONS = 1001  # copies of one text: a cluster of 1,001 items, a search row with 1,000 copies behind it
EMPTY = 1000  # empty files: 1,000 failed items


def run(*args: str, db: str, code: int = 0) -> str:
    done = CliRunner().invoke(main, [*args, "--db", db])
    assert done.exit_code == code, f"{args}: exit {done.exit_code}\n{done.output}"
    return done.stdout  # (the index's progress goes to stderr)


def _archive(root: Path) -> None:
    for i in range(PAIRS):
        for j in range(2):
            (root / "pairs").mkdir(parents=True, exist_ok=True)
            (root / "pairs" / f"n{i}_{j}.txt").write_text(f"note number {i} about the garden and the river\n")
    (root / "herons").mkdir()
    for i in range(HERONS):
        (root / "herons" / f"h{i}.txt").write_text("a grey heron stood by the weir\n")
    (root / "empty").mkdir()
    for i in range(EMPTY):
        (root / "empty" / f"e{i}.txt").write_text("")


def test_counts_over_a_thousand_are_printed_with_thousands_separators(store_url: str, tmp_path: Path) -> None:
    db, root = store_url, tmp_path / "archive"
    _archive(root)
    run("folders", "add", str(root / "herons"), db=db)
    done = CliRunner().invoke(main, ["index", str(root), "--db", db])
    assert done.exit_code == 0, done.output
    indexed = done.stdout.splitlines()
    # the progress, on stderr (its lines for a log: the runner is no terminal)
    assert done.stderr.startswith("reading 4,001 file(s)\n") and "4,001/4,001 files, " in done.stderr, done.stderr
    assert indexed[0].startswith("new 3,001, updated 0, unchanged 0, moved 0, removed 0, failed 1,000 ("), indexed
    assert indexed[1] == "store: 2,000 exact duplicate(s), 0 near-duplicate(s), 1,000 failed item(s)", indexed
    assert run("check", db=db).startswith("ok: 4,001 items, 1,001 clusters, all invariants hold")
    assert run("recluster", db=db).endswith(": 1,001 clusters with copies\n")

    collapsed = run("search", "heron", db=db)
    assert "+1,000 copies" in collapsed and "; and 997 more" in collapsed, collapsed
    every = run("search", "--all", "heron", db=db)
    cluster = re.search(r"\[cluster (\d+), 1,001 items\]", every)
    assert cluster and every.endswith("20 of 1,001 matching items (--page N shows more)\n"), every
    assert run("search", "--all", "--page", "51", "heron", db=db).endswith("1,001-1,001 of 1,001 matching items\n")
    assert f"cluster {cluster[1]} (1,001 items)\n" in run("dups", db=db)
    assert f"cluster {cluster[1]} (1,001 items, " in run("show", cluster[1], db=db)

    copied = run("export", str(tmp_path / "copy.db"), db=db)
    assert ": 4,001 items, 1 machine, " in copied and ", 3,001 clusters, 3,001 fingerprints" in copied, copied
    assert run("sql", "--write", "UPDATE items SET title = title", db=db) == "4,001 row(s) changed\n"
    run("sql", "--write", "UPDATE items SET text = text || ' again' WHERE text IS NOT NULL", db=db)
    checked = CliRunner().invoke(main, ["check", "--db", db])
    assert checked.exit_code == 1 and "problem: fingerprint-stale: 3,001 item(s) whose text" in checked.stderr \
        and re.search(r", \d+ \(\+2,991 more\)\]\n", checked.stderr), checked.stderr
    mended = run("check", "--mend", db=db)
    assert "mended: 3,001 item(s), fingerprinted" in mended and "\nok: 4,001 items, " in mended, mended
    kept = run("folders", "remove", "--keep", str(root / "herons"), db=db)
    assert "; its 1,001 item(s) stay in the store" in kept, kept
    machine = run("machines", "list", db=db).split()[0]
    assert run("machines", "rename", machine, "old-laptop", db=db).endswith(": 4,001 item(s)\n")
    forgot = run("machines", "forget", "--yes", "old-laptop", db=db)
    assert forgot == "forgot the machine 'old-laptop': 4,001 item(s) removed from the store\n", forgot


def test_fingerprint_counts_words_and_shingles_with_separators(tmp_path: Path) -> None:
    long = tmp_path / "long.txt"
    long.write_text(" ".join(f"word{i}" for i in range(1200)))
    said = CliRunner().invoke(main, ["fingerprint", str(long)])
    assert said.exit_code == 0 and "\n  1,200 words, 1,19" in said.output, said.output


def test_daemon_status_counts_files_read_and_failed_with_separators(tmp_path: Path) -> None:
    root = tmp_path / "archive"
    root.mkdir()
    for i in range(1000):
        (root / f"n{i}.txt").write_text(f"note number {i} about the garden and the river\n")
        (root / f"e{i}.txt").write_text("")
    state = tmp_path / "state"
    env = {**os.environ, "XDG_STATE_HOME": str(state), "LIFEDEDUP_DB": str(tmp_path / "store.db")}

    def lifededup(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "lifededup", *args], env=env, capture_output=True, text=True,
                              timeout=120)

    assert lifededup("folders", "add", str(root)).returncode == 0
    started = lifededup("daemon", "start", "--delay", "0.3")
    assert started.returncode == 0, started.stdout + started.stderr
    try:
        deadline, said = time.monotonic() + 90, ""
        while "state: watching" not in said and time.monotonic() < deadline:
            time.sleep(0.5)
            said = lifededup("daemon", "status").stdout
        assert "files read since it started: 2,000, failed items in store: 1,000\n" in said, said
        logged = (state / "lifededup" / "watch.log").read_text()
        assert re.search(r": new 1,000, updated 0, moved 0, removed 0, failed 1,000\n", logged), logged
        assert "... and 990 more: `lifededup failures` lists them all" in logged, logged
    finally:
        stopped = lifededup("daemon", "stop")
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr


def test_an_items_page_counts_its_cluster_and_its_parts_with_separators(store_url: str, tmp_path: Path) -> None:
    """The web view's item page said "cluster 7, 1001 items" and "Inside it (1001)"."""
    pytest.importorskip("starlette", reason="the web view needs its extra: pip install '.[web]'")
    from starlette.testclient import TestClient

    from lifededup.web import create_app

    db, root = store_url, tmp_path / "archive"
    (root / "herons").mkdir(parents=True)
    for i in range(HERONS):
        (root / "herons" / f"h{i}.txt").write_text("a grey heron stood by the weir\n")
    (root / "letters.mbox").write_text("".join(
        f"From alice@example.org Fri Mar  1 10:00:00 2024\nFrom: alice@example.org\nSubject: letter {i}\n\n"
        f"letter number {i} about the kingfisher\n\n" for i in range(1001)))
    run("index", str(root), db=db)
    ids = {Path(h["path"]).name: h["id"] for h in json.loads(run("search", "--json", "heron OR kingfisher", db=db))["hits"]}
    mailbox = json.loads(run("sql", "--json", "SELECT id FROM items WHERE part = '' AND path LIKE '%.mbox'", db=db))
    with TestClient(create_app(db), base_url="http://127.0.0.1:8765") as client:
        heron = client.get(f"/items/{ids['h0.txt']}").text
        letters = client.get(f"/items/{mailbox[0]['id']}").text
        cluster = re.search(r'href="/clusters/(\d+)">cluster', heron)
        assert cluster, heron
        members = client.get(f"/clusters/{cluster[1]}").text
        listed = client.get("/clusters").text
        every = client.get("/?q=heron&all=1&page=51").text
    assert re.search(r"cluster \d+</a>, 1,001 items</dd>", heron), heron
    assert "<h2>Inside it (1,001)</h2>" in letters and "<p>and 801 more.</p>" in letters, letters
    # the other pages count alike: a cluster's header, the clusters' list, a search's rows
    assert "<small>1,001 items</small>" in members, members
    assert '<td class="n">1,001</td>' in listed, listed
    assert "1,001–1,001 of" in every, every


COPIES = 46  # copies of one text: 46 * 45 / 2 = 1,035 pairs of duplicates
NOTES = 1001  # distinct notes, each a cluster of its own


def _copies_and_notes(root: Path) -> None:
    for i in range(COPIES):
        (root / "copies").mkdir(parents=True, exist_ok=True)
        (root / "copies" / f"c{i}.txt").write_text("a grey heron stood by the weir\n")
    for i in range(NOTES):
        (root / "notes").mkdir(parents=True, exist_ok=True)
        (root / "notes" / f"n{i}.txt").write_text(f"note number {i} about the garden and the river\n")


def test_eval_counts_pairs_and_clusters_with_separators(tmp_path: Path) -> None:
    """eval's table said "1035" accepted pairs and "1002" clusters, its line above it "1,047 items read"."""
    root = tmp_path / "corpus"
    _copies_and_notes(root)
    (root / "truth.json").write_text(json.dumps({"clusters": [[f"copies/c{i}.txt" for i in range(COPIES)]]}))
    done = CliRunner().invoke(main, ["eval", "--truth", str(root / "truth.json"), "-d", "shingles"])
    assert done.exit_code == 0, done.output
    head, row = done.stdout.splitlines()[0], done.stdout.splitlines()[2]
    assert head == "1,047 items read (0 could not be), 1,035 duplicate pairs in 1,002 true clusters", head
    assert re.fullmatch(r"shingles:2 +1\.000 +1\.000 +1\.000 +1,035 +1,002 .*", row), done.stdout
    named = [f"gone/{i}.txt" for i in range(1001)]
    (root / "truth.json").write_text(json.dumps({"clusters": [named]}))
    gone = CliRunner().invoke(main, ["eval", "--truth", str(root / "truth.json")])
    assert gone.exit_code == 1 and ": 1,001 files not found under " in gone.output, gone.output
    (root / "truth.json").write_text(json.dumps({"clusters": [[f"copies/c0.txt [part {i}]" for i in range(1001)]]}))
    parts = CliRunner().invoke(main, ["eval", "--truth", str(root / "truth.json"), "-d", "shingles"])
    assert parts.exit_code == 1 and ": 1,001 items are not in " in parts.output, parts.output


def test_eval_on_a_store_counts_its_sample_and_clusters_with_separators(store_url: str, tmp_path: Path) -> None:
    """eval --store's table said "1035" sampled pairs and "1002" clusters."""
    root = tmp_path / "archive"
    _copies_and_notes(root)
    run("index", str(root), db=store_url)
    table = run("eval", "--store", "--sample", "2000", "-d", "verified", db=store_url).splitlines()
    assert table[0] == "1,035 near copies (within 30% word edit distance) among the sampled candidate pairs", table
    assert re.fullmatch(r"verified:30 +1\.000 +1\.000 +1\.000 +1,035 +1,035 +1,002", table[2]), table


_SKIP_LATE_FINGERPRINTS = {
    # a trigger someone added to the target: it drops the fingerprints of items past the thousandth
    "sqlite": ["CREATE TRIGGER skip_late BEFORE INSERT ON fingerprints WHEN NEW.item_id > 1000"
               " BEGIN SELECT RAISE(IGNORE); END"],
    "postgresql": ["CREATE FUNCTION skip_late() RETURNS trigger LANGUAGE plpgsql AS"
                   " $$ BEGIN IF NEW.item_id > 1000 THEN RETURN NULL; END IF; RETURN NEW; END $$",
                   "CREATE TRIGGER skip_late BEFORE INSERT ON fingerprints FOR EACH ROW EXECUTE FUNCTION skip_late()"],
}


def test_a_move_whose_rows_did_not_all_arrive_counts_them_with_separators(store_url: str, tmp_path: Path) -> None:
    """export said "fingerprints in STORE holds 1000 rows after the copy, not 2001"."""
    from lifededup.store import open_store

    root, source = tmp_path / "notes", str(tmp_path / "source.db")
    root.mkdir()
    for i in range(2001):
        (root / f"n{i}.txt").write_text(f"note number {i} about the garden and the river\n")
    run("index", str(root), db=source)
    run("check", db=store_url)  # the target: an empty store
    with open_store(store_url) as target, target.transaction() as conn:
        for statement in _SKIP_LATE_FINGERPRINTS["postgresql" if "://" in store_url else "sqlite"]:
            conn.exec_driver_sql(statement)
    done = CliRunner().invoke(main, ["export", "--db", source, store_url])
    assert done.exit_code == 1, done.output
    assert "holds 1,000 rows after the copy, not 2,001; nothing was committed" in done.stderr, done.stderr
