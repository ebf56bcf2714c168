"""Revision 0043 on a populated store, both backends: Outlook's winmail.dat
(TNEF) was "unsupported", the documents in it never read; 0043 marks the
files holding one -- here a mailbox whose second message carries it -- to be
read again, and the next ``index`` reads its attachments as parts, the
mailbox's items keeping their ids.  A mail without one is not read again."""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

from test_extract_tnef import TNEF
from test_migrations import downgrade_to, read_again_at, search_ids

from lifededup.index import IndexConfig, run
from lifededup.store import open_store


def _message(subject: str, text: str, winmail: bytes | None = None) -> bytes:
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = "sue@example.org", "stephen@example.org", subject
    mail.set_content(text)
    if winmail is not None:
        mail.add_attachment(winmail, maintype="application", subtype="ms-tnef", filename="winmail.dat")
    return b"From sue@example.org Fri Dec 31 06:13:00 1999\n" + bytes(mail).replace(b"\nFrom ", b"\n>From ") + b"\n"


def test_0043_reads_again_the_mail_holding_outlooks_winmail_dat(store_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "Mail"
    folder.mkdir()
    (folder / "inbox.mbox").write_bytes(_message("Lunch", "Lunch at noon by the harbour?\n")
                                        + _message("two files", "The two files, as promised.\n",
                                                   (TNEF / "two-files.tnef").read_bytes()))
    (folder / "note.eml").write_bytes(_message("Tides", "High water at nine.\n").split(b"\n", 1)[1])
    with open_store(store_url) as store:  # written at head, then winmail.dat as 0042's code read it
        run(store, [folder], IndexConfig(workers=1))
        _, rows = store.execute("SELECT id, part FROM items WHERE path LIKE '%inbox.mbox'")
        ids = {str(part): int(str(i)) for i, part in rows}
        winmail = ids["message 2 / attachment 1: winmail.dat"]
        inside = [part for part in ids if part.startswith("message 2 / attachment 1: winmail.dat /")]
        assert len(inside) == 2, ids
        store.remove_ids([ids.pop(part) for part in inside])
        store.execute("UPDATE items SET status = 'unsupported', kind = 'document', text = NULL, title = NULL, "
                      "mime_type = NULL, error = 'winmail.dat holds binary data of no format lifededup reads' "
                      "WHERE id = :id", {"id": winmail})
    downgrade_to(store_url, "0042")
    with open_store(store_url) as store:
        assert search_ids(store, "tnef") == [], "0042's state: the attachments in it are not read"

    with read_again_at(store_url, "0043", folder, {"inbox.mbox": True, "note.eml": False}) as store:
        _, rows = store.execute("SELECT id, part, status FROM items WHERE path LIKE '%inbox.mbox'")
        now = {str(part): (int(str(i)), str(status)) for i, part, status in rows}
        assert {part: i for part, (i, _) in now.items() if part in ids} == ids, "the same ids"
        assert now["message 2 / attachment 1: winmail.dat"][1] == "ok"
        authors = now["message 2 / attachment 1: winmail.dat / attachment 1: AUTHORS"][0]
        assert authors in search_ids(store, "tnef"), "the attachment Outlook wrapped is found by its words"
