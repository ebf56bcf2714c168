"""Outlook .msg on real files (tests/fixtures/msg/, from Email::Outlook::Message's
test suite: see the README there)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lifededup.extract import Extracted, Failure, MissingTool, extract, walk
from lifededup.fingerprint import fingerprint

MSG = Path(__file__).parent / "fixtures" / "msg"


def test_plain_message_keeps_subject_recipients_and_body() -> None:
    got = extract(MSG / "plain_unsent.msg")  # never sent: no sender, no date
    assert got.kind == "email" and got.mime == "application/vnd.ms-outlook"
    assert got.title == "Test for MSGConvert -- plain text"
    assert got.text == "This is a test The body is in plain text"
    assert got.metadata == {"to": "Someone Else <someone@somewhere.com>"}


def test_sent_message_keeps_its_sender_and_date() -> None:
    got = extract(MSG / "gpg_signed.msg")
    assert "from" in got.metadata and got.doc_date is not None, (got.metadata, got.doc_date)


def test_msg_and_its_eml_conversion_are_the_same_text() -> None:
    msg, eml = extract(MSG / "plain_unsent.msg"), extract(MSG / "plain_unsent.eml")
    assert msg.title == eml.title
    assert fingerprint(msg.text).sha1 == fingerprint(eml.text).sha1


def test_attachment_is_a_part_of_its_own() -> None:
    parts = list(walk(extract(MSG / "plain_jpeg_attached.msg")))
    assert len(parts) == 2, parts
    photo = parts[1]
    assert "test.jpg" in photo.part, photo
    assert isinstance(photo, Failure) and photo.status == "no-text-layer", "a JPEG is read only by OCR (off)"


def test_nul_padding_is_not_text() -> None:
    got = extract(MSG / "charset.msg")
    assert "\x00" not in got.title and "\x00" not in got.text
    assert got.title == "PST Export - Embedded Email Test"


@pytest.mark.parametrize("name", ["gpg_signed.msg", "gpg_signed.eml"])
def test_signed_message_is_read_with_its_signature_as_a_part(name: str) -> None:
    got = extract(MSG / name)
    assert isinstance(got, Extracted) and got.text.startswith("This is yet another test.")
    assert len(list(walk(got))) == 2, "the signature is a part of its own"


def test_without_the_msg_extra_a_msg_is_a_missing_tool_with_the_install_command(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # extract-msg is the optional extra lifededup[msg]: a headless install may not have it
    monkeypatch.setitem(__import__("sys").modules, "extract_msg", None)  # import extract_msg now fails
    with pytest.raises(MissingTool) as caught:
        extract(MSG / "plain_unsent.msg")
    assert "pip install 'lifededup[msg]'" in str(caught.value), caught.value
