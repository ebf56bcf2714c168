"""Legacy and office formats on real files from sample_corpus/ (made by LibreOffice, python-pptx, openpyxl, EbookLib)."""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path

import pytest

from lifededup.extract import EmptyFile, Extracted, MissingTool, extract
from lifededup.extract.isolate import as_stored, extract_many
from lifededup.fingerprint.compare import compare
from lifededup.index import IndexConfig, run
from lifededup.store import open_store

CORPUS = Path(__file__).resolve().parent.parent / "sample_corpus"
OTHER = CORPUS / "Documents/Other formats"
FIXTURES = Path(__file__).parent / "fixtures"
REPORT_DOCX = CORPUS / "Documents/garden-club-report/garden-club-report-v3.docx"


def _assert_is_the_report(got: Extracted, fmt: str) -> None:
    assert "forty five names on the waiting list" in got.text, f"{fmt}: {got.text[:300]!r}"
    result = compare(extract(REPORT_DOCX).text, got.text)
    assert result.resemblance >= 0.95, f"{fmt} and .docx of one report differ too much: {result}"


@pytest.mark.skipif(shutil.which("antiword") is None, reason="antiword not installed (scripts/install-system-deps.sh)")
def test_doc_through_antiword() -> None:
    got = extract(OTHER / "garden-club-report-v3.doc")
    assert got.mime == "application/msword"
    _assert_is_the_report(got, ".doc")


@pytest.mark.skipif(shutil.which("antiword") is None or shutil.which("catdoc") is None,
                    reason="antiword or catdoc not installed (scripts/install-system-deps.sh)")
@pytest.mark.parametrize("name", ["serious_poem.odt", "short-note.docx"])
def test_short_doc_antiword_refuses_is_read_by_catdoc(name: str) -> None:
    """LibreOffice's short .doc files were 'corrupt': antiword says their text stream is too small."""
    original = FIXTURES / "office" / name
    got = extract(original.with_suffix(".doc"))
    assert got.text.split() == extract(original).text.split(), got.text


def test_doc_without_antiword_names_the_package(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty PATH: no antiword to be found
    with pytest.raises(MissingTool) as caught:
        extract(OTHER / "garden-club-report-v3.doc")
    assert caught.value.package == "antiword" and "apt-get install antiword" in str(caught.value), caught.value


def test_rtf() -> None:
    got = extract(OTHER / "garden-club-report-v3.rtf")
    _assert_is_the_report(got, ".rtf")
    # its paragraphs kept (they were joined into one): the same text as the .odt saved from the same document
    assert got.text == extract(OTHER / "garden-club-report-v3.odt").text, got.text[:300]


@pytest.mark.skipif(shutil.which("antiword") is None, reason="antiword not installed (scripts/install-system-deps.sh)")
def test_doc_and_rtf_read_a_table_title_and_date_as_the_docx_does() -> None:
    """antiword drew a table as "|Plot   |Holder   |" and striprtf as
    "Plot|Holder|": the .doc and .rtf LibreOffice saved from a .docx were
    not its text (the pipes in every snippet), and had no title or date,
    which their summary and \\info group hold."""
    fixtures = Path(__file__).resolve().parent / "fixtures/office"
    original = extract(fixtures / "rota.docx")
    assert "Plot Holder Watering day Plot 4" in original.text, original.text
    for fmt in ("doc", "rtf"):
        got = extract(fixtures / f"rota.{fmt}")
        assert "|" not in got.text and got.text.split() == original.text.split(), (fmt, got.text)
        assert got.title == original.title == "Allotment plot rota, spring 2024", (fmt, got.title)
        assert got.doc_date is not None and got.doc_date.replace(tzinfo=None) == datetime(2024, 3, 7, 16, 30), \
            (fmt, got.doc_date)


def test_an_rtf_character_past_ffff_is_read_as_the_docx_it_was_saved_from(tmp_path: Path, store_url: str) -> None:
    """LibreOffice writes 🎵 and 𠮷 in RTF as their two UTF-16 halves; striprtf gave each half as a character,
    and the worker storing them stopped: the RTF was "crashed" and lost to search."""
    for name in ("beyond-bmp.docx", "beyond-bmp.rtf"):
        shutil.copyfile(FIXTURES / "office" / name, tmp_path / name)
    assert extract(tmp_path / "beyond-bmp.rtf").text == extract(tmp_path / "beyond-bmp.docx").text
    with open_store(store_url) as store:
        run(store, [tmp_path], IndexConfig(workers=1))
        _, rows = store.execute("SELECT i.status, i.text, coalesce(c.cluster_id, i.id) FROM items i "
                                "LEFT JOIN clusters c ON c.item_id = i.id ORDER BY i.path")
    assert [r[0] for r in rows] == ["ok", "ok"], rows
    assert rows[0][1] == rows[1][1] and "'Rock 🎵.txt'" in rows[1][1] and "𠮷野家" in rows[1][1], rows[1][1]
    assert rows[0][2] == rows[1][2], "the DOCX and its RTF are copies"


def test_half_of_a_character_past_ffff_is_stored_as_u_fffd(tmp_path: Path) -> None:
    """An RTF cut between a character's two halves (a truncated save) keeps its text, the lone half U+FFFD;
    a half that any parser lets through reaches the store so too, where it stopped the worker."""
    whole = (FIXTURES / "office" / "beyond-bmp.rtf").read_bytes()
    assert whole.count(b"\\uc1 \\u57271\\'3f") == 2  # 𠮷's second half
    (tmp_path / "cut.rtf").write_bytes(whole.replace(b"\\uc1 \\u57271\\'3f", b"\\uc1 ", 1))
    found = list(extract_many([tmp_path / "cut.rtf"], workers=1))
    assert len(found) == 1 and isinstance(found[0].result, Extracted), found
    assert "written \ufffd野家, with 𠮷 (U+20BB7)" in found[0].result.text, found[0].result.text
    assert as_stored("half \ud842 of 𠮷, a name's byte \udcff") == "half \ufffd of 𠮷, a name's byte \ufffd"


def test_odt() -> None:
    got = extract(OTHER / "garden-club-report-v3.odt")
    assert got.title == "Millbrook Allotment Society: Annual Report 2023", got.title
    _assert_is_the_report(got, ".odt")


def test_an_odt_whose_content_is_cut_is_read_as_far_as_it_goes_without_printing_it(tmp_path: Path) -> None:
    """odfpy printed "SAX FAILED TO PARSE" and the whole damaged part on standard output: the terminal of
    `lifededup fingerprint` (and of `index`, whose workers share it) filled with the document's XML."""
    import subprocess
    import sys
    import zipfile

    with zipfile.ZipFile(OTHER / "garden-club-report-v3.odt") as whole, \
            zipfile.ZipFile(tmp_path / "cut.odt", "w") as cut:
        for member in whole.infolist():
            data = whole.read(member)
            cut.writestr(member, data[:data.index(b"This report is presented")] if "content" in member.filename
                         else data)
    done = subprocess.run([sys.executable, "-m", "lifededup", "fingerprint", "--json", str(tmp_path / "cut.odt")],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0 and done.stderr == "" and "SAX" not in done.stdout, (done.stderr, done.stdout[:300])
    assert json.loads(done.stdout)["title"] == "Millbrook Allotment Society: Annual Report 2023", done.stdout


def test_an_odt_missing_a_byte_says_what_is_wrong_with_its_zip(tmp_path: Path) -> None:
    """A zip whose directory places its members a byte past where they stand (ocrmypdf's ``tagged.odt``;
    ``unzip -t``: "missing 1 bytes") was "damaged zip container: [Errno 22] Invalid argument"."""
    from odf.opendocument import OpenDocumentText
    from odf.text import P

    from lifededup.extract import CorruptFile

    written = OpenDocumentText()
    written.text.addElement(P(text="The minutes of the spring meeting."))
    written.save(str(tmp_path / "minutes.odt"))
    data = (tmp_path / "minutes.odt").read_bytes()
    at = data.index(b"application/vnd.oasis")  # the first member's data, which the others follow
    (tmp_path / "cut.odt").write_bytes(data[:at + 5] + data[at + 6:])
    with pytest.raises(CorruptFile, match=r"^damaged zip container: its directory places a member outside the file "
                                          r"\(bytes missing, or members overlapping\)$"):
        extract(tmp_path / "cut.odt")


def test_pptx() -> None:
    got = extract(CORPUS / "Documents/kitchen-quotes/kitchen-plan-slides.pptx")
    assert got.kind == "presentation" and got.metadata["slides"] == "3", got
    assert "Solid wood and birch plywood" in got.text and "Kitchen plan" in got.text, got.text


def test_pptx_tables_are_read() -> None:
    """A deck whose text is all in tables was read as no text, with status ok."""
    got = extract(FIXTURES / "pptx/tbl-cell.pptx")
    for cell in ("having custom margins", "vert anchor is bottom", "unladen swallows", "merged cell", "a b c"):
        assert cell in got.text, got.text


def test_pptx_grouped_shapes_nested_groups_and_tables_are_read(tmp_path: Path) -> None:
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Process"
    group = slide.shapes.add_group_shape()
    group.shapes.add_textbox(Inches(1), Inches(2), Inches(2), Inches(1)).text_frame.text = "Collect invoices"
    inner = group.shapes.add_group_shape()
    inner.shapes.add_textbox(Inches(4), Inches(2), Inches(2), Inches(1)).text_frame.text = "Approve payments"
    table = slide.shapes.add_table(2, 2, Inches(1), Inches(4), Inches(4), Inches(1)).table
    for (row, col), text in {(0, 0): "Department", (0, 1): "Budget", (1, 0): "Marketing", (1, 1): "120000"}.items():
        table.cell(row, col).text = text
    deck.save(tmp_path / "budget.pptx")
    got = extract(tmp_path / "budget.pptx")
    assert got.text.split() == ["Process", "Collect", "invoices", "Approve", "payments", "Department", "Budget",
                                "Marketing", "120000"], got.text


def test_pptx_charts_words_are_read() -> None:
    """A deck whose words are all in charts was "empty: holds no slide text" (17 of python-pptx's test decks)."""
    got = extract(FIXTURES / "pptx/cht-charts.pptx")
    assert got.text == "Series 1 Series 2 Series 3 Category 1 Category 2 Category 3 Category 4", got.text


def test_pptx_chart_gives_its_title_series_and_labels_not_its_numbers(tmp_path: Path) -> None:
    from datetime import date

    from pptx import Presentation
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE
    from pptx.util import Inches

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[6])
    by_region = CategoryChartData()
    by_region.categories = ["North", "South"]
    by_region.add_series("Revenue", (1200.5, 980))
    chart = slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, 0, 0, Inches(4), Inches(3), by_region).chart
    chart.has_title = True
    chart.chart_title.text_frame.text = "Sales by region"
    by_day = CategoryChartData()
    by_day.categories = [date(2024, 1, 1), date(2024, 1, 2)]  # written as Excel's day numbers
    by_day.add_series("Visitors", (31, 45))
    slide.shapes.add_chart(XL_CHART_TYPE.LINE, 0, Inches(3), Inches(4), Inches(3), by_day)
    deck.save(tmp_path / "charts.pptx")
    got = extract(tmp_path / "charts.pptx")
    assert got.text.split() == ["Sales", "by", "region", "Revenue", "North", "South", "Visitors"], got.text


def test_pptx_smartart_boxes_are_read() -> None:
    """A SmartArt graphic's boxes (a process, an organisation chart) keep their text in the diagram's data
    part, which python-pptx does not read: their words were lost (LibreOffice shows "Smart Art")."""
    got = extract(FIXTURES / "pptx/shp-shapes.pptx")
    assert got.text.endswith("shapes[5] Smart Art"), got.text


def test_pptx_of_no_text_is_empty_as_a_ppt_is(tmp_path: Path) -> None:
    with pytest.raises(EmptyFile, match="shp-groupshape.pptx holds no slide text$"):
        extract(FIXTURES / "pptx/shp-groupshape.pptx")
    # a deck of photos says what it holds, which is not read
    from pptx import Presentation
    from pptx.util import Inches

    album = Presentation()
    album.slides.add_slide(album.slide_layouts[6]).shapes.add_picture(str(FIXTURES / "image/python.bmp"),
                                                                       Inches(1), Inches(1))
    album.save(str(tmp_path / "holiday.pptx"))
    with pytest.raises(EmptyFile, match="holiday.pptx holds no slide text, only 1 picture, which lifededup does "
                                        "not read$"):
        extract(tmp_path / "holiday.pptx")


def test_a_blank_document_is_empty_as_a_blank_text_file_is(tmp_path: Path) -> None:
    """A DOCX, ODT, ODS or RTF with no text and no title was read "ok" with nothing in it, where a blank .txt or
    PPTX is "empty" (README: "no text at all"). What a search finds an item by still keeps it: a web page's
    title alone, a mail's headers alone."""
    import docx
    from odf.draw import Frame, Image
    from odf.opendocument import OpenDocumentSpreadsheet, OpenDocumentText
    from odf.text import P

    shutil.copy(Path(docx.__file__).parent / "templates/default.docx", tmp_path / "blank.docx")  # Word's own
    OpenDocumentText().save(str(tmp_path / "blank.odt"))
    OpenDocumentSpreadsheet().save(str(tmp_path / "blank.ods"))
    (tmp_path / "blank.rtf").write_text(r"{\rtf1\ansi\deff0 {\fonttbl {\f0 Times;}} }")
    # an event of a date alone (icalendar's broken_dtstart.ics) was "a event"
    (tmp_path / "dated.ics").write_text("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//y//EN\r\nBEGIN:VEVENT\r\n"
                                        "UID:1@example.org\r\nDTSTART:20240102T100000Z\r\nEND:VEVENT\r\n"
                                        "END:VCALENDAR\r\n")
    for name, kind in (("blank.docx", "a document"), ("blank.odt", "a document"), ("blank.ods", "a spreadsheet"),
                       ("blank.rtf", "a document"), ("dated.ics", "an event")):
        with pytest.raises(EmptyFile, match=f"{name} is empty: {kind} with no text in it$"):
            extract(tmp_path / name)
    # a page scanned and pasted into Word is not blank: its reason says what it holds, which is not read
    scan = docx.Document()
    scan.add_picture(str(FIXTURES / "image/python.bmp"))
    scan.save(str(tmp_path / "scan.docx"))
    drawn = OpenDocumentText()
    frame = Frame(width="2cm", height="2cm")
    frame.addElement(Image(href=drawn.addPicture(str(FIXTURES / "image/python.bmp"))))
    drawn.text.addElement(P())
    drawn.text.lastChild.addElement(frame)
    drawn.save(str(tmp_path / "scan.odt"))
    # as Word saves a picture in RTF: once for itself, once as a fallback for older readers
    (tmp_path / "scan.rtf").write_text(r"{\rtf1\ansi {\*\shppict{\pict\pngblip\picw10\pich10 89504e47}}"
                                       r"{\nonshppict{\pict\wmetafile8\picw10\pich10 0100}}}")
    for name in ("scan.docx", "scan.odt", "scan.rtf"):
        with pytest.raises(EmptyFile, match=f"{name} is empty: a document with no text in it, only 1 picture, "
                                            "which lifededup does not read$"):
            extract(tmp_path / name)
    (tmp_path / "title.html").write_text("<html><head><title>Holiday pictures</title></head><body> </body></html>")
    assert extract(tmp_path / "title.html").title == "Holiday pictures"
    (tmp_path / "headers.eml").write_text("From: Ann <ann@example.org>\nTo: bob@example.org\n\n\n")
    assert extract(tmp_path / "headers.eml").metadata["from"] == "Ann <ann@example.org>"


def test_macro_enabled_word_document_is_read_and_left_as_it_was() -> None:
    path = FIXTURES / "office/GPL-2.docm"
    before = path.read_bytes()
    got = extract(path)
    assert got.text.startswith("GNU GENERAL PUBLIC LICENSE Version 2, June 1991"), got.text[:200]
    assert path.read_bytes() == before


def test_powerpoint_template_is_read() -> None:
    got = extract(FIXTURES / "pptx/cols.potx")
    assert got.kind == "presentation" and "11 Lorem ipsum dolor sit amet" in got.text, got.text[:200]


_MAIN_TYPES = {".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
               ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"}


@pytest.mark.parametrize(("original", "suffix", "content_type"), [
    (FIXTURES / "office/rota.docx", ".dotx",
     "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml"),
    (FIXTURES / "office/rota.docx", ".dotm", "application/vnd.ms-word.template.macroEnabledTemplate.main+xml"),
    (CORPUS / "Documents/kitchen-quotes/kitchen-plan-slides.pptx", ".pptm",
     "application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml"),
    (CORPUS / "Documents/kitchen-quotes/kitchen-plan-slides.pptx", ".ppsm",
     "application/vnd.ms-powerpoint.slideshow.macroEnabled.main+xml"),
    # a show: oletools' embedded-simple-2007.ppsx was "damaged: ... is not a PowerPoint file"
    (CORPUS / "Documents/kitchen-quotes/kitchen-plan-slides.pptx", ".ppsx",
     "application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml"),
    (CORPUS / "Documents/kitchen-quotes/kitchen-plan-slides.pptx", ".potm",
     "application/vnd.ms-powerpoint.template.macroEnabled.main+xml"),
])
def test_office_templates_and_macro_enabled_files_read_as_the_document(tmp_path: Path, original: Path, suffix: str,
                                                                      content_type: str) -> None:
    """Word and PowerPoint save a template or a macro-enabled file as the document with its main part's content
    type changed: python-docx and python-pptx refused it (a file '<_io.BytesIO object at 0x...>' is not a Word file)."""
    path = tmp_path / (original.stem + suffix)
    retyped(original, path, content_type)
    assert extract(path).text == extract(original).text


def retyped(original: Path, path: Path, content_type: str) -> None:
    """``original`` (a .docx or .pptx) saved as ``path`` with its main part's content type changed, as Word
    and PowerPoint save it as a template, a show or a macro-enabled file."""
    import zipfile

    with zipfile.ZipFile(original) as package, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as copy:
        for info in package.infolist():
            data = package.read(info)
            if info.filename == "[Content_Types].xml":
                data = data.replace(_MAIN_TYPES[original.suffix].encode(), content_type.encode())
                assert content_type.encode() in data
            copy.writestr(info, data)


@pytest.mark.parametrize("name", ["river-readings.xlsx", "Old Excel/river-readings.xls"])
def test_spreadsheets(name: str) -> None:
    got = extract(CORPUS / "Documents/river-survey" / name)
    assert got.kind == "spreadsheet", got.kind
    lines = got.text.splitlines()
    assert lines[0] == "Readings" and lines[1].startswith("Date Point Temperature C pH"), lines[:2]
    assert len(lines) == 2 + 12 * 9, f"{name}: {len(lines)} lines"


def dde_linked_workbook(path: Path, cells: tuple[str, ...]) -> None:
    """An .xlsx of ``cells`` down its first column, linking another program by DDE through a link with no
    relationships part of its own, as oletools' dde-test.xlsx does."""
    import io
    import zipfile

    from openpyxl import Workbook

    book = Workbook()
    for row, cell in enumerate(cells, start=1):
        book.active.cell(row=row, column=1, value=cell)
    plain = io.BytesIO()
    book.save(plain)
    link = (b'<Relationship Id="rIdDde" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
            b'externalLink" Target="externalLinks/externalLink1.xml"/>')
    reference = (b'<externalReferences><externalReference xmlns:r="http://schemas.openxmlformats.org/officeDocument/'
                 b'2006/relationships" r:id="rIdDde"/></externalReferences>')
    typed = (b'<Override PartName="/xl/externalLinks/externalLink1.xml" ContentType="application/'
             b'vnd.openxmlformats-officedocument.spreadsheetml.externalLink+xml"/>')
    with zipfile.ZipFile(plain) as package, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as linked:
        for info in package.infolist():
            data = package.read(info)
            data = {"xl/_rels/workbook.xml.rels": lambda d: d.replace(b"</Relationships>", link + b"</Relationships>"),
                    "xl/workbook.xml": lambda d: d.replace(b"</sheets>", b"</sheets>" + reference),
                    "[Content_Types].xml": lambda d: d.replace(b"</Types>", typed + b"</Types>"),
                    }.get(info.filename, lambda d: d)(data)
            linked.writestr(info, data)
        linked.writestr("xl/externalLinks/externalLink1.xml", '<externalLink xmlns="http://schemas.openxmlformats.org/'
                        'spreadsheetml/2006/main"><ddeLink ddeService="cmd" ddeTopic="/c calc"/></externalLink>')


def test_a_workbook_linking_another_is_read_without_the_link(tmp_path: Path) -> None:
    """A workbook whose link to another (a DDE link: oletools' dde-test.xlsx, .xlsm) has no relationships
    part of its own was "damaged: KeyError: There is no item named 'xl/externalLinks/_rels/...'": openpyxl
    read the links, which a sheet's text does not need, and gave up on the whole workbook."""
    path = tmp_path / "dde-test.xlsx"
    dde_linked_workbook(path, ("Long live open source", "The link below starts a shell"))
    got = extract(path)
    assert got.text.splitlines() == ["Sheet", "Long live open source", "The link below starts a shell"], got.text


def test_an_excel_add_in_is_read_and_a_binary_workbook_is_unsupported_not_corrupt(tmp_path: Path) -> None:
    """oletools' .xlam (an add-in: a workbook whose main part says so) and .xlsb (Excel's binary workbook)
    were both "corrupt: File contains no valid workbook part": openpyxl knows neither.  The add-in is read as
    the workbook it is; the binary one is unsupported, and says what it is."""
    import zipfile

    from openpyxl import Workbook

    from lifededup.extract import UnsupportedFormat

    book = Workbook()
    book.active["A1"] = "Rates for the harbour dues, by tonnage"
    book.save(tmp_path / "rates.xlsx")
    sheet_type = b"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"
    add_in_type, binary_type = b"application/vnd.ms-excel.addin.macroEnabled.main+xml", b"application/vnd.ms-excel." \
        b"sheet.binary.macroEnabled.main"
    with zipfile.ZipFile(tmp_path / "rates.xlsx") as package, zipfile.ZipFile(tmp_path / "rates.xlam", "w") as add_in, \
            zipfile.ZipFile(tmp_path / "rates.xlsb", "w") as binary:
        for name in package.namelist():
            data = package.read(name)
            if name == "[Content_Types].xml":
                assert sheet_type in data
                add_in.writestr(name, data.replace(sheet_type, add_in_type))
                binary.writestr(name, data.replace(sheet_type, binary_type))
                continue
            add_in.writestr(name, data)
            binary.writestr(name.replace("xl/workbook.xml", "xl/workbook.bin"), data)  # as Excel names it
    assert extract(tmp_path / "rates.xlam").text == "Sheet\nRates for the harbour dues, by tonnage"
    with pytest.raises(UnsupportedFormat, match=r"^rates.xlsb is an Excel binary workbook \(.xlsb\), which lifededup "
                                                r"does not read \(saved as .xlsx, it is read\)$"):
        extract(tmp_path / "rates.xlsb")


def test_epub_is_the_travel_plan() -> None:
    got = extract(CORPUS / "Books/portugal-trip.epub")
    assert got.title == "Ten days in northern Portugal", got.title
    docx_text = extract(CORPUS / "Documents/portugal-trip/portugal-trip-v1.docx").text
    result = compare(docx_text, got.text)
    assert result.exact or result.near_duplicate, f"the .epub and the .docx of one plan: {result}"


def test_an_odt_drafts_tracked_deletions_are_not_its_text(tmp_path: Path) -> None:
    """LibreOffice keeps the text deleted from a draft with Track Changes on in
    <text:tracked-changes> at the top of the body (one <text:changed-region> with a
    <text:deletion> each), leaving a <text:change> mark where it stood; it was read
    as the document's first paragraphs.  A pending insertion is ordinary text between
    <text:change-start> and <text:change-end> marks, and is read where it stands."""
    import zipfile

    from lxml import etree  # type: ignore[import-untyped]

    source = CORPUS / "Documents/mill-history/mill-history.odt"
    office, text = "urn:oasis:names:tc:opendocument:xmlns:office:1.0", "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
    dc = "http://purl.org/dc/elements/1.1/"
    changes = etree.fromstring(f"""<text:tracked-changes xmlns:text="{text}" xmlns:office="{office}" xmlns:dc="{dc}"
        text:track-changes="false"><text:changed-region text:id="ct1"><text:deletion><office:change-info>
        <dc:creator>Editor</dc:creator><dc:date>2024-05-01T10:00:00</dc:date></office:change-info>
        <text:p text:style-name="Standard">The wheel was removed for scrap in the winter of 1941.</text:p>
        </text:deletion></text:changed-region><text:changed-region text:id="ct2"><text:insertion><office:change-info>
        <dc:creator>Editor</dc:creator><dc:date>2024-05-01T10:00:00</dc:date></office:change-info>
        </text:insertion></text:changed-region></text:tracked-changes>""")

    def draft(root: etree._Element) -> None:
        body = root.find(f".//{{{office}}}text")
        assert body is not None
        body.insert(0, changes)
        heading = body.find(f"{{{text}}}h")
        assert heading is not None
        heading.insert(0, etree.Element(f"{{{text}}}change-start", {f"{{{text}}}change-id": "ct2"}))
        heading.append(etree.Element(f"{{{text}}}change-end", {f"{{{text}}}change-id": "ct2"}))
        heading.addnext(etree.Element(f"{{{text}}}p"))
        heading.getnext().append(etree.Element(f"{{{text}}}change", {f"{{{text}}}change-id": "ct1"}))

    target = tmp_path / "mill-history-draft.odt"
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "content.xml":
                root = etree.fromstring(data)
                draft(root)
                data = etree.tostring(root, xml_declaration=True, encoding="UTF-8")
            zout.writestr(info, data)
    got = extract(target).text
    assert "scrap" not in got, got[:300]
    assert got == extract(source).text, got[:300]
