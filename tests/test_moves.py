"""A file moved from one watched folder to another keeps its item, id and
cluster: for `lifededup index A B`, for `index B` alone, and for the watcher
with real watchdog events across two watched folders; by its bytes, or by its
inode when it was also changed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from index_samples import item_ids, write_text
from store_samples import prose
from test_watch import eventually, watching

from lifededup.cli import main
from lifededup.index import IndexConfig, run, run_in_folders
from lifededup.store import Store, WatchedFolder, add_folder, check_store, list_folders, open_store
from lifededup.watch import Debouncer


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "A", tmp_path / "B"
    for i in range(3):
        write_text(a / "notes" / f"note{i}.txt", seed=i)
    write_text(b / "kept.txt", seed=9)
    return a.resolve(), b.resolve()


def cluster_of(store: Store, item_id: int) -> int:
    _, rows = store.execute("SELECT cluster_id FROM clusters WHERE item_id = :i", {"i": item_id})
    assert rows, f"item {item_id} has no cluster"
    return int(rows[0][0])  # type: ignore[call-overload]


def index(store: Store, *paths: Path) -> tuple[int, int, int, int]:
    summary = run_in_folders(store, paths, list_folders(store), IndexConfig(workers=1))
    return summary.new, summary.updated, summary.moved, summary.removed


def registered(tmp_path: Path, a: Path, b: Path) -> Store:
    store = open_store(tmp_path / "s.db")
    add_folder(store, str(a))
    add_folder(store, str(b))
    assert index(store, a, b) == (4, 0, 0, 0)
    return store


def test_index_a_b_follows_a_file_moved_between_watched_folders(tmp_path: Path, folders: tuple[Path, Path]) -> None:
    a, b = folders
    with registered(tmp_path, a, b) as store:
        old, new = a / "notes" / "note1.txt", b / "note1.txt"
        before = item_ids(store)[str(old)]
        cluster = cluster_of(store, before)
        shutil.move(old, new)
        got = index(store, a, b)
        assert got == (0, 0, 1, 0), f"want (new, updated, moved, removed) = (0, 0, 1, 0), got {got}"
        assert item_ids(store).get(str(new)) == before, "the moved file must keep its item id"
        assert cluster_of(store, before) == cluster, "and its cluster"
        assert check_store(store) == []


def test_a_file_moved_then_changed_is_followed_by_its_inode(tmp_path: Path, folders: tuple[Path, Path]) -> None:
    a, b = folders
    with registered(tmp_path, a, b) as store:
        old, new = a / "notes" / "note2.txt", b / "note2.txt"
        before = item_ids(store)[str(old)]
        old.rename(new)  # one file system: the inode stays
        with new.open("a", encoding="utf-8") as handle:
            handle.write(prose(40, 30) + "\n")
        got = index(store, a, b)
        assert got == (0, 1, 1, 0), f"moved and read again under its item, got {got}"
        assert item_ids(store).get(str(new)) == before, "the moved and changed file must keep its item id"
        _, [(text,)] = store.execute("SELECT text FROM items WHERE id = :i", {"i": before})
        assert prose(40, 30) in str(text), "its new text is stored"
        assert check_store(store) == []


def test_a_new_file_that_reuses_an_inode_under_another_name_is_new(tmp_path: Path,
                                                                   folders: tuple[Path, Path]) -> None:
    a, b = folders
    with registered(tmp_path, a, b) as store:
        old, new = a / "notes" / "note0.txt", b / "other name.txt"
        old.rename(new)
        new.write_text(prose(41) + "\n", encoding="utf-8")  # another name, other bytes: not the same file
        got = index(store, a, b)
        assert got == (1, 0, 0, 1), f"want a new item and a removal, got {got}"


def test_index_of_the_destination_alone_follows_the_move(tmp_path: Path, folders: tuple[Path, Path]) -> None:
    a, b = folders
    with registered(tmp_path, a, b) as store:
        old, new = a / "notes" / "note0.txt", b / "from A.txt"
        before = item_ids(store)[str(old)]
        shutil.move(old, new)
        got = index(store, b)
        assert got == (0, 0, 1, 0), f"`index B` alone must find the file gone from A, got {got}"
        assert item_ids(store).get(str(new)) == before
        assert str(old) not in item_ids(store)


def test_a_copy_of_a_file_on_an_unplugged_disk_is_a_new_item(tmp_path: Path, folders: tuple[Path, Path]) -> None:
    a, b = folders
    with registered(tmp_path, a, b) as store:
        shutil.copy(a / "notes" / "note0.txt", b / "copy.txt")
        unplugged = tmp_path / "unplugged"
        a.rename(unplugged)  # the folder is not there: its files are not gone
        got = index(store, b)
        assert got == (1, 0, 0, 0), f"want the copy as a new item, got {got}"
        assert str(a / "notes" / "note0.txt") in item_ids(store), "the unplugged folder's items are kept"


def test_a_watched_folder_renamed_keeps_its_items_at_its_new_name(tmp_path: Path,
                                                                  folders: tuple[Path, Path]) -> None:
    """``mv Docs Documents; folders add Documents``: each file is the file
    stored under Docs (its device, inode and name), so its item moves with
    it -- read again beside them, every file showed twice until Docs was
    forgotten, under new ids, its clusters made again."""
    a, b = folders
    with registered(tmp_path, a, b) as store:
        before = {path: item for path, item in item_ids(store).items() if path.startswith(str(a))}
        clusters = {item: cluster_of(store, item) for item in before.values()}
        renamed = a.with_name("A renamed")
        a.rename(renamed)
        add_folder(store, str(renamed))
        got = index(store, renamed)
        assert got == (0, 0, 3, 0), f"want (new, updated, moved, removed) = (0, 0, 3, 0), got {got}"
        after = item_ids(store)
        for path, item in before.items():
            assert after.get(str(renamed) + path[len(str(a)):]) == item, f"{path} keeps its item at its new name"
            assert cluster_of(store, item) == clusters[item]
        assert not any(p.startswith(str(a) + "/") for p in after), after
        assert check_store(store) == []
    removed = CliRunner().invoke(main, ["folders", "remove", str(a), "--db", str(tmp_path / "s.db")])
    assert removed.exit_code == 0, removed.output
    assert "it is not there any more, and holds no item" in removed.output, removed.output
    assert "twice" not in removed.output, "nothing is left to show twice"


def test_the_watchers_catch_up_follows_a_watched_folder_renamed(tmp_path: Path,
                                                                folders: tuple[Path, Path]) -> None:
    a, b = folders
    with open_store(tmp_path / "watch.db") as store:
        run_in_folders(store, [a, b], [WatchedFolder(str(a)), WatchedFolder(str(b))], IndexConfig(workers=1))
        before = item_ids(store)[str(a / "notes" / "note0.txt")]
    renamed = a.with_name("A2")
    a.rename(renamed)
    with watching(tmp_path, renamed, also=(b,)) as store:
        assert item_ids(store).get(str(renamed / "notes" / "note0.txt")) == before, "the catch-up scan follows it"
        assert len(item_ids(store)) == 4, item_ids(store)


def test_index_of_unregistered_folders_follows_moves_between_them(tmp_path: Path,
                                                                  folders: tuple[Path, Path]) -> None:
    a, b = folders
    with open_store(tmp_path / "s.db") as store:
        run(store, [a, b], IndexConfig(workers=1))
        before = item_ids(store)[str(a / "notes" / "note1.txt")]
        shutil.move(a / "notes", b / "notes")
        summary = run(store, [a, b], IndexConfig(workers=1))
        assert (summary.new, summary.moved, summary.removed) == (0, 3, 0), summary
        assert item_ids(store)[str(b / "notes" / "note1.txt")] == before


def test_cli_index_a_b_reports_the_move(tmp_path: Path, folders: tuple[Path, Path]) -> None:
    a, b = folders
    db = str(tmp_path / "cli.db")
    runner = CliRunner()
    assert runner.invoke(main, ["folders", "add", str(a), str(b), "--db", db]).exit_code == 0
    assert runner.invoke(main, ["index", str(a), str(b), "--db", db, "-j", "1"]).exit_code == 0
    shutil.move(a / "notes" / "note1.txt", b / "note1.txt")
    result = runner.invoke(main, ["index", str(a), str(b), "--db", db, "-j", "1"])
    assert result.exit_code == 0, result.output
    assert "new 0, updated 0, unchanged 3, moved 1, removed 0" in result.output, result.output


def test_watcher_follows_files_and_folders_moved_between_two_watched_folders(
        tmp_path: Path, folders: tuple[Path, Path]) -> None:
    a, b = folders
    with watching(tmp_path, a, also=(b,)) as store:
        ids = item_ids(store)
        assert len(ids) == 4, ids
        shutil.move(a / "notes" / "note1.txt", b / "note1.txt")
        eventually(lambda: str(b / "note1.txt") in item_ids(store) and str(a / "notes" / "note1.txt")
                   not in item_ids(store), "the move from A to B is indexed")
        assert item_ids(store)[str(b / "note1.txt")] == ids[str(a / "notes" / "note1.txt")], \
            "a file moved to another watched folder must keep its item"
        shutil.move(a / "notes", b / "notes")  # a whole folder, across watches
        eventually(lambda: str(b / "notes" / "note2.txt") in item_ids(store)
                   and not any(p.startswith(str(a)) for p in item_ids(store)), "the folder move is indexed")
        after = item_ids(store)
        for name in ("note0.txt", "note2.txt"):
            assert after[str(b / "notes" / name)] == ids[str(a / "notes" / name)], f"{name} lost its item"
        # and back, the other way
        shutil.move(b / "kept.txt", a / "kept.txt")
        eventually(lambda: str(a / "kept.txt") in item_ids(store), "the move from B to A is indexed")
        assert item_ids(store)[str(a / "kept.txt")] == ids[str(b / "kept.txt")]
        assert check_store(store) == []


def test_watcher_catch_up_follows_a_move_made_while_it_was_not_running(
        tmp_path: Path, folders: tuple[Path, Path]) -> None:
    a, b = folders
    with open_store(tmp_path / "watch.db") as store:
        run_in_folders(store, [a, b], [WatchedFolder(str(a)), WatchedFolder(str(b))], IndexConfig(workers=1))
        before = item_ids(store)[str(a / "notes" / "note0.txt")]
    shutil.move(a / "notes" / "note0.txt", b / "note0.txt")
    with watching(tmp_path, a, also=(b,)) as store:
        assert item_ids(store).get(str(b / "note0.txt")) == before, "the catch-up scan must follow the move"


def test_debouncer_settles_the_two_halves_of_a_move_together() -> None:
    now = [0.0]
    stats = {"/A/x": None, "/B/x": (10, 1.0), "/B/late": (5, 2.0)}
    debouncer = Debouncer(1.0, clock=lambda: now[0], stat=lambda p: stats[p])
    debouncer.note("/A/x")          # the deletion, seen by A's watch
    now[0] = 0.01
    debouncer.note("/B/x")          # the creation, seen by B's watch a moment later
    now[0] = 0.9
    debouncer.note("/B/late")       # an unrelated event much later
    now[0] = 1.005                  # /A/x has waited its delay, /B/x not quite
    got = debouncer.settled()
    assert got == ["/A/x", "/B/x"], f"a move's two halves must settle in one batch, got {got}"
    assert len(debouncer) == 1, "the later event still waits"


def test_0008_upgrades_a_populated_store_and_the_next_run_fills_the_identity(
        store_url: str, folders: tuple[Path, Path]) -> None:
    from test_migrations import ids_written, upgrade_to

    from lifededup.store.opening import make_engine, resolve

    a, _ = folders
    note = a / "notes" / "note0.txt"
    db = store_url
    upgrade_to(db, "0007")
    stat = note.stat()
    engine = make_engine(resolve(db), readonly=False)
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO items (id, path, part, kind, status, indexed_at, text, size, mtime, raw_sha1) VALUES"
            " (7, :path, '', 'document', 'ok', '2026-01-01 00:00:00', 'old text', :size, :mtime, 'x')",
            {"path": str(note), "size": stat.st_size, "mtime": stat.st_mtime})
        ids_written(conn)
    engine.dispose()
    with open_store(db) as store:
        _, rows = store.execute("SELECT id, path, device, inode FROM items")
        assert rows == [(7, str(note), None, None)], f"rows kept, identity unknown: {rows}"
        run(store, [note], IndexConfig(workers=1))  # unchanged: not read, but identified
        _, [(device, inode, text)] = store.execute("SELECT device, inode, text FROM items WHERE id = 7")
        assert (device, inode) == (stat.st_dev, stat.st_ino), f"the next run fills the identity: {device}, {inode}"
        assert text == "old text", "an unchanged file is not read again"
