"""PDF on real files (LibreOffice exports in sample_corpus/): both engines, bad PDFs, layout removal."""

from __future__ import annotations

from pathlib import Path

import pytest

from manual_formats import write_pdf

from lifededup.extract import CorruptFile, EmptyFile, EncryptedFile, Extracted, NoTextLayer, extract
from lifededup.extract.layout import clean_pages, dehyphenate, strip_running_lines
from lifededup.extract.pdf import parse_pdf_date, read_pages
from lifededup.fingerprint.compare import compare

CORPUS = Path(__file__).resolve().parent.parent / "sample_corpus"
MINUTES = CORPUS / "Documents/residents-minutes/PDF/residents-minutes-v1.pdf"


def test_pdf_text_title_date_and_no_running_lines() -> None:
    got = extract(MINUTES)
    assert got.title == "Elm Court Residents' Association: Minutes of the Spring Meeting", got.title
    assert got.metadata["engine"] == "pypdfium2" and int(got.metadata["pages"]) >= 2, got.metadata
    assert got.doc_date is not None
    assert "Page 1" not in got.text and "Page 2" not in got.text, "page numbers must go"
    heading = "Elm Court Residents' Association: Minutes of the Spring Meeting"
    assert got.text.count(heading) == 1, f"the running header must go, the heading stay: {got.text.count(heading)}"


@pytest.mark.parametrize(("printed", "title"), [
    ("Microsoft Word - Budget 2024.docx", "Budget 2024"),
    ("Microsoft PowerPoint - Q3 review.pptx", "Q3 review"),
    ("Microsoft Word - notes", "notes"),
    ("Budget 2024 - final", "Budget 2024 - final"),  # a title of its own, kept as it is
    ("Word - the ten rules.doc", "the ten rules"),
])
def test_a_title_a_print_driver_gave_is_the_documents_own(tmp_path: Path, printed: str, title: str) -> None:
    """Word printed to PDF titles it "Microsoft Word - Budget 2024.docx":
    search listed the PDF so beside its .docx titled "Budget 2024"."""
    path = tmp_path / "printed.pdf"
    write_pdf(path, "Budget", [("Summary", "The budget for the year, line by line. " * 20)], info_title=printed)
    assert extract(path).title == title


def test_both_engines_read_the_same_words() -> None:
    from lifededup.extract.pdf import _pages_pdfminer, _pages_pdfium

    data = MINUTES.read_bytes()
    fast, _ = _pages_pdfium(data)
    slow, _ = _pages_pdfminer(data)
    result = compare(clean_pages(fast), clean_pages(slow))
    assert result.resemblance >= 0.98, f"pypdfium2 and pdfminer.six disagree: {result}"


def test_pdf_named_txt_is_read_as_pdf() -> None:
    got = extract(CORPUS / "Downloads/portugal plan.txt")
    assert got.mime == "application/pdf" and "Peneda-Gerês" in got.text, got.mime


def test_encrypted_pdf() -> None:
    with pytest.raises(EncryptedFile) as caught:
        extract(CORPUS / "Bad files/minutes (password protected).pdf")
    assert caught.value.status == "encrypted"


FIXTURES = Path(__file__).parent / "fixtures"


def test_pdf_whose_owner_password_is_empty_is_read_and_one_with_both_set_is_encrypted() -> None:
    """AES-256 with a user password and an empty owner password opens for anyone (poppler's pdftotext
    and pdfminer.six read it); PDFium asked for the user password, and the file was "encrypted"."""
    got = extract(FIXTURES / "encrypted/r6-user-password.pdf")
    assert got.text == "pdf encryption test password: asdfzxcv", got.text
    assert got.metadata["engine"] == "pdfminer.six", got.metadata
    with pytest.raises(EncryptedFile, match="encrypted with a password"):
        extract(FIXTURES / "encrypted/r6-both-passwords.pdf")


def test_ocr_layer_of_letter_spaced_words_is_read_whole_words() -> None:
    """An OCR layer writes each word's last letter apart, letter-spaced as the scan; PDFium put a
    space before it: "9 Nort h Buon a Vist a Driv e", "Singapor e 13858 8" (poppler reads the words)."""
    got = extract(FIXTURES / "pdf/ocr-layer-indirect-rotation.pdf")
    for line in ("9 North Buona Vista Drive", "The Metropolis Tower 1", "Singapore 138588",
                 "China Shipping Container Lines Company Limited"):
        assert line in got.text, f"{line!r} not in {got.text[:600]!r}"


def test_what_was_typed_into_a_forms_fields_is_read() -> None:
    """PDFium's page text holds a form's labels, not what was typed into its fields (poppler's pdftotext
    shows both): a filled form was found by "First Name", never by the name written there."""
    got = extract(FIXTURES / "pdf/libreoffice-form.pdf")
    assert "First Name" in got.text and got.text.split()[-2:] == ["Alice", "Bob"], got.text


def test_scan_without_text_layer() -> None:
    with pytest.raises(NoTextLayer, match="no text layer"):
        extract(CORPUS / "Bad files/scanned letter.pdf")


def written_by_pdfium(path: Path, pages: int, annotation: str | None = None) -> None:
    """A PDF of ``pages`` A4 pages with nothing on them, as PDFium writes one, each with an ``annotation`` of
    that PDFium subtype (``FPDF_ANNOT_...``) drawn in red where given."""
    import ctypes

    import pypdfium2

    raw = pypdfium2.raw
    document = pypdfium2.PdfDocument.new()
    for _ in range(pages):
        page = document.new_page(595, 842)
        if annotation is not None:
            annot = raw.FPDFPage_CreateAnnot(page.raw, getattr(raw, annotation))
            raw.FPDFAnnot_SetRect(annot, ctypes.byref(raw.FS_RECTF(100, 300, 300, 100)))
            raw.FPDFAnnot_SetColor(annot, raw.FPDFANNOT_COLORTYPE_Color, 255, 0, 0, 255)
            raw.FPDFPage_CloseAnnot(annot)
        page.close()
    document.save(str(path))
    document.close()


@pytest.mark.parametrize(("pages", "annotation", "reason"), [
    (0, None, "a PDF of no pages"),
    (1, None, "1 page with nothing on it"),
    (3, "FPDF_ANNOT_LINK", "3 pages with nothing on them"),  # a link's area draws nothing
])
def test_a_pdf_with_nothing_on_its_pages_is_empty_not_a_scan(tmp_path: Path, pages: int, annotation: str | None,
                                                             reason: str) -> None:
    """A PDF of blank pages (ocrmypdf's and pikepdf's test files hold several) was "no text layer in 1 page(s):
    probably a scan", counted among the scans the index's summary offers ``--ocr`` for, which found nothing on
    it; one of no pages (pikepdf's ``/Count 0``) was "no text layer in 0 page(s)"."""
    path = tmp_path / "blank.pdf"
    written_by_pdfium(path, pages, annotation)
    with pytest.raises(EmptyFile, match=f"^blank.pdf is empty: {reason}$"):
        extract(path)


def test_a_page_of_a_drawn_annotation_alone_is_left_to_ocr(tmp_path: Path) -> None:
    """A square drawn on an otherwise blank page is something OCR reads (a stamp, a hand-drawn note would be)."""
    path = tmp_path / "marked.pdf"
    written_by_pdfium(path, 1, "FPDF_ANNOT_SQUARE")
    with pytest.raises(NoTextLayer, match="no text layer in 1 page"):
        extract(path)


@pytest.mark.parametrize("container", ["zip", "tar"])
def test_an_archive_whose_first_member_is_a_pdf_is_read_whole(tmp_path: Path, container: str) -> None:
    """A zip of stored members (``zip -0``; Python's ``zipfile`` stores by default) or a tar holds its first
    member's bytes within its first 1,024: one starting with a PDF was read as that PDF, and its other members
    were never read."""
    import tarfile
    import zipfile

    note = tmp_path / "note.txt"
    note.write_text("The minutes and this note travel together in one archive, as sent to the committee.\n")
    path = tmp_path / f"papers.{container}"
    if container == "zip":
        with zipfile.ZipFile(path, "w") as archive:
            archive.write(MINUTES, "papers/minutes.pdf")
            archive.write(note, "papers/note.txt")
    else:
        with tarfile.open(path, "w", format=tarfile.GNU_FORMAT) as archive:
            archive.add(MINUTES, "papers/minutes.pdf")
            archive.add(note, "papers/note.txt")
    assert path.read_bytes().find(b"%PDF-") < 1024, "the PDF's header must stand where a PDF's is looked for"
    got = extract(path)
    assert got.kind == "archive", (got.kind, got.mime)
    parts = {part.part: part for part in got.children if isinstance(part, Extracted)}
    assert sorted(parts) == ["papers/minutes.pdf", "papers/note.txt"], list(got.children)
    assert "Spring Meeting" in parts["papers/minutes.pdf"].text and "committee" in parts["papers/note.txt"].text


def test_a_pdf_after_bytes_put_before_it_is_still_a_pdf(tmp_path: Path) -> None:
    """Readers look for ``%PDF-`` in the first 1,024 bytes: a download saved with the server's headers kept."""
    path = tmp_path / "download.pdf"
    path.write_bytes(b"HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\n\r\n" + MINUTES.read_bytes())
    got = extract(path)
    assert got.mime == "application/pdf" and "Spring Meeting" in got.text, got.mime


def test_damage_pdfminer_reads_past_says_nothing_on_the_terminal(tmp_path: Path) -> None:
    """pdfminer.six (which reads what PDFium refuses: here a page tree that lists no page) warns of a stream
    whose checksum is wrong through logging: "Data-loss while decompressing corrupted data" went to the
    terminal, naming no file, between the indexer's progress lines."""
    import json
    import re
    import subprocess
    import sys
    import zlib

    path = tmp_path / "minutes.pdf"
    write_pdf(path, "Minutes", [("Notes", "The committee met on Tuesday and agreed the budget. " * 10)])
    data = path.read_bytes()
    found = re.search(rb"<< /Length (\d+) >>\nstream\n", data)
    assert found is not None
    start, end = found.end(), found.end() + int(found.group(1))
    packed = bytearray(zlib.compress(data[start:end]))
    packed[-1] ^= 0xFF  # the stream's checksum
    data = (data[:found.start()] + b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(packed) + packed
            + data[end:]).replace(b"/Kids [3 0 R] /Count 1", b"/Kids [] /Count 1")
    path.write_bytes(data)
    done = subprocess.run([sys.executable, "-m", "lifededup", "fingerprint", "--json", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr == "", (done.returncode, done.stderr)
    assert json.loads(done.stdout)["words"] > 50, done.stdout


def test_truncated_pdf_names_both_engines() -> None:
    with pytest.raises(CorruptFile) as caught:
        extract(CORPUS / "Bad files/truncated download.pdf")
    assert "pypdfium2" in str(caught.value) and "pdfminer.six" in str(caught.value), caught.value


def test_read_pages_falls_back_to_pdfminer_when_pdfium_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    import lifededup.extract.pdf as pdf

    monkeypatch.setattr(pdf, "_pdfium", lambda: None)  # as on a machine without the pypdfium2 wheel
    pages, meta, engine = read_pages(MINUTES.read_bytes())
    assert engine == "pdfminer.six" and len(pages) >= 2 and meta.get("Title"), (engine, meta)


def test_running_headers_page_numbers_hyphens() -> None:
    bodies = [["The committee met in the spring.", "It agreed to mend the shed roof.", "The vote was unan-",
               "imous after a short debate."],
              ["The treasurer reported a surplus.", "Seed orders rose again this year.", "Rents stay the same."],
              ["The open day is in July.", "Volunteers should speak to the secretary.", "Thanks to all."]]
    pages = ["\n".join(["Garden Club Report", *body, f"Page {n} of 3"]) for n, body in enumerate(bodies, 1)]
    got = strip_running_lines(pages)
    assert got == ["\n".join(body) for body in bodies], got
    assert dehyphenate("exam-\nple and well-\nKnown") == "example and well-\nKnown"
    text = clean_pages(pages)
    assert text.startswith("The committee met in the spring. It agreed to mend the shed roof. The vote was "
                           "unanimous after a short debate."), text


def test_a_single_page_keeps_its_lines() -> None:
    assert strip_running_lines(["Title\nBody"]) == ["Title\nBody"]


def test_pdf_dates() -> None:
    got = parse_pdf_date("D:20240131093000+01'00'")
    assert got is not None and got.isoformat() == "2024-01-31T09:30:00+01:00", got
    assert parse_pdf_date("garbage") is None


def test_layout_joins_pdfium_hyphens_drops_leaders_and_ligatures() -> None:
    from lifededup.extract.layout import strip_leaders, unligature

    assert dehyphenate("the files\x02ystem is full") == "the filesystem is full"
    assert dehyphenate("the files\x02\nystem") == "the filesystem"
    # a compound broken at one of its own hyphens keeps it ("out-ofthe-box" before)
    assert dehyphenate("an out-of-\nthe-box setup") == "an out-of-the-box setup"
    assert dehyphenate("an out-of\x02the-box setup, an x-ray exam-\nple") == "an out-of-the-box setup, an x-ray example"
    # soft hyphens: at a line's end the word is joined, elsewhere they go; a text of neither is as it was
    assert dehyphenate("an exam\u00ad\nple of co\u00adoperation") == "an example of cooperation"
    assert dehyphenate("well-known, not\nsplit") == "well-known, not\nsplit"
    contents = "Contents\nInstalling ............ 12\nUpgrading . . . . . 3\nNotes \u2026 iv\nA line. With dots... 7 times"
    assert strip_leaders(contents).split("\n") == ["Contents", "Installing", "Upgrading", "Notes",
                                                   "A line. With dots... 7 times"], strip_leaders(contents)
    assert unligature("\ufb01le \ufb02ow e\ufb00ort") == "file flow effort"


def test_a_pdfs_date_is_its_last_save(tmp_path: Path) -> None:
    """ModDate, not CreationDate: a draft saved as another keeps its
    parent's creation date; a ModDate before the creation is not believed."""
    def pdf(info: str) -> bytes:
        stream = b"BT /F1 12 Tf 72 720 Td (The third draft of the letter about the boundary wall.) Tj ET"
        objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                   b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
                   b"/Resources << /Font << /F1 5 0 R >> >> >>",
                   b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
                   b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>", info.encode()]
        out, offsets = bytearray(b"%PDF-1.4\n"), []
        for number, body in enumerate(objects, start=1):
            offsets.append(len(out))
            out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
        xref = len(out)
        out += b"xref\n0 7\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets)
        out += b"trailer\n<< /Size 7 /Root 1 0 R /Info 6 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref
        return bytes(out)

    saved = tmp_path / "saved.pdf"
    saved.write_bytes(pdf("<< /CreationDate (D:20240105100000Z) /ModDate (D:20240307163000Z) >>"))
    assert extract(saved).doc_date == parse_pdf_date("D:20240307163000Z")
    odd = tmp_path / "odd.pdf"
    odd.write_bytes(pdf("<< /CreationDate (D:20240105100000Z) /ModDate (D:19990101000000Z) >>"))
    assert extract(odd).doc_date == parse_pdf_date("D:20240105100000Z")
