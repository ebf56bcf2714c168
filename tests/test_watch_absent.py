"""What the watcher says of a watched folder that is not there: how many
items the store keeps for it, as the store holds them now."""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from index_samples import files_on_disk, item_ids, stored_files, write_text
from pg_server import Server
from test_watch import TIMEOUT_S, eventually, watching

from lifededup.index import IndexConfig, run
from lifededup.store import Store, add_folder, list_folders, open_store
from lifededup.watch import Watcher, WatchStatus
from lifededup.watch.watcher import RECOUNT_S

Kept = Callable[[], 'dict[str, int] | None']


@contextmanager
def following_mail(tmp_path: Path, store_url: str, ahead: list[float]) -> Iterator[tuple[Path, Path, Store, Kept]]:
    """A watcher of the store's folders -- Mail, three files -- in a thread,
    following them as the CLI's does, its clock ``ahead[0]`` seconds on;
    yields Mail, Mail2 (not there yet), a store to act on, and what the last
    status says the store keeps of folders not there, once caught up."""
    mail, mail2 = tmp_path / "Mail", tmp_path / "Mail2"
    for i in range(3):
        write_text(mail / f"m{i}.txt", seed=i)
    with open_store(store_url) as store:
        add_folder(store, str(mail.resolve()))
    stop, statuses, errors = threading.Event(), list[WatchStatus](), list[BaseException]()

    def target() -> None:
        try:
            with open_store(store_url) as store:
                Watcher(store, list_folders(store), IndexConfig(workers=1), stop, delay=0.3,
                        clock=lambda: time.monotonic() + ahead[0],
                        on_status=lambda status: statuses.append(WatchStatus(**vars(status))),
                        follow=functools.partial(list_folders, store), follow_every=0.2).run()
        except BaseException as exc:  # reported in the test's thread
            errors.append(exc)

    def kept() -> dict[str, int] | None:
        """The folders the last status says the store keeps items of, and how
        many; None once the watcher failed (every wait ends)."""
        if errors:
            return None
        return {a.path: a.items for a in statuses[-1].absent if a.items} if statuses else {}

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    try:
        with open_store(store_url) as store:
            eventually(lambda: len(item_ids(store)) == 3, "the watcher catches up")
            yield mail, mail2, store, kept
    finally:
        stop.set()
        thread.join(TIMEOUT_S)
    assert not errors, errors
    assert statuses[-1].absent == [] or all(a.items == 0 for a in statuses[-1].absent), statuses[-1].absent


def test_a_renamed_folders_items_moved_to_its_new_name_are_no_longer_counted_as_kept(
        tmp_path: Path, store_url: str) -> None:
    """Explorer K: `mv Mail Mail2; folders add Mail2` under a running
    watcher moves Mail's items to Mail2 (same ids), but `daemon status` kept
    saying Mail "keeps its 3 items ... folders remove --forget forgets them":
    the count of a folder still missing was never taken again.  It follows
    the store: 0, and Mail is no longer named."""
    with following_mail(tmp_path, store_url, [0.0]) as (mail, mail2, store, kept):
        ids = sorted(item_ids(store).values())
        mail.rename(mail2)
        eventually(lambda: kept() in ({str(mail.resolve()): 3}, None), "Mail is missing, its items kept")
        add_folder(store, str(mail2.resolve()))
        eventually(lambda: sorted(i for p, i in item_ids(store).items() if p.startswith(str(mail2.resolve())))
                   == ids, "Mail's items move to Mail2")
        eventually(lambda: kept() in ({}, None), "Mail, holding no items now, is no longer named")


def test_items_moved_away_by_another_process_are_counted_again_within_a_minute(
        tmp_path: Path, store_url: str) -> None:
    """`lifededup index Mail2` in a terminal moves a missing Mail's items
    too, which the watcher does not see: it counts them again a minute
    (RECOUNT_S) after it last did -- its clock, injected, is moved on."""
    ahead = [0.0]  # seconds the watcher's clock is put ahead
    with following_mail(tmp_path, store_url, ahead) as (mail, mail2, store, kept):
        ids = sorted(item_ids(store).values())
        mail.rename(mail2)
        eventually(lambda: kept() in ({str(mail.resolve()): 3}, None), "Mail is missing, its items kept")
        run(store, [mail2], IndexConfig(workers=1))  # the terminal's `lifededup index Mail2`
        assert sorted(i for p, i in item_ids(store).items() if p.startswith(str(mail2.resolve()))) == ids
        ahead[0] += RECOUNT_S
        eventually(lambda: kept() in ({}, None), "counted again a minute on, Mail is no longer named")


def test_a_folder_not_there_while_the_server_is_away_keeps_its_count_and_the_watcher(
        postgres: Server, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The items of a folder not there are counted at every look: with the
    server away (the NAS rebooting while a disk is unplugged) the count
    fails, and the watcher keeps the last one and goes on, as its writes do.
    (A server of its own, which this test stops and starts again.)"""
    caplog.set_level(logging.WARNING, logger="lifededup.watch")
    server = Server.start()
    try:
        url = server.new_database()
        root, disk = tmp_path / "archive", tmp_path / "usb"
        write_text(root / "a.txt", seed=1)
        write_text(disk / "photos.txt", seed=2)
        reports: list[WatchStatus] = []
        with watching(tmp_path, root, store_url=url, also=(disk,), rescan_every=1.0, reports=reports) as reader:
            eventually(lambda: len(stored_files(reader)) == 2, "both folders are indexed")
            disk.rename(tmp_path / "usb-unplugged")
            eventually(lambda: [(a.now, a.items) for a in reports[-1].absent] == [("missing", 1)],
                       "the disk is missing, its item kept")
            server.stop(keep=True)
            # each rescan (every second) looks at the disk first, then fails to write: two have looked
            eventually(lambda: sum("could not write to the store" in r.getMessage() for r in caplog.records) >= 2,
                       "rescans look at the missing disk with the server away")
            assert [(a.now, a.items) for a in reports[-1].absent] == [("missing", 1)], reports[-1].absent
            server = Server.start(root=server.root)
            write_text(root / "b.txt", seed=3)
            eventually(lambda: set(stored_files(reader)) >= files_on_disk(root), "the watcher goes on")
    finally:
        server.stop()
