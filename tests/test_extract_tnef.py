"""Outlook's winmail.dat (TNEF) on real files (tests/fixtures/tnef/, from tnefparse's test suite: see the
README there), alone and attached to a mail as Outlook sends it."""

from __future__ import annotations

import logging
from email.message import EmailMessage
from pathlib import Path

from lifededup.extract import Extracted, Failure, Limits, extract, extract_many, walk
from lifededup.index import IndexConfig, run
from lifededup.store import open_store

TNEF = Path(__file__).parent / "fixtures" / "tnef"


def test_the_attachments_outlook_wrapped_are_parts_read_as_any_attachment() -> None:
    """winmail.dat was "binary data of no format lifededup reads": the files in it were never read."""
    got = extract(TNEF / "two-files.tnef")
    assert (got.kind, got.title, got.mime) == ("email", "two files", "application/ms-tnef"), got
    parts = [p for p in walk(extract(TNEF / "two-files.tnef")) if p.part]
    assert [p.part for p in parts] == ["attachment 1: AUTHORS", "attachment 2: README"], parts
    assert all(isinstance(p, Extracted) for p in parts) and "Authors of tnef" in parts[0].text, parts


def test_its_rich_text_is_its_text_a_replys_quote_dropped_as_a_mails_is() -> None:
    got = extract(TNEF / "long-filename.tnef")
    assert got.title == "RE: license file" and got.text.startswith("I've attached a temp. license for QARun 4.7."), got
    assert "Original Message" not in got.text, "the message it answers is not its text"
    umlaut = extract(TNEF / "umlaut.tnef")  # RTF wrapping the message's HTML
    assert umlaut.text.startswith("TEST äöü"), umlaut.text
    names = [p.part for p in walk(extract(TNEF / "umlaut.tnef"))]
    assert "attachment 3: UmlautAnhang-äüö.txt" in names, names


def test_a_winmail_dat_outlook_attached_to_a_mail_is_read_into_its_documents(tmp_path: Path) -> None:
    """As another mail program receives Outlook's rich-text mail: a text part and winmail.dat."""
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = "Sue <sue@example.org>", "Stephen <stephen@example.org>", \
        "Y2K problem with Add-DT"
    mail.set_content("Hi Stephen, Sue has encountered a Date problem while running our New Books List.\n")
    mail.add_attachment((TNEF / "missing-filenames.tnef").read_bytes(), maintype="application", subtype="ms-tnef",
                        filename="winmail.dat")
    folder = tmp_path / "Mail"
    folder.mkdir()
    (folder / "y2k.eml").write_bytes(bytes(mail))
    parts = {p.part: p for p in walk(extract(folder / "y2k.eml"))}
    source = parts["attachment 1: winmail.dat / attachment 1: generpts.src"]
    assert isinstance(source, Extracted) and "CIRREQ01" in source.text, source
    # the three Word documents are screenshots pasted in Word 97: no word in them, said so
    words = [p for name, p in parts.items() if name.endswith(".doc")]
    assert len(words) == 3 and all(isinstance(p, Failure) and p.status == "empty" for p in words), words
    with open_store(tmp_path / "store.db") as store:
        run(store, [folder], IndexConfig(workers=1))
        _, rows = store.execute("SELECT part FROM items WHERE items.id IN (SELECT rowid FROM items_fts WHERE "
                                "items_fts MATCH 'cirreq01')")
        assert [r[0] for r in rows] == ["attachment 1: winmail.dat / attachment 1: generpts.src"], rows


def test_a_damaged_word_document_inside_a_container_is_said_by_its_own_name(tmp_path: Path) -> None:
    """A part is read from a temporary copy, and antiword's message named that: "antiword could not read it:
    /tmp/lifededup-worker-14702-4zchgx5i/lifededup-part-lthue6tz.doc is not a Word Document." (found with
    tnefparse's MAPI_ATTACH_DATA_OBJ.tnef) said neither which attachment nor where."""
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = "via@example.no", "lars@example.no", "VIA Nytt"
    mail.set_content("Nyhetsbrevet ligger vedlagt.\n")
    mail.add_attachment((TNEF / "VIA_Nytt_1402.doc").read_bytes(), maintype="application", subtype="msword",
                        filename="VIA_Nytt_1402.doc")
    (tmp_path / "via.eml").write_bytes(bytes(mail))
    [damaged] = [p for p in walk(extract(tmp_path / "via.eml")) if p.part]
    assert isinstance(damaged, Failure) and damaged.status == "corrupt", damaged
    assert "VIA_Nytt_1402.doc is not a Word Document" in damaged.reason, damaged.reason
    assert "lifededup-part" not in damaged.reason and "/tmp" not in damaged.reason, damaged.reason


def test_a_damaged_winmail_dat_is_read_not_timed_out_by_its_readers_warnings() -> None:
    """tnefparse warns at each object it cannot make sense of; in a damaged file it found millions, and the
    records made for them (sent nowhere) took 81 s: past the worker's time limit, "timeout", the attachments
    lost.  Its log is now above every level: no record is made."""
    outcomes = {o.part: o.result for o in extract_many([TNEF / "two-files-damaged.tnef"], Limits(timeout_s=45),
                                                        workers=1)}
    assert sorted(outcomes) == ["", "attachment 1: AUTHORS", "attachment 2: README"], outcomes
    assert all(isinstance(r, Extracted) for r in outcomes.values()), outcomes
    extract(TNEF / "two-files.tnef")  # and in this process, once a TNEF is read
    assert not logging.getLogger("tnefparse").isEnabledFor(logging.CRITICAL)
