"""Files whose text was lost, or that should never be read: the gaps earlier readings left."""

from __future__ import annotations

import io
import os
import random
import shutil
import stat
import subprocess
import sys
import tarfile
import zipfile
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from lifededup.extract import CorruptFile, Extracted, Failure, UnsupportedFormat, extract, walk
from lifededup.extract.html import LIBXML2_MAX_DEPTH, parse_html, parse_html_with_soup
from lifededup.index import IndexConfig, run
from lifededup.store import open_store

FIXTURES = Path(__file__).parent / "fixtures"

# --- HTML nested deeper than libxml2 builds a tree -------------------------------------------------


def nested_page(depth: int, tags: tuple[str, ...] = ("div", "span", "font")) -> str:
    """A generated page: ``depth`` elements nested, the words at the bottom, a paragraph after them."""
    opening = "".join(f"<{tags[level % len(tags)]}>" for level in range(depth))
    closing = "".join(f"</{tags[level % len(tags)]}>" for level in reversed(range(depth)))
    return (f"<html><head><title>Ferry notice</title></head><body>{opening}The harbour ferry timetable "
            f"changed in March.{closing}<p>Tickets are sold on board.</p></body></html>")


@pytest.mark.parametrize("depth", [LIBXML2_MAX_DEPTH - 2, LIBXML2_MAX_DEPTH - 1, 3000])
def test_a_deeply_nested_page_is_read_whole(tmp_path: Path, depth: int) -> None:
    """libxml2 stops building its tree 256 elements deep and reads no further, silently: the page
    (the words inside the nest and the paragraph after it) was an "empty" failure.  Two levels
    (<html>, <body>) stand above the nest, so a nest LIBXML2_MAX_DEPTH - 1 deep was the first lost."""
    path = tmp_path / "notice.html"
    path.write_text(nested_page(depth), encoding="utf-8")
    got = extract(path)
    for words in ("ferry timetable changed in March", "Tickets are sold on board"):
        assert words in got.text, f"{depth} deep: {words!r} lost from {got.text!r}"
    assert parse_html(path.read_bytes()) == parse_html_with_soup(path.read_bytes()), f"{depth} deep: readings differ"


def test_a_deeply_nested_html_mail_keeps_its_body(tmp_path: Path) -> None:
    """A mail client's HTML-only message nested 400 deep was an item read "ok" with no body at all."""
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "alex@example.org", "sam@example.org", "Deep mail"
    message.set_content(nested_page(400), subtype="html")
    path = tmp_path / "deep.eml"
    path.write_bytes(bytes(message))
    got = extract(path)
    assert "ferry timetable changed in March" in got.text, f"the body was lost: {got.text!r}"


def test_a_page_twenty_thousand_deep_is_read(tmp_path: Path) -> None:
    """Read the slow way, BeautifulSoup's, which set blocks apart by inserting strings into its tree,
    each insertion a walk down and up the nest: 20,000 nested <div> took 70 s (past the worker's
    timeout), 5,000 took 4 s; walking the tree once takes 0.5 s and 0.1 s.  No clock here (speed is
    not asserted in tests): a reading quadratic again would show as this test's minute."""
    path = tmp_path / "generated.html"
    path.write_text(nested_page(20_000, ("div",)), encoding="utf-8")
    got = extract(path)
    assert "ferry timetable changed in March.\n\nTickets are sold on board." in got.text, got.text[-200:]


# --- a tar's links --------------------------------------------------------------------------------

LOG = b"The lighthouse keeper logged the storm on the ninth of January.\n"
HARD, SYMBOLIC = tarfile.LNKTYPE, tarfile.SYMTYPE


def write_tar(path: Path, members: list[tuple[str, bytes, bytes | str]]) -> None:
    """A tar of ``members`` in order: (name, tarfile.REGTYPE and its bytes, or a link type and where it leads)."""
    with tarfile.open(path, "w:gz" if path.suffix == ".gz" else "w") as tar:
        for name, kind, content in members:
            member = tarfile.TarInfo(name)
            member.type = kind
            if isinstance(content, bytes):
                member.size = len(content)
                tar.addfile(member, io.BytesIO(content))
            else:
                member.linkname = content
                tar.addfile(member)


def parts_of(path: Path) -> dict[str, Extracted | Failure]:
    return {part.part: part for part in walk(extract(path)) if part.part}


@pytest.mark.parametrize("name", ["links.tar", "links.tar.gz"])
def test_a_tars_links_inside_it_are_read_as_their_members(tmp_path: Path, name: str) -> None:
    """A hard link member holds no bytes of its own and a symbolic link only a name: both were dropped
    without a word, and with them the text of every copy the user kept that way."""
    path = tmp_path / name
    write_tar(path, [
        ("docs/log.txt", tarfile.REGTYPE, LOG),
        ("docs/log copy.txt", HARD, "docs/log.txt"),
        ("docs/latest.txt", SYMBOLIC, "log.txt"),
        ("backup/log.txt", SYMBOLIC, "../docs/log copy.txt"),  # a link to a link
        ("docs/later.txt", SYMBOLIC, "../notes/later.txt"),  # to a member stored after it
        ("docs/all", SYMBOLIC, "../notes"),  # a folder: its files are read as members of their own
        ("notes", tarfile.DIRTYPE, b""),
        ("notes/later.txt", tarfile.REGTYPE, b"Buy paraffin for the lamp before the winter.\n"),
    ])
    parts = parts_of(path)
    for part in ("docs/log copy.txt", "docs/latest.txt", "backup/log.txt"):
        got = parts.get(part)
        assert isinstance(got, Extracted) and got.text == parts["docs/log.txt"].text, f"{part}: {got!r}"
    later = parts.get("docs/later.txt")
    assert isinstance(later, Extracted) and "paraffin" in later.text, f"docs/later.txt: {later!r}"
    assert "docs/all" not in parts, f"a link to a folder read as a file: {parts['docs/all']!r}"


def test_a_tars_links_out_of_it_are_never_followed(tmp_path: Path) -> None:
    """A link out of the archive is recorded (as the scan records one out of the folders) and never
    read, whatever lies at the path it names; a link to nothing, or round a circle, says so."""
    (tmp_path / "secret.txt").write_text("The safe's code is 4711.\n", encoding="utf-8")
    path = tmp_path / "inbox" / "links.tar"
    path.parent.mkdir()
    write_tar(path, [
        ("docs/log.txt", tarfile.REGTYPE, LOG),
        ("docs/up.txt", SYMBOLIC, "../../secret.txt"),
        ("docs/absolute.txt", SYMBOLIC, str(tmp_path / "secret.txt")),
        ("docs/passwd", SYMBOLIC, "/etc/passwd"),
        ("docs/gone.txt", SYMBOLIC, "missing.txt"),
        ("docs/early.txt", HARD, "docs/late.txt"),  # a hard link names a member stored before it
        ("docs/late.txt", tarfile.REGTYPE, LOG),
        ("docs/a.txt", SYMBOLIC, "b.txt"),
        ("docs/b.txt", SYMBOLIC, "a.txt"),
    ])
    parts = parts_of(path)
    want = {"docs/up.txt": "link-outside", "docs/absolute.txt": "link-outside", "docs/passwd": "link-outside",
            "docs/gone.txt": "broken-link", "docs/early.txt": "broken-link", "docs/a.txt": "link-loop",
            "docs/b.txt": "link-loop"}
    got = {part: item.status for part, item in parts.items() if isinstance(item, Failure)}
    assert got == want, f"statuses: {got}"
    assert not any("4711" in item.text or "root:" in item.text for item in parts.values()
                   if isinstance(item, Extracted)), "a link out of the archive was read"


# --- a Maildir's tmp ------------------------------------------------------------------------------


def test_a_maildirs_tmp_is_never_read(tmp_path: Path) -> None:
    """A mail program writes a message into the Maildir's tmp and renames it into new once whole: what
    tmp holds is half a message (or one a failed delivery left), which was indexed as a mail, or
    recorded as a failure each run.  It is passed over, whether the folder is scanned or a watcher
    names the file; a tmp folder that is not a Maildir's is read."""
    import mailbox

    root = tmp_path / "Mail"
    root.mkdir()
    box = mailbox.Maildir(root / "INBOX", create=True)
    box.add(mailbox.MaildirMessage(b"From: a@example.org\nSubject: Delivered\n\nThe boat leaves at nine.\n"))
    box.add_folder("Sent")  # Maildir++: INBOX/.Sent, with its own cur, new and tmp
    half = b"From: a@example.org\nSubject: Half\nContent-Type: application/pdf\n\n%PDF-1.7\n"
    (root / "INBOX" / "tmp" / "1700000001.M2P3.host").write_bytes(half)
    (root / "INBOX" / ".Sent" / "tmp" / "1700000002.M3P4.host").write_bytes(half)
    (root / "project" / "tmp").mkdir(parents=True)
    (root / "project" / "tmp" / "notes.txt").write_text("Notes kept in a project's tmp folder.\n")
    store = open_store(tmp_path / "store.db")
    try:
        run(store, [root], IndexConfig(workers=1))
        late = root / "INBOX" / "tmp" / "1700000003.M4P5.host"
        late.write_bytes(half)
        run(store, [late], IndexConfig(workers=1))  # as the watcher does for the file it saw appear
        _, rows = store.execute("SELECT path, status FROM items WHERE part = '' ORDER BY path")
    finally:
        store.close()
    got = sorted(os.path.relpath(path, root) for path, _ in rows)
    want = sorted([next((root / "INBOX" / "new").iterdir()).relative_to(root).as_posix(), "project/tmp/notes.txt"])
    assert got == want, f"items and failures: {rows}"


# --- a .vcf that is not a vCard -------------------------------------------------------------------


def garbage(seed: int) -> bytes:
    """Bytes no vCard holds but text enough to pass as text (the registry refuses binary data itself):
    printable noise in lines, and Windows-1252 letters of no language."""
    rng = random.Random(seed)
    noise = bytes(rng.choice(range(0x21, 0x7F)) if rng.random() < 0.95 else 0x0A for _ in range(3000))
    letters = bytes(rng.choice(range(0xC0, 0x100)) if rng.random() < 0.95 else 0x0A for _ in range(3000))
    return noise + b"\n" + letters


def test_a_vcf_or_ics_that_is_not_one_is_a_failure_with_its_reason_and_prints_nothing(tmp_path: Path) -> None:
    """vobject gives its logger a handler of its own that printed each line it skipped on the
    indexer's terminal (hundreds of "vobject.base ERROR Skipped line" under the progress bar), and
    the file was "empty", "holds no vCard".  It is "unsupported", its reason the first line that
    could not be read; a card cut short is read as far as it goes.  Run as a person runs it, so the
    workers' stderr is the one seen (pytest's own logging would hide vobject's printing)."""
    folder = tmp_path / "contacts"
    folder.mkdir()
    (folder / "garbage.vcf").write_bytes(garbage(1))
    (folder / "garbage.ics").write_bytes(garbage(2))
    (folder / "open.vcf").write_bytes(b"BEGIN:VCARD\nVERSION:3.0\nFN:Ann Example\nNOTE:cut off here\n")
    (folder / "ann.vcf").write_bytes(b"BEGIN:VCARD\nVERSION:3.0\nFN:Ann Example\n\x1b[2Jbad line\nEND:VCARD\n")
    stderr, rows = indexed_as_a_person(tmp_path, folder, "SELECT path, status FROM items WHERE part = ''")
    assert "vobject" not in stderr and "Skipped" not in stderr, stderr
    got = {Path(path).name: status for path, status in rows}
    want = {"garbage.vcf": "unsupported", "garbage.ics": "unsupported", "open.vcf": "ok", "ann.vcf": "ok"}
    assert got == want, f"statuses: {got}"
    said = r"no BEGIN:VCARD line; \d+ line\(s\) cannot be read, the first: At line 1"
    with pytest.raises(UnsupportedFormat, match=said):
        extract(folder / "garbage.vcf")


def test_a_calendar_or_address_book_cut_short_is_read_as_far_as_it_goes(tmp_path: Path) -> None:
    """A download or a sync interrupted leaves a calendar or an address book
    whose last entry is cut off, its components never closed: vobject gave
    up on the whole file, and every event and contact in it was lost to
    search as "corrupt".  Each entry is read as far as the file goes; a file
    whose components are mismatched, not cut short, is still corrupt."""
    calendar = ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nSUMMARY:Dentist\r\n"
                "DTSTART:20240105T093000Z\r\nLOCATION:Harbour Street 4\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\n"
                "SUMMARY:Choir rehearsal\r\nDTSTART:20240106T190000Z\r\nDESCRIPTION:bring the Brahms sc")
    (tmp_path / "cut.ics").write_text(calendar, newline="")
    (tmp_path / "cut.vcf").write_bytes(b"BEGIN:VCARD\nVERSION:3.0\nFN:Ann Example\nEMAIL:ann@example.org\n"
                                       b"END:VCARD\nBEGIN:VCARD\nVERSION:3.0\nFN:Bob Cutoff\nTEL:+44 20 79")
    events = {item.part: item for item in walk(extract(tmp_path / "cut.ics")) if item.part}
    assert sorted(events) == ["event 1: Dentist", "event 2: Choir rehearsal"], sorted(events)
    assert all(isinstance(e, Extracted) for e in events.values())
    first, second = events["event 1: Dentist"], events["event 2: Choir rehearsal"]
    assert isinstance(first, Extracted) and "Harbour Street 4" in first.text, first
    assert isinstance(second, Extracted) and "bring the Brahms sc" in second.text, second
    contacts = [item for item in walk(extract(tmp_path / "cut.vcf")) if item.part]
    assert [c.part for c in contacts] == ["contact 1: Ann Example", "contact 2: Bob Cutoff"], contacts
    mismatched = tmp_path / "mismatched.ics"
    mismatched.write_bytes(b"BEGIN:VCALENDAR\nBEGIN:VEVENT\nSUMMARY:Dentist\nEND:VCALENDAR\n")
    with pytest.raises(CorruptFile, match="wasn't closed"):
        extract(mismatched)


def indexed_as_a_person(tmp_path: Path, folder: Path, sql: str) -> tuple[str, list[Any]]:
    """``lifededup index`` of ``folder`` run as a person runs it (its own process, so the
    workers' stderr is the one seen), into a store under ``tmp_path``: what it printed on
    stderr, and the rows ``sql`` reads from the store."""
    db = tmp_path / "store.db"
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_STATE_HOME": str(tmp_path / "state"),
           "XDG_CONFIG_HOME": str(tmp_path / "config")}
    indexed = subprocess.run([sys.executable, "-m", "lifededup", "index", "--db", str(db), str(folder)],
                             capture_output=True, text=True, timeout=300, env=env)
    assert indexed.returncode == 0, indexed.stderr
    store = open_store(db)
    try:
        _, rows = store.execute(sql)
    finally:
        store.close()
    return indexed.stderr, list(rows)


def test_a_calendar_naming_a_time_zone_vobject_does_not_know_prints_nothing(tmp_path: Path) -> None:
    """vobject calls logging.error() on Python's root logger for a TZID it cannot find (khal's
    "Central Standard Time"): with no logging set up, that prints "ERROR:root:'Central Standard Time'"
    under the indexer's progress, and every later warning of that worker with it.  The event is read."""
    folder = tmp_path / "calendars"
    folder.mkdir()
    shutil.copy(FIXTURES / "calendar/issue_156_RDATE_with_PERIOD_TZID_khal.ics", folder)
    stderr, rows = indexed_as_a_person(tmp_path, folder, "SELECT status, title FROM items WHERE part = ''")
    assert "ERROR" not in stderr and "Central Standard Time" not in stderr, stderr
    assert [tuple(row) for row in rows] == [("ok", "Event")], rows


def test_an_opendocument_declaring_an_xml_entity_is_refused_with_a_reason_that_says_so() -> None:
    """odfpy's nasty.odt declares an external entity (a file beside it); defusedxml refuses it, and the
    reason recorded was its repr: "damaged nasty.odt: EntitiesForbidden: EntitiesForbidden(name='nasty', ...)"."""
    with pytest.raises(CorruptFile) as caught:
        extract(FIXTURES / "opendocument/nasty.odt")
    want = ("nasty.odt is refused: its XML declares the entity 'nasty' read from 'examples/externalcontent.txt', "
            "as an XML attack does")
    assert str(caught.value).startswith(want), str(caught.value)


def test_a_zips_symbolic_links_are_read_as_their_members_never_out_of_it(tmp_path: Path) -> None:
    """A Unix zip (``zip -y``) stores a symbolic link as a member whose bytes are the path it leads
    to: each was an item whose text was that path ("/etc/passwd")."""
    path = tmp_path / "links.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("docs/log.txt", LOG)
        for name, leads_to in (("docs/latest.txt", "log.txt"), ("docs/passwd", "/etc/passwd"),
                               ("docs/gone.txt", "missing.txt")):
            link = zipfile.ZipInfo(name)
            link.create_system, link.external_attr = 3, (stat.S_IFLNK | 0o777) << 16
            archive.writestr(link, leads_to)
    parts = parts_of(path)
    latest = parts.get("docs/latest.txt")
    assert isinstance(latest, Extracted) and latest.text == parts["docs/log.txt"].text, f"{latest!r}"
    got = {part: item.status for part, item in parts.items() if isinstance(item, Failure)}
    assert got == {"docs/passwd": "link-outside", "docs/gone.txt": "broken-link"}, f"statuses: {got}"
