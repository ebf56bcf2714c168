"""Living with the CLI: --json on the commands that print, row counts for
`sql --write`, `folders remove --forget/--keep`, one way to name a part
(`path [part]`), `--plot` failing before the work, and dates taken from a
file's name when its format has none."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from index_samples import write_text

from lifededup.cli import main
from lifededup.index.dates import date_in_name
from lifededup.store import open_store

MBOX = """From a@example.org Mon Jan  1 00:00:00 2024
From: a@example.org
Subject: first
Date: Mon, 01 Jan 2024 10:00:00 +0000

{one}

From b@example.org Mon Jan  1 00:00:00 2024
From: b@example.org
Subject: second
Date: Tue, 02 Jan 2024 10:00:00 +0000

{one}
"""


def cli(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, f"lifededup {' '.join(args)} failed:\n{result.output}"
    return result.stdout


@pytest.fixture
def indexed(tmp_path: Path) -> tuple[str, Path]:
    root = tmp_path / "archive"
    write_text(root / "notes" / "2023-08-25.txt", seed=1)
    write_text(root / "notes" / "plain.txt", seed=2)
    (root / "mail.mbox").write_text(MBOX.format(one=" ".join(["budget meeting notes for the river survey"] * 8)))
    (root / "broken.pdf").write_bytes(b"%PDF-1.4 truncated")
    db = str(tmp_path / "s.db")
    return db, root


def test_index_failures_check_and_recluster_speak_json(indexed: tuple[str, Path]) -> None:
    db, root = indexed
    summary = json.loads(cli("index", str(root), "--db", db, "-j", "1", "--json"))
    assert (summary["new"], summary["failed"], summary["failed_in_store"]) == (3, 1, 1), summary
    assert summary["exact_duplicates"] == 1 and summary["interrupted"] is False, summary
    failed = json.loads(cli("failures", "--db", db, "--json"))
    assert [(Path(f["path"]).name, f["part"], f["status"]) for f in failed] == [("broken.pdf", "", "corrupt")], failed
    checked = json.loads(cli("check", "--db", db, "--json"))
    assert checked["ok"] is True and checked["problems"] == [] and checked["items"] == 6, checked
    assert json.loads(cli("recluster", "--db", db, "--json")) == {"method": "conservative", "rule": "verified:30",
                                                                   "clusters": 1}


def test_folders_list_and_add_speak_json(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    (tmp_path / "docs").mkdir()
    added = json.loads(cli("folders", "add", str(tmp_path / "docs"), "--exclude", "*.iso", "--db", db, "--json"))
    assert added["path"] == str((tmp_path / "docs").resolve()) and added["exclude"] == ["*.iso"], added
    listed = json.loads(cli("folders", "list", "--db", db, "--json"))
    assert [f["path"] for f in listed] == [added["path"]] and listed[0]["last_scanned_at"] is None, listed


def test_sql_write_says_how_many_rows_changed(indexed: tuple[str, Path]) -> None:
    db, root = indexed
    cli("index", str(root), "--db", db, "-j", "1")
    out = cli("sql", "--write", "UPDATE items SET title = 'x' WHERE part != ''", "--db", db)
    assert out.strip() == "2 row(s) changed", out
    out = cli("sql", "--write", "--json", "DELETE FROM items WHERE status != 'ok'", "--db", db)
    assert json.loads(out) == {"changed": 1}, out
    out = cli("sql", "--write", "SELECT count(*) AS n FROM items", "--db", db)
    assert "changed" not in out and out.splitlines()[0] == "n", out


def test_dups_names_a_part_as_everywhere_else(indexed: tuple[str, Path]) -> None:
    db, root = indexed
    cli("index", str(root), "--db", db, "-j", "1")
    out = cli("dups", "--db", db)
    assert f"{(root / 'mail.mbox').resolve()} [" in out and " #" not in out, out


def test_folders_remove_keeps_or_forgets_the_items(indexed: tuple[str, Path], tmp_path: Path) -> None:
    db, root = indexed
    other = tmp_path / "other"
    write_text(other / "kept.txt", seed=5)
    cli("folders", "add", str(root), str(other), "--db", db)
    cli("index", str(root), str(other), "--db", db, "-j", "1")
    kept = cli("folders", "remove", str(other), "--db", db)  # no terminal to ask: kept, and said so
    assert "1 item(s) stay in the store (--forget removes them)" in kept, kept
    with open_store(db, readonly=True) as store:
        assert store.item_id(str((other / "kept.txt").resolve())) is not None
    forgot = json.loads(cli("folders", "remove", str(root), "--forget", "--db", db, "--json"))
    assert forgot == {"path": str(root.resolve()), "forgotten": 6}, forgot
    with open_store(db, readonly=True) as store:
        _, rows = store.execute("SELECT path FROM items")
    assert [Path(str(p)).name for p, in rows] == ["kept.txt"], rows
    assert json.loads(cli("check", "--db", db, "--json"))["ok"] is True
    missing = CliRunner().invoke(main, ["folders", "remove", str(root), "--keep", "--db", db])
    assert missing.exit_code == 1 and "is not watched" in missing.output, missing.output


def test_plot_without_matplotlib_fails_before_the_work(indexed: tuple[str, Path], tmp_path: Path) -> None:
    db, root = indexed
    cli("index", str(root), "--db", db, "-j", "1")
    # a Python where matplotlib cannot be imported (a `None` entry in sys.modules blocks it)
    code = ("import sys; sys.modules['matplotlib'] = None; from lifededup.cli import main; "
            "main(['stats', '--plot', sys.argv[1], '--db', sys.argv[2]])")
    for command in ("stats", "verify"):
        done = subprocess.run([sys.executable, "-c", code.replace("'stats'", repr(command)),
                               str(tmp_path / "p.png"), db], capture_output=True, text=True, timeout=120,
                              env={**os.environ})
        assert done.returncode == 1, done.stdout + done.stderr
        assert "lifededup[plot]" in done.stderr and done.stdout == "", \
            f"{command} --plot must fail before printing its report:\n{done.stdout}"


def test_a_format_with_no_date_takes_the_date_in_the_file_name(indexed: tuple[str, Path]) -> None:
    db, root = indexed
    cli("index", str(root), "--db", db, "-j", "1")
    with open_store(db, readonly=True) as store:
        _, rows = store.execute("SELECT path, part, doc_date FROM items WHERE path LIKE '%.txt' OR part != '' "
                                "ORDER BY path, part")
    dates = {(Path(str(p)).name, part): d for p, part, d in rows}
    assert dates[("2023-08-25.txt", "")] == "2023-08-25", dates
    assert dates[("plain.txt", "")] is None, "no date in the name: the mtime stays the fallback"
    assert all(str(d).startswith("2024-01-0") for (name, part), d in dates.items() if part), \
        f"a format's own date is kept: {dates}"
    found = cli("search", "--since", "2023-08-25", "--until", "2023-08-25", "--db", db, "--json")
    assert [Path(h["path"]).name for h in json.loads(found)["hits"]] == ["2023-08-25.txt"], found


@pytest.mark.parametrize(("name", "want"), [
    ("2023-08-25.txt", "2023-08-25"), ("scan_20230825.pdf", "2023-08-25"), ("diary 2023_08_25.md", "2023-08-25"),
    ("2023-0825.txt", None), ("1202308251.txt", None), ("2023-02-30.txt", None), ("report-v2.docx", None),
])
def test_dates_in_names(name: str, want: str | None) -> None:
    got = date_in_name(name)
    assert (got.isoformat() if got else None) == want, f"{name}: {got}"
