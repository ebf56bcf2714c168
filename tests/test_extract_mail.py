"""Mail: .eml and .mbox with the standard library; quoted replies dropped, attachments as parts."""

from __future__ import annotations

import base64
import io
from email.message import EmailMessage, MIMEPart
from email.utils import format_datetime
from datetime import datetime, timezone
from pathlib import Path

import docx
import pytest

from lifededup.extract import Extracted, Failure, extract, extract_many, walk
from lifededup.extract.base import UnsupportedFormat

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


def test_an_attribution_in_any_language_goes_with_its_quote(tmp_path: Path) -> None:
    """A reply's attribution line is dropped with the quote it introduces in
    whatever language the phone writes it: a real reply from Android in Russian
    (talon's test fixture) kept "02.04.2012 14:20 пользователь ... написал:" as
    the author's words. A line of the author's own that ends in a colon and
    names a date stays, where no quote follows it."""
    android = Path(__file__).parent / "fixtures" / "mail" / "android-reply-ru.eml"
    assert extract(android).text == "Hello", extract(android).text
    own = tmp_path / "own.eml"
    own.write_bytes(bytes(message("Re: Boat trip", "Fine by me. The tide table for 03.06.2024:\n\nhigh water 09:30, "
                                  "low water 15:45\n\n> Shall we sail on Monday?\n")))
    assert extract(own).text == "Fine by me. The tide table for 03.06.2024:\n\nhigh water 09:30, low water 15:45", \
        extract(own).text


# An HTML-only reply quotes the message it answers in its program's markup,
# not in "> " lines (each as the program writes it, trimmed to its structure)
_ORIGINAL_HTML = "<div>" + BODY.replace("\n", "<br>") + "</div>"
_HTML_REPLIES = {
    "gmail": ('<div dir="ltr">Great, I will bring the flask.</div><br><div class="gmail_quote">'
              '<div dir="ltr" class="gmail_attr">On Mon, Jun 3, 2024 at 9:30 AM Alex Moreau &lt;alex@example.org&gt;'
              f' wrote:<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex">{_ORIGINAL_HTML}'
              '</blockquote></div>'),
    "apple mail": ('<html><body><div>Great, I will bring the flask.</div><div><br><blockquote type="cite">'
                   '<div>On 3 Jun 2024, at 09:30, Alex Moreau &lt;alex@example.org&gt; wrote:</div>'
                   f'<br class="Apple-interchange-newline">{_ORIGINAL_HTML}</blockquote></div></body></html>'),
    "thunderbird": ('<html><body><p>Great, I will bring the flask.</p><div class="moz-cite-prefix">On 03/06/2024 '
                    '09:30, Alex Moreau wrote:<br></div><blockquote type="cite" cite="mid:1@example.org">'
                    f'{_ORIGINAL_HTML}</blockquote></body></html>'),
    "outlook on the web": ('<html><body><div>Great, I will bring the flask.</div><hr style="display:inline-block">'
                           '<div id="divRplyFwdMsg" dir="ltr"><font face="Calibri"><b>From:</b> Alex Moreau<br>'
                           '<b>Sent:</b> Monday, June 3, 2024 9:30 AM<br><b>To:</b> Sam Okafor<br><b>Subject:</b> '
                           f'Boat trip</font><div>&nbsp;</div></div>{_ORIGINAL_HTML}</body></html>'),
    # Outlook on the desktop: the header block in paragraphs, a blank line between its fields
    "outlook": ('<html><body><div class="WordSection1"><p class="MsoNormal">Great, I will bring the flask.</p>'
                '<div style="border:none;border-top:solid #E1E1E1 1.0pt"><p class="MsoNormal"><b>From:</b> Alex '
                'Moreau &lt;alex@example.org&gt;</p><p class="MsoNormal"><b>Sent:</b> Monday, June 3, 2024 9:30 AM'
                f'</p></div><p class="MsoNormal">{BODY}</p></div></body></html>'),
}


def html_only(subject: str, html: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"], msg["Subject"] = "Sam Okafor <sam@example.org>", subject
    msg.set_content(html, subtype="html")
    return msg


def test_html_only_replies_drop_the_quoted_message(tmp_path: Path) -> None:
    """A reply with no text/plain part kept the message it answers (its
    quote is markup, not "> " lines): 12% apart from it, it was clustered
    as a near copy and hidden under it in search."""
    for program, html in _HTML_REPLIES.items():
        path = tmp_path / f"{program}.eml"
        path.write_bytes(bytes(html_only("Re: Boat trip", html)))
        assert extract(path).text == "Great, I will bring the flask.", (program, extract(path).text)
    # Finnish Outlook's reply is "VS:" (and its forward "VL:"): a reply, its quote dropped
    (tmp_path / "finnish.eml").write_bytes(bytes(html_only("VS: Boat trip", _HTML_REPLIES["outlook"])))
    assert extract(tmp_path / "finnish.eml").text == "Great, I will bring the flask."
    # a reply known by its header, whatever its subject
    answer = html_only("Boat trip", _HTML_REPLIES["thunderbird"])
    answer["In-Reply-To"] = "<1@example.org>"
    (tmp_path / "answer.eml").write_bytes(bytes(answer))
    assert extract(tmp_path / "answer.eml").text == "Great, I will bring the flask."
    # Gmail's Quote button in a new message: the quote is the message's own text (here a poem), kept
    poem = ('<div dir="ltr">Here is the Hopkins poem for Thursday:<blockquote class="gmail_quote" style="margin:0px">'
            "Glory be to God for dappled things, for skies of couple-colour as a brinded cow</blockquote>"
            "See you there.</div>")
    (tmp_path / "poem.eml").write_bytes(bytes(html_only("The poem for Thursday", poem)))
    assert "dappled things" in extract(tmp_path / "poem.eml").text, extract(tmp_path / "poem.eml").text


def test_a_forwarded_message_is_kept_in_the_forward(tmp_path: Path) -> None:
    """An inline forward was cut at "Forwarded message" like a quote: the
    forwarded text, which the archive may hold nowhere else, could not be
    found.  It is the forward's text now (the forward, a copy of it)."""
    forwarded = ("Hi Dana, FYI.\n-- \nSam\n\n---------- Forwarded message ---------\nFrom: Alex Moreau "
                 f"<alex@example.org>\nDate: Mon, 3 Jun 2024 at 09:30\nSubject: Boat trip\n\n{BODY}")
    plain = tmp_path / "plain.eml"
    plain.write_bytes(bytes(message("Boat trip", forwarded)))  # a subject that does not say so
    text = extract(plain).text
    assert text.startswith("Hi Dana, FYI.") and "harbour at nine" in text and "\nSam\n" not in text, text
    gmail = tmp_path / "gmail.eml"
    gmail.write_bytes(bytes(html_only("Fwd: Boat trip", (
        '<div dir="ltr">Hi Dana, FYI.<br><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">'
        '---------- Forwarded message ---------<br>From: <strong class="gmail_sendername">Alex Moreau</strong>'
        f'<br>Subject: Boat trip<br></div><br><br>{_ORIGINAL_HTML}</div></div>'))))
    assert "harbour at nine" in extract(gmail).text, extract(gmail).text
    apple = tmp_path / "apple.eml"
    apple.write_bytes(bytes(html_only("Boat trip", (
        '<div>Hi Dana, FYI.</div><div><br><div>Begin forwarded message:</div><br><blockquote type="cite">'
        f'<div><b>From: </b>Alex Moreau</div><div><b>Subject: </b>Boat trip</div>{_ORIGINAL_HTML}</blockquote>'
        '</div>'))))
    assert "harbour at nine" in extract(apple).text, extract(apple).text
    outlook = tmp_path / "outlook.eml"  # FW: -- the forwarded message under a reply's "From: / Sent:" block
    outlook.write_bytes(bytes(message("FW: Boat trip", f"Hi Dana, FYI.\n\nFrom: Alex Moreau\nSent: Monday\n\n{BODY}")))
    assert "harbour at nine" in extract(outlook).text, extract(outlook).text
    # a reply quoting a forward drops it with the rest of its quote
    reply = tmp_path / "reply.eml"
    reply.write_bytes(bytes(message("RE: Boat trip", f"Thanks!\n\n-----Original Message-----\nFrom: Sam\n"
                                    f"Sent: Monday\n\n---------- Forwarded message ---------\n{BODY}")))
    assert extract(reply).text == "Thanks!", extract(reply).text


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
        for i in range(80):  # 8 MiB: loaded whole, the peak would be past it
            out.write(b"From news@example.org Mon Jun  3 09:30:00 2024\n")
            out.write(bytes(message(f"Newsletter {i}", f"Issue {i}.\n{padding}\n")) + b"\n\n")
    assert path.stat().st_size > 7.5 * 2**20
    tracemalloc.start()
    count = sum(1 for item in walk(extract(path)) if isinstance(item, Extracted) and item.kind == "email")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert count == 80, count
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


def test_a_message_too_large_for_memory_is_too_large_and_the_rest_are_read(tmp_path: Path) -> None:
    """A mailbox's message of one huge line was 'corrupt: damaged message:
    MemoryError' -- and one larger still ran the worker out of memory while
    it was assembled, losing every message after it.  A message over an
    eighth of the worker's memory is not assembled; one that runs out of it
    anyway is 'too-large'; the others are read, in real worker processes
    under a 384 MiB limit."""
    from lifededup.extract import Limits

    path = tmp_path / "box.mbox"
    first, third = message("One", "The first message, about the tide.\n"), message("Three", "The third, the harbour.\n")
    for size_mib, said in ((45, "ran out of the 384 MiB memory limit"), (60, "over the 48 MiB read whole")):
        write_mbox(path, [first, message("Huge", "x" * (size_mib * 2**20) + "\n"), third])
        outcomes = {o.part: o.result for o in extract_many([path], Limits(memory_mb=384), workers=1)}
        assert isinstance(outcomes["message 1"], Extracted) and isinstance(outcomes["message 3"], Extracted), outcomes
        huge = outcomes["message 2"]
        assert isinstance(huge, Failure) and huge.status == "too-large" and said in huge.reason, huge


def test_a_message_that_is_no_reply_keeps_its_rules_and_angle_lines(tmp_path: Path) -> None:
    """Every message lost its quotes: a newsletter's masthead rule (a line of
    underscores) ended its text and a new message's "> " lines (commands at
    a prompt) went, so two issues of a newsletter were exact copies.  Only a
    reply quotes, and in a reply a rule is Outlook's quote only when the
    quoted message's header block follows it."""
    rule = "_" * 60
    news = tmp_path / "news.eml"
    news.write_bytes(bytes(message("Weekly news 17", f"Weekly news, issue 17.\n{rule}\nMain story: the harbour "
                                   "bridge reopens on Monday.\n")))
    assert "harbour bridge reopens" in extract(news).text, extract(news).text
    shell = tmp_path / "shell.eml"
    shell.write_bytes(bytes(message("How to list the backups", "Type these at the prompt:\n> cd /srv/backups\n"
                                    "> ls -l nightly\nThat shows the nightly archives.\n")))
    assert "> cd /srv/backups" in extract(shell).text and "nightly archives" in extract(shell).text, extract(shell).text
    outlook = tmp_path / "outlook.eml"
    outlook.write_bytes(bytes(message("RE: Boat trip", f"Count me in.\n\n{rule}\nFrom: Alex Moreau\n"
                                      f"Sent: Monday, June 3, 2024 9:30 AM\nTo: Sam\nSubject: Boat trip\n\n{BODY}")))
    assert extract(outlook).text == "Count me in.", extract(outlook).text
    ruled = tmp_path / "ruled.eml"
    ruled.write_bytes(bytes(message("Re: Boat trip", f"Count me in.\n{rule}\nThe sailing club, est. 1921\n")))
    assert "sailing club" in extract(ruled).text, extract(ruled).text


def test_an_empty_or_stub_text_plain_gives_way_to_the_html(tmp_path: Path) -> None:
    """A message whose text/plain alternative is empty, or a stub asking for
    an HTML-capable mail program, was indexed with that stub (or no text):
    two issues of a shop's newsletter were copies, their stories unsearchable."""
    story = ("<html><body><h1>Town news</h1><p>The harbour bridge reopens on Monday with two new cycle lanes, and "
             "the council votes on the new park next Thursday evening in the town hall, where everyone is "
             "welcome to speak for three minutes.</p></body></html>")
    stub = tmp_path / "stub.eml"
    stub.write_bytes(bytes(message("Town news", "This message is in HTML format. To read it, please use an "
                                   "HTML-capable mail program.", html=story)))
    assert "harbour bridge reopens" in extract(stub).text, extract(stub).text
    short_story = "<p>The harbour bridge reopens on Monday with two new cycle lanes.</p>"  # as short as its stub
    stub.write_bytes(bytes(message("Town news", "This message is in HTML format. To read it, please use an "
                                   "HTML-capable mail program.", html=short_story)))
    assert "harbour bridge reopens" in extract(stub).text, extract(stub).text
    empty = tmp_path / "empty.eml"
    empty.write_bytes(bytes(message("Town news", "\n", html=story)))
    assert "harbour bridge reopens" in extract(empty).text, extract(empty).text
    short = tmp_path / "short.eml"  # a short message whose HTML says the same: text/plain preferred
    short.write_bytes(bytes(message("Town news", "plain words", html="<p>html words</p>")))
    assert extract(short).text == "plain words", extract(short).text


def test_a_reply_whose_quote_is_not_marked_is_cut_at_its_attribution_line(tmp_path: Path) -> None:
    """Yahoo, AOL and phones quote the original as is, under an attribution
    line and no "> ": the reply kept the message it answers and was taken
    for a near copy of it; and attribution lines in other languages than
    English, German and French were kept as the reply's text."""
    attributions = [
        "On Sunday, February 28, 2021, 10:00:00 AM GMT, Alex Moreau <alex@example.org> wrote:",
        "El dom, 28 feb 2021 a las 10:00, Alex Moreau (<alex@example.org>) escribió:",
        "Le dim. 28 févr. 2021 à 10:00, Alex Moreau <alex@example.org> a écrit :",
        "Am So., 28. Feb. 2021 um 10:00 Uhr schrieb Alex Moreau <alex@example.org>:",
        "Il giorno dom 28 feb 2021 alle ore 10:00 Alex Moreau <alex@example.org> ha scritto:",
        "Op zo 28 feb. 2021 om 10:00 schreef Alex Moreau <alex@example.org>:",
        "Em dom., 28 de fev. de 2021 às 10:00, Alex Moreau <alex@example.org> escreveu:",
    ]
    for number, attribution in enumerate(attributions):
        path = tmp_path / f"reply-{number}.eml"
        path.write_bytes(bytes(message("Re: Boat trip", f"Count me in.\n\n\n{attribution}\n\n\n{BODY}")))
        assert extract(path).text == "Count me in.", (attribution, extract(path).text)
        marked = "\n".join("> " + line for line in BODY.splitlines())
        path.write_bytes(bytes(message("Re: Boat trip", f"{attribution}\n{marked}\nCount me in.\n")))
        assert extract(path).text == "Count me in.", (attribution, extract(path).text)
    # a message that answers none keeps such a line: it quotes nothing
    letter = tmp_path / "letter.eml"
    letter.write_bytes(bytes(message("Boat trip", f"Count me in.\n\n{attributions[0]}\n\n{BODY}")))
    assert "harbour at nine" in extract(letter).text, extract(letter).text


def test_each_message_of_a_mime_digest_is_a_part(tmp_path: Path) -> None:
    """A mailing list's MIME digest (Mailman's: multipart/mixed holding a
    multipart/digest of message/rfc822 parts) kept its first message only,
    read with the digest part's headers as its text."""
    fruits = ["apple", "banana", "cherry", "damson", "elderberry"]
    digest = EmailMessage()
    digest["From"], digest["To"], digest["Subject"] = "ppp-request@example.org", "ppp@example.org", "Ppp digest, Vol 1 #2"
    digest.set_content("Today's Topics: five pie recipes")
    inner = EmailMessage()
    inner.make_mixed()
    inner.set_type("multipart/digest")
    for number, fruit in enumerate(fruits, start=1):
        post = EmailMessage()
        post["From"], post["Subject"] = "barry@example.org", f"[Ppp] testing #{number}"
        post.set_content(f"The {fruit} pie recipe, from the allotment.")
        wrapper = MIMEPart()
        wrapper.set_content(post)
        inner.attach(wrapper)
    digest.make_mixed()
    digest.attach(inner)
    path = tmp_path / "digest.eml"
    path.write_bytes(bytes(digest))
    posts = [i for i in walk(extract(path)) if isinstance(i, Extracted) and i.title.startswith("[Ppp]")]
    assert [p.title for p in posts] == [f"[Ppp] testing #{n}" for n in range(1, 6)], [(p.part, p.title) for p in posts]
    assert all(f"The {fruit} pie recipe" in p.text for fruit, p in zip(fruits, posts)), [p.text for p in posts]


def test_a_message_whose_body_is_a_message_and_a_multipart_without_its_boundary(tmp_path: Path) -> None:
    """A mail whose whole body is a message (GroupWise forwards so; CPython's
    test mail msg_46) was stored with no text and no part: the forwarded
    message was lost.  It is a part now.  A multipart mail whose boundary is
    missing, or not the one its body uses, had no text."""
    groupwise = tmp_path / "groupwise.eml"
    groupwise.write_bytes(b"From: Sender <sender@example.net>\nTo: someone@example.com\nSubject: Forwarding test\n"
                          b"Mime-Version: 1.0\nContent-Type: message/rfc822\n\nFrom: Dr. Sender <sender@example.net>\n"
                          b"To: Recipient <recipient@example.com>\nSubject: Boat trip\nContent-Type: text/plain; "
                          b"charset=ISO-8859-15\n\n" + BODY.encode())
    found = [(i.part, i.title, i.text) for i in walk(extract(groupwise)) if isinstance(i, Extracted)]
    assert len(found) == 2 and found[1][1] == "Boat trip" and "harbour at nine" in found[1][2], found
    no_boundary = tmp_path / "no-boundary.eml"
    no_boundary.write_bytes(b"From: a@example.org\nTo: b@example.org\nSubject: Boat trip\nContent-Type: multipart/mixed"
                            b"\n\n" + BODY.encode())
    assert "harbour at nine" in extract(no_boundary).text, extract(no_boundary).text
    wrong = tmp_path / "wrong-boundary.eml"
    wrong.write_bytes(b"From: a@example.org\nTo: b@example.org\nSubject: Boat trip\nContent-Type: multipart/mixed; "
                      b"boundary=nothere\n\n--real\nContent-Type: text/plain\n\n" + BODY.encode()
                      + b"\n--real\nContent-Type: text/plain\nContent-Disposition: attachment; filename=notes.txt\n\n"
                      b"Bring the flask.\n--real--\n")
    items = [i for i in walk(extract(wrong)) if isinstance(i, Extracted)]
    assert "harbour at nine" in items[0].text and "--real" not in items[0].text, items[0].text
    assert [(i.part, i.text) for i in items[1:]] == [("attachment 1: notes.txt", "Bring the flask.")], items


def test_a_multipart_whose_boundary_is_opened_but_never_closed_is_read_by_its_opening_line() -> None:
    """A spammer's mail declares one boundary, opens its part with a second, closes with a third: no boundary
    was closed, so its body was indexed as text -- the part's headers and 24 KB of base64."""
    got = extract(Path(__file__).parent / "fixtures" / "mail" / "mail_malformed_3")
    assert got.title == "Ahorre Dinero en su Recibo de Luz", got.title
    assert got.text.startswith("Problemas para visualizar | Ver on-line"), got.text[:300]
    assert "Content-Transfer-Encoding" not in got.text and "PGh0bWw+" not in got.text, got.text[:300]


def test_a_mail_that_is_one_attached_file_keeps_the_file_as_its_part(tmp_path: Path) -> None:
    """A scanner's "Scan to e-mail" sends the PDF as the mail's only part
    (no multipart around it); a script, a report as one attached text. Both
    were stored with no text and no part: the file's words were lost."""
    pdf = (Path(__file__).resolve().parent.parent
           / "sample_corpus/Documents/residents-minutes/PDF/residents-minutes-v1.pdf").read_bytes()
    scan = tmp_path / "scan.eml"
    scan.write_bytes(b"From: scanner@example.org\nTo: sam@example.org\nSubject: Scanned document\nMIME-Version: 1.0\n"
                     b"Content-Type: application/pdf; name=scan0042.pdf\nContent-Transfer-Encoding: base64\n\n"
                     + base64.encodebytes(pdf))
    items = [i for i in walk(extract(scan)) if isinstance(i, Extracted)]
    assert [i.part for i in items] == ["", "attachment 1: scan0042.pdf"], items
    assert items[0].title == "Scanned document" and "Minutes of the Spring Meeting" in items[1].text, items[1].text
    report = tmp_path / "report.eml"
    report.write_bytes(b"From: cron@example.org\nTo: sam@example.org\nSubject: Nightly report\nMIME-Version: 1.0\n"
                       b"Content-Type: text/plain\nContent-Disposition: attachment; filename=report.txt\n\n" + BODY.encode())
    items = [i for i in walk(extract(report)) if isinstance(i, Extracted)]
    assert [(i.part, "harbour at nine" in i.text) for i in items] == [("", False),
                                                                      ("attachment 1: report.txt", True)], items
    # a plain one-part mail is its own body, no part
    plain = tmp_path / "plain.eml"
    plain.write_bytes(bytes(message("Boat trip", BODY)))
    assert [i.part for i in walk(extract(plain))] == [""]


def raw_mail(subject: bytes, charset: bytes, body: bytes) -> bytes:
    return (b"From: a@example.com\nTo: b@example.com\nSubject: " + subject + b"\nMIME-Version: 1.0\nContent-Type: "
            b"text/plain; charset=" + charset + b"\nContent-Transfer-Encoding: 8bit\n\n" + body)


def test_a_declared_charset_is_read_as_browsers_read_it_and_not_trusted_blindly(tmp_path: Path) -> None:
    """A part's declared charset was trusted, bad bytes replaced: Windows-1252
    quotes labelled ISO-8859-1 were lost, GBK labelled GB2312 lost its rarer
    characters, Latin-1 labelled UTF-8 was replaced byte by byte; and raw
    8-bit Latin-1 in a header was replaced."""
    gbk = "会议室在三楼，请找镕基先生。"
    cases = [
        (raw_mail(b"Quotes", b"iso-8859-1", "We don’t ship on Sundays – “express” costs €12.".encode("cp1252")),
         "Quotes", "We don’t ship on Sundays – “express” costs €12."),
        (raw_mail(b"=?gb2312?B?" + base64.b64encode("会议镕".encode("gbk")) + b"?=", b"gb2312", gbk.encode("gbk")),
         "会议镕", gbk),
        (raw_mail("Réunion d'été".encode("latin-1"), b"utf-8",
                  "Bonjour Hélène, voici le compte-rendu de la réunion de l'été.".encode("latin-1")),
         "Réunion d'été", "Bonjour Hélène, voici le compte-rendu de la réunion de l'été."),
        (raw_mail(b"=?iso-8859-1?Q?It=92s_done?=", b"us-ascii", "Grüße aus München".encode()),
         "It’s done", "Grüße aus München"),
        (raw_mail(b"=?ks_c_5601-1987?B?" + base64.b64encode("회의 자료".encode("cp949")) + b"?=", b"x-unknown",
                  "Hallo Zoë".encode()), "회의 자료", "Hallo Zoë"),
        # labels of codecs that are no text encodings (Python's base64, rot13) or fail as a whole (undefined)
        (raw_mail(b"=?rot13?Q?caf=C3=A9?=", b"base64", "Hallo Zoë".encode()), "café", "Hallo Zoë"),
        (raw_mail(b"=?undefined?Q?caf=C3=A9?=", b"idna", "Hallo Zoë".encode()), "café", "Hallo Zoë"),
    ]
    for number, (data, title, text) in enumerate(cases):
        path = tmp_path / f"{number}.eml"
        path.write_bytes(data)
        found = extract(path)
        assert (found.title, found.text) == (title, text), (found.title, found.text)


def test_a_nul_byte_does_not_make_a_mail_binary(tmp_path: Path) -> None:
    """One NUL byte in a mail's first 8 KB (broken mailers send them) made a
    Maildir message, an .eml, and a whole mailbox named as Thunderbird names
    them ("Inbox") "unsupported: binary data"."""
    broken = bytes(message("Boat trip", BODY)).replace(b"at nine", b"at nine\x00")
    assert b"\x00" in broken
    (tmp_path / "Maildir" / "cur").mkdir(parents=True)
    maildir = tmp_path / "Maildir" / "cur" / "1700000000.M1P1.host:2,S"
    maildir.write_bytes(broken)
    eml = tmp_path / "trip.eml"
    eml.write_bytes(broken)
    for path in (maildir, eml):
        found = extract(path)
        assert (found.kind, found.title) == ("email", "Boat trip") and "harbour at nine" in found.text, found
        assert "\x00" not in found.text
    inbox = tmp_path / "Inbox"
    write_mbox(inbox, [message("Boat trip", BODY), message("Two", "Tuesday at eight")])
    inbox.write_bytes(inbox.read_bytes().replace(b"at nine", b"at nine\x00"))
    titles = [i.title for i in walk(extract(inbox)) if isinstance(i, Extracted) and i.kind == "email"]
    assert titles == ["Boat trip", "Two"], titles
    fake = tmp_path / "photo.eml"  # binary data named .eml is still refused
    fake.write_bytes(bytes(range(256)) * 8)
    try:
        extract(fake)
    except UnsupportedFormat:
        pass
    else:
        raise AssertionError("binary data named .eml was read as mail")


def test_an_mbox_without_blank_lines_before_its_separators(tmp_path: Path) -> None:
    """Eudora and others write an mbox's "From " envelope line right after
    the last body line: five messages were one, where Python's mailbox
    reads five.  A "From " line in a body that is no envelope is still text."""
    path = tmp_path / "eudora.mbx"
    with path.open("wb") as out:
        for number in range(5):
            body = f"Message {number} body.\nFrom the harbour we sail at {number}.\n"
            out.write(b"From ???@??? Sat Apr 21 09:00:00 2001\n" + bytes(message(f"Message {number}", body)).rstrip(b"\n")
                      + b"\n")
    messages = [m for m in walk(extract(path)) if isinstance(m, Extracted) and m.kind == "email"]
    assert [m.title for m in messages] == [f"Message {n}" for n in range(5)], [m.title for m in messages]
    assert "From the harbour we sail at 3." in messages[3].text, messages[3].text
    crlf = tmp_path / "crlf.mbox"
    crlf.write_bytes(path.read_bytes().replace(b"\n", b"\r\n").replace(b"???@??? Sat", b"a@b Sat").replace(
        b" 2001\r\n", b" +0000 2001\r\n"))
    assert len([m for m in walk(extract(crlf)) if isinstance(m, Extracted) and m.kind == "email"]) == 5


def test_bcc_is_kept_with_the_other_recipients(tmp_path: Path) -> None:
    """A sent mail's Bcc: recipients (kept in the sender's copy) were not
    among its metadata, so not in its people."""
    sent = message("Boat trip", BODY)
    sent["Bcc"] = "Dana Reyes <dana@example.org>"
    path = tmp_path / "sent.eml"
    path.write_bytes(bytes(sent))
    assert extract(path).metadata["bcc"] == "Dana Reyes <dana@example.org>", extract(path).metadata


def test_an_image_the_html_shows_in_place_is_layout_not_a_part(tmp_path: Path) -> None:
    """A newsletter's logo, shown by its HTML body through its Content-ID,
    was a part of its own and a failure ('no text without OCR'): 4,140 of
    them among a tester's 10,000 messages drowned the real failures. An image
    attached as a file is still a part."""
    import io

    from PIL import Image

    def png() -> bytes:
        out = io.BytesIO()
        Image.new("RGB", (120, 40), (200, 30, 30)).save(out, "PNG")
        return out.getvalue()

    news = message("Garden news", "This week we planted beans and peas along the river path.\n")
    news.clear_content()
    news.set_content('<p>This week we planted beans and peas.</p><img src="cid:logo@example.org">', subtype="html")
    news.add_related(png(), maintype="image", subtype="png", cid="<logo@example.org>")
    assert news.get_content_type() == "multipart/related"
    photo = message("Holiday", "The photo from the harbour.\n")
    photo.add_attachment(png(), maintype="image", subtype="png", filename="holiday.png")
    (tmp_path / "news.eml").write_bytes(bytes(news))
    (tmp_path / "photo.eml").write_bytes(bytes(photo))
    parts = {name: [i for i in walk(extract(tmp_path / name)) if i is not None][1:] for name in ("news.eml", "photo.eml")}
    assert parts["news.eml"] == [], parts["news.eml"]
    assert len(parts["photo.eml"]) == 1, parts["photo.eml"]  # the photo attached as a file


@pytest.mark.parametrize("block", [
    "Da: Mario Rossi <mario@example.org>\nInviato: lunedì 3 giugno 2024 09:00\nA: Sam\nOggetto: Barca",
    "Van: Jan de Vries <jan@example.org>\nVerzonden: maandag 3 juni 2024 09:00\nAan: Sam\nOnderwerp: Boot",
    "差出人: 山田 <yamada@example.org>\n送信日時: 2024年6月3日 9:00\n件名: 船",
])
def test_an_outlook_reply_in_another_language_is_cut_at_its_rule(tmp_path: Path, block: str) -> None:
    """1198d9f took Outlook's rule for a quote only with an English, German or
    Spanish 'From:' after it: an Italian or Dutch reply kept the whole quote
    and was a near copy of the mail it answered."""
    quoted = "The boat leaves the harbour at nine and returns before the tide turns in the evening.\n" * 4
    reply = message("RE: Boat trip", f"Fine by me, see you at the pier.\n\n{'_' * 32}\n{block}\n\n{quoted}")
    path = tmp_path / "reply.eml"
    path.write_bytes(bytes(reply))
    assert extract(path).text.split() == "Fine by me, see you at the pier.".split(), extract(path).text
