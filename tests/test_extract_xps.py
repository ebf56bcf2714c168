"""XPS, as Windows' "Microsoft XPS Document Writer" writes it: a zip of fixed pages whose text is each
glyph run's characters.  It was read as the zip it is -- its fonts ``unsupported`` parts, its thumbnail
offered to OCR -- and none of its words (oletools' ``presentation.xps``, session 33)."""

from __future__ import annotations

import zipfile
from pathlib import Path

from lifededup.extract import extract
from lifededup.index import IndexConfig, run
from lifededup.store import open_store

XPS = "http://schemas.microsoft.com/xps/2005/06"


def page(*runs: tuple[float, float, str]) -> bytes:
    """A fixed page of glyph runs (x, y, characters), as the writer draws them."""
    glyphs = "".join(f'<Glyphs Fill="#ff000000" FontUri="/Resources/F1.odttf" FontRenderingEmSize="24" '
                     f'OriginX="{x}" OriginY="{y}" UnicodeString="{text}"/>' for x, y, text in runs)
    return (f'<FixedPage xmlns="{XPS}" Width="960" Height="720" xml:lang="de-DE">{glyphs}</FixedPage>').encode()


def write_xps(path: Path, pages: dict[str, bytes], order: list[str], title: str = "") -> None:
    """An XPS package: its sequence and document in UTF-16, as Windows writes them, the pages in ``order``."""
    contents = "".join(f'<PageContent Source="Pages/{name}"></PageContent>' for name in order)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr("[Content_Types].xml", '<Types xmlns="http://schemas.openxmlformats.org/package/2006/'
                         'content-types"><Default Extension="fpage" ContentType="application/vnd.ms-package.xps-'
                         'fixedpage+xml"/></Types>')
        package.writestr("_rels/.rels", '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
                         'relationships"><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/package/'
                         '2006/relationships/metadata/core-properties" Target="docProps/core.xml"/><Relationship '
                         f'Id="rId1" Type="{XPS}/fixedrepresentation" Target="FixedDocSeq.fdseq"/></Relationships>')
        package.writestr("docProps/core.xml", '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/'
                         '2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="'
                         'http://purl.org/dc/terms/"><dc:title>' + title + '</dc:title><dcterms:created>'
                         '2016-03-11T13:42:15Z</dcterms:created></cp:coreProperties>')
        package.writestr("FixedDocSeq.fdseq", f'<FixedDocumentSequence xmlns="{XPS}"><DocumentReference '
                         'Source="/Documents/1/FixedDoc.fdoc"/></FixedDocumentSequence>'.encode("utf-16"))
        package.writestr("Documents/1/FixedDoc.fdoc", f'<FixedDocument xmlns="{XPS}">{contents}</FixedDocument>'
                         .encode("utf-16"))
        for name, data in pages.items():
            package.writestr(f"Documents/1/Pages/{name}", data)
        package.writestr("Resources/F1.odttf", bytes(range(256)) * 64)  # an obfuscated font, as the writer embeds


def test_an_xps_is_its_pages_text_in_their_order(tmp_path: Path) -> None:
    """The pages in the document's order (not their names'); a line's runs joined, a space apart but
    within a word; the title and date from its properties."""
    path = tmp_path / "Macros.xps"
    write_xps(path, {"cover.fpage": page((293.7, 81.4, "Macros in Powerpoint")),
                     "bullets.fpage": page((43.2, 159.6, "•"), (70.2, 159.6, "Starten "), (172.2, 159.6, "evtl"),
                                           (220.7, 159.6, " "), (228.0, 159.6, "automatisch"),
                                           (43.2, 205.7, "Wo"), (70.5, 205.7, "rd"),
                                           (43.2, 251.8, "{}{braces} are escaped"))},
              order=["cover.fpage", "bullets.fpage"], title="Präsentation")
    got = extract(path)
    assert (got.kind, got.title, got.metadata["pages"]) == ("document", "Präsentation", "2"), got
    assert got.doc_date is not None and got.doc_date.year == 2016, got.doc_date
    assert got.text == "Macros in Powerpoint\n\n• Starten evtl automatisch Word {braces} are escaped", got.text


def test_a_real_xps_from_windows_is_its_slides_text() -> None:
    """oletools' presentation.xps, as Windows printed it (tests/fixtures/xps/README.md)."""
    got = extract(Path(__file__).parent / "fixtures/xps/presentation.xps")
    assert (got.kind, got.title, got.metadata["pages"]) == ("document", "Präsentation", "3"), got
    assert got.text.split("\n\n") == [
        "Präsentation Oder: Macros in Powerpoint",
        "Macros • Sind doof • Starten evtl automatisch • Müssen gestoppt werden • Sind leider beliebt… • … vor allem "
        "bei Virenschreibern",
        "ENDE Das ist das:"], got.text


def test_an_xps_whose_references_are_broken_is_read_by_its_pages_numbers(tmp_path: Path) -> None:
    """A document naming a page the zip lacks, or a sequence part whose XML is beyond repair: every page is
    read, in the order of its number."""
    pages = {"2.fpage": page((10, 10, "The second page of the minutes.")),
             "10.fpage": page((10, 10, "The tenth page of the minutes.")),
             "1.fpage": page((10, 10, "The first page of the minutes."))}
    read = ["The first page of the minutes.", "The second page of the minutes.", "The tenth page of the minutes."]
    write_xps(tmp_path / "printed.xps", pages, order=["1.fpage", "gone.fpage"])
    assert extract(tmp_path / "printed.xps").text.split("\n\n") == read
    write_xps(tmp_path / "damaged.xps", pages, order=["1.fpage"])
    with zipfile.ZipFile(tmp_path / "damaged.xps") as package, \
            zipfile.ZipFile(tmp_path / "resaved.xps", "w") as resaved:
        for name in package.namelist():
            resaved.writestr(name, b"\x00" if name.endswith(".fdseq") else package.read(name))
    assert extract(tmp_path / "resaved.xps").text.split("\n\n") == read


def test_an_xps_is_one_document_in_the_store_not_an_archive_of_its_fonts(tmp_path: Path) -> None:
    folder = tmp_path / "Printed"
    folder.mkdir()
    write_xps(folder / "Minutes.xps", {"1.fpage": page((10, 10, "The committee agreed to mend the harbour wall."))},
              order=["1.fpage"])
    with open_store(tmp_path / "store.db") as store:
        summary = run(store, [folder], IndexConfig(workers=1))
        _, rows = store.execute("SELECT part, kind, status, text FROM items")
    assert summary.failed == 0, summary
    assert [tuple(map(str, row)) for row in rows] == [
        ("", "document", "ok", "The committee agreed to mend the harbour wall.")], rows
