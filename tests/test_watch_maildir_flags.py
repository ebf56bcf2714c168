"""A Maildir message's name ends in its flags (maildir(5): ``UNIQUE:2,S``
once seen, ``:2,RS`` once replied to), and a mail client renames it at each
change, and moves it from ``new/`` to ``cur/`` once seen.  Its bytes are the
same: it keeps its item and is not read again.  Each rename changed its
name's "suffix" (``.host`` to ``.host:2,S``), which read as a file that
might read otherwise: every mail marked read was read again and counted
updated -- a whole folder marked read, thousands of mails.  Real watchdog
events, a real Maildir, the watcher's own log."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from index_samples import assert_matches
from store_samples import prose
from test_watch import eventually, watching

from lifededup.store import Store

MAILS = ("1700000042.M1P11.laptop", "1700000043.M2P12.laptop", "1700000044.M3P13.laptop")


def a_maildir(folder: Path) -> Path:
    """A Maildir whose mails were delivered and not yet seen (all in ``new/``)."""
    for sub in ("cur", "new", "tmp"):
        (folder / sub).mkdir(parents=True)
    for n, name in enumerate(MAILS):
        (folder / "new" / name).write_text(f"From: friend{n}@example.org\nTo: me@example.org\nSubject: news {n}\n"
                                           f"Message-ID: <{n}@example.org>\n\n{prose(n, 80)}\n")
    return folder


def mails(store: Store) -> dict[str, tuple[int, object]]:
    """Each stored mail's name -> (id, when it was read)."""
    _, rows = store.execute("SELECT path, id, indexed_at FROM items WHERE part = ''")
    return {Path(str(p)).name: (int(str(i)), t) for p, i, t in rows}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return a_maildir(tmp_path / "home" / "Mail").parent


def test_a_mail_marked_seen_then_replied_keeps_its_item_unread(tmp_path: Path, root: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="lifededup.watch")
    box = root / "Mail"
    with watching(tmp_path, root) as store:
        before = mails(store)
        assert set(before) == set(MAILS), before
        caplog.clear()
        for name in MAILS:  # the client shows the mails: seen, moved to cur/
            (box / "new" / name).rename(box / "cur" / f"{name}:2,S")
        eventually(lambda: set(mails(store)) == {f"{name}:2,S" for name in MAILS}, "the seen mails are followed")
        (box / "cur" / f"{MAILS[0]}:2,S").rename(box / "cur" / f"{MAILS[0]}:2,RS")  # replied to
        eventually(lambda: f"{MAILS[0]}:2,RS" in mails(store), "the replied mail is followed")
        after = mails(store)
        assert_matches(store, root)
    renamed = {MAILS[0]: f"{MAILS[0]}:2,RS", MAILS[1]: f"{MAILS[1]}:2,S", MAILS[2]: f"{MAILS[2]}:2,S"}
    assert {renamed[name]: kept for name, kept in before.items()} == after, \
        f"each mail keeps its item and is not read again: {before} -> {after}"
    batches = [r.getMessage() for r in caplog.records if ", moved " in r.getMessage()]
    assert batches and all(", updated 0, " in said for said in batches), batches
    assert sum(int(said.split(", moved ")[1].split(",")[0]) for said in batches) == 4, batches


def test_a_mail_changed_as_it_is_marked_is_read_again(tmp_path: Path, root: Path) -> None:
    """Its flags aside, a mail whose bytes changed (a client that rewrites a
    header as it marks it) is read again, as any changed file."""
    box = root / "Mail"
    with watching(tmp_path, root) as store:
        before = mails(store)
        seen = box / "cur" / f"{MAILS[1]}:2,S"
        (box / "new" / MAILS[1]).rename(seen)
        seen.write_text(seen.read_text().replace("Subject: news 1", "Subject: news 1 (read)"))
        eventually(lambda: store.execute("SELECT title FROM items WHERE path LIKE '%:2,S'")[1] == [("news 1 (read)",)],
                   "the changed mail is read again")
        after = mails(store)
        assert after[seen.name][0] == before[MAILS[1]][0], "under its item"
        assert_matches(store, root)
