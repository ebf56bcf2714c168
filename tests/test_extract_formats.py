"""The formats a real archive holds besides documents and mail, each on real files.

Man pages and info manuals are the ones Debian ships (read from /usr/share at
test time), the vCard and iCalendar files come from other projects' test data
(tests/fixtures/*/README.md), the .ppt is made by LibreOffice Impress, the
EPUB and the archives are assembled here from real files.
"""

from __future__ import annotations

import gzip
import io
import random
import re
import shutil
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest

from lifededup.extract import (Extracted, Failure, Limits, MissingTool, Source, TooLarge, UnsupportedFormat, extract,
                               extract_many, extract_source, sniff, walk)

FIXTURES = Path(__file__).parent / "fixtures"
CORPUS = Path(__file__).resolve().parent.parent / "sample_corpus"
MAN = Path("/usr/share/man")
INFO = Path("/usr/share/info")
needs_groff = pytest.mark.skipif(shutil.which("groff") is None,
                                 reason="groff not installed (scripts/install-system-deps.sh: groff-base)")


def _real(pattern: Path) -> Path:
    if not pattern.exists():
        pytest.skip(f"{pattern} is not on this machine (Debian package man-db/coreutils/sed docs)")
    return pattern


@needs_groff
def test_man_page_gzipped_as_debian_ships_it() -> None:
    got = extract(_real(MAN / "man1/ls.1.gz"))
    assert got.title == "ls - list directory contents", got.title
    assert "List information about the FILEs" in got.text, got.text[:300]
    for code in ("\x08", "\x1b[", ".TH", "\\fB"):
        assert code not in got.text, f"formatting code {code!r} left in the text"
    assert "User Commands" not in got.text.splitlines()[0], "the running header is layout, not text"
    assert got.metadata["compressed"] == "gzip" and got.metadata["section"] == "1", got.metadata


@needs_groff
def test_man_page_unpacked_reads_the_same_and_is_recognised_by_content(tmp_path: Path) -> None:
    plain = tmp_path / "printf.3"
    plain.write_bytes(gzip.decompress(_real(MAN / "man3/printf.3.gz").read_bytes()))
    assert sniff(Source.from_path(plain)) == "man"
    got, packed = extract(plain), extract(MAN / "man3/printf.3.gz")
    assert got.text == packed.text and "formatted output conversion" in got.title, got.title


@needs_groff
def test_many_real_man_pages_all_give_text() -> None:
    # every 200th page of each section: man(7), mdoc(7), pod2man's and rst2man's macro preambles, tbl tables
    pages = [p for section in sorted(_real(MAN).glob("man[1-8]")) for p in sorted(section.glob("*.gz"))[::200]]
    failed = []
    for page in pages:
        try:
            got = extract(page)
            if got.mime != "text/troff" or not got.text.strip() or not got.title:
                failed.append((page.name, f"{got.mime}, title {got.title!r}, {len(got.text)} chars"))
        except Exception as exc:
            failed.append((page.name, str(exc)))
    assert not failed, f"{len(failed)} of {len(pages)} man pages not read: {failed[:5]}"


def test_man_page_without_groff_names_the_package(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    page = _real(MAN / "man1/ls.1.gz")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(MissingTool) as caught:
        extract(page)
    assert "apt-get install groff-base" in str(caught.value), caught.value


def test_info_manual_as_debian_ships_it() -> None:
    got = extract(_real(INFO / "sed.info.gz"))
    assert got.kind == "document" and got.mime == "application/x-info", got
    assert "sed" in got.title and "stream editor" in got.text, (got.title, got.text[:200])
    assert "\x1f" not in got.text and "Node: Top" not in got.text and "Tag Table" not in got.text


def test_split_info_file_is_recognised_by_content() -> None:
    parts = sorted(INFO.glob("*.info-[0-9].gz"))
    if not parts:
        pytest.skip("no split info manual in /usr/share/info")
    got = extract(parts[0])
    assert got.mime == "application/x-info" and got.text.strip(), parts[0]


def test_real_vcard() -> None:
    got = extract(FIXTURES / "vcard/vcard40_full.vcf")
    assert got.kind == "contact" and got.title == "Dr. John Q. Public, III", got
    for want in ("john.public@example.com", "Example Corp.", "456 Oak Lane", "He likes vCards"):
        assert want in got.text, f"{want!r} missing from {got.text!r}"


def test_address_book_of_several_cards_has_one_part_per_card(tmp_path: Path) -> None:
    card = (FIXTURES / "vcard/vcard40_full.vcf").read_text()
    book = tmp_path / "contacts.vcf"
    book.write_text(card + card.replace("John", "Jane").replace("john", "jane"))
    parts = list(walk(extract(book)))
    assert parts[0].kind == "address book" and len(parts) == 3, parts
    assert [p.title for p in parts[1:] if isinstance(p, Extracted)] == ["Dr. John Q. Public, III",
                                                                         "Dr. Jane Q. Public, III"]


def test_real_icalendar_event() -> None:
    got = extract(FIXTURES / "calendar/mozilla.ics")
    assert got.kind == "event" and got.title == "Test event", got
    assert "Somewhere over the rainbow" in got.text and got.doc_date is not None, got


@pytest.mark.parametrize(("name", "title", "component"), [
    ("issue_104_mark_events_broken.ics", "Broken Eevnt", "VEVENT"),
    ("todo_example.ics", "Submit Quebec Income Tax Return for 2006", "VTODO"),
])
def test_entry_standing_alone_without_a_calendar_is_read(name: str, title: str, component: str) -> None:
    """An event or to-do copied out of its calendar (BEGIN:VEVENT, no BEGIN:VCALENDAR) was "empty: holds no events"
    (or "not in the format its .ics name says" when a line of it was unreadable): its one entry is the file."""
    outcomes = list(extract_many([FIXTURES / "calendar" / name], Limits(timeout_s=60)))
    got = outcomes[0].result
    assert isinstance(got, Extracted), got
    assert (got.kind, got.title, got.metadata.get("component")) == ("event", title, component), got
    assert title in got.text and got.doc_date is not None, got


@pytest.mark.parametrize(("name", "title", "text", "when"), [
    ("invalid_duration.ics", "Event with an impractical duration", "Event with an impractical duration",
     "2024-01-01T00:00:00+00:00"),
    ("issue_218_bad_tzid.ics", "TESTIN", "TESTIN\nTESTING", "2017-02-28T23:00:00"),
])
def test_calendar_with_one_value_vobject_cannot_read_is_read(name: str, title: str, text: str, when: str) -> None:
    """vobject gives up on the whole file at one value it cannot turn into Python's (a DURATION past
    timedelta's reach, a time zone's DTSTART that is a date): the calendar was "corrupt".  The value stays
    text; the event, its words and date are read."""
    outcomes = list(extract_many([FIXTURES / "calendar" / name], Limits(timeout_s=60)))
    got = outcomes[0].result
    assert isinstance(got, Extracted), got
    assert (got.title, got.text) == (title, text), got
    assert got.doc_date is not None and got.doc_date.isoformat() == when, got.doc_date


def test_calendar_of_several_events_has_one_dated_part_per_event(tmp_path: Path) -> None:
    real = (FIXTURES / "calendar/mozilla.ics").read_text()
    event = real[real.index("BEGIN:VEVENT"):real.index("END:VEVENT") + len("END:VEVENT\n")]
    second = event.replace("Test event", "Second event").replace("20040714", "20041001")
    path = tmp_path / "calendar.ics"
    path.write_text(real.replace(event, event + second))
    items = list(walk(extract(path)))
    assert items[0].kind == "calendar" and [i.part for i in items[1:]] == ["event 1: Test event",
                                                                           "event 2: Second event"], items
    assert [i.doc_date.month for i in items[1:] if isinstance(i, Extracted) and i.doc_date] == [7, 10], items


def test_event_in_a_time_zone_the_file_defines_comes_back_from_the_worker() -> None:
    """Thunderbird, Outlook and Google write a VTIMEZONE; vobject's zone made of it held a lock, which cannot be
    pickled back from the extraction worker: the calendar (or the mail inviting to it) was lost."""
    path = FIXTURES / "calendar/alarm_thunderbird_future.ics"
    outcomes = list(extract_many([path], Limits(timeout_s=60)))
    got = outcomes[0].result
    assert isinstance(got, Extracted) and got.title == "event with alarms", got
    assert got.doc_date is not None and got.doc_date.isoformat() == "2024-10-23T15:00:00+01:00", got.doc_date


@pytest.mark.parametrize("name", ["pythagoras.ods", "pythagoras-kspread.ods"])
def test_opendocument_spreadsheet_is_its_sheets_rows(name: str) -> None:
    """A .ods was read as a zip of raw XML parts (two unrelated spreadsheets were near copies by their styles.xml)."""
    outcomes = list(extract_many([FIXTURES / "opendocument" / name], Limits(timeout_s=60)))
    assert len(outcomes) == 1, [o.part for o in outcomes]  # no parts: no styles.xml, settings or thumbnail
    got = outcomes[0].result
    assert isinstance(got, Extracted) and got.kind == "spreadsheet", got
    # each sheet's name, then a line per row (the .xlsx reader's form); the formulas' values, not the formulas
    assert got.text.startswith("Sheet1\n3\n4\n5\n7\n") and got.text.split() == ["Sheet1", "3", "4", "5", "7",
                                                                                  "Sheet2", "Sheet3"], got.text


def test_opendocument_caption_in_a_frame_is_not_run_into_its_paragraph() -> None:
    """A picture's caption, in a frame anchored in a paragraph, was run into the paragraph's first word:
    "HelpRight justified picture", "DocLorem ipsum" (odfpy's imageslabels.odt; LibreOffice keeps them apart)."""
    got = extract(FIXTURES / "opendocument/imageslabels.odt")
    for words in ("Help Right justified picture", "Doc Lorem ipsum dolor", "Info Left justified with text flow"):
        assert words in got.text, got.text[:400]


def test_opendocument_presentation_is_its_slides_text() -> None:
    got = extract(FIXTURES / "opendocument/cols.odp")
    assert got.kind == "presentation" and got.mime == "application/vnd.oasis.opendocument.presentation", got
    for cell in ("11 Lorem ipsum dolor sit amet", "Col 3", "52 Cras ullamcorper porttitor mauris"):
        assert cell in got.text, got.text
    assert "<" not in got.text and not got.children, got.text[:200]


def test_safari_web_archive_is_the_page_it_holds(tmp_path: Path) -> None:
    """A .webarchive (a binary property list: the page's HTML in WebMainResource) was indexed as text, b"bplist00"
    and raw markup; it is the page, the same text as the page saved as .html."""
    import plistlib

    page = FIXTURES / "html/fhs-3.0-sbin-options.html"
    archive = tmp_path / "sbin.webarchive"
    archive.write_bytes(plistlib.dumps({"WebMainResource": {
        "WebResourceData": page.read_bytes(), "WebResourceFrameName": "", "WebResourceMIMEType": "text/html",
        "WebResourceTextEncodingName": "UTF-8", "WebResourceURL": "https://refspecs.linuxfoundation.org/FHS_3.0/"},
        "WebSubresources": [{"WebResourceData": b"\x89PNG\r\n", "WebResourceMIMEType": "image/png",
                             "WebResourceURL": "https://refspecs.linuxfoundation.org/logo.png"}]},
        fmt=plistlib.FMT_BINARY))
    got = extract(archive)
    want = extract(page)
    assert got.kind == "web page" and got.text == want.text and got.title == want.title, got.text[:200]


@needs_groff
def test_postscript_is_recognised_and_said_to_be_unread(tmp_path: Path) -> None:
    """PostScript was indexed as text, two-thirds operators; gzipped (.ps.gz, as Debian ships manuals) too."""
    page = gzip.decompress(_real(MAN / "man1/ls.1.gz").read_bytes())
    postscript = subprocess.run(["groff", "-man", "-Tps"], input=page, capture_output=True, check=True).stdout
    assert postscript.startswith(b"%!PS-Adobe-3.0")
    (tmp_path / "ls.ps").write_bytes(postscript)
    (tmp_path / "ls.ps.gz").write_bytes(gzip.compress(postscript))
    (tmp_path / "ls-printout").write_bytes(postscript)  # no suffix: by content
    for name in ("ls.ps", "ls.ps.gz", "ls-printout"):
        with pytest.raises(UnsupportedFormat, match="PostScript is not read"):
            extract(tmp_path / name)


@pytest.mark.parametrize(("name", "fmt"), [("refcard.dvi.gz", "DVI (TeX.s output) is not read"), ("notes.7z", "7-Zip archives are not"),
                                         ("checklist.djvu", "DjVu (scanned pages) is not read")])
def test_formats_not_read_are_named(name: str, fmt: str) -> None:
    """A .7z, .dvi or .djvu was 'binary data of no format lifededup reads': now the reason names the format."""
    with pytest.raises(UnsupportedFormat, match=fmt.replace("(", r"\(").replace(")", r"\)")):
        extract(FIXTURES / "unread" / name)


@pytest.mark.parametrize(("name", "head", "said"), [
    ("Outlook.pst", b"!BDN\x12\x34\x56\x78SM\x17\x00\x01\x00", "is an Outlook data file: its mail"),
    ("cache.ost", b"!BDN\x12\x34\x56\x78SO\x24\x00\x01\x00", "readpst (Debian's pst-utils"),
    ("photos.rar", b"Rar!\x1a\x07\x00\xcf\x90\x73\x00\x00\x0d\x00", "is RAR: RAR archives are not read"),
    ("photos-2020", b"Rar!\x1a\x07\x01\x00\x33\x92\xb5\xe5\x0a\x01", "is RAR: RAR archives are not read"),
])
def test_outlook_data_files_and_rar_archives_are_named_with_what_reads_them(
        tmp_path: Path, name: str, head: bytes, said: str) -> None:
    """An Outlook .pst (a person's whole mail, often) was "binary data of no format lifededup reads", which
    says neither what it is nor how its mail can be read; so was a RAR archive.  The signatures are the
    formats' own ([MS-PST] 2.2.2.6: "!BDN", a CRC, then "SM" or "SO"; RAR 4 and 5); the rest of each file is
    random: what is after the signature is never read."""
    path = tmp_path / name
    path.write_bytes(head + random.Random(name).randbytes(4096))
    with pytest.raises(UnsupportedFormat, match=re.escape(said)):
        extract(path)


def test_ppt_reads_as_the_pptx(ppt: Path) -> None:
    assert sniff(Source.from_path(ppt)) == "ppt"
    got = extract(ppt)
    assert got.kind == "presentation" and got.mime == "application/vnd.ms-powerpoint", got
    assert "Solid wood and birch plywood" in got.text and "Kitchen plan" in got.text, got.text
    assert "Click to edit" not in got.text, "the master slide's placeholders are not the deck's text"
    pps = ppt.with_suffix(".pps")
    shutil.copy(ppt, pps)
    assert extract(pps).text == got.text


def _epub(path: Path, chapters: dict[str, str], spine: list[str], manifest_extra: str = "") -> None:
    items = "".join(f'<item id="{c}" href="text/{c}.xhtml" media-type="application/xhtml+xml"/>'
                    for c in sorted(chapters)) + manifest_extra
    refs = "".join(f'<itemref idref="{c}"/>' for c in spine)
    with zipfile.ZipFile(path, "w") as book:
        book.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        book.writestr("META-INF/container.xml", '<?xml version="1.0"?><container version="1.0" '
                      'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile '
                      'full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>'
                      '</container>')
        book.writestr("OEBPS/content.opf", '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" '
                      'version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Walking '
                      f'the Coast</dc:title><dc:date>2019-05-02</dc:date></metadata><manifest>{items}</manifest>'
                      f'<spine>{refs}</spine></package>')
        for name, text in chapters.items():
            book.writestr(f"OEBPS/text/{name}.xhtml", f'<html xmlns="http://www.w3.org/1999/xhtml"><body>'
                          f'<p>{text}</p><img src="../images/logo.png"/></body></html>')


def test_epub_in_spine_order_with_a_missing_image(tmp_path: Path) -> None:
    # the chapters' names sort the other way round from the reading order, and the logo is not in the zip
    path = tmp_path / "coast.epub"
    chapters = {"a-end": "The walk ended at the lighthouse.", "m-middle": "At noon the path turned inland.",
                "z-start": "The walk began at the harbour."}
    _epub(path, chapters, ["z-start", "m-middle", "a-end"],
          '<item id="logo" href="images/logo.png" media-type="image/png"/>')
    got = extract(path)
    assert got.text.split("\n\n") == [chapters["z-start"], chapters["m-middle"], chapters["a-end"]], got.text
    assert got.title == "Walking the Coast" and got.metadata["missing"] == "OEBPS/images/logo.png", got


def test_real_epub_whose_spine_order_is_not_the_manifest_order(tmp_path: Path) -> None:
    path = tmp_path / "reordered.epub"
    _epub(path, {"one": "First chapter text.", "two": "Second chapter text."}, ["two", "one"])
    assert extract(path).text == "Second chapter text.\n\nFirst chapter text."
    assert extract(CORPUS / "Books/portugal-trip.epub").text.strip(), "the sample corpus's EPUB still reads"


def _archive_members() -> dict[str, bytes]:
    return {"docs/report.docx": (CORPUS / "Documents/garden-club-report/garden-club-report-v3.docx").read_bytes(),
            "docs/minutes.pdf": (CORPUS / "Documents/residents-minutes/PDF/residents-minutes-v1.pdf").read_bytes(),
            "mail/kitchen.eml": (CORPUS / "Mail/Kitchen/Fwd kitchen quotes.eml").read_bytes(),
            "notes/README": b"A plain note with no extension, read by its content.\n"}


@pytest.mark.parametrize("kind", ["zip", "tar", "tar.gz", "tgz", "tar.bz2", "tar.xz"])
def test_archive_members_are_parts(tmp_path: Path, kind: str) -> None:
    members = _archive_members()
    path = tmp_path / f"backup.{kind}"
    if kind == "zip":
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, data in members.items():
                archive.writestr(name, data)
    else:
        mode = {"tar.gz": "w:gz", "tgz": "w:gz", "tar.bz2": "w:bz2", "tar.xz": "w:xz"}.get(kind, "w")
        with tarfile.open(path, mode) as archive:
            for name, data in members.items():
                info = tarfile.TarInfo(name)
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
    items = list(walk(extract(path)))
    assert items[0].kind == "archive", items[0]
    by_part = {i.part: i for i in items[1:]}
    assert set(members) <= set(by_part), sorted(by_part)
    for name in members:
        assert isinstance(by_part[name], Extracted) and by_part[name].text, by_part[name]
    # the forwarded mail's attachment is a part of the mail, under the member's name
    assert any(p.startswith("mail/kitchen.eml / attachment 1") for p in by_part), sorted(by_part)
    report = by_part["docs/report.docx"]
    assert isinstance(report, Extracted) and report.text == extract(
        CORPUS / "Documents/garden-club-report/garden-club-report-v3.docx").text


def test_gz_of_one_file_is_that_file(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt.gz"
    path.write_bytes(gzip.compress(b"Seed order: broad beans, leeks and two kinds of kale.\n"))
    got = extract(path)
    assert got.text == "Seed order: broad beans, leeks and two kinds of kale.\n" and got.kind == "text", got


@pytest.mark.parametrize(("suffix", "compress"), [(".bz2", "bz2"), (".xz", "lzma")])
def test_bz2_and_xz_of_one_file_are_that_file_within_the_unpacked_size_limit(tmp_path: Path, suffix: str,
                                                                            compress: str) -> None:
    """Single-file .bz2 and .xz were 'binary data of no format lifededup reads', while a .tar.bz2 was read."""
    import importlib

    module = importlib.import_module(compress)
    licence = _real(Path("/usr/share/common-licenses/GPL-2"))
    path = tmp_path / f"GPL-2.txt{suffix}"
    path.write_bytes(module.compress(licence.read_bytes()))
    got = extract(path)
    assert got.kind == "text" and got.text == extract(licence).text, got.text[:200]
    assert got.metadata["member"] == "GPL-2.txt" and got.metadata["compressed"] in ("bzip2", "xz"), got.metadata
    bomb = tmp_path / f"zeros{suffix}"
    bomb.write_bytes(module.compress(b"\0" * 2**22))  # 4 MiB of zeros: a few hundred bytes packed
    assert bomb.stat().st_size < 2**12
    with pytest.raises(TooLarge, match="refused as a bomb"):
        extract(bomb, Limits(max_unpacked_bytes=2**20))


def test_archive_limits_members_size_and_depth(tmp_path: Path) -> None:
    def zipped(files: dict[str, bytes]) -> bytes:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            for name, data in files.items():
                archive.writestr(name, data)
        return buffer.getvalue()

    many = zipped({f"note-{i}.txt": f"note number {i}\n".encode() for i in range(30)})
    items = list(walk(extract_source(Source("many.zip", data=many), Limits(max_members=10))))
    texts = [i for i in items[1:] if isinstance(i, Extracted)]
    assert len(texts) == 10 and isinstance(items[-1], Failure) and items[-1].status == "too-large", items[-1]
    big = zipped({f"part-{i}.txt": b"word " * 50_000 for i in range(5)})
    items = list(walk(extract_source(Source("big.zip", data=big), Limits(max_unpacked_bytes=600_000))))
    assert isinstance(items[-1], Failure) and items[-1].status == "too-large", items[-1]
    assert len([i for i in items if isinstance(i, Extracted) and i.text]) == 2, items
    deep = b"the innermost note\n"
    for level in range(6):
        deep = zipped({f"level-{level}.zip" if level else "note.txt": deep})
    items = list(walk(extract_source(Source("deep.zip", data=deep), Limits(max_depth=3))))
    assert any(isinstance(i, Failure) and i.status == "too-large" and "nested" in i.reason for i in items), items
    assert not any(isinstance(i, Extracted) and "innermost" in i.text for i in items)


@pytest.mark.parametrize("name", ["minutes.docx", "budget.xlsx"])
def test_a_password_protected_office_document_is_encrypted_not_unsupported(name: str) -> None:
    """Office 2007+ encrypts a .docx or .xlsx into an OLE2 file, which was
    taken for an old Office file of a kind not read: 'unsupported'.  It is
    'encrypted', as a protected PDF or zip is."""
    from lifededup.extract import EncryptedFile

    path = Path(__file__).parent / "fixtures/encrypted" / name
    with pytest.raises(EncryptedFile, match="protected by a password"):
        extract(path)
