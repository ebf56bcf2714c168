"""The watcher's log says each thing once.  An mbox read whole again (a mail
deleted from it, not appended) warned again of every attachment that still
could not be read, and counted it failed again in its batch line ("failed
18" at each mail deleted, in the daemon's week on the real mail).  What the
store holds as failed already, for the same content, is not said again; the
store's failures stay as they are.  Real watchdog events, real mailboxes,
both backends."""

from __future__ import annotations

import logging
import os
import shutil
import time
from email.message import EmailMessage
from pathlib import Path

import pytest
from index_samples import write_text
from test_mbox_append import message
from test_mbox_renumber import letters
from test_watch import eventually, watching

from lifededup.store import Store, open_store
from lifededup.watch import WatchStatus
from lifededup.store.failures import failures

PHOTO = Path(__file__).resolve().parent.parent / "sample_corpus/Bad files/holiday photo.jpg"


def with_photo() -> str:
    """A mail whose attachments cannot be read: a photo (no OCR) and an empty file."""
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = "ann@example.org", "me@example.org", "the photo"
    mail.set_content("The photo from the allotment, as promised.")
    mail.add_attachment(PHOTO.read_bytes(), maintype="image", subtype="jpeg", filename="allotment.jpg")
    mail.add_attachment(b"", maintype="application", subtype="octet-stream", filename="blank.dat")
    return f"From sender3@example.org Mon Jan  1 00:03:00 2024\n{mail}\n"


def failed_parts(store: Store) -> list[tuple[str, str]]:
    """(part, status) of what `lifededup failures` lists."""
    return sorted((f.part, f.status) for f in failures(store))


def lines(caplog: pytest.LogCaptureFixture, since: int) -> list[str]:
    return [r.getMessage() for r in caplog.records[since:]]


def test_a_mail_deleted_does_not_warn_again_of_its_neighbours_attachments(
        tmp_path: Path, store_url: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="lifededup.watch")
    root = tmp_path / "mail"
    root.mkdir()
    box = root / "inbox.mbox"
    box.write_text(message(1) + message(2) + with_photo() + message(4))
    with watching(tmp_path, root, store_url=store_url, delay=0.5) as store:
        first = failed_parts(store)
        assert first == [("message 3 / attachment 1: allotment.jpg", "no-text-layer"),
                         ("message 3 / attachment 2: blank.dat", "empty")], first
        for deleted in (1, 2):  # a mail deleted, then another: each time the mbox is read whole
            since = len(caplog.records)
            box.write_text("".join(letters(box)[1:]))
            left = 3 - deleted
            eventually(lambda: [p for p, _ in failed_parts(store)][0].startswith(f"message {left} /"),
                       f"the mbox is read again, mail {deleted} deleted")
            eventually(lambda: any("updated 1" in line for line in lines(caplog, since)), "its batch line")
            said = lines(caplog, since)
            batch = [line for line in said if "updated 1" in line]
            assert len(batch) == 1 and batch[0].endswith("removed 0, failed 0"), said
            again = [line for line in said if "allotment.jpg" in line or "blank.dat" in line]
            assert not again, f"said again at mail {deleted} deleted: {again}"
            assert failed_parts(store) == [(p.replace("message 3", f"message {left}"), s) for p, s in first], \
                "the store's failures stay, renumbered with their mail"


FILES = 1000


def items(store: Store) -> int:
    return int(str(store.execute("SELECT count(*) FROM items")[1][0][0]))


def batch_counts(caplog: pytest.LogCaptureFixture) -> list[dict[str, int]]:
    """Each batch line's counts: {"new": 3, ..., "vanished": 2}."""
    found = []
    for line in (r.getMessage() for r in caplog.records):
        if ": new " in line:
            words = line.split(": ", 1)[1].replace(",", "").split()
            found.append({name: int(count) for name, count in zip(words[::2], words[1::2]) if count.isdigit()})
    return found


def test_a_file_that_vanished_as_it_was_read_is_not_counted_removed_too(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A folder copied in and deleted while it is read: the files read
    before are new, then removed; those not read yet vanished -- and their
    records were counted removed in the next batch ("vanished 17", then
    "removed 17", of one folder of 17 files)."""
    caplog.set_level(logging.INFO, logger="lifededup.watch")
    root = tmp_path / "projects"
    root.mkdir()
    reports: list[WatchStatus] = []
    with watching(tmp_path, root, workers=1, reports=reports) as store:
        made = tmp_path / "made"
        for n in range(FILES):
            write_text(made / f"note{n}.txt", seed=n, words=400)
        caught_up = len(reports)
        made.rename(root / "made")  # in one move, as a folder copied in ends
        # its run has listed the files (they wait), and reads them
        eventually(lambda: any(r.state == "indexing" and r.waiting_files >= FILES // 2 for r in reports[caught_up:]),
                   "the folder is being read")
        shutil.rmtree(root / "made")
        eventually(lambda: items(store) == 0, "the store forgets the folder")
        forgotten = len(reports)
        eventually(lambda: any(r.state == "watching" and not r.pending for r in reports[forgotten:]),
                   "the watcher done with it, its batch line said")
    counts = batch_counts(caplog)
    total = {name: sum(c.get(name, 0) for c in counts) for name in ("new", "removed", "vanished")}
    assert total["vanished"] > 0, f"the deletion came after every file was read: {counts}"
    assert total["removed"] == total["new"], f"each file's fate counted once: {counts}"
    assert total["new"] + total["vanished"] <= FILES, counts


def test_a_file_read_again_as_it_failed_is_not_warned_of_again(
        tmp_path: Path, store_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """A revision that marks the failed files to be read again (0017, 0020:
    lifededup upgraded) had the watcher's catch-up warn again of every file
    that still cannot be read, the same bytes failing alike.  Not said again;
    the store's failures stay."""
    caplog.set_level(logging.INFO, logger="lifededup.watch")
    root = tmp_path / "Downloads"
    root.mkdir()
    bad = Path(__file__).resolve().parent.parent / "sample_corpus/Bad files"
    for name in ("truncated download.pdf", "half-written.docx"):
        shutil.copyfile(bad / name, root / name)
        # files that were there before the watcher: one written in its last --delay is left to settle (cdbf30b),
        # and the first failures() could come before it was read (a fresh clone's CI run at d025a07)
        os.utime(root / name, (time.time() - 3600, time.time() - 3600))
    with watching(tmp_path, root, store_url=store_url) as store:
        first = failures(store)
    assert [f.status for f in first] == ["corrupt", "corrupt"], first
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == 2, warned
    with open_store(store_url) as store, store.transaction() as conn:  # as a revision marks them
        conn.exec_driver_sql("UPDATE items SET mtime = NULL WHERE status <> 'ok'")
    since = len(caplog.records)
    with watching(tmp_path, root, store_url=store_url) as store:
        assert failures(store) == first, "the store's failures stay"
        _, rows = store.execute("SELECT count(*) FROM items WHERE mtime IS NULL")
        assert rows[0][0] == 0, "read again, and known as read"
    said = lines(caplog, since)
    assert not [line for line in said if "could not read" in line or "failed" in line], said
