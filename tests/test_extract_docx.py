"""DOCX: paragraphs and tables in order; headers and footers kept as metadata, not text."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import docx
import pytest

from lifededup.extract import CorruptFile, TooLarge, extract, sniff, Source, Limits
import zipfile


def make_docx(path: Path) -> None:
    document = docx.Document()
    document.core_properties.title = "Minutes of the residents' meeting"
    document.core_properties.author = "Priya Nair"
    document.core_properties.created = datetime(2023, 3, 9, 18, 0)
    section = document.sections[0]
    section.header.paragraphs[0].text = "Elm Court Residents' Association"
    section.footer.paragraphs[0].text = "Page footer: minutes are public"
    document.add_heading("Minutes", level=1)
    document.add_paragraph("Present: eleven residents and the caretaker.")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Action", "Owner"
    table.cell(1, 0).text, table.cell(1, 1).text = "Fix the gate", "Tomasz"
    document.add_paragraph("The meeting closed at nine.")
    document.save(str(path))


def test_body_tables_in_order_headers_aside(tmp_path: Path) -> None:
    path = tmp_path / "minutes.docx"
    make_docx(path)
    got = extract(path)
    want = "Minutes\n\nPresent: eleven residents and the caretaker.\n\nAction Owner Fix the gate Tomasz\n\nThe meeting closed at nine."
    assert got.text == want, f"text was {got.text!r}"
    assert got.title == "Minutes of the residents' meeting"
    assert got.metadata["header"] == "Elm Court Residents' Association", got.metadata
    assert got.metadata["footer"] == "Page footer: minutes are public", got.metadata
    assert got.metadata["author"] == "Priya Nair"
    assert got.doc_date == datetime(2023, 3, 9, 18, 0, tzinfo=timezone.utc), got.doc_date


def test_a_drafts_date_is_its_last_save(tmp_path: Path) -> None:
    """A draft saved as another keeps its parent's creation date: three drafts
    of January, March and May all had January's, and `--since` found none of
    the later ones.  A save date before the creation (python-docx's
    template, above) is not believed."""
    path = tmp_path / "letter-v3.docx"
    document = docx.Document()
    document.core_properties.created = datetime(2024, 1, 5, 10, 0)
    document.core_properties.modified = datetime(2024, 3, 7, 16, 30)
    document.add_paragraph("Dear Ms Whitlock, the third draft of the letter about the boundary wall.")
    document.save(str(path))
    assert extract(path).doc_date == datetime(2024, 3, 7, 16, 30, tzinfo=timezone.utc)


def test_docx_named_txt_is_read_as_docx(tmp_path: Path) -> None:
    path = tmp_path / "minutes.txt"
    make_docx(path)
    assert sniff(Source.from_path(path)) == "docx"
    assert "eleven residents" in extract(path).text


def test_truncated_docx_is_corrupt(tmp_path: Path) -> None:
    good = tmp_path / "good.docx"
    make_docx(good)
    bad = tmp_path / "bad.docx"
    bad.write_bytes(good.read_bytes()[:1500])
    with pytest.raises(CorruptFile):
        extract(bad)


def test_zip_bomb_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bomb.docx"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", b"\0" * (40 * 2**20))
    assert path.stat().st_size < 2**20, "the bomb should be small on disk"
    with pytest.raises(TooLarge, match="zip bomb"):
        extract(path, Limits(max_unpacked_bytes=32 * 2**20))
    with pytest.raises(TooLarge, match="zip bomb"):  # the ratio catches it under the default limit too
        extract(path)


CORPUS = Path(__file__).resolve().parent.parent / "sample_corpus"


def test_footnotes_follow_the_body_in_docx_and_odt() -> None:
    """seeds/000 section 2.2 note 1: a footnote has no 'correct' place; both put it last, the PDF at the foot."""
    from lifededup.fingerprint.compare import compare

    folder = CORPUS / "Documents/mill-history"
    docx_text = extract(folder / "mill-history.docx").text
    note = "Lease in the county record office, reference DDX 114/7"
    assert note in docx_text.split("\n\n")[-3], f"first footnote should follow the body: {docx_text[-400:]!r}"
    odt = compare(docx_text, extract(folder / "mill-history.odt").text)
    assert odt.exact, f".odt and .docx (both LibreOffice saves of one essay) differ: {odt}"
    pdf = compare(docx_text, extract(folder / "PDF/mill-history.pdf").text)
    assert pdf.near_duplicate and pdf.resemblance >= 0.9, f"the PDF puts notes at the page foot: {pdf}"
