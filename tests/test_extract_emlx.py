"""Apple Mail's .emlx: a message as Mail keeps it (tests/fixtures/emlx/4112.emlx, made from a real message;
see its README.md), read as the .eml it holds."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lifededup.extract import ExtractionError, extract, walk
from lifededup.index import IndexConfig, run
from lifededup.store import open_store

FIXTURES = Path(__file__).parent / "fixtures"
EMLX = FIXTURES / "emlx" / "4112.emlx"
EML = FIXTURES / "msg" / "gpg_signed.eml"


def test_an_emlx_is_the_message_it_holds_without_its_length_or_mails_property_list() -> None:
    """It was read as text: "3732", raw headers, the signature's base64 and Mail's property list as words."""
    got, eml = extract(EMLX), extract(EML)
    assert (got.kind, got.title, got.doc_date, got.metadata) == ("email", eml.title, eml.doc_date, eml.metadata)
    assert got.text == eml.text and "3732" not in got.text and "plist" not in got.text, got.text
    assert [p.part for p in walk(extract(EMLX))] == [p.part for p in walk(extract(EML))], "its attachment, a part"


def test_an_emlx_is_known_by_its_content_and_read_as_far_as_it_goes_when_cut_short(tmp_path: Path) -> None:
    renamed = tmp_path / "4112"  # as a backup tool may name it
    shutil.copyfile(EMLX, renamed)
    assert extract(renamed).text == extract(EML).text
    cut = tmp_path / "4113.partial.emlx"
    data = EMLX.read_bytes()
    cut.write_bytes(data[:data.index(b"This is yet another test.") + 30])  # a copy interrupted in the body
    got = extract(cut)
    assert got.title == extract(EML).title and got.text.startswith("This is yet another test."), got


@pytest.mark.parametrize("content, status", [(b"Subject: no length line\n\nHello.\n", "corrupt"),
                                             (b"0   \n<?xml version=\"1.0\"?>\n<plist/>\n", "empty")])
def test_an_emlx_without_its_length_or_its_message_says_so(tmp_path: Path, content: bytes, status: str) -> None:
    path = tmp_path / "1.emlx"
    path.write_bytes(content)
    with pytest.raises(ExtractionError) as caught:
        extract(path)
    assert caught.value.status == status and "Apple Mail message" in str(caught.value), caught.value


def test_a_message_kept_by_mail_and_saved_as_eml_are_exact_copies(tmp_path: Path) -> None:
    folder = tmp_path / "Mail"
    (folder / "Library" / "INBOX.mbox" / "Messages").mkdir(parents=True)
    shutil.copyfile(EMLX, folder / "Library" / "INBOX.mbox" / "Messages" / "4112.emlx")
    shutil.copyfile(EML, folder / "saved.eml")
    with open_store(tmp_path / "store.db") as store:
        summary = run(store, [folder], IndexConfig(workers=1))
        # the message and its signature, a part of each
        assert (summary.new, summary.failed, summary.exact_duplicates) == (2, 0, 2), summary
        _, rows = store.execute("SELECT i.path, i.kind, c.cluster_id FROM items i JOIN clusters c ON c.item_id = i.id "
                                "WHERE i.part = ''")
        assert {str(kind) for _, kind, _ in rows} == {"email"} and len({c for _, _, c in rows}) == 1, rows
