"""A mailbox read whole again keeps each stored message's item, though the
message's number changed: deleting one mail renumbers every mail after it
("message 5" is now "message 4"), and its item -- id, cluster, attachments
-- goes with its text to the new name.  An id (``show ID``, the web view's
item page) goes on naming the same mail, and the store equals one built
fresh from the mailbox as it is.  Real mailboxes in temporary folders, real
SQLite and PostgreSQL stores."""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

from click.testing import CliRunner
from index_samples import assert_matches
from test_mbox_append import CONFIG, Fresh, check_clean, clusters_of, fresh, mailbox, message, snapshot  # noqa: F401

from lifededup.cli import main
from lifededup.index import run
from lifededup.store import Store, open_store


def by_title(store: Store, box: Path) -> dict[str, tuple[int, str, object]]:
    """title -> (id, part, parent's title) of a mailbox's parts."""
    _, rows = store.execute(
        "SELECT i.title, i.id, i.part, p.title FROM items i LEFT JOIN items p ON p.id = i.parent_id "
        "WHERE i.path = :path AND i.part <> ''", {"path": str(box.resolve())})
    return {str(r[0]): (int(r[1]), str(r[2]), r[3]) for r in rows}  # type: ignore[call-overload]


def letters(box: Path) -> list[str]:
    """The mailbox's messages, each whole."""
    text = box.read_text()
    starts = [i for i in range(len(text)) if text.startswith("From sender", i) and (i == 0 or text[i - 1] == "\n")]
    return [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)])]


def test_deleting_a_mail_keeps_every_other_mails_item(tmp_path: Path, store_url: str, fresh: Fresh) -> None:
    root = tmp_path / "mail"
    box = mailbox(root / "inbox.mbox", range(1, 9), copies={6: 1})  # letters 1 and 6: one cluster
    with open_store(store_url) as store:
        run(store, [root], CONFIG)
        before, clustered = by_title(store, box), {c[0]: c[1:] for c in clusters_of(store, box)}
        assert before["letter number 5"][1] == "message 5"
        kept = letters(box)
        box.write_text("".join(kept[:1] + kept[2:]))  # letter 2 deleted, as a mail client expunges it
        again = run(store, [root], CONFIG)
        assert (again.updated, again.failed) == (1, 0), again
        after = by_title(store, box)
        assert "letter number 2" not in after
        for n in range(3, 9):
            title = f"letter number {n}"
            assert after[title] == (before[title][0], f"message {n - 1}", "inbox.mbox"), (title, after[title])
        assert after["letter number 1"] == before["letter number 1"]
        for item, cluster in ((c[0], c[1:]) for c in clusters_of(store, box)):
            assert clustered[item] == cluster, f"item {item} keeps its cluster row: not clustered again"
        assert snapshot(store, box) == fresh(root, box), "as a fresh index of the mailbox as it is"
        assert_matches(store, root)
    check_clean(store_url)
    five = before["letter number 5"][0]
    shown = CliRunner().invoke(main, ["show", "--db", store_url, str(five)])
    assert shown.exit_code == 0 and shown.output.startswith(f"item {five}: ") and "[message 4]" in shown.output, \
        shown.output


def test_mails_sorted_in_another_order_keep_their_items(tmp_path: Path, store_url: str, fresh: Fresh) -> None:
    root = tmp_path / "mail"
    box = mailbox(root / "inbox.mbox", range(1, 7))
    with open_store(store_url) as store:
        run(store, [root], CONFIG)
        before = by_title(store, box)
        kept = letters(box)
        # sorted by another order (a client's "sort by sender" written back), a mail moved in after them
        box.write_text("".join([kept[5], kept[0], kept[3], kept[1], kept[2], kept[4], message(40)]))
        run(store, [root], CONFIG)
        after = by_title(store, box)
        assert set(after) == set(before) | {"letter number 40"}
        for title, (item, _, _) in before.items():
            assert after[title][0] == item, f"{title} keeps its item"
        assert [after[f"letter number {n}"][1] for n in (6, 1, 4, 2, 3, 5, 40)] == [f"message {m}" for m in range(1, 8)]
        assert snapshot(store, box) == fresh(root, box)
    check_clean(store_url)


def _with_attachment(n: int, name: str, body: str) -> str:
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = f"sender{n}@example.org", "me@example.org", f"letter number {n}"
    mail.set_content(f"The minutes are attached, number {n}.")
    mail.add_attachment(body, filename=name)
    return f"From sender{n}@example.org Mon Jan  1 00:{n:02d}:00 2024\n{mail.as_string()}\n"


def test_a_renumbered_mails_attachment_keeps_its_item_under_its_mail(tmp_path: Path, store_url: str,
                                                                   fresh: Fresh) -> None:
    root = tmp_path / "mail"
    box = root / "inbox.mbox"
    box.parent.mkdir(parents=True)
    minutes = " ".join(f"item {i} of the parish council minutes was agreed by all present" for i in range(40))
    box.write_text(message(1) + message(2) + _with_attachment(3, "minutes.txt", minutes) + message(4))
    with open_store(store_url) as store:
        run(store, [root], CONFIG)
        before = by_title(store, box)
        attachment = before["minutes.txt"]
        assert attachment[1:] == ("message 3 / attachment 1: minutes.txt", "letter number 3"), before
        kept = letters(box)
        box.write_text("".join(kept[1:]))  # letter 1 deleted
        run(store, [root], CONFIG)
        after = by_title(store, box)
        assert after["minutes.txt"] == (attachment[0], "message 2 / attachment 1: minutes.txt", "letter number 3")
        assert after["letter number 3"][:2] == (before["letter number 3"][0], "message 2")
        assert snapshot(store, box) == fresh(root, box)
        assert_matches(store, root)
    check_clean(store_url)


def test_two_identical_mails_one_deleted(tmp_path: Path, store_url: str, fresh: Fresh) -> None:
    root = tmp_path / "mail"
    box = root / "inbox.mbox"
    box.parent.mkdir(parents=True)
    box.write_text(message(1) + message(2) + message(2) + message(3))  # delivered twice
    with open_store(store_url) as store:
        run(store, [root], CONFIG)
        _, rows = store.execute("SELECT id FROM items WHERE path = :path AND part IN ('message 2', 'message 3')",
                                {"path": str(box.resolve())})
        twins = sorted(int(r[0]) for r in rows)  # type: ignore[call-overload]
        three = by_title(store, box)["letter number 3"][0]
        kept = letters(box)
        box.write_text(kept[0] + kept[2] + kept[3])  # the first of the two deleted
        run(store, [root], CONFIG)
        after = by_title(store, box)
        assert after["letter number 2"] == (twins[0], "message 2", "inbox.mbox"), "the older of the two stays"
        assert after["letter number 3"][:2] == (three, "message 3")
        assert snapshot(store, box) == fresh(root, box)
    check_clean(store_url)


def test_a_renumbered_mailbox_with_a_damaged_mail_and_an_empty_one(tmp_path: Path, store_url: str,
                                                                   fresh: Fresh) -> None:
    """A part written by its name alone -- a mail that fails, or one of no
    words -- takes that name's item as it is: that item must not then be
    handed another name for the text it held, leaving the failure's name on
    a mail of other text."""
    root = tmp_path / "mail"
    box = root / "inbox.mbox"
    box.parent.mkdir(parents=True)
    empty = "From sender9@example.org Mon Jan  1 00:09:00 2024\nFrom: sender9@example.org\nSubject: (none)\n\n\n"
    box.write_text(message(1) + message(2) + message(3) + message(4))
    with open_store(store_url) as store:
        run(store, [root], CONFIG)
        kept = letters(box)
        box.write_text(kept[0] + empty + "".join(kept[1:]))  # an empty mail put in after the first
        run(store, [root], CONFIG)
        after = by_title(store, box)
        assert [after[f"letter number {n}"][1] for n in (1, 2, 3, 4)] == ["message 1", "message 3", "message 4",
                                                                         "message 5"], after
        _, rows = store.execute("SELECT part, title, text FROM items WHERE path = :path AND part = 'message 2'",
                                {"path": str(box.resolve())})
        assert [(str(r[0]), r[1], r[2]) for r in rows] == [("message 2", "(none)", None)], rows
        assert snapshot(store, box) == fresh(root, box)
    check_clean(store_url)


def test_a_mail_moved_onto_the_number_of_an_empty_one(tmp_path: Path, store_url: str, fresh: Fresh) -> None:
    """The name a renumbered mail takes may be held by a stored part of no
    text (no cluster row): the two swap names too, rather than two items
    claiming one name."""
    root = tmp_path / "mail"
    box = root / "inbox.mbox"
    box.parent.mkdir(parents=True)
    empty = "From sender9@example.org Mon Jan  1 00:09:00 2024\nFrom: sender9@example.org\nSubject: (none)\n\n\n"
    box.write_text(message(1) + empty + message(2))
    with open_store(store_url) as store:
        run(store, [root], CONFIG)
        before = by_title(store, box)
        kept = letters(box)
        box.write_text(kept[0] + kept[2] + kept[1])  # sorted: the empty one last
        summary = run(store, [root], CONFIG)
        assert summary.failed == 0, summary
        after = by_title(store, box)
        assert after["letter number 2"] == (before["letter number 2"][0], "message 2", "inbox.mbox"), after
        assert after["(none)"] == (before["(none)"][0], "message 3", "inbox.mbox"), after
        assert snapshot(store, box) == fresh(root, box)
    check_clean(store_url)


def _attachment_alone(n: int, name: str, body: str) -> str:
    """A mail with no words of its own, only a file attached (a scanner's, a phone's "sent from")."""
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = f"sender{n}@example.org", "me@example.org", f"letter number {n}"
    mail.add_attachment(body, filename=name)
    return f"From sender{n}@example.org Mon Jan  1 00:{n:02d}:00 2024\n{mail.as_string()}\n"


def test_a_renumbered_mail_of_no_words_keeps_its_item(tmp_path: Path, store_url: str, fresh: Fresh) -> None:
    """A mail whose only content is an attachment has no text to be known
    by: renumbered, it is known by its title and people, and keeps its
    item -- it took the item the deleted mail had left under its new name,
    and a mail of no words after it took its own (the real archive's
    msg_24, 'A subject', became item 253 of the deleted msg_21)."""
    root = tmp_path / "mail"
    box = root / "inbox.mbox"
    box.parent.mkdir(parents=True)
    minutes = " ".join(f"item {i} of the parish council minutes was agreed by all present" for i in range(40))
    box.write_text(message(1) + _attachment_alone(2, "minutes.txt", minutes) + message(3)
                   + _attachment_alone(4, "accounts.txt", minutes.replace("minutes", "accounts")))
    with open_store(store_url) as store:
        run(store, [root], CONFIG)
        before = by_title(store, box)
        _, rows = store.execute("SELECT text FROM items WHERE id = :id", {"id": before["letter number 2"][0]})
        assert [r[0] for r in rows] == [None], "a mail of no words of its own"
        kept = letters(box)
        box.write_text("".join(kept[1:]))  # letter 1 deleted
        summary = run(store, [root], CONFIG)
        assert (summary.updated, summary.failed) == (1, 0), summary
        after = by_title(store, box)
        assert "letter number 1" not in after
        for n, attached in ((2, "minutes.txt"), (4, "accounts.txt")):
            title = f"letter number {n}"
            assert after[title] == (before[title][0], f"message {n - 1}", "inbox.mbox"), (title, before, after)
            assert after[attached] == (before[attached][0], f"message {n - 1} / attachment 1: {attached}", title)
        assert snapshot(store, box) == fresh(root, box)
        assert_matches(store, root)
    check_clean(store_url)


def test_a_renumbered_mails_failed_attachment_keeps_its_item(tmp_path: Path, store_url: str, fresh: Fresh) -> None:
    """An attachment that cannot be read (a photo without OCR, an empty
    file) has no text to be known by: renumbered, it is known by its mail,
    which keeps its item, and its name in it -- it was a new item under the
    new number at every mail deleted before it, its failure recorded and
    warned of again (the real archive's wibble.JPG, clock.bmp)."""
    root = tmp_path / "mail"
    box = root / "inbox.mbox"
    box.parent.mkdir(parents=True)
    photo = (Path(__file__).parent.parent / "sample_corpus/Bad files/holiday photo.jpg").read_bytes()
    with_photo = EmailMessage()
    with_photo["From"], with_photo["To"], with_photo["Subject"] = "ann@example.org", "me@example.org", "the photo"
    with_photo.set_content("The photo from the allotment, as promised.")
    with_photo.add_attachment(photo, maintype="image", subtype="jpeg", filename="allotment.jpg")
    with_photo.add_attachment(b"", maintype="application", subtype="octet-stream", filename="blank.dat")
    box.write_text(message(1) + message(2) + f"From ann@example.org Mon Jan  1 00:03:00 2024\n{with_photo}\n"
                   + message(4))
    with open_store(store_url) as store:
        run(store, [root], CONFIG)
        before = by_title(store, box)
        _, rows = store.execute("SELECT part, id, status FROM items WHERE path = :path AND status <> 'ok'",
                                {"path": str(box.resolve())})
        failed = {str(r[0]).rsplit(" / ", 1)[1]: (int(r[1]), r[2]) for r in rows}  # type: ignore[call-overload]
        assert set(failed) == {"attachment 1: allotment.jpg", "attachment 2: blank.dat"}, failed
        kept = letters(box)
        box.write_text("".join(kept[1:]))  # letter 1 deleted
        run(store, [root], CONFIG)
        after = by_title(store, box)
        assert after["the photo"][:2] == (before["the photo"][0], "message 2"), after
        _, rows = store.execute("SELECT part, id, status, parent_id FROM items WHERE path = :path "
                                "AND status <> 'ok'", {"path": str(box.resolve())})
        assert {str(r[0]): (int(r[1]), r[2]) for r in rows} == {  # type: ignore[call-overload]
            f"message 2 / {name}": item for name, item in failed.items()}, rows
        assert {r[3] for r in rows} == {before["the photo"][0]}, "under their mail"
        assert snapshot(store, box) == fresh(root, box)
        assert_matches(store, root)
    check_clean(store_url)
