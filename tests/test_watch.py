"""The watcher with real watchdog events in temporary folders: after each
change the store comes to match the folder exactly (polled with a generous
timeout, never a fixed sleep)."""

from __future__ import annotations

import functools
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from index_samples import assert_matches, files_on_disk, item_ids, stored_files, write_html, write_text
from store_samples import prose

from lifededup.index import IndexConfig
from lifededup.store import Store, WatchedFolder, add_folder, list_folders, open_store, remove_folder
from lifededup.watch import Debouncer, Watcher, WatchStatus
from lifededup.watch.debounce import MAX_WAIT_S
from lifededup.watch.status import FOLLOW_S

TIMEOUT_S = 60.0


def eventually(check: Callable[[], bool], what: str, timeout: float = TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise AssertionError(f"not within {timeout:g} s: {what}")


@contextmanager
def watching(tmp_path: Path, root: Path, *, rescan_every: float = 3600.0,
             ignore: tuple[str, ...] = (), also: tuple[Path, ...] = (), store_url: str | None = None,
             machine: str | None = None, retry_after: float = 1.0, delay: float = 0.3, workers: int = 2,
             max_wait: float = MAX_WAIT_S, reports: list[WatchStatus] | None = None,
             follow_every: float = FOLLOW_S) -> Iterator[Store]:
    """A watcher on ``root`` in a thread with a store of its own (or
    ``store_url``'s, as ``machine``); yields a second connection to read the
    store, once the catch-up scan is done.  Work the store refuses is tried
    again after ``retry_after`` seconds (the daemon's 30 would only slow the
    tests); a file written without a pause is read every ``max_wait``
    seconds (the watcher's 60 unless given); ``reports`` gets a
    copy of every status the watcher reports; it looks at its folders every
    ``follow_every`` seconds."""
    db: Path | str = store_url or tmp_path / "watch.db"
    open_store(db).close()
    # read-only, as `lifededup sql` and a search read while the watcher writes:
    # a "database is locked" would fail the test
    reader = open_store(db, readonly=True)
    stop, caught_up = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def report(status: WatchStatus) -> None:
        if reports is not None:
            reports.append(WatchStatus(**vars(status)))
        if status.state == "watching":
            caught_up.set()

    def target() -> None:
        try:
            with open_store(db, machine=machine) as store:
                folders = [WatchedFolder(str(p.resolve())) for p in (root, *also)]
                Watcher(store, folders, IndexConfig(workers=workers), stop, delay=delay, rescan_every=rescan_every,
                        retry_after=retry_after, ignore=ignore, on_status=report, max_wait=max_wait,
                        follow_every=follow_every).run()
        except BaseException as exc:  # reported in the test's thread
            errors.append(exc)
            caught_up.set()

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    try:
        assert caught_up.wait(TIMEOUT_S), "the catch-up scan did not finish"
        assert not errors, errors
        yield reader
    finally:
        stop.set()
        thread.join(TIMEOUT_S)
        reader.close()
    assert not thread.is_alive(), "the watcher did not stop when asked"
    assert not errors, errors


def matches(store: Store, root: Path) -> bool:
    store.execute("SELECT count(*) FROM items_fts WHERE items_fts MATCH 'tiny OR alpha'")  # a search meanwhile
    return set(stored_files(store)) == files_on_disk(root)


def settle(store: Store, root: Path, what: str) -> None:
    eventually(lambda: matches(store, root), what)
    assert_matches(store, root)


def text_of(store: Store, path: Path) -> str | None:
    _, rows = store.execute("SELECT text FROM items WHERE path = :p AND part = ''", {"p": str(path.resolve())})
    return str(rows[0][0]).strip() if rows and rows[0][0] else None


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "archive"
    for i in range(3):
        write_text(folder / "notes" / f"note{i}.txt", seed=i)
    write_html(folder / "web" / "page.html", seed=10)
    return folder


def test_catch_up_then_create(tmp_path: Path, root: Path) -> None:
    with watching(tmp_path, root) as store:
        assert_matches(store, root)  # the catch-up scan
        write_text(root / "new.txt", seed=20)
        write_text(root / "deep" / "er" / "made.txt", seed=21)
        settle(store, root, "created files are indexed")


def test_modify_and_atomic_save_keep_the_item(tmp_path: Path, root: Path) -> None:
    with watching(tmp_path, root) as store:
        note = root / "notes" / "note0.txt"
        before = item_ids(store)[str(note.resolve())]
        note.write_text(prose(30) + "\n")
        eventually(lambda: text_of(store, note) == prose(30), "a modified file is read again")
        # an editor's atomic save: write a temporary file, rename it over
        temporary = root / "notes" / ".note0.txt.swp"
        temporary.write_text(prose(31) + "\n")
        os.replace(temporary, note)
        eventually(lambda: text_of(store, note) == prose(31), "an atomic save is read")
        settle(store, root, "after an atomic save")
        assert item_ids(store)[str(note.resolve())] == before, "an edited file keeps its item"


def test_rename_and_folder_move_keep_items(tmp_path: Path, root: Path) -> None:
    with watching(tmp_path, root) as store:
        ids = item_ids(store)
        (root / "notes" / "note1.txt").rename(root / "notes" / "renamed.txt")
        settle(store, root, "a renamed file is followed")
        (root / "notes").rename(root / "moved notes")
        settle(store, root, "a moved folder is followed")
        after = item_ids(store)
        assert after[str((root / "moved notes" / "renamed.txt").resolve())] == ids[str((root / "notes" / "note1.txt").resolve())]
        assert after[str((root / "moved notes" / "note2.txt").resolve())] == ids[str((root / "notes" / "note2.txt").resolve())]


def test_delete_files_and_folders(tmp_path: Path, root: Path) -> None:
    with watching(tmp_path, root) as store:
        (root / "notes" / "note0.txt").unlink()
        settle(store, root, "a deleted file is removed")
        for file in (root / "web").iterdir():
            file.unlink()
        (root / "web").rmdir()
        (root / "notes").rename(tmp_path / "outside")  # moved out of the watched folder: gone from it
        settle(store, root, "deleted and moved-out folders are removed")
        assert stored_files(store) == {}, stored_files(store)


def test_burst_of_a_thousand_files(tmp_path: Path, root: Path) -> None:
    with watching(tmp_path, root) as store:
        burst = root / "burst"
        burst.mkdir()
        for i in range(1000):
            (burst / f"f{i:04d}.txt").write_text(f"tiny file number {i} alpha beta\n")
        eventually(lambda: matches(store, root), "a burst of 1,000 files is indexed", timeout=240)
        assert_matches(store, root)


def test_rescan_catches_what_no_event_reported(tmp_path: Path, root: Path) -> None:
    unseen = root / "quiet"
    unseen.mkdir()
    # events under quiet/ are ignored, as a dropped inotify queue would lose them
    with watching(tmp_path, root, rescan_every=1.0, ignore=(str(unseen.resolve()),)) as store:
        write_text(unseen / "missed.txt", seed=40)
        settle(store, root, "the periodic rescan indexes a file no event reported")


def test_a_watcher_of_folders_given_waits_idle_and_still_takes_changes(tmp_path: Path, root: Path) -> None:
    """`lifededup watch ~/Documents` (folders given, none followed from
    the store) used a whole core from its fifth second on, for as long as it
    ran: the time to follow the store's folders, never moved on, was ever
    past, and the loop waited no time for events.  Measured as the process's
    CPU while the watcher, its looks at its folders every 0.3 s passed many
    times, has nothing to do."""
    with watching(tmp_path, root, workers=1, follow_every=0.3) as store:
        time.sleep(1.0)  # its first looks at its folders passed
        cpu, wall = time.process_time(), time.monotonic()
        time.sleep(2.0)
        used = time.process_time() - cpu
        assert used < 0.25 * (time.monotonic() - wall), f"an idle watcher used {used:.2f} s of CPU in 2 s"
        write_text(root / "new.txt", seed=22)  # and it still takes changes up
        settle(store, root, "a file written to a watcher waiting idle is indexed")


def test_a_folder_missing_at_start_is_watched_once_it_appears(tmp_path: Path, root: Path) -> None:
    """Within seconds, not at the next hourly rescan (a tester plugging in a disk waited for it)."""
    disk = tmp_path / "usb stick"  # not plugged in when the watcher starts
    with watching(tmp_path, root, also=(disk,)) as store:
        assert_matches(store, root)
        write_text(disk / "plugged.txt", seed=80)
        eventually(lambda: str((disk / "plugged.txt").resolve()) in stored_files(store),
                   "the folder is scanned once it is there")
        write_text(disk / "later.txt", seed=81)
        eventually(lambda: str((disk / "later.txt").resolve()) in stored_files(store),
                   "and followed from then on")


def test_a_folder_moved_away_and_made_again_between_rescans_is_followed_within_seconds(
        tmp_path: Path, root: Path) -> None:
    """A watched folder renamed away and made again (a tester's `mv usb
    usb.old; mkdir usb`) kept its watch on the folder that was gone: nothing
    in the new one was indexed until the hourly rescan, nor a deletion in it."""
    disk = tmp_path / "usb"
    write_text(disk / "receipt.txt", seed=93)
    with watching(tmp_path, root, also=(disk,)) as store:  # the hourly rescan: not before the test ends
        eventually(lambda: str((disk / "receipt.txt").resolve()) in stored_files(store), "the folder is indexed")
        disk.rename(tmp_path / "usb.old")
        disk.mkdir()
        write_text(disk / "new.txt", seed=94)
        eventually(lambda: str((disk / "new.txt").resolve()) in stored_files(store),
                   "a file in the folder made again is indexed")
        eventually(lambda: str((disk / "receipt.txt").resolve()) not in stored_files(store),
                   "the file no longer there is forgotten")
        write_text(disk / "later.txt", seed=95)
        eventually(lambda: str((disk / "later.txt").resolve()) in stored_files(store), "and followed from then on")


def test_an_unmounted_disks_empty_mount_point_keeps_its_items_and_a_replaced_folder_is_followed(
        tmp_path: Path, root: Path) -> None:
    """An fstab disk unmounted leaves its mount point, an empty folder: a
    rescan took that for every file deleted and forgot the disk's archive
    (its items back with new ids once it was mounted again).  And a folder
    replaced under a running watcher (unplugged and plugged in again between
    two rescans) was followed by its old, dead watch: new files waited for
    the hourly rescan."""
    disk = tmp_path / "usb"
    write_text(disk / "photos.txt", seed=90)
    write_text(disk / "letters" / "aunt.txt", seed=91)
    away = tmp_path / "usb-unmounted"
    with watching(tmp_path, root, rescan_every=1.0, also=(disk,)) as store:
        eventually(lambda: files_on_disk(disk) <= set(stored_files(store)), "the disk is indexed")
        ids = {p: i for p, i in item_ids(store).items() if p.startswith(str(disk.resolve()))}
        disk.rename(away)
        disk.mkdir()  # the bare mount point
        time.sleep(2.5)  # two rescans
        assert {p: i for p, i in item_ids(store).items() if p.startswith(str(disk.resolve()))} == ids, \
            "an empty mount point was taken for every file deleted"
        disk.rmdir()
        away.rename(disk)  # mounted again: a new directory at the same path
        time.sleep(1.5)  # a rescan finds it back and watches it again
        write_text(disk / "new.txt", seed=92)
        eventually(lambda: str((disk / "new.txt").resolve()) in stored_files(store),
                   "a file written in the folder back in place is followed")
        assert {p: i for p, i in item_ids(store).items() if p in ids} == ids, "the items kept their ids"


def test_a_store_locked_past_its_timeout_is_tried_again(tmp_path: Path, root: Path,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="lifededup.watch")
    reports: list[WatchStatus] = []
    with watching(tmp_path, root, retry_after=2.0, reports=reports) as store:
        # another writer holds the lock longer than the store's busy timeout
        # (a long `lifededup sql --write`): the watcher must wait it out, not die
        locker = sqlite3.connect(tmp_path / "watch.db", isolation_level=None)
        locker.execute("BEGIN IMMEDIATE")
        try:
            write_text(root / "while locked.txt", seed=60)
            eventually(lambda: any("could not write to the store" in r.getMessage() for r in caplog.records),
                       "the watcher reports the locked store")
            # and waits for its retry without spinning: it woke every 0.01 s for the file due meanwhile
            before = len(reports)
            time.sleep(1.0)
            assert len(reports) - before <= 15, f"{len(reports) - before} looks in 1 s while waiting to retry"
        finally:
            locker.execute("ROLLBACK")
            locker.close()
        settle(store, root, "the file is indexed once the lock is released")


def test_a_batch_whose_only_file_fails_is_logged(tmp_path: Path, root: Path,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    """A batch was logged only when it read, moved or removed a file: a
    damaged PDF dropped in a watched folder left the log silent, though
    `daemon status` counted one more failure."""
    caplog.set_level(logging.INFO, logger="lifededup.watch")
    with watching(tmp_path, root) as store:
        (root / "damaged.pdf").write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntruncated")
        eventually(lambda: store.execute("SELECT status FROM items WHERE path LIKE '%damaged.pdf'")[1] != [],
                   "the damaged file is recorded")
        eventually(lambda: any("failed 1" in r.getMessage() for r in caplog.records), "the batch is logged")
    said = [r.getMessage() for r in caplog.records if "failed 1" in r.getMessage()]
    assert said[0].endswith("new 0, updated 0, moved 0, removed 0, failed 1"), said


def test_the_log_names_the_files_a_batch_could_not_read(tmp_path: Path, root: Path,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    """The daemon's log said "failed 12" and left its reader to run
    `lifededup failures` and guess which: it names them now, ten at most,
    with the reason, and counts the rest; a file that failed before and
    was not read again is not named again."""
    caplog.set_level(logging.INFO, logger="lifededup.watch")
    with watching(tmp_path, root) as store:
        (root / "old.pdf").write_bytes(b"%PDF-1.4\ntruncated")
        eventually(lambda: store.execute("SELECT 1 FROM items WHERE path LIKE '%old.pdf'")[1] != [], "old.pdf")
        eventually(lambda: any("could not read" in r.getMessage() for r in caplog.records), "old.pdf is named")
        caplog.clear()
        incoming = tmp_path / "incoming"  # made outside, moved in whole: one folder, one batch
        incoming.mkdir()
        for n in range(12):
            (incoming / f"damaged {n:02d}.pdf").write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrunc")
        incoming.rename(root / "batch")
        eventually(lambda: store.execute("SELECT count(*) FROM items WHERE path LIKE '%/batch/%'")[1] == [(12,)],
                   "the twelve are recorded")
        eventually(lambda: any("more:" in r.getMessage() for r in caplog.records), "the rest are counted")
    named = [r.getMessage() for r in caplog.records if r.getMessage().startswith("could not read ")]
    assert named and all("/batch/damaged " in n and ".pdf: " in n and "PDF" in n for n in named), named
    assert not any("old.pdf" in n for n in named), "a failure of an earlier batch was named again"
    counted = sum(int(m.split("failed ")[1].split(",")[0]) for m in (r.getMessage() for r in caplog.records)
                  if ", failed " in m)
    more = [r.getMessage() for r in caplog.records if "more:" in r.getMessage()]
    assert counted == 12 and len(named) + sum(int(m.split()[2]) for m in more) == 12, (named, more)


def test_debouncer_waits_for_quiet_and_a_stable_size() -> None:
    now = [0.0]
    sizes: dict[str, tuple[int, float] | None] = {"a": (1, 1.0), "b": (5, 1.0), "old": None, "new": (3, 1.0)}
    debouncer = Debouncer(2.0, clock=lambda: now[0], stat=lambda p: sizes[p])
    debouncer.note("a")
    debouncer.note("b")
    now[0] = 1.0
    debouncer.note("a")  # another event: a's quiet time starts again
    now[0] = 2.5
    assert debouncer.settled() == ["b"], "b was quiet for 2.5 s"
    sizes["a"] = (2, 2.0)  # still growing though quiet
    now[0] = 3.5
    assert debouncer.settled() == [], "a changed size without an event: wait again"
    now[0] = 5.4
    assert debouncer.settled() == [] and debouncer.next_due() == pytest.approx(0.1)
    now[0] = 5.5
    assert debouncer.settled() == ["a"]
    debouncer.note("old", partner="new")
    debouncer.note("new", partner="old")
    now[0] = 6.0
    debouncer.note("new", partner="old")  # the move's destination got written to
    now[0] = 7.6
    assert debouncer.settled() == ["new", "old"], "both ends of a move settle together"
    assert len(debouncer) == 0


def test_a_file_written_to_without_a_pause_is_indexed_every_minute_not_never() -> None:
    """A log appended every second was never indexed while it grew: each
    event started the quiet time again. Past a minute pending it is taken as
    it is, and waits again from its next event."""
    now = [0.0]
    sizes = {"app.log": (0, 0.0)}
    debouncer = Debouncer(2.0, clock=lambda: now[0], stat=lambda p: sizes[p])
    taken = []
    for second in range(1, 130):
        now[0] = float(second)
        sizes["app.log"] = (second * 100, float(second))
        debouncer.note("app.log")
        taken += [second for _ in debouncer.settled()]
    assert taken == [61, 122], taken


def test_folders_added_removed_and_their_patterns_changed_are_followed_while_it_runs(tmp_path: Path,
                                                                                      root: Path) -> None:
    """The watcher of the store's folders (`watch` without PATHS, the daemon)
    read them once, when it started: a folder added was not indexed, one
    removed still followed, until a restart."""
    db = tmp_path / "watch.db"
    other = tmp_path / "other"
    write_text(other / "old.txt", seed=70)
    with open_store(db) as store:
        add_folder(store, str(root.resolve()))
    stop, caught_up = threading.Event(), threading.Event()
    statuses: list[WatchStatus] = []
    errors: list[BaseException] = []

    def report(status: WatchStatus) -> None:
        statuses.append(WatchStatus(**vars(status)))
        caught_up.set()

    def target() -> None:
        try:
            with open_store(db) as store:
                Watcher(store, list_folders(store), IndexConfig(workers=1), stop, delay=0.3, on_status=report,
                        follow=functools.partial(list_folders, store), follow_every=0.2).run()
        except BaseException as exc:  # reported in the test's thread
            errors.append(exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    try:
        assert caught_up.wait(TIMEOUT_S)
        with open_store(db) as store:
            add_folder(store, str(other.resolve()))
            write_text(other / "new.txt", seed=71)
            eventually(lambda: files_on_disk(other) <= set(stored_files(store)), "a folder added is scanned and followed")
            add_folder(store, str(root.resolve()), exclude=("*.html",))
            page = str((root / "web" / "page.html").resolve())
            eventually(lambda: page not in stored_files(store), "a folder's new patterns are taken up")
            remove_folder(store, str(other.resolve()))
            eventually(lambda: statuses[-1].watching == [str(root.resolve())], "a folder removed is dropped")
            write_text(other / "unwatched.txt", seed=72)
            write_text(root / "watched.txt", seed=73)
            eventually(lambda: str((root / "watched.txt").resolve()) in stored_files(store), "the rest is followed")
            time.sleep(1.0)
            assert str((other / "unwatched.txt").resolve()) not in stored_files(store), "a removed folder is not read"
            # a folder inside another, with patterns of its own, then removed: its files are the outer one's
            # again at once (they waited for the hourly rescan)
            inner, note = root / "notes", str((root / "notes" / "note0.txt").resolve())
            add_folder(store, str(inner.resolve()), include=("*.eml",))
            eventually(lambda: note not in stored_files(store), "the inner folder's patterns are taken up")
            remove_folder(store, str(inner.resolve()))
            eventually(lambda: note in stored_files(store), "removed, the outer folder's patterns apply again")
    finally:
        stop.set()
        thread.join(TIMEOUT_S)
    assert not errors, errors


def test_the_status_counts_files_as_they_are_written_not_when_a_scan_ends(tmp_path: Path, root: Path) -> None:
    """`daemon status` said "files read since it started: 4,257" through a
    whole scan of 8,900 files: the count moved only when a run ended."""
    stop = threading.Event()
    seen: list[tuple[str, int, str | None]] = []

    def report(status: WatchStatus) -> None:
        seen.append((status.state, status.indexed, status.last_read))
        if status.state == "watching":
            stop.set()

    with open_store(tmp_path / "counted.db") as store:
        Watcher(store, [WatchedFolder(str(root.resolve()))], IndexConfig(workers=1, batch_items=1), stop,
                on_status=report).run()
    counts = [n for state, n, _ in seen if state == "indexing"]
    assert counts[-1] == 4 and set(range(1, 5)) <= set(counts), seen
    # and says which file it last read, each of the folder's files in turn (a long scan: where it is)
    files = {str(p.resolve()) for p in root.rglob("*") if p.is_file()}
    read = {last for state, _, last in seen if state == "indexing" and last is not None}
    assert read == files, (read, files)


def test_the_status_counts_the_stores_failures_from_the_start(tmp_path: Path, root: Path) -> None:
    """A restarted daemon said 'failed items in store: 0' until its first
    batch was written, though the store held 195."""
    from lifededup.store import ItemRecord

    db = tmp_path / "watch.db"
    with open_store(db) as store:
        store.record_failure(ItemRecord("/elsewhere/locked.pdf"), "PDF is encrypted", status="encrypted")
    reported: list[tuple[str, int]] = []
    stop = threading.Event()

    def report(status: WatchStatus) -> None:
        reported.append((status.state, status.failed))
        if status.state == "watching":
            stop.set()

    with open_store(db) as store:
        Watcher(store, [WatchedFolder(str(root.resolve()))], IndexConfig(workers=1), stop, delay=0.3,
                on_status=report).run()
    assert reported[0] == ("scanning", 1), reported


@pytest.mark.parametrize("target", ["..", "nothere/../deep"])
def test_a_link_made_while_watching_that_is_refused_removes_nothing(tmp_path: Path, root: Path, target: str) -> None:
    """A link to a folder above it (a loop) or a broken one whose target
    reads as a folder inside (`nothere/../deep`) is refused; its target was
    still taken as scanned, found empty, and every item under it removed
    (the files still there: a rescan brought them back under new ids)."""
    write_text(root / "notes" / "deep" / "kept.txt", seed=40)
    with watching(tmp_path, root) as store:
        before = item_ids(store)
        os.symlink(target, root / "notes" / "link")
        write_text(root / "after.txt", seed=41)  # a batch after the link's event
        eventually(lambda: str((root / "after.txt").resolve()) in stored_files(store), "the next file is indexed")
        time.sleep(1.0)
        after = item_ids(store)
    assert {p: i for p, i in after.items() if p in before} == before, \
        f"items removed or renumbered: {set(before) - set(after)}"
