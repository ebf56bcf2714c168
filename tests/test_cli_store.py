"""The store's commands, and the README's store section: every table and
column documented, every SQL example and command run against a real store."""

from __future__ import annotations

import csv
import io
import json
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner
from store_samples import fp, prose, revised

from lifededup.cli import main
from lifededup.model import shared_features
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
    path = tmp_path / "archive.db"
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
    return str(path)


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


def test_readme_sql_examples_run_and_return_rows(db: str) -> None:
    examples = blocks("sql")
    assert len(examples) >= 5, "the README's store section should carry its SQL examples"
    for sql in examples:
        rows = json.loads(run("sql", "--json", sql.strip().rstrip(";"), db=db))
        assert rows, f"README example returned no rows on a populated store:\n{sql}"


def test_readme_collapse_example_collapses(db: str) -> None:
    collapse = next(sql for sql in blocks("sql") if "MATERIALIZED" in sql)
    rows = json.loads(run("sql", "--json", collapse.strip().rstrip(";"), db=db))
    assert [(r["path"], r["hidden"]) for r in rows] == [("/docs/budget.txt", 2)], rows


def test_readme_commands_run(db: str) -> None:
    for line in blocks("sh")[0].strip().splitlines():
        args = shlex.split(line)
        assert args[0] == "lifededup", line
        run(*args[1:], db=db)


def test_readme_python_example_runs() -> None:
    for code in blocks("python"):
        exec(compile(code, "README.md", "exec"), {})  # noqa: S102 -- the README's own example


def test_sql_output_formats(db: str) -> None:
    query = "SELECT id, path FROM items WHERE path LIKE '/docs/budget%' ORDER BY id"
    table = run("sql", query, db=db)
    assert table.splitlines()[0].split() == ["id", "path"] and "/docs/budget copy.txt" in table, table
    as_csv = list(csv.reader(io.StringIO(run("sql", "--csv", query, db=db))))
    assert as_csv[0] == ["id", "path"] and len(as_csv) == 4, as_csv
    as_json = json.loads(run("sql", "--json", query, "--db", db))
    assert [r["path"] for r in as_json] == ["/docs/budget.txt", "/docs/budget v2.txt", "/docs/budget copy.txt"]
    err = run("sql", "SELEC nonsense", db=db, code=1)
    assert "SQL error" in err and "syntax" in err, err


def test_dups_lists_clusters_largest_first(db: str) -> None:
    found = json.loads(run("dups", "--json", db=db))
    assert [(c["size"], c["representative"]["path"]) for c in found] == [(3, "/docs/budget.txt"),
                                                                         (2, "/docs/notes.txt")], found
    assert [m["path"] for m in found[0]["members"]] == ["/docs/budget v2.txt", "/docs/budget copy.txt"]
    text = run("dups", "--limit", "1", db=db)
    assert "cluster 1 (3 items)" in text and "notes" not in text, text


def test_show_explains_membership(db: str) -> None:
    shown = json.loads(run("show", "/docs/budget v2.txt", "--json", db=db))
    members = {m["item"]["path"]: m for m in shown["members"]}
    rep, near, copy = members["/docs/budget.txt"], members["/docs/budget v2.txt"], members["/docs/budget copy.txt"]
    assert rep["representative"] and rep["resemblance"] == 1.0
    assert copy["exact"] and copy["resemblance"] == 1.0
    assert not near["exact"] and near["shared_features"] >= 2 and 0.9 < near["resemblance"] < 1.0, near
    text = run("show", "3", db=db)
    assert "exact copy" in text and "near copy" in text and "representative" in text, text
    assert "no item" in run("show", "/nowhere", db=db, code=1)
    assert "no text" in run("show", "/docs/locked.pdf", db=db)


def test_check_passes_then_finds_what_was_broken(db: str) -> None:
    assert run("check", db=db).startswith("ok:")
    # a member moved under an unrelated representative by hand
    run("sql", "--write", "UPDATE clusters SET cluster_id = 4 WHERE item_id = 2", db=db)
    out = run("check", db=db, code=1)
    assert "member-not-near" in out and "[items 2]" in out, out
    run("recluster", db=db)
    assert run("check", db=db).startswith("ok:")


def test_recluster_transitive_and_back(db: str) -> None:
    assert "transitive" in run("recluster", "--method", "transitive", db=db)
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
