"""Mail: .eml and .mbox with the standard library; quoted replies dropped, attachments as parts."""

from __future__ import annotations

import io
from email.message import EmailMessage
from email.utils import format_datetime
from datetime import datetime, timezone
from pathlib import Path

import docx

from lifededup.extract import Extracted, Failure, extract, extract_many, walk

BODY = ("Hi Sam,\n\nThe boat trip is booked for Saturday the 14th. We meet at the harbour at nine, bring\n"
        "waterproofs and something warm to drink.\n\nBest,\nAlex\n")


def message(subject: str, body: str, html: str | None = None, attachment: bytes | None = None) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = "Alex Moreau <alex@example.org>"
    msg["To"] = "Sam Okafor <sam@example.org>"
    msg["Subject"] = subject
    msg["Date"] = format_datetime(datetime(2024, 6, 3, 9, 30, tzinfo=timezone.utc))
    msg.set_content(body)
    if html:
        msg.add_alternative(html, subtype="html")
    if attachment:
        msg.add_attachment(attachment, maintype="application",
                           subtype="vnd.openxmlformats-officedocument.wordprocessingml.document",
                           filename="itinerary.docx")
    return msg


def docx_bytes(text: str) -> bytes:
    document = docx.Document()
    document.add_paragraph(text)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def test_eml_headers_and_body(tmp_path: Path) -> None:
    path = tmp_path / "trip.eml"
    path.write_bytes(bytes(message("Boat trip", BODY)))
    got = extract(path)
    assert got.title == "Boat trip" and got.kind == "email", got
    assert got.metadata["from"] == "Alex Moreau <alex@example.org>", got.metadata
    assert got.metadata["to"] == "Sam Okafor <sam@example.org>", got.metadata
    assert got.doc_date == datetime(2024, 6, 3, 9, 30, tzinfo=timezone.utc), got.doc_date
    assert "harbour at nine" in got.text, got.text


def test_plain_preferred_html_converted(tmp_path: Path) -> None:
    only_html = EmailMessage()
    only_html["Subject"] = "News"
    only_html.set_content("<html><body><p>Only <b>HTML</b> here</p><script>x()</script></body></html>",
                          subtype="html")
    path = tmp_path / "html.eml"
    path.write_bytes(bytes(only_html))
    assert extract(path).text == "Only HTML here", extract(path).text
    both = tmp_path / "both.eml"
    both.write_bytes(bytes(message("Both", "plain words", html="<p>html words</p>")))
    assert extract(both).text == "plain words"


def test_reply_quotes_and_signature_are_dropped(tmp_path: Path) -> None:
    quoted = "\n".join("> " + line for line in BODY.splitlines())
    reply = f"Great, I'll bring the flask.\n\nOn Mon, 3 Jun 2024 at 09:30, Alex Moreau wrote:\n{quoted}\n"
    path = tmp_path / "reply.eml"
    path.write_bytes(bytes(message("Re: Boat trip", reply + "\n-- \nSam Okafor\nsent from my phone\n")))
    assert extract(path).text == "Great, I'll bring the flask.", extract(path).text
    outlook = tmp_path / "outlook.eml"
    outlook.write_bytes(bytes(message("RE: Boat trip", "Count me in.\n\n-----Original Message-----\n"
                                      "From: Alex\nSent: Monday\n\n" + BODY)))
    assert extract(outlook).text == "Count me in.", extract(outlook).text


def test_attachment_is_a_child_item(tmp_path: Path) -> None:
    path = tmp_path / "with-attachment.eml"
    path.write_bytes(bytes(message("Itinerary", BODY, attachment=docx_bytes("Day one: harbour, island, pub."))))
    items = list(walk(extract(path)))
    assert len(items) == 2, items
    child = items[1]
    assert isinstance(child, Extracted) and child.text == "Day one: harbour, island, pub.", child
    assert child.part == "attachment 1: itinerary.docx" and child.metadata["filename"] == "itinerary.docx"


def write_mbox(path: Path, messages: list[EmailMessage]) -> None:
    with path.open("wb") as out:
        for msg in messages:
            out.write(b"From alex@example.org Mon Jun  3 09:30:00 2024\n")
            body = bytes(msg).replace(b"\nFrom ", b"\n>From ")
            out.write(body + b"\n\n")


def test_mbox_streams_one_item_per_message(tmp_path: Path) -> None:
    path = tmp_path / "archive.mbox"
    subjects = [f"Message {i}" for i in range(30)]
    write_mbox(path, [message(s, f"{s} body.\nFrom the harbour we sail at {i}.\n") for i, s in enumerate(subjects)])
    root = extract(path)
    assert root.kind == "mailbox" and root.text == "", root
    messages = [m for m in walk(root) if isinstance(m, Extracted) and m.kind == "email"]
    assert [m.title for m in messages] == subjects
    assert messages[3].part == "message 4"
    assert "From the harbour we sail at 3." in messages[3].text, "mboxrd '>From ' must be unescaped"


def test_mbox_through_workers_and_a_failed_attachment(tmp_path: Path) -> None:
    path = tmp_path / "box.mbox"
    broken = message("Broken attachment", BODY, attachment=b"PK\x03\x04 not really a zip")
    write_mbox(path, [message("One", BODY), broken])
    outcomes = list(extract_many([path], workers=1))
    parts = [(o.part, type(o.result).__name__) for o in outcomes]
    assert parts == [("", "Extracted"), ("message 1", "Extracted"), ("message 2", "Extracted"),
                     ("message 2 / attachment 1: itinerary.docx", "Failure")], parts
    failure = outcomes[-1].result
    assert isinstance(failure, Failure) and failure.status == "corrupt", failure
    assert [o.final for o in outcomes] == [False, False, False, True]


def test_a_large_mbox_is_streamed_not_loaded(tmp_path: Path) -> None:
    import tracemalloc

    path = tmp_path / "big.mbox"
    padding = "The quarterly newsletter of the allotment society, with all the news. " * 1500  # ~100 KB each
    with path.open("wb") as out:
        for i in range(150):
            out.write(b"From news@example.org Mon Jun  3 09:30:00 2024\n")
            out.write(bytes(message(f"Newsletter {i}", f"Issue {i}.\n{padding}\n")) + b"\n\n")
    assert path.stat().st_size > 14 * 2**20
    tracemalloc.start()
    count = sum(1 for item in walk(extract(path)) if isinstance(item, Extracted) and item.kind == "email")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert count == 150, count
    assert peak < 5 * 2**20, f"reading a {path.stat().st_size / 2**20:.0f} MiB mbox peaked at {peak / 2**20:.1f} MiB"


GIT_LOG = """commit 0dfab4253e26d5c6e5f058126eb5e9f7a7732ae8
Author: Alan Coopersmith <alan.coopersmith@oracle.com>
Date:   Fri Jun 6 18:28:28 2014 -0700

    libICE 1.0.9

    Signed-off-by: Alan Coopersmith <alan.coopersmith@oracle.com>

commit 1746abbb1ae1c41ba29c14d1ad1d0c3c6b6c0e4e
Author: Keith Packard <keithp@keithp.com>
Date:   Thu May 22 12:37:18 2014 -0700

    Fix the build with the compiler's warnings on
"""


def test_a_git_log_is_text_and_a_saved_message_with_its_envelope_line_is_mail(tmp_path: Path) -> None:
    """Debian ships upstream changelogs that are git logs (commit, Author:,
    Date: lines): they were read as mail -- kind email, no title, no date --
    for holding two Date: lines.  A message saved out of a mailbox with its
    "From " envelope line is still a mail."""
    changelog = tmp_path / "changelog"
    changelog.write_text(GIT_LOG)
    found = extract(changelog)
    assert found.kind == "text" and "libICE 1.0.9" in found.text, (found.kind, found.text[:80])
    kept = tmp_path / "saved"
    kept.write_bytes(b"From MAILER-DAEMON Fri Apr 06 16:46:09 2001\n" + bytes(message("Choir practice", "Tuesday at eight")))
    mails = [(i.kind, i.title) for i in walk(extract(kept)) if isinstance(i, Extracted) and i.kind == "email"]
    assert mails == [("email", "Choir practice")], mails  # a mailbox of one, or the message
