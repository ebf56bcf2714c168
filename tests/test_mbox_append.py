"""A mailbox that grows by messages appended (as a mail client or a delivery
agent writes it) is read from where it grew: its stored messages keep their
items, ids and clusters, the new ones are numbered after them.  Anything
else -- a byte changed within, a truncation, another mailbox in its place,
a message unfinished when it was stored -- is read whole, and the store then
equals one built fresh from the same file.  Real mailboxes in temporary
folders, real SQLite and PostgreSQL stores, a real kill -9, real watchdog
events."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from index_samples import assert_matches
from store_samples import prose
from test_watch import eventually, watching

from lifededup.cli import main
from lifededup.extract import Source
from lifededup.extract.mbox import Separators, iter_mbox_messages
from lifededup.index import IndexConfig, run
from lifededup.store import Store, open_store

CONFIG = IndexConfig(workers=2, batch_items=8)
Fresh = Callable[[Path, Path], dict[str, object]]


def message(n: int, body: str | None = None) -> str:
    """A message as a delivery agent appends it: envelope, headers, body, a blank line."""
    return (f"From sender{n}@example.org Mon Jan  1 00:{n % 60:02d}:00 2024\nFrom: sender{n}@example.org\n"
            f"To: me@example.org\nSubject: letter number {n}\nMessage-ID: <{n}@example.org>\n\n"
            f"{body if body is not None else prose(n, 120)} marker{n}word\n\n")


def mailbox(path: Path, numbers: range, copies: dict[int, int] | None = None) -> Path:
    """A mailbox of these messages; ``copies`` {n: m}: message n's body is message m's (a cluster)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(message(n, prose((copies or {}).get(n, n), 120)) for n in numbers))
    return path


def deliver(path: Path, numbers: range) -> None:
    """Append messages, as procmail or Postfix's local delivery does."""
    with path.open("a") as box:
        box.write("".join(message(n) for n in numbers))


def snapshot(store: Store, box: Path) -> dict[str, object]:
    """What the store holds of a mailbox, by part (ids and times aside): every
    item's fields, the file row's size, mtime and raw SHA-1, and the clusters
    its parts form, each with its representative."""
    _, rows = store.execute(
        "SELECT id, part, parent_id, kind, mime_type, size, mtime, raw_sha1, title, text, people, status, error, "
        "doc_date FROM items WHERE path = :path", {"path": str(box.resolve())})
    part_of = {int(r[0]): str(r[1]) for r in rows}  # type: ignore[call-overload]
    items = sorted((r[1], part_of.get(r[2]) if r[2] is not None else None, *r[3:])  # type: ignore[call-overload]
                   for r in rows)
    _, members = store.execute(
        "SELECT c.cluster_id, i.part, f.is_representative FROM clusters c JOIN items i ON i.id = c.item_id "
        "JOIN fingerprints f ON f.item_id = c.item_id WHERE i.path = :path", {"path": str(box.resolve())})
    clusters: dict[object, list[tuple[str, bool]]] = {}
    for cluster, part, representative in members:
        clusters.setdefault(cluster, []).append((str(part), bool(representative)))
    return {"items": items, "clusters": sorted(sorted(c) for c in clusters.values())}


@pytest.fixture
def fresh(tmp_path: Path, store_url: str, request: pytest.FixtureRequest) -> Fresh:
    """The snapshot of a store built fresh from a folder as it is now, on the test's backend."""

    def build(root: Path, box: Path) -> dict[str, object]:
        if "://" in store_url:
            server = request.getfixturevalue("postgres")
            url = server.new_database()
            request.addfinalizer(lambda: server.drop_database(url))
        else:
            url = str(tmp_path / f"fresh-{time.monotonic_ns()}.db")
        return fresh_index(url, root, box)

    return build


def fresh_index(url: str, root: Path, box: Path) -> dict[str, object]:
    with open_store(url) as store:
        run(store, [root], CONFIG)
        return snapshot(store, box)


def messages_of(store: Store, box: Path) -> dict[str, tuple[int, object]]:
    """part -> (id, indexed_at) of a mailbox's messages."""
    _, rows = store.execute("SELECT part, id, indexed_at FROM items WHERE path = :path AND part <> ''",
                            {"path": str(box.resolve())})
    return {str(p): (int(i), t) for p, i, t in rows}  # type: ignore[call-overload]


def clusters_of(store: Store, box: Path) -> list[tuple[object, ...]]:
    _, rows = store.execute("SELECT c.item_id, c.cluster_id, c.sha1, c.resemblance FROM clusters c JOIN items i "
                            "ON i.id = c.item_id WHERE i.path = :path ORDER BY c.item_id", {"path": str(box.resolve())})
    return [tuple(r) for r in rows]


def check_clean(db: str) -> None:
    checked = CliRunner().invoke(main, ["check", "--db", db])
    assert checked.exit_code == 0 and "all invariants hold" in checked.output, checked.output


def test_appended_mail_alone_is_read_and_the_stored_messages_stay_as_they_were(tmp_path: Path,
                                                                               store_url: str,
                                                                               fresh: Fresh) -> None:
    root = tmp_path / "mail"
    box = mailbox(root / "inbox.mbox", range(1, 7), copies={4: 1, 6: 2})  # two clusters of two
    with open_store(store_url) as store:
        first = run(store, [root], CONFIG)
        assert (first.new, first.items) == (1, 7), first
        before, clustered = messages_of(store, box), clusters_of(store, box)
        assert len(clustered) == 6 and len({c[1] for c in clustered}) == 4, clustered
        deliver(box, range(7, 9))
        second = run(store, [root], CONFIG)
        assert (second.new, second.updated, second.failed) == (0, 1, 0), second
        assert second.items == 2, f"only the 2 messages delivered are read, not the mailbox again: {second}"
        after = messages_of(store, box)
        assert {p: after[p] for p in before} == before, "the stored messages keep their ids, untouched"
        assert set(after) - set(before) == {"message 7", "message 8"}, sorted(after)
        assert clusters_of(store, box)[:6] == clustered, "their cluster rows stay as they were"
        assert snapshot(store, box) == fresh(root, box), "as a fresh index of the mailbox"
        assert_matches(store, root)
        third = run(store, [root], CONFIG)
        assert (third.updated, third.unchanged, third.items) == (0, 1, 0), third
    check_clean(store_url)
    found = CliRunner().invoke(main, ["search", "--db", store_url, "marker8word"])
    assert found.exit_code == 0 and "message 8" in found.output, found.output


def _edit_within(box: Path) -> None:
    data = bytearray(box.read_bytes())
    data[len(data) // 2] = ord("Q") if data[len(data) // 2] != ord("Q") else ord("R")
    box.write_bytes(bytes(data) + message(9).encode())  # and grown: the stored bytes are no longer its start


def _truncate(box: Path) -> None:
    data = box.read_bytes()
    box.write_bytes(data[:data.index(b"From sender4@")])


def _replace(box: Path) -> None:
    mailbox(box, range(20, 29))  # another mailbox, larger


@pytest.mark.parametrize("change", [_edit_within, _truncate, _replace], ids=["edited", "truncated", "replaced"])
def test_a_mailbox_changed_otherwise_is_read_whole(tmp_path: Path, store_url: str, fresh: Fresh,
                                                   change: Callable[[Path], None]) -> None:
    root = tmp_path / "mail"
    box = mailbox(root / "inbox.mbox", range(1, 7), copies={4: 1})
    with open_store(store_url) as store:
        run(store, [root], CONFIG)
        change(box)
        again = run(store, [root], CONFIG)
        held = sum(1 for _ in iter_mbox_messages(Source.from_path(box)))
        assert (again.updated, again.items) == (1, held + 1), f"read whole, the file and its {held} messages: {again}"
        assert snapshot(store, box) == fresh(root, box)
        assert_matches(store, root)


@pytest.mark.parametrize("cut", ["mid-line", "after-headers", "after-envelope"])
def test_a_mailbox_stored_mid_message_then_finished_equals_a_fresh_index(tmp_path: Path, store_url: str,
                                                                      fresh: Fresh, cut: str) -> None:
    """Stored while a message was being written -- even where the bytes so
    far end with a blank line, as after a message's headers -- the mailbox
    is read whole once the message is finished."""
    root = tmp_path / "mail"
    box = mailbox(root / "inbox.mbox", range(1, 4))
    whole = message(4)
    at = {"mid-line": len(whole) // 2, "after-headers": whole.index("\n\n") + 2,
          "after-envelope": whole.index("\n") + 1}[cut]
    with box.open("a") as out:
        out.write(whole[:at])
    with open_store(store_url) as store:
        run(store, [root], CONFIG)
        with box.open("a") as out:
            out.write(whole[at:] + message(5))
        again = run(store, [root], CONFIG)
        assert again.items == 6, f"read whole: the file and its 5 messages: {again}"
        assert snapshot(store, box) == fresh(root, box)
        assert_matches(store, root)


def test_kill_9_while_reading_appended_mail_then_the_next_run_finishes_it(tmp_path: Path, store_url: str,
                                                                         fresh: Fresh) -> None:
    root = tmp_path / "mail"
    box = mailbox(root / "inbox.mbox", range(1, 21))
    with open_store(store_url) as store:
        run(store, [root], CONFIG)
        kept = messages_of(store, box)
        _, [(old_size,)] = store.execute("SELECT size FROM items WHERE part = ''")
    deliver(box, range(21, 621))

    def stored() -> int:
        with open_store(store_url, readonly=True) as store:
            _, [(n,)] = store.execute("SELECT count(*) FROM items")
            return int(n)  # type: ignore[call-overload]

    indexer = subprocess.Popen([sys.executable, "-m", "lifededup", "index", "--db", store_url, "--batch", "5",
                                "-j", "1", str(root)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while stored() < 21 + 40 and indexer.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert indexer.poll() is None, "the indexer finished before it could be killed: deliver more mail"
        os.kill(indexer.pid, signal.SIGKILL)
    finally:
        indexer.wait(30)
    with open_store(store_url) as store:
        partial = stored()
        assert 21 < partial < 621, f"killed mid-read, some new messages stored: {partial}"
        _, rows = store.execute("SELECT size, mtime IS NOT NULL FROM items WHERE part = ''")
        assert [tuple(r) for r in rows] == [(old_size, True)], f"the file row still says the old bytes: {rows}"
        again = run(store, [root], CONFIG)
        assert (again.updated, again.items) == (1, 600), f"the appended mail read again, not the mailbox: {again}"
        after = messages_of(store, box)
        assert {p: after[p] for p in kept} == kept and len(after) == 620, len(after)
        assert snapshot(store, box) == fresh(root, box)
        assert_matches(store, root)
    check_clean(store_url)


def test_the_watcher_reads_only_the_mail_delivered(tmp_path: Path) -> None:
    root = tmp_path / "mail"
    box = mailbox(root / "inbox.mbox", range(1, 11))
    with watching(tmp_path, root) as store:
        eventually(lambda: len(messages_of(store, box)) == 10, "the mailbox indexed")
        before = messages_of(store, box)
        deliver(box, range(11, 13))
        eventually(lambda: len(messages_of(store, box)) == 12, "the mail delivered indexed")
        eventually(lambda: store.execute("SELECT size FROM items WHERE part = ''")[1] == [(box.stat().st_size,)],
                   "the file row up to date")
        after = messages_of(store, box)
        assert {p: after[p] for p in before} == before, "the messages stored before were not read again"
        assert snapshot(store, box) == fresh_index(str(tmp_path / "fresh.db"), root, box)


def test_a_mailbox_that_failed_is_read_whole(tmp_path: Path) -> None:
    """A message too large for the limits failed the worker: the file is not grown from, it is read whole."""
    root = tmp_path / "mail"
    box = mailbox(root / "inbox.mbox", range(1, 4))
    db = str(tmp_path / "store.db")
    with open_store(db) as store:
        run(store, [root], CONFIG)
        store.execute("UPDATE items SET status = 'corrupt' WHERE part = ''")
        deliver(box, range(4, 6))
        again = run(store, [root], CONFIG)
        assert again.items == 6, again
        assert snapshot(store, box) == fresh_index(str(tmp_path / "fresh.db"), root, box)


def _random_mailbox(draw: st.DrawFn) -> bytes:
    lines = st.sampled_from([b"\n", b"\r\n", b"  \n", b"From a@b Mon Jan  1 00:00:00 2024\n", b"From nobody\n",
                             b">From x\n", b"Subject: s\n", b"body words\n", b"From ", b"x" * 50])
    return b"From a@b Mon Jan  1 00:00:00 2024\n" + b"".join(draw(st.lists(lines, max_size=40)))


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_separators_count_the_messages_the_reader_finds(data: st.DataObject) -> None:
    box = data.draw(st.composite(_random_mailbox)())
    cuts = sorted(data.draw(st.lists(st.integers(0, len(box)), max_size=5)))
    separators = Separators()
    for start, end in zip([0, *cuts], [*cuts, len(box)]):
        separators.feed(box[start:end])
    read = list(iter_mbox_messages(Source("a.mbox", data=box)))
    # an empty message (two envelopes in a row, a final blank one) is no message read: then the count says more
    assert separators.messages >= len(read), (box, separators.messages, read)
    if all(m != b"" for m in read) and box.endswith(b"\n"):
        lines = box.splitlines(keepends=True)
        for at in range(1, len(lines)):  # a message starts at a line where the reader splits it
            head, rest = b"".join(lines[:at]), lines[at]
            counted = Separators()
            counted.feed(head)
            whole = list(iter_mbox_messages(Source("a.mbox", data=box)))
            front = list(iter_mbox_messages(Source("a.mbox", data=head)))
            tail = list(iter_mbox_messages(Source("a.mbox", data=box, offset=len(head))))
            if counted.next_starts(rest) and counted.messages == len(front):
                assert whole == front + tail, (box, at)


def test_a_source_bounded_reads_its_window_alone(tmp_path: Path) -> None:
    data = bytes(range(256)) * 64
    (tmp_path / "f.bin").write_bytes(data)
    for offset, end in [(0, None), (100, None), (100, 5000), (16000, 17000), (len(data), None)]:
        on_disk = Source.from_path(tmp_path / "f.bin")
        on_disk = Source(on_disk.name, path=on_disk.path, offset=offset, end=end)
        held = Source("f.bin", data=data, offset=offset, end=end)
        want = data[offset:end]
        for source in (on_disk, held):
            with source.open() as handle:
                lines = b"".join(iter(lambda: handle.readline(333), b""))
            got = (source.read_bytes(), source.head(10), source.size(), lines)
            assert got == (want, want[:10], len(want), want), (offset, end, source.path)
