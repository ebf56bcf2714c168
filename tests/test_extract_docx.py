"""DOCX: paragraphs and tables in order; headers and footers kept as metadata, not text."""

from __future__ import annotations

import copy
import zipfile
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

import docx
import pytest
from lxml import etree  # type: ignore[import-untyped]

from lifededup.extract import CorruptFile, TooLarge, extract, sniff, Source, Limits


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


def test_a_merged_cell_is_read_once_and_two_cells_alike_twice(tmp_path: Path) -> None:
    """A cell merged down two rows was read in each ("Fruit Apple Yes / Fruit Pear Yes": python-docx gives
    it per row), and two cells side by side that say the same were read once ("0 0 1" read "0 1")
    (python-docx's tbl-cell-access.docx read "1 2 3 4 5 6 7 5 9"; LibreOffice reads each cell once)."""
    document = docx.Document()
    table = document.add_table(rows=3, cols=3)
    table.cell(0, 0).merge(table.cell(1, 0)).text = "Fruit"
    table.cell(0, 1).text, table.cell(0, 2).text = "Apple", "Yes"
    table.cell(1, 1).text, table.cell(1, 2).text = "Pear", "Yes"
    table.cell(2, 0).text = "Total"
    table.cell(2, 1).merge(table.cell(2, 2)).text = "Two"
    scores = document.add_table(rows=1, cols=3)
    scores.cell(0, 0).text, scores.cell(0, 1).text, scores.cell(0, 2).text = "0", "0", "1"
    document.save(str(tmp_path / "merged.docx"))
    got = extract(tmp_path / "merged.docx")
    assert got.text == "Fruit Apple Yes Pear Yes Total Two\n\n0 0 1", got.text


def test_a_charts_and_a_smartart_graphics_words_are_read() -> None:
    """A chart's and a SmartArt graphic's words live in parts of their own, which python-docx does not read:
    a document of them read as no text (python-docx's shp-inline-shape-access.docx)."""
    got = extract(Path(__file__).parent / "fixtures/office/shp-inline-shape-access.docx")
    assert got.text == "foo bar baz\n\nSeries 1 Series 2 Series 3 Category 1 Category 2 Category 3 Category 4", got.text


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


W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
NS = {"w": W, "mc": MC}


def _rewrite_parts(source: Path, target: Path, edit: dict[str, Callable[[etree._Element], None]]) -> None:
    """A copy of a .docx with some of its XML parts changed by ``edit`` (part name: function)."""
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename in edit:
                root = etree.fromstring(data)
                edit[info.filename](root)
                data = etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
            zout.writestr(info, data)


def _track(root: etree._Element, change: str) -> None:
    """Every paragraph's runs marked as a pending change, as Word stores one:
    <w:p><w:pPr/><w:ins w:id w:author w:date><w:r>..</w:r></w:ins></w:p> (a deletion's text is <w:delText>)."""
    for k, p in enumerate(root.iter(f"{{{W}}}p")):
        runs = p.findall(f"{{{W}}}r")
        if not runs:
            continue
        mark = etree.Element(f"{{{W}}}{change}", {f"{{{W}}}id": str(9000 + k), f"{{{W}}}author": "Editor",
                                                   f"{{{W}}}date": "2024-05-01T10:00:00Z"})
        runs[0].addprevious(mark)
        for run in runs:
            mark.append(run)
            for t in run.iter(f"{{{W}}}t") if change == "del" else ():
                t.tag = f"{{{W}}}delText"


def test_a_drafts_tracked_insertions_are_its_text_and_its_deletions_are_not(tmp_path: Path) -> None:
    """A Word draft with Track Changes on keeps its pending insertions in <w:ins>,
    which Word, LibreOffice and their PDF export show; python-docx's
    Paragraph.text reads only the runs that are a paragraph's children, and a
    real draft with 40% of its paragraphs inserted read 6,014 of its 10,912
    words, 45% apart from its own PDF.  Here every paragraph of a real essay
    (body and footnotes) is a pending insertion: it reads as the essay, and as
    close to the essay's PDF; a copy whose every paragraph is a pending
    deletion, after the essay's own text, reads as the essay alone."""
    folder = CORPUS / "Documents/mill-history"
    original = extract(folder / "mill-history.docx").text
    inserted = tmp_path / "mill-history-tracked.docx"
    _rewrite_parts(folder / "mill-history.docx", inserted, {"word/document.xml": lambda r: _track(r, "ins"),
                                                           "word/footnotes.xml": lambda r: _track(r, "ins")})
    got = extract(inserted).text
    assert got == original, f"the pending insertions are the draft's text: {got[:300]!r}"
    from lifededup.fingerprint.compare import compare
    pdf = compare(got, extract(folder / "PDF/mill-history.pdf").text)
    assert pdf.near_duplicate and pdf.word_edit_distance < 0.05, f"the tracked draft and its PDF: {pdf}"

    def deleted_copy(root: etree._Element) -> None:
        body = root.find(f"{{{W}}}body")
        assert body is not None
        paragraphs = [copy.deepcopy(p) for p in body.iter(f"{{{W}}}p")]
        stray = etree.Element(f"{{{W}}}body")  # a deletion keeping <w:t>, as some writers do: not read either
        for p in paragraphs:
            stray.append(p)
        _track(stray, "del")
        for p in paragraphs[:2]:
            for t in p.iter(f"{{{W}}}delText"):
                t.tag = f"{{{W}}}t"
        body[-1].addprevious(etree.fromstring(f'<w:p xmlns:w="{W}"><w:moveFrom w:id="1" w:author="Editor">'
                                              '<w:r><w:t>Moved away from here.</w:t></w:r></w:moveFrom></w:p>'))
        for p in paragraphs:
            body[-1].addprevious(p)

    deleted = tmp_path / "mill-history-deleted.docx"
    _rewrite_parts(folder / "mill-history.docx", deleted, {"word/document.xml": deleted_copy})
    assert extract(deleted).text == original, extract(deleted).text[-600:]


CONTROLS = f"""<w:body xmlns:w="{W}" xmlns:mc="{MC}">
<w:sdt><w:sdtPr><w:alias w:val="Summary"/></w:sdtPr><w:sdtContent>
  <w:p><w:r><w:t>Summary from a content control.</w:t></w:r></w:p>
  <w:tbl><w:tblGrid><w:gridCol/><w:gridCol/></w:tblGrid><w:tr>
    <w:tc><w:p><w:ins w:id="1" w:author="E"><w:r><w:t>Inserted cell</w:t></w:r></w:ins></w:p></w:tc>
    <w:tc><w:sdt><w:sdtContent><w:p><w:r><w:t>Controlled cell</w:t></w:r></w:p></w:sdtContent></w:sdt></w:tc>
  </w:tr></w:tbl>
</w:sdtContent></w:sdt>
<w:customXml w:element="clause"><w:p><w:r><w:t>A clause in custom XML.</w:t></w:r></w:p></w:customXml>
<w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr>
  <w:smartTag w:element="place"><w:r><w:t>Low Bentham</w:t></w:r></w:smartTag>
  <w:r><w:t xml:space="preserve"> on </w:t></w:r>
  <w:sdt><w:sdtContent><w:r><w:t>1 May 2024</w:t></w:r></w:sdtContent></w:sdt>
  <w:r><w:t xml:space="preserve">, page </w:t></w:r>
  <w:fldSimple w:instr="PAGE"><w:r><w:t>3</w:t></w:r></w:fldSimple>
  <w:customXml w:element="x"><w:r><w:t xml:space="preserve"> of the</w:t></w:r></w:customXml>
  <w:r><w:tab/><w:t>report</w:t><w:br/><w:t>Ref</w:t><w:noBreakHyphen/><w:t>7</w:t></w:r>
  <w:r><mc:AlternateContent>
    <mc:Choice Requires="wps"><w:drawing><w:txbxContent>
      <w:p><w:r><w:t>Text box</w:t></w:r></w:p>
    </w:txbxContent></w:drawing></mc:Choice>
    <mc:Fallback><w:pict><w:txbxContent>
      <w:p><w:r><w:t>Text box</w:t></w:r></w:p>
    </w:txbxContent></w:pict></mc:Fallback>
  </mc:AlternateContent></w:r>
</w:p></w:body>"""


def test_text_in_content_controls_fields_smart_tags_and_a_text_box_once_is_read(tmp_path: Path) -> None:
    """Block content controls (<w:sdt> round paragraphs and tables, as Word templates
    have them) and <w:customXml> were skipped whole; inside a paragraph, the runs of a
    content control, smart tag, custom XML or simple field were dropped.  A text box
    (a newsletter's sidebar, which its ODT and PDF read) was left out: it is read once,
    where it is anchored, not again from its VML fallback."""
    path = tmp_path / "controls.docx"
    document = docx.Document()
    document.add_paragraph("Before.")
    document.sections[0].header.paragraphs[0].text = "Header"
    header_p = document.sections[0].header.paragraphs[0]._p
    header_p.append(etree.fromstring(f'<w:ins xmlns:w="{W}" w:id="5" w:author="E">'
                                     '<w:r><w:t xml:space="preserve"> inserted</w:t></w:r></w:ins>'))
    body = document.element.body
    for child in etree.fromstring(CONTROLS):
        body.sectPr.addprevious(child)
    document.save(str(path))
    got = extract(path)
    assert got.text == ("Before.\n\nSummary from a content control.\n\nInserted cell Controlled cell\n\n"
                        "A clause in custom XML.\n\nLow Bentham on 1 May 2024, page 3 of the\treport Ref-7\n\nText box"), \
        got.text
    assert got.metadata["header"] == "Header inserted", got.metadata


def test_a_text_box_reads_where_the_same_documents_odt_has_it() -> None:
    """A newsletter's sidebar in a text box was dropped from the .docx, kept by
    its .odt and .pdf: the two formats were 38% apart in words."""
    fixtures = Path(__file__).parent / "fixtures" / "office"
    assert extract(fixtures / "newsletter-textbox.docx").text == extract(fixtures / "newsletter-textbox.odt").text
