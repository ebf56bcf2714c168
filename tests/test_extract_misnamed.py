"""Files whose name says one format and whose content is another: real fixtures renamed, and the text that
web applications and mail programs save under Office's and Outlook's names."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lifededup.extract import ExtractionError, Extracted, extract

FIXTURES = Path(__file__).parent / "fixtures"
OLE_MAGIC = bytes.fromhex("d0cf11e0a1b11ae1")


def read(path: Path) -> Extracted | ExtractionError:
    try:
        return extract(path)
    except ExtractionError as error:
        return error


@pytest.mark.parametrize("name", ["deck.ppt", "note.msg"])
def test_a_file_holding_another_files_path_is_never_that_file_read(tmp_path: Path, ppt: Path, name: str) -> None:
    """olefile and extract-msg, handed bytes, took fewer than 1,536 of them
    for the path of a file to open: a ``deck.ppt`` holding the path of
    another PowerPoint file was read as that file -- wherever it was, outside
    the folders given -- and one holding the path of nothing was "deleted or
    moved while it was read", which the next run forgets."""
    other = ppt if name.endswith(".ppt") else FIXTURES / "msg" / "plain_unsent.msg"
    target = tmp_path / "elsewhere" / other.name
    target.parent.mkdir()
    shutil.copyfile(other, target)
    theirs = extract(target)
    assert isinstance(theirs, Extracted) and theirs.text, theirs
    folder = tmp_path / "given"
    folder.mkdir()
    pointer = folder / name
    pointer.write_bytes(str(target).encode())
    got = read(pointer)
    assert not (isinstance(got, Extracted) and theirs.text in got.text), f"read {target} through {pointer}"
    nowhere = folder / f"nowhere{Path(name).suffix}"
    nowhere.write_bytes(str(tmp_path / "no such file").encode())
    missed = read(nowhere)
    assert not (isinstance(missed, ExtractionError) and isinstance(missed.__cause__, FileNotFoundError)), missed


@pytest.mark.parametrize("name", ["short.ppt", "short.msg", "short.doc", "short.xls"])
def test_a_short_file_with_the_ole2_signature_is_corrupt_not_vanished(tmp_path: Path, name: str) -> None:
    """Under 1,536 bytes olefile took the signature and what followed for a path, and the file was "deleted
    or moved while it was read"."""
    path = tmp_path / name
    path.write_bytes(OLE_MAGIC + b"\x00" * 500)
    got = read(path)
    assert isinstance(got, ExtractionError) and got.status == "corrupt", got
    assert not isinstance(got.__cause__, (FileNotFoundError, ValueError)), f"{got} (a path opened: {got.__cause__!r})"


def test_a_mail_saved_as_msg_is_read_as_the_mail_it_is(tmp_path: Path) -> None:
    """dkimpy's test messages, and what many mail programs save, are RFC 822 mail named .msg.  They were
    "corrupt: cannot read rfc6376.msg: File name too long", or vanished: extract-msg took them for a path."""
    eml = FIXTURES / "msg" / "plain_unsent.eml"
    saved = tmp_path / "plain_unsent.msg"
    shutil.copyfile(eml, saved)
    got, theirs = extract(saved), extract(eml)
    assert (got.kind, got.title, got.text, got.metadata) == ("email", theirs.title, theirs.text, theirs.metadata)


EXPORT = """<html xmlns:o="urn:schemas-microsoft-com:office:office" xmlns:x="urn:schemas-microsoft-com:office:excel">
<head><meta charset="utf-8"><title>Tide readings</title></head>
<body><table><tr><th>Station</th><th>High water</th></tr>
<tr><td>North harbour pier</td><td>4.2</td></tr><tr><td>Lighthouse steps</td><td>3.9</td></tr></table></body></html>
"""
XML_SPREADSHEET = """\ufeff<?xml version="1.0" encoding="UTF-8"?>
<?mso-application progid="Excel.Sheet"?>
<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet" xmlns:ss="urn:schemas-microsoft-com:office:spreadsheet">
 <Styles><Style ss:ID="Default" ss:Name="Normal"><Alignment ss:Vertical="Bottom"/></Style></Styles>
 <Worksheet ss:Name="Tides"><Table>
  <Row><Cell><Data ss:Type="String">Station</Data></Cell><Cell><Data ss:Type="String">High water</Data></Cell></Row>
  <Row><Cell><Data ss:Type="String">North harbour pier</Data></Cell><Cell><Data ss:Type="Number">4.2</Data></Cell></Row>
 </Table></Worksheet>
</Workbook>
"""


@pytest.mark.parametrize("content", [EXPORT, XML_SPREADSHEET, "Station\tHigh water\nNorth harbour pier\t4.2\n"],
                         ids=["html-table", "xml-spreadsheet", "tab-separated"])
def test_a_web_applications_export_to_excel_is_read_as_a_spreadsheet(tmp_path: Path, content: str) -> None:
    """"Export to Excel" in a web application writes an HTML table, Excel's XML spreadsheet or tab-separated
    text named .xls, which Excel opens; they were "corrupt: XLRDError: ... Expected BOF record"."""
    path = tmp_path / "tides.xls"
    path.write_text(content, encoding="utf-8")
    got = extract(path)
    assert got.kind == "spreadsheet", got
    assert "North harbour pier" in got.text and "4.2" in got.text, got.text
    assert "<" not in got.text and "ss:" not in got.text and "Alignment" not in got.text, got.text


def test_a_web_page_or_text_saved_as_doc_is_read_as_a_document(tmp_path: Path) -> None:
    """Word opens a web page or plain text named .doc (and a web page was how Word saved one "as a web
    page" before it was renamed); antiword refused them: "is not a Word Document"."""
    page = FIXTURES / "html" / next(p.name for p in sorted((FIXTURES / "html").glob("*.html")))
    saved = tmp_path / "page.doc"
    shutil.copyfile(page, saved)
    got, theirs = extract(saved), extract(page)
    assert (got.kind, got.title, got.text) == ("document", theirs.title, theirs.text)
    letter = tmp_path / "letter.doc"
    letter.write_text("Dear Sam,\nthe boat trip is on Monday.\n", encoding="utf-8")
    assert extract(letter).text.strip() == "Dear Sam,\nthe boat trip is on Monday.", extract(letter).text


def test_plain_text_named_rtf_keeps_its_lines(tmp_path: Path) -> None:
    """Read as RTF, where a line's end is no break, "name.\\nDear Sam" was "name.Dear Sam"."""
    path = tmp_path / "letter.rtf"
    path.write_text("Saved with the wrong name.\nDear Sam, the boat trip is on Monday.\n", encoding="utf-8")
    got = extract(path)
    assert got.text.strip() == "Saved with the wrong name.\nDear Sam, the boat trip is on Monday.", got


@pytest.mark.parametrize("name, content, said", [
    ("statement.pdf", "<!DOCTYPE html><html><head><title>403 Forbidden</title></head><body><h1>403 Forbidden</h1>"
     "</body></html>", 'statement.pdf holds a web page ("403 Forbidden"), not the .pdf file its name says'),
    ("report.docx", "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a2146\nsize 12345\n",
     'report.docx holds text ("version https://git-lfs.github.com/spec/v1"), not the .docx file'),
    ("scan.pdf", '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Access Denied'
     '</Message></Error>', 'scan.pdf holds markup (XML or HTML) ("AccessDenied Access Denied"), not the .pdf'),
    ("photos.zip", "Moved Permanently. Redirecting to https://example.org/photos/2019/summer-holiday.zip\n",
     'photos.zip holds text ("Moved Permanently. Redirecting to https://example.org/photos...")'),
    ("deck.ppt", "Plain words.\n", 'deck.ppt holds text ("Plain words."), not the .ppt file'),
])
def test_text_named_as_a_format_nothing_opens_as_text_is_corrupt_saying_what_it_holds(
        tmp_path: Path, name: str, content: str, said: str) -> None:
    """A download that saved its error page, or a placeholder (Git LFS's, a cloud drive's), under the name
    of the file it stands for: no reader opens it, and the reason was the parser's ("PDFium: Data format
    error", "BadZipFile: File is not a zip file").  It is still corrupt -- the file it names is not here --
    and the reason says what the file holds."""
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    got = read(path)
    assert isinstance(got, ExtractionError) and got.status == "corrupt", got
    assert said in str(got), got


def test_a_mailbox_saved_as_msg_is_a_mailbox_of_messages(tmp_path: Path) -> None:
    """Text named .msg is read as what it holds: a mailbox stays a mailbox (its messages the mail), not one
    mail."""
    path = tmp_path / "saved.msg"
    path.write_text("From sam@example.org Mon Jun  3 09:30:00 2024\nFrom: sam@example.org\nSubject: Boat trip\n\n"
                    "See you Monday at the harbour.\n\nFrom ann@example.org Mon Jun  3 10:00:00 2024\n"
                    "From: ann@example.org\nSubject: Tides\n\nHigh water at nine.\n", encoding="utf-8")
    got = extract(path)
    assert got.kind == "mailbox" and [m.title for m in got.children if isinstance(m, Extracted)] == [
        "Boat trip", "Tides"], got


def test_a_message_saved_alone_as_mbox_is_the_mailboxs_first_message(tmp_path: Path) -> None:
    """dkimpy's ``message.mbox`` is one message, its headers first, with no envelope ("From ") line: it was
    "corrupt: not an mbox mailbox".  It is a mailbox of that message (and of any after it); text that is no
    mail is still refused."""
    eml = FIXTURES / "msg" / "plain_unsent.eml"
    path = tmp_path / "saved.mbox"
    path.write_bytes(eml.read_bytes() + b"\nFrom ann@example.org Mon Jun  3 10:00:00 2024\nFrom: ann@example.org\n"
                     b"Subject: Tides\n\nHigh water at nine.\n")
    got = extract(path)
    messages = [m for m in got.children if isinstance(m, Extracted)]
    assert got.kind == "mailbox" and [(m.part, m.title) for m in messages] == [
        ("message 1", extract(eml).title), ("message 2", "Tides")], messages
    assert messages[0].text == extract(eml).text
    notes = tmp_path / "notes.mbox"
    notes.write_text("Shopping: bread, tide tables, rope.\n", encoding="utf-8")
    refused = read(notes)
    assert isinstance(refused, ExtractionError) and refused.status == "corrupt", refused
    assert "notes.mbox is not an mbox mailbox" in str(refused), refused
