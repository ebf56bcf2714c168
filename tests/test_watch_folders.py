"""Watched folders in the store: the API, revision 0004 on a populated store,
and ``lifededup folders``."""

from __future__ import annotations

import shutil

from pathlib import Path

from click.testing import CliRunner
from test_migrations import head, upgrade_to

from lifededup.cli import main
from lifededup.store import add_folder, list_folders, mark_scanned, open_store, remove_folder
from lifededup.store.opening import make_engine, resolve


def test_revision_0004_keeps_folders_and_gives_them_no_patterns(store_url: str) -> None:
    path = store_url
    upgrade_to(path, "0003")
    engine = make_engine(resolve(path), readonly=False)
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO watched_folders (path, added_at, last_scanned_at) VALUES"
            " ('/home/zoë/Mail', '2026-01-01 00:00:00', NULL),"
            " ('/home/zoë/Documents', '2026-01-02 10:00:00.500000', '2026-01-03 00:00:00')"
        )
        conn.exec_driver_sql(
            "INSERT INTO items (path, part, kind, status, indexed_at) VALUES ('/home/zoë/Mail/a.txt', '', "
            "'document', 'ok', '2026-01-01 00:00:00')"
        )
    engine.dispose()
    with open_store(path) as store:
        _, [(revision,)] = store.execute("SELECT version_num FROM alembic_version")
        assert revision == head(), revision
        folders = list_folders(store)
        got = [(f.path, f.include, f.exclude, str(f.added_at), str(f.last_scanned_at)) for f in folders]
        assert got == [
            ("/home/zoë/Documents", (), (), "2026-01-02 10:00:00.500000", "2026-01-03 00:00:00"),
            ("/home/zoë/Mail", (), (), "2026-01-01 00:00:00", "None"),
        ], got
        _, items = store.execute("SELECT path FROM items")
        assert items == [("/home/zoë/Mail/a.txt",)], items
        add_folder(store, "/home/zoë/Mail", include=("*.mbox",))
        assert list_folders(store)[1].include == ("*.mbox",)


def test_folder_api_round_trip(tmp_path: Path) -> None:
    with open_store(tmp_path / "s.db") as store:
        added = add_folder(store, "/a", include=("*.txt", "docs/*.pdf"), exclude=("tmp",))
        assert (added.path, added.include, added.exclude) == ("/a", ("*.txt", "docs/*.pdf"), ("tmp",)), added
        assert added.added_at is not None and added.last_scanned_at is None
        again = add_folder(store, "/a", exclude=("cache",))
        assert (again.include, again.exclude, again.added_at) == ((), ("cache",), added.added_at), again
        mark_scanned(store, "/a")
        assert list_folders(store)[0].last_scanned_at is not None
        assert remove_folder(store, "/a") == 0 and remove_folder(store, "/a") is None  # removed, none forgotten; then not watched
        assert list_folders(store) == []


def test_folders_list_before_any_store_says_how_to_add_one_and_makes_no_file(tmp_path: Path) -> None:
    db = tmp_path / "not yet.db"
    listed = CliRunner().invoke(main, ["folders", "list", "--db", str(db)])
    assert listed.exit_code == 0 and "no watched folders of the machine" in listed.output, listed.output
    assert "lifededup folders add PATH" in listed.output and not db.exists(), "a listing made the store"


def test_cli_folders_add_list_remove(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    docs = tmp_path / "Documents"
    docs.mkdir()
    runner = CliRunner()
    added = runner.invoke(main, ["folders", "add", "--db", db, str(docs), "--exclude", "*.log", "--include", "*.txt"])
    assert added.exit_code == 0, added.output
    listed = runner.invoke(main, ["folders", "list", "--db", db])
    assert listed.exit_code == 0 and str(docs.resolve()) in listed.output, listed.output
    assert "include *.txt" in listed.output and "exclude *.log" in listed.output, listed.output
    # a disk not plugged in yet: watched, said so, scanned once it appears (it was refused: "does not exist",
    # so neither set up before plugging it in, nor its patterns changed while it was away)
    disk = tmp_path / "usb disk"
    missing = runner.invoke(main, ["folders", "add", "--db", db, str(disk), "--include", "*.pdf"])
    assert missing.exit_code == 0 and "is not there now (a disk not plugged in?)" in missing.output, missing.output
    changed = runner.invoke(main, ["folders", "add", "--db", db, str(disk), "--include", "*.odt"])
    assert changed.exit_code == 0 and "include *.odt" in changed.output, changed.output
    a_file = tmp_path / "notes.txt"
    a_file.write_text("not a folder")
    refused = runner.invoke(main, ["folders", "add", "--db", db, str(a_file)])
    assert refused.exit_code != 0 and "is a file" in refused.output, refused.output
    removed = runner.invoke(main, ["folders", "remove", "--db", db, str(docs)])
    assert removed.exit_code == 0, removed.output
    not_watched = runner.invoke(main, ["folders", "remove", "--db", db, str(docs)])
    assert not_watched.exit_code != 0 and "not watched" in not_watched.output, not_watched.output
    # the whole system: added as asked, with what it means and what to add instead; a folder of one's own: silent
    system = runner.invoke(main, ["folders", "add", "--db", db, "/"])
    assert system.exit_code == 0 and "/ is the system's, not only yours" in system.output, system.output
    assert "~/Documents" in system.output and "is the system's" not in added.output, system.output


def test_a_watched_folder_renamed_then_removed_can_forget_its_items(tmp_path: Path) -> None:
    """`mv Docs /other-disk/Documents; folders add ...; folders remove Docs`, as a
    user moves a folder to another disk: Docs's items stayed, every file twice in the
    store, and `folders remove --forget Docs` then said it was not watched
    (helper V).  The removal says so, and --forget forgets a gone folder's
    items though it is no longer watched; a folder still there is refused."""
    from index_samples import write_text

    db = str(tmp_path / "s.db")
    docs = tmp_path / "Docs"
    write_text(docs / "a.txt", seed=1)
    write_text(docs / "b.txt", seed=2)
    runner = CliRunner()

    def cli(*args: str) -> str:
        done = runner.invoke(main, [*args, "--db", db])
        assert done.exit_code == 0, done.output
        return done.output

    cli("folders", "add", str(docs))
    cli("index", str(docs))
    # moved to another disk, as mv does across file systems: copied, then deleted -- new inodes, so not
    # followed as a rename is (test_moves.py: its items move with it)
    shutil.copytree(docs, tmp_path / "Documents")
    shutil.rmtree(docs)
    cli("folders", "add", str(tmp_path / "Documents"))
    cli("index", str(tmp_path / "Documents"))
    said = cli("folders", "remove", str(docs))
    assert "is not there any more" in said and f"folders remove --forget {docs}" in said, said
    assert cli("sql", "SELECT count(*) AS n FROM items").split() == ["n", "-", "4"]
    forgot = cli("folders", "remove", "--forget", str(docs))
    assert f"{docs} was not watched; it is not there any more: forgot its 2 item(s)" in forgot, forgot
    listed = cli("sql", "SELECT path FROM items ORDER BY path")
    assert "Documents/a.txt" in listed and "/Docs/" not in listed, listed
    kept = tmp_path / "Kept"
    write_text(kept / "c.txt", seed=3)
    cli("index", str(kept))
    refused = runner.invoke(main, ["folders", "remove", "--forget", str(kept), "--db", db])
    assert refused.exit_code != 0 and "is not watched" in refused.output, refused.output


def test_a_folder_removed_while_its_files_are_read_gets_none_written_after(store_url: str, tmp_path: Path) -> None:
    """The watcher of the store's folders scanned a folder removed meanwhile
    to its end: `folders remove --forget` said it forgot 699 items, and the
    scan wrote the folder's 9,014 files back, for good.  Each batch now
    checks, in its own transaction, that its files' folder is still
    watched: a batch committed before the removal is forgotten by it, none
    is written after it, and the run stops there."""
    from index_samples import write_text

    from lifededup.index import IndexConfig, Quiet, run_in_folders
    from lifededup.store import items_under

    folder = tmp_path / "big"
    for n in range(40):
        write_text(folder / f"note{n:02}.txt", seed=n)
    path = str(folder.resolve())
    with open_store(store_url) as other:  # the user's `folders add`, then `folders remove --forget`
        add_folder(other, path)

        class RemovedAfterTheFirstBatch(Quiet):
            def file_done(self, done: str, size: int) -> None:
                if items_under(other, path) and list_folders(other):
                    remove_folder(other, path, forget=True)

        with open_store(store_url) as store:
            summary = run_in_folders(store, [path], list_folders(store), IndexConfig(workers=1, batch_items=4),
                                     progress=RemovedAfterTheFirstBatch(), named=False,
                                     watched=lambda: [f.path for f in list_folders(store)])
            assert summary.interrupted, summary
            assert items_under(store, path) == 0, "files written under a folder forgotten while it was read"
            assert list_folders(store) == []


def test_a_watched_folder_inside_another_keeps_its_own_patterns_whichever_is_indexed(store_url: str,
                                                                                    tmp_path: Path) -> None:
    """~/archive watched, ~/archive/Mail watched with --include '*.eml':
    `index archive` walked Mail by archive's patterns and took note.txt in,
    `index archive/Mail` took it out, and the next `index archive` back in
    under a new id.  A file follows the innermost watched folder's patterns."""
    from index_samples import write_text

    from lifededup.index import IndexConfig, run_in_folders

    archive = tmp_path / "archive"
    write_text(archive / "a.txt", seed=1)
    write_text(archive / "Mail" / "note.txt", seed=2)
    (archive / "Mail" / "m.eml").write_text("From: a@example.org\nSubject: Tides\n\nThe tide tables for June.\n")
    with open_store(store_url) as store:
        add_folder(store, str(archive.resolve()))
        add_folder(store, str((archive / "Mail").resolve()), include=("*.eml",))

        def indexed(path: Path) -> dict[str, int]:
            run_in_folders(store, [path], list_folders(store), IndexConfig(workers=1))
            _, rows = store.execute("SELECT path, id FROM items WHERE part = ''")
            return {Path(str(p)).relative_to(archive.resolve()).as_posix(): int(str(i)) for p, i in rows}

        first = indexed(archive)
        assert set(first) == {"a.txt", "Mail/m.eml"}, first
        assert indexed(archive / "Mail") == first
        assert indexed(archive) == first, "indexing the outer folder again changed the items"


def test_folders_given_a_store_name_it_in_the_commands_they_suggest(tmp_path: Path) -> None:
    """`folders add|list|remove --db STORE` suggest `watch --db STORE`, `folders add PATH --db STORE`,
    `folders list --db STORE`: bare, each acted on the default store, which holds none of these folders."""
    db, folder = tmp_path / "archive.db", tmp_path / "Documents"
    folder.mkdir()
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}

    def run(*args: str) -> str:
        done = CliRunner().invoke(main, [*args, "--db", str(db)], env=env)
        return done.output

    assert f"lifededup folders add PATH --db {db}" in run("folders", "list")
    added = run("folders", "add", str(folder))
    assert f"index them now with `lifededup watch --db {db}` (or `lifededup daemon start --db {db}`)" in added
    assert f"is not watched; see `lifededup folders list --db {db}`" in run("folders", "remove", str(tmp_path))
    assert run("folders", "list").startswith(f"{folder}  (last scanned never)")
    assert not (tmp_path / "data").exists(), "a command made the default store"
