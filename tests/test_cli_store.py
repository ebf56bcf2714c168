"""The store's commands, and the README's store section: every table and
column documented, every SQL example and command run against a real store."""

from __future__ import annotations

import csv
import fcntl
import io
import json
import os
import pty
import re
import shlex
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
from click.testing import CliRunner
from store_samples import fp, prose, revised

from lifededup.cli import main
from lifededup.fingerprint.compare import compare
from lifededup.model import shared_features
from lifededup.search import results
from lifededup.store import ItemRecord, open_store
from lifededup.store.models import Base

README = Path(__file__).resolve().parents[1] / "README.md"
COMMANDS = ["sql", "dups", "show", "check", "recluster"]


def store_section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("## The store: tables you can query")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", store_section(), flags=re.S)


@pytest.fixture
def db(tmp_path: Path) -> str:
    """A store with two clusters of copies, a loner, a mailbox and a failure."""
    return fill(str(tmp_path / "archive.db"))


@pytest.fixture
def any_db(store_url: str) -> str:
    """The same store, once on each backend (where the backend matters)."""
    return fill(store_url)


def fill(path: str) -> str:
    budget = prose(1) + " budget"
    near = revised(budget, 2)
    notes = prose(2).replace("budget", "bud")  # only the budget files hold 'budget'
    assert fp(budget).sha1 != fp(near).sha1
    assert shared_features(fp(budget).features, fp(near).features) >= 2, "fixture's near copy is not near"
    with open_store(path) as store, store.transaction():
        store.upsert_item(ItemRecord("/docs/budget.txt", title="Budget", text=budget), fp(budget))
        store.upsert_item(ItemRecord("/docs/budget v2.txt", text=near), fp(near))
        store.upsert_item(ItemRecord("/docs/budget copy.txt", text=budget.upper()), fp(budget.upper()))
        store.upsert_item(ItemRecord("/docs/notes.txt", text=notes), fp(notes))
        box = store.upsert_item(ItemRecord("/mail/a.mbox", kind="mailbox"), None)
        store.upsert_item(ItemRecord("/mail/a.mbox", part="0", parent_id=box, kind="email", text=notes),
                          fp(notes))
        store.record_failure(ItemRecord("/docs/locked.pdf", kind="document"), "PDF is encrypted")
    return path


def run(*args: str, db: str | None = None, code: int = 0) -> str:
    env = {"LIFEDEDUP_DB": db} if db else {}
    result = CliRunner().invoke(main, list(args), env=env)
    assert result.exit_code == code, f"lifededup {' '.join(args)} -> {result.exit_code}: {result.output}"
    return result.output


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_with_an_example(command: str) -> None:
    out = run(command, "--help")
    assert "Example" in out and f"lifededup {command}" in out, out
    assert "LIFEDEDUP_DB" in out, f"{command} --help should say --db also comes from LIFEDEDUP_DB"


def test_readme_documents_every_table_and_column() -> None:
    section = store_section()
    for table in Base.metadata.sorted_tables:
        assert f"`{table.name}`" in section, f"README store section does not document table {table.name}"
        for column in table.columns:
            named = f"`{column.name}`" in section or (column.name[0] == "f" and "`f1` ... `f6`" in section)
            assert named, f"README does not document {table.name}.{column.name}"
    for name in ("items_fts", "cluster_sizes", "representatives", "collapsed_items", "items_ai"):
        assert f"`{name}`" in section, name


def test_readme_lists_every_kind_an_item_can_have() -> None:
    from lifededup.extract.base import KINDS

    row = next(line for line in store_section().splitlines() if line.startswith("| `kind` |"))
    listed = row.split(". ")[0]  # the list, before the sentences on failed items
    assert set(re.findall(r"`([a-z ]+)`", listed)) - {"kind"} == set(KINDS), row


def examples_for(db: str) -> list[str]:
    """The README's SQL examples for this store's backend: the blocks marked
    ```` ```sql sqlite ```` or ```` ```sql postgresql ```` for it, and every
    ```` ```sql ```` one (the README says they run on both)."""
    backend = "postgresql" if db.startswith("postgresql://") else "sqlite"
    found = re.findall(r"```sql( \w+)?\n(.*?)```", store_section(), flags=re.S)
    return [sql for tag, sql in found if tag.strip() in ("", backend)]


def test_readme_sql_examples_run_and_return_rows(any_db: str) -> None:
    """Three of them failed on PostgreSQL (sum of a boolean, and the
    collapse's FTS5 MATCH and bm25): each now runs on both, or has its
    PostgreSQL form."""
    examples = examples_for(any_db)
    assert len(examples) >= 6, "the README's store section should carry its SQL examples"
    for sql in examples:
        rows = json.loads(run("sql", "--json", sql.strip().rstrip(";"), db=any_db))
        assert rows, f"README example returned no rows on a populated store:\n{sql}"


def test_readme_collapse_example_collapses(any_db: str) -> None:
    collapse = next(sql for sql in examples_for(any_db) if "MATERIALIZED" in sql)
    rows = json.loads(run("sql", "--json", collapse.strip().rstrip(";"), db=any_db))
    assert [(r["path"], r["hidden"]) for r in rows] == [("/docs/budget.txt", 2)], rows


def test_readme_commands_run(db: str) -> None:
    for line in blocks("sh")[0].strip().splitlines():
        args = shlex.split(line)
        assert args[0] == "lifededup", line
        run(*args[1:], db=db)


def test_readme_python_example_runs() -> None:
    for code in blocks("python"):
        exec(compile(code, "README.md", "exec"), {})  # noqa: S102 -- the README's own example


def test_sql_output_formats(any_db: str) -> None:
    db = any_db
    query = "SELECT id, path FROM items WHERE path LIKE '/docs/budget%' ORDER BY id"
    table = run("sql", query, db=db)
    assert table.splitlines()[0].split() == ["id", "path"] and "/docs/budget copy.txt" in table, table
    as_csv = list(csv.reader(io.StringIO(run("sql", "--csv", query, db=db))))
    assert as_csv[0] == ["id", "path"] and len(as_csv) == 4, as_csv
    as_json = json.loads(run("sql", "--json", query, "--db", db))
    assert [r["path"] for r in as_json] == ["/docs/budget.txt", "/docs/budget v2.txt", "/docs/budget copy.txt"]
    err = run("sql", "SELEC nonsense", db=db, code=1)
    assert "SQL error" in err and "syntax" in err, err
    # lines as a shell reads them; a long, many-lined value one cut line of the table, whole in CSV and JSON
    body = ("repeat('a line of text' || chr(10), 100)" if any_db.startswith("postgresql://")
            else "replace(hex(zeroblob(100)), '00', 'a line of text' || char(10))")
    long = f"SELECT id, {body} AS body FROM items WHERE path = '/docs/budget.txt'"
    raw = run("sql", "--csv", long, db=db)
    assert "\r" not in raw and raw.count("\n") == 2 + 100, repr(raw[:80])
    table = run("sql", long, db=db).splitlines()
    assert len(table) == 4 and len(table[2]) < 220 and table[2].endswith("…"), table
    assert "\\x0a" in table[2] and "--json or --csv gives them whole" in table[3], table
    assert json.loads(run("sql", "--json", long, db=db))[0]["body"].count("\n") == 100


# What a read-only store refuses, on each backend: SQLite's query_only, mode=ro
# and authorizer; PostgreSQL's read-only transaction and its one prepared statement.
REFUSED = {
    "INSERT INTO params (name, value) VALUES ('x', '1')": "read-only",
    "UPDATE items SET title = 'x'": "read-only",
    "DELETE FROM items": "read-only",
    "CREATE TABLE notes (a INTEGER)": "read-only",
    "DROP TABLE params": "read-only",
    "COMMIT; DELETE FROM items": "one statement at a time",
    "SELECT 1; DELETE FROM items": "one statement at a time",
}


@pytest.mark.parametrize("statement", REFUSED)
def test_sql_without_write_is_refused_by_the_store_itself(any_db: str, statement: str) -> None:
    before = run("sql", "--json", "SELECT count(*) AS n FROM items", db=any_db)
    out = run("sql", statement, db=any_db, code=1)
    assert REFUSED[statement] in out and "nothing was" in out, f"{statement!r} -> {out}"
    assert run("sql", "--json", "SELECT count(*) AS n FROM items", db=any_db) == before


def test_a_statement_a_transaction_cannot_hold_says_to_run_it_in_psql(pg_url: str) -> None:
    """`sql --write "VACUUM ANALYZE items"` on a server gave its bare "cannot
    run inside a transaction block" (helper V)."""
    said = run("sql", "--write", "VACUUM ANALYZE items", db=fill(pg_url), code=1)
    assert "cannot run inside a transaction block" in said and "run this one in psql" in said, said


def test_sql_without_write_keeps_nothing_a_read_only_transaction_lets_a_statement_make(pg_url: str) -> None:
    """PostgreSQL lets a READ ONLY transaction create large objects
    (``lo_from_bytea``), and the read was committed: `sql` without --write
    could fill the server's disk.  A read is rolled back, whatever it ran.
    (SQLite has no such statement; its reads are held by its authorizer.)"""
    any_db = fill(pg_url)
    count = "SELECT count(*) AS n FROM pg_largeobject_metadata"
    before = json.loads(run("sql", "--json", count, db=any_db))
    made = run("sql", "--json", "SELECT lo_from_bytea(0, convert_to('kept?', 'UTF8')) AS oid", db=any_db)
    assert json.loads(made)[0]["oid"] > 0, made
    assert json.loads(run("sql", "--json", count, db=any_db)) == before, "a large object outlived a read"


def test_sql_write_changes_and_counts(any_db: str) -> None:
    out = run("sql", "--write", "UPDATE items SET title = 'Notes' WHERE path LIKE '/docs/notes%'", db=any_db)
    assert out.strip() == "1 row(s) changed", out
    out = run("sql", "--write", "--json", "DELETE FROM items WHERE status != 'ok'", db=any_db)
    assert json.loads(out) == {"changed": 1}, out
    rows = json.loads(run("sql", "--json", "SELECT title, count(*) AS n FROM items GROUP BY title ORDER BY title",
                          db=any_db))
    assert {"title": "Notes", "n": 1} in rows and sum(r["n"] for r in rows) == 6, rows
    assert run("check", db=any_db).startswith("ok:")


def test_sql_errors_are_the_databases_words(any_db: str) -> None:
    out = run("sql", "SELECT nothing FROM items", db=any_db, code=1)
    assert out.startswith("Error: SQL error:") and "nothing" in out and "Traceback" not in out, out


def test_dups_lists_clusters_largest_first(db: str) -> None:
    found = json.loads(run("dups", "--json", db=db))
    assert [(c["size"], c["representative"]["path"]) for c in found] == [(3, "/docs/budget.txt"),
                                                                         (2, "/docs/notes.txt")], found
    assert [m["path"] for m in found[0]["members"]] == ["/docs/budget v2.txt", "/docs/budget copy.txt"]
    text = run("dups", "--limit", "1", db=db)
    assert "cluster 1 (3 items)" in text and "notes" not in text, text
    # the stored resemblance is the sketches' estimate: `show` measures the exact one, and the two differ
    near = next(m for m in found[0]["members"] if m["word_distance"])
    assert (f"{near['word_distance']:.1%} of words apart, estimated resemblance {near['resemblance']:.2f}"
            in text), text


def test_show_explains_membership(db: str) -> None:
    shown = json.loads(run("show", "/docs/budget v2.txt", "--json", db=db))
    members = {m["item"]["path"]: m for m in shown["members"]}
    rep, near, copy = members["/docs/budget.txt"], members["/docs/budget v2.txt"], members["/docs/budget copy.txt"]
    assert rep["representative"] and rep["resemblance"] == 1.0
    assert copy["exact"] and copy["resemblance"] == 1.0
    # an exact copy is not measured again: what compare() gives its normalized text, the same as the representative's
    measured = compare(prose(1) + " budget", (prose(1) + " budget").upper())
    assert measured.exact and (copy["resemblance"], copy["word_edit_distance"]) == (measured.resemblance,
                                                                                      measured.word_edit_distance)
    assert (rep["resemblance"], rep["word_edit_distance"]) == (1.0, 0.0)
    assert not near["exact"] and near["shared_features"] >= 2 and 0.9 < near["resemblance"] < 1.0, near
    text = run("show", "3", db=db)
    assert "exact copy" in text and "near copy" in text and "representative" in text, text
    assert "no item" in run("show", "/nowhere", db=db, code=1)
    alone = prose(9)
    with open_store(db) as store:
        lone = store.upsert_item(ItemRecord("/docs/alone.txt", text=alone), fp(alone))
    assert f"cluster {lone} (no copies of it, conservative;" in run("show", "/docs/alone.txt", db=db)  # "1 items"
    assert "no text" in run("show", "/docs/locked.pdf", db=db)


def test_show_of_a_note_too_short_to_sample_does_not_count_its_features(any_db: str) -> None:
    """A short note has no features: it and its copy were shown sharing
    "0/6" with their representative -- the note itself 0/6 against itself,
    an exact copy 0/6 -- where nothing was counted. The column says so
    (-, and why), on both backends; --json says ``sampled``."""
    note = "Key under the blue pot. Back Sunday."
    with open_store(any_db) as store:
        first = store.upsert_item(ItemRecord("/notes/key.txt", text=note), fp(note))
        store.upsert_item(ItemRecord("/notes/key copy.txt", text=note.lower()), fp(note.lower()))
    assert fp(note).features is None, "the note is long enough to sample"
    text = run("show", "/notes/key copy.txt", db=any_db)
    rows = [line for line in text.splitlines() if line.rstrip().endswith((" /notes/key.txt", " /notes/key copy.txt"))]
    assert len(rows) == 2 and all(" 0/6 " not in row and "representative              -" in rows[0]
                                  for row in rows), text
    assert "exact copy                  -" in rows[1], text
    assert "(shared -: a text too short to sample: only an exact copy counts)" in text, text
    shown = json.loads(run("show", str(first), "--json", db=any_db))
    assert [(m["sampled"], m["shared_features"]) for m in shown["members"]] == [(False, 0), (False, 0)], shown
    budget = json.loads(run("show", "/docs/budget.txt", "--json", db=any_db))
    assert all(m["sampled"] for m in budget["members"]), budget
    assert "shared -:" not in run("show", "/docs/budget.txt", db=any_db)


def test_show_lists_a_drafts_near_copies_in_other_clusters(any_db: str) -> None:
    """Drafts split by the order they came in (issue 8): B is 20% from the
    first version A and joins it; C is 20% from B but 40% from A, past the
    rule, so it stands alone.  `show C` names B's cluster, through B (its
    nearest member there, not the farther representative); `show A` names
    C; the web view's JSON is the same object (tests/test_web.py)."""
    base, other, third = prose(21).split(), prose(22).split(), prose(23).split()
    a = " ".join(base)
    b = " ".join(base[:240] + other[:60])
    c = " ".join(base[:120] + third[:60] + base[180:240] + other[:60])
    with open_store(any_db) as store:
        ids = {name: store.upsert_item(ItemRecord(f"/drafts/{name}.txt", text=text), fp(text))
               for name, text in (("a", a), ("b", b), ("c", c))}
    shown = json.loads(run("show", "/drafts/c.txt", "--json", db=any_db))
    assert shown["cluster_id"] == ids["c"] and len(shown["members"]) == 1, "C joined a cluster: no split to show"
    [near] = shown["elsewhere"]
    assert (near["item"]["path"], near["cluster_id"]) == ("/drafts/b.txt", ids["a"]), near
    measured = compare(c, b)
    assert (near["word_edit_distance"], near["resemblance"]) == (measured.word_edit_distance, measured.resemblance)
    assert 0.15 < near["word_edit_distance"] < 0.25, near
    text = run("show", "/drafts/a.txt", db=any_db)
    listed = text.split("like it in other clusters", 1)[1]
    assert "/drafts/c.txt" in listed and "/drafts/b.txt" not in listed, text
    # an item with none says so, and the budget notes' far relatives are not listed
    assert "like it in other clusters: none" in run("show", "/docs/notes.txt", db=any_db)
    assert json.loads(run("show", "/docs/budget.txt", "--json", db=any_db))["elsewhere"] == []


def test_search_takes_its_words_quoted_or_not(db: str) -> None:
    """`lifededup search river survey`, as the top-level help writes it
    (`search WORDS`), failed: "Got unexpected extra argument (survey)"."""
    first, second = prose(1).split()[:2]
    unquoted = run("search", first, "budget", "--all", db=db)
    assert unquoted == run("search", f"{first} budget", "--all", db=db)
    assert "budget.txt" in unquoted and "notes" not in unquoted, unquoted
    assert run("search", "--all", first, second, db=db) == run("search", f"{first} {second}", "--all", db=db)


def test_show_takes_a_part_by_the_name_other_commands_print(any_db: str, tmp_path: Path) -> None:
    """`dups` and `failures` print a message of a mailbox as PATH [PART]; show
    refused that name ('no item'), and a failed attachment had no id printed
    to give it instead."""
    printed = next(line.split(maxsplit=1)[1].split("  (")[0] for line in run("dups", db=any_db).splitlines()
                   if "a.mbox [" in line)
    assert printed == "/mail/a.mbox [0]", printed
    shown = json.loads(run("show", printed, "--json", db=any_db))
    assert (shown["item"]["path"], shown["item"]["part"]) == ("/mail/a.mbox", "0"), shown
    assert "no item" in run("show", "/mail/a.mbox [9]", db=any_db, code=1)
    # pasted from aligned columns, two spaces before the part
    assert json.loads(run("show", "/mail/a.mbox  [0]", "--json", db=any_db))["item"]["part"] == "0"
    with open_store(any_db) as store:  # a file whose own name ends so is still found by its name
        store.upsert_item(ItemRecord("/docs/plan [draft]", text="a plan in the drafts"), fp("a plan in the drafts"))
    assert json.loads(run("show", "/docs/plan [draft]", "--json", db=any_db))["item"]["part"] == ""


def test_show_measures_a_large_cluster_a_batch_of_texts_at_a_time(any_db: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A cluster's members are measured a batch of texts at a time (a page
    saved at every visit makes a cluster of thousands): the explanation is
    the same whatever the batch, on both backends, the representative first."""
    from lifededup.store import queries

    whole = json.loads(run("show", "/docs/budget.txt", "--json", db=any_db))
    monkeypatch.setattr(queries, "_TEXTS_A_READ", 1)
    assert json.loads(run("show", "/docs/budget.txt", "--json", db=any_db)) == whole
    assert [m["item"]["path"] for m in whole["members"]] == ["/docs/budget.txt", "/docs/budget v2.txt",
                                                           "/docs/budget copy.txt"]
    assert [m["resemblance"] is not None for m in whole["members"]] == [True] * 3, "a member was not measured"


def test_show_of_a_cluster_whose_member_lost_its_fingerprint_says_so(db: str) -> None:
    """A clusters row without its fingerprints row (a hand edit): `show`
    names the item and what to run, as `check` would, not a traceback."""
    with open_store(db) as store:
        [(copy,)] = store.execute("SELECT id FROM items WHERE path = '/docs/budget copy.txt'")[1]
        store.execute("DELETE FROM fingerprints WHERE item_id = :i", {"i": copy})
    said = run("show", "/docs/budget.txt", db=db, code=1)
    assert f"holds item(s) {copy} with no fingerprint" in said and "lifededup recluster" in said, said
    assert "Traceback" not in said


def test_check_passes_then_finds_what_was_broken(any_db: str) -> None:
    db = any_db
    assert run("check", db=db).startswith("ok:")
    # a member moved under an unrelated representative by hand
    run("sql", "--write", "UPDATE clusters SET cluster_id = 4 WHERE item_id = 2", db=db)
    out = run("check", db=db, code=1)
    assert "member-not-near" in out and "[items 2]" in out, out
    assert "`lifededup recluster` rebuilds the clusters" in out.splitlines()[-1], out  # what mends it
    run("recluster", db=db)
    assert run("check", db=db).startswith("ok:")


def test_check_names_a_dropped_index_and_the_statement_that_makes_it_again(any_db: str,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    db = any_db
    run("sql", "--write", "DROP INDEX ix_clusters_members", db=db)
    # a search counting its matches' clusters (past the first read: here of one row) reads through that index
    monkeypatch.setattr(results, "_READ_ROWS", 1)
    if db.startswith("postgresql://"):  # the server plans without it
        assert "budget" in run("search", "budget", "--limit", "1", db=db)
    else:  # SQLite is told which index to read
        out = run("search", "budget", "--limit", "1", db=db, code=1)
        assert "lost an index" in out and "ix_clusters_members" in out and "lifededup check" in out, out
    out = run("check", db=db, code=1)
    assert "missing-index" in out and "ix_clusters_members" in out and "recluster" not in out, out
    statement = re.search(r"lifededup sql --write '([^']+)'", out)
    assert statement, out
    run("sql", "--write", statement.group(1), db=db)
    assert run("check", db=db).startswith("ok:")
    assert "budget" in run("search", "budget", "--limit", "1", db=db)


def test_recluster_transitive_and_back(any_db: str) -> None:
    db = any_db
    said = run("recluster", "--method", "transitive", db=db)
    assert said.startswith("reclustered (transitive, linked by shared features): "), said  # not its verified rule
    assert json.loads(run("sql", "--json", "SELECT value FROM params WHERE name = 'cluster_method'", db=db)) == [
        {"value": '"transitive"'}
    ]
    assert "transitive" in run("show", "1", db=db)
    run("recluster", "--method", "conservative", db=db)
    assert run("check", db=db).startswith("ok:")


def test_store_errors_are_messages(tmp_path: Path) -> None:
    out = run("dups", "--db", str(tmp_path / "none.db"), code=1)
    assert "no store at" in out, out
    out = run("sql", "SELECT 1", "--db", "mysql://x/y", code=1)
    assert "SQLite" in out, out


def on_a_terminal(command: list[str]) -> tuple[subprocess.CompletedProcess[bytes], bytes]:
    """Run ``command`` with stderr on a real (pseudo-)terminal 100 columns
    wide: the process, and what the terminal was shown."""
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    try:
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=terminal, timeout=120)
        os.close(terminal)
        shown = b""
        while True:
            try:
                chunk = os.read(controller, 4096)
            except OSError:  # the terminal is closed and read to its end
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(controller)
    return done, shown


def test_recluster_on_a_terminal_shows_its_progress_and_in_a_pipe_only_its_result(db: str) -> None:
    """A terminal for stderr: the bar of the texts placed; a pipe: the one
    line of the result, no bar."""
    command = [sys.executable, "-m", "lifededup", "recluster", "--db", db]
    done, shown = on_a_terminal(command)
    assert done.returncode == 0 and b"reclustered (conservative" in done.stdout, done.stdout
    assert b"placing texts" in shown and b"/5.00 " in shown, shown  # of the five texts with text
    piped = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert piped.returncode == 0 and piped.stderr == "", piped.stderr


def test_check_on_a_terminal_says_what_it_checks_and_in_a_pipe_only_its_result(any_db: str) -> None:
    """Each part of `check` as it starts, on a terminal (minutes at a million
    items); in a pipe, only the result."""
    command = [sys.executable, "-m", "lifededup", "check", "--db", any_db]
    done, shown = on_a_terminal(command)
    assert done.returncode == 0 and b"ok: 7 items" in done.stdout, done.stdout
    said = shown.decode()
    for part in ("the cluster invariants", "the sketch keys", "the search index"):
        assert f"checking {part}..." in said, said
    assert ("checking every item's search words" in said) == any_db.startswith("postgresql"), said
    piped = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert piped.returncode == 0 and piped.stderr == "", piped.stderr


def test_sql_without_write_never_says_rows_changed_and_an_empty_statement_is_refused(any_db: str) -> None:
    """`sql "SELECT"` on PostgreSQL (a row of no columns) printed '1 row(s)
    changed' though the store is read-only; `sql ""` printed nothing, exit 0."""
    bare = run("sql", "SELECT" if "postgresql" in any_db else "SELECT 1 WHERE 0", db=any_db)
    assert "changed" not in bare, bare
    for empty in ("", "  ;  "):
        assert "give one SQL statement" in run("sql", empty, db=any_db, code=2)
    assert run("sql", "--write", "UPDATE items SET title = title WHERE id = 1", db=any_db) == "1 row(s) changed\n"


def test_a_command_that_only_reads_leaves_an_empty_file_as_it_is(tmp_path: Path) -> None:
    """`search --db notes.txt` on an empty file made it a 217 kB store: the
    reading commands brought "an older store" up to date. They now say there
    is no store there, and leave the file alone; index makes it a store, as asked."""
    empty = tmp_path / "notes.txt"
    empty.write_bytes(b"")
    for args in (["search", "river"], ["dups"], ["stats"], ["sql", "SELECT 1"], ["failures"]):
        out = run(*args, "--db", str(empty), code=1)
        assert "no store at" in out and "empty file" in out, (args, out)
        assert empty.stat().st_size == 0, f"{args[0]} wrote to the file"
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text(prose(1))
    run("index", "--db", str(empty), str(folder))
    assert empty.stat().st_size > 0 and run("dups", "--db", str(empty))


def test_dups_names_a_mailboxs_message_by_its_subject(tmp_path: Path) -> None:
    """A tester's dups listed 'Inbox [message 3]' beside 'Inbox [message 9]'
    with nothing to tell which mail either was."""
    db = str(tmp_path / "s.db")
    text = prose(4)
    with open_store(db) as store, store.transaction():
        box = store.upsert_item(ItemRecord("/mail/Inbox", kind="mailbox"), None)
        store.upsert_item(ItemRecord("/mail/Inbox", part="message 3", parent_id=box, kind="email",
                                     title="Boat trip", text=text), fp(text))
        store.upsert_item(ItemRecord("/mail/Sent.eml", kind="email", title="Boat trip", text=text), fp(text))
    listed = run("dups", db=db)
    assert '/mail/Inbox [message 3]  "Boat trip"' in listed, listed
    assert "/mail/Sent.eml  (exact copy)\n" in listed, f"a file is named by its path alone: {listed}"


def test_show_takes_a_part_as_a_second_argument(store_url: str, tmp_path: Path) -> None:
    """`show Inbox.mbox 'message 2'` -- the part typed apart, as a shell invites -- said "Got unexpected
    extra argument (message 2)"; it shows the part, as `show 'Inbox.mbox [message 2]'` does."""
    import email.message
    import mailbox

    folder = tmp_path / "Mail"
    folder.mkdir()
    box = mailbox.mbox(str(folder / "Inbox.mbox"))
    for n, subject in enumerate(("Boat trip", "Re: Boat trip"), 1):
        mail = email.message.EmailMessage()
        mail["From"], mail["To"], mail["Subject"] = "ann@example.org", "bob@example.org", subject
        mail["Message-ID"] = f"<{n}@example.org>"
        mail.set_content(prose(n))
        box.add(mail)
    box.flush()
    box.close()
    run("index", "-j", "1", str(folder), db=store_url)
    mbox = str(folder / "Inbox.mbox")
    apart = run("show", mbox, "message 2", db=store_url)
    assert apart.startswith(f"item 3: {mbox} [message 2] (email, ok)\n"), apart
    assert apart == run("show", f"{mbox} [message 2]", db=store_url)
    assert "no item" in run("show", mbox, "message 9", db=store_url, code=1)
