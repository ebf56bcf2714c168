"""Containers inside containers, indexed into a real store: every part names
its whole path of containers (``a / b / c``), no two parts share a name, and
each part's parent is the item of the container it came out of.

The files are made here with zipfile, tarfile, gzip and email, as a person's
backups hold them: zips attached to mails, mails in mailboxes in zips, zips
in zips in zips.
"""

from __future__ import annotations

import gzip
import io
import mimetypes
import tarfile
import zipfile
from collections.abc import Iterator, Mapping
from email.message import EmailMessage
from pathlib import Path

import pytest

from lifededup.index import IndexConfig, run
from lifededup.search import search
from lifededup.store import Store, open_store

CONFIG = IndexConfig(workers=1, batch_items=8)

SPRING = "The spring report: lambs born on the farm numbered forty two and the orchard blossom came early.\n"
AUTUMN = "The autumn report: the apple harvest filled ninety crates and the cider press was mended.\n"
MINUTES_MAY = "Minutes of May: the committee agreed to repaint the village hall in a pale heron grey.\n"
MINUTES_JUNE = "Minutes of June: the fete raised money for a new bench beside the duck pond and the lychgate.\n"
NOTE = "The river survey counted mayfly nymphs at nine points along the brook.\n"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = open_store(tmp_path / "store.db")
    yield opened
    opened.close()


def zipped(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def tarred_gz(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def mail(subject: str, attachments: Mapping[str, bytes] = {}, forwarded: EmailMessage | None = None) -> EmailMessage:
    message = EmailMessage()
    message["From"] = "Ruth Ellery <ruth@example.org>"
    message["To"] = "Parish Council <council@example.org>"
    message["Subject"] = subject
    message["Date"] = "Mon, 01 Jan 2024 10:00:00 +0000"
    message.set_content(f"{subject}: the files are attached.\n")
    for name, data in attachments.items():
        maintype, subtype = (mimetypes.guess_type(name)[0] or "application/octet-stream").split("/")
        message.add_attachment(data, maintype=maintype, subtype=subtype, filename=name)
    if forwarded is not None:
        message.add_attachment(forwarded)  # message/rfc822: a mail inside the mail
    return message


def mbox(messages: list[EmailMessage]) -> bytes:
    return b"".join(b"From ruth@example.org Mon Jan  1 10:00:00 2024\n" + bytes(m) + b"\n" for m in messages)


def indexed(store: Store, folder: Path, files: dict[str, bytes]) -> dict[tuple[str, str], tuple[int, int | None]]:
    """Write ``files`` into ``folder``, index it, and return (file name, part) -> (id, parent_id) of every item."""
    folder.mkdir()
    for name, data in files.items():
        (folder / name).write_bytes(data)
    run(store, [folder], CONFIG)
    _, rows = store.execute("SELECT path, part, id, parent_id, status, error FROM items")
    failed = [r for r in rows if r[4] != "ok"]
    assert not failed, f"items that failed: {failed}"
    return {(Path(str(path)).name, str(part)): (int(i), None if p is None else int(p))  # type: ignore[call-overload]
            for path, part, i, p, _, _ in rows}


def assert_parents(items: dict[tuple[str, str], tuple[int, int | None]]) -> None:
    """Each part's parent is the item of its immediate container: the part with its last level taken off."""
    for (name, part), (_, parent) in items.items():
        if part == "":
            assert parent is None, f"{name} is a file: it has no parent, not {parent}"
            continue
        container = part.rsplit(" / ", 1)[0] if " / " in part else ""
        assert (name, container) in items, f"{name} [{part}]: its container [{container}] was not stored"
        want = items[(name, container)][0]
        assert parent == want, f"{name} [{part}]: parent_id {parent}, want {want} ([{container}])"


def assert_found(store: Store, word: str, want: list[tuple[str, str]]) -> None:
    """A search for ``word`` finds exactly the (file name, part) items in ``want``."""
    got = [(Path(h.path).name, h.part) for h in search(store, word, collapse=False).hits]
    assert got == want, f"search {word!r} found {got}, want {want}"


def test_zips_attached_to_a_mail_keep_their_members_apart(store: Store, tmp_path: Path) -> None:
    message = mail("Two reports", {"spring.zip": zipped({"report.txt": SPRING.encode()}),
                                   "autumn.zip": zipped({"report.txt": AUTUMN.encode()})})
    items = indexed(store, tmp_path / "mail", {"two-reports.eml": bytes(message)})
    want = {"", "attachment 1: spring.zip", "attachment 1: spring.zip / report.txt",
            "attachment 2: autumn.zip", "attachment 2: autumn.zip / report.txt"}
    assert {part for _, part in items} == want, sorted(items)
    assert_parents(items)
    assert_found(store, "lambs", [("two-reports.eml", "attachment 1: spring.zip / report.txt")])
    assert_found(store, "cider", [("two-reports.eml", "attachment 2: autumn.zip / report.txt")])


def test_zips_attached_to_messages_of_a_mailbox(store: Store, tmp_path: Path) -> None:
    messages = [mail("May meeting", {"minutes.zip": zipped({"minutes.txt": MINUTES_MAY.encode()})}),
                mail("June meeting", {"minutes.zip": zipped({"minutes.txt": MINUTES_JUNE.encode()})})]
    items = indexed(store, tmp_path / "mail", {"council.mbox": mbox(messages)})
    want = {"", "message 1", "message 1 / attachment 1: minutes.zip",
            "message 1 / attachment 1: minutes.zip / minutes.txt", "message 2",
            "message 2 / attachment 1: minutes.zip", "message 2 / attachment 1: minutes.zip / minutes.txt"}
    assert {part for _, part in items} == want, sorted(items)
    assert_parents(items)
    assert_found(store, "heron", [("council.mbox", "message 1 / attachment 1: minutes.zip / minutes.txt")])
    assert_found(store, "lychgate", [("council.mbox", "message 2 / attachment 1: minutes.zip / minutes.txt")])


@pytest.mark.parametrize("inner", ["zip", "tar.gz"])
def test_archives_three_deep(store: Store, tmp_path: Path, inner: str) -> None:
    pack = zipped if inner == "zip" else tarred_gz
    c = pack({"note.txt": NOTE.encode()})
    b = zipped({f"c.{inner}": c})
    items = indexed(store, tmp_path / "deep", {"a.zip": zipped({"b.zip": b})})
    want = {"", "b.zip", f"b.zip / c.{inner}", f"b.zip / c.{inner} / note.txt"}
    assert {part for _, part in items} == want, sorted(items)
    assert_parents(items)
    assert_found(store, "mayfly", [("a.zip", f"b.zip / c.{inner} / note.txt")])


def test_every_container_kind_inside_a_zip(store: Store, tmp_path: Path) -> None:
    # a zip of old mail: a mailbox and mails whose attachments are zips, one forwarded inside another
    spring = zipped({"report.txt": SPRING.encode()})
    forwarded = mail("Fwd: spring", {"spring.zip": spring})
    may = mail("May meeting", {"minutes.zip": zipped({"minutes.txt": MINUTES_MAY.encode()})})
    backup = zipped({
        "mail/council.mbox": mbox([may]),
        "mail/autumn.eml": bytes(mail("Autumn", {"autumn.zip": zipped({"report.txt": AUTUMN.encode()})})),
        "mail/fwd.eml": bytes(mail("Forwarded", forwarded=forwarded)),
        "june.tar.gz": tarred_gz({"minutes.txt": MINUTES_JUNE.encode()}),
    })
    items = indexed(store, tmp_path / "backup", {"old-mail.zip": backup})
    want = {"", "mail/council.mbox", "mail/council.mbox / message 1",
            "mail/council.mbox / message 1 / attachment 1: minutes.zip",
            "mail/council.mbox / message 1 / attachment 1: minutes.zip / minutes.txt",
            "mail/autumn.eml", "mail/autumn.eml / attachment 1: autumn.zip",
            "mail/autumn.eml / attachment 1: autumn.zip / report.txt",
            "mail/fwd.eml", "mail/fwd.eml / attachment 1: attachment-1.eml",
            "mail/fwd.eml / attachment 1: attachment-1.eml / attachment 1: spring.zip",
            "mail/fwd.eml / attachment 1: attachment-1.eml / attachment 1: spring.zip / report.txt",
            "june.tar.gz", "june.tar.gz / minutes.txt"}
    assert {part for _, part in items} == want, sorted(items)
    assert_parents(items)
    assert_found(store, "heron",
                 [("old-mail.zip", "mail/council.mbox / message 1 / attachment 1: minutes.zip / minutes.txt")])
    spring_report = "mail/fwd.eml / attachment 1: attachment-1.eml / attachment 1: spring.zip / report.txt"
    assert_found(store, "lambs", [("old-mail.zip", spring_report)])
    assert_found(store, "lychgate", [("old-mail.zip", "june.tar.gz / minutes.txt")])


CARDS = (b"BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ada Lovelace\r\nNOTE:analytical engine\r\nEND:VCARD\r\n"
         b"BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Charles Babbage\r\nNOTE:difference engine\r\nEND:VCARD\r\n")


def test_attachments_that_hold_parts_of_their_own(store: Store, tmp_path: Path) -> None:
    # an address book, a forwarded mail with its own attachment, a gzipped tar: each one's parts under it
    forwarded = mail("Fwd: June", {"june.tar.gz": tarred_gz({"minutes.txt": MINUTES_JUNE.encode()})})
    message = mail("Cards and minutes", {"people.vcf": CARDS, "july.tar.gz": tarred_gz({"note.txt": NOTE.encode()})},
                   forwarded=forwarded)
    items = indexed(store, tmp_path / "mail", {"bundle.eml": bytes(message)})
    want = {"", "attachment 1: people.vcf", "attachment 1: people.vcf / contact 1: Ada Lovelace",
            "attachment 1: people.vcf / contact 2: Charles Babbage",
            "attachment 2: july.tar.gz", "attachment 2: july.tar.gz / note.txt",
            "attachment 3: attachment-3.eml", "attachment 3: attachment-3.eml / attachment 1: june.tar.gz",
            "attachment 3: attachment-3.eml / attachment 1: june.tar.gz / minutes.txt"}
    assert {part for _, part in items} == want, sorted(items)
    assert_parents(items)
    assert_found(store, "babbage", [("bundle.eml", "attachment 1: people.vcf / contact 2: Charles Babbage")])
    assert_found(store, "lychgate",
                 [("bundle.eml", "attachment 3: attachment-3.eml / attachment 1: june.tar.gz / minutes.txt")])


def test_a_gzipped_archive_is_one_item_with_its_members_under_it(store: Store, tmp_path: Path) -> None:
    # the .gz and the tar (or zip) it holds are one item, as a man page and its .gz are one document
    inner = zipped({"deeper.zip": zipped({"note.txt": NOTE.encode()})})
    items = indexed(store, tmp_path / "gz", {"notes.tar.gz": tarred_gz({"inner.zip": inner}),
                                            "bundle.zip.gz": gzip.compress(zipped({"inner.zip": inner}))})
    for name in ("notes.tar.gz", "bundle.zip.gz"):
        parts = {part for file, part in items if file == name}
        assert parts == {"", "inner.zip", "inner.zip / deeper.zip", "inner.zip / deeper.zip / note.txt"}, sorted(parts)
    assert_parents(items)


def test_a_name_an_archive_holds_twice_keeps_both_texts(store: Store, tmp_path: Path) -> None:
    """A zip appended to (two entries named report.txt) or a tar of two
    versions: the second was stored over the first, whose text was lost
    without a failure; now each is a part, the second "report.txt (2)"."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("report.txt", SPRING.encode())
    with zipfile.ZipFile(buffer, "a") as archive, pytest.warns(UserWarning, match="Duplicate name"):
        archive.writestr("report.txt", AUTUMN.encode())
    items = indexed(store, tmp_path / "zips", {"reports.zip": buffer.getvalue()})
    assert {part for _, part in items} == {"", "report.txt", "report.txt (2)"}, sorted(items)
    assert_parents(items)
    assert_found(store, "lambs", [("reports.zip", "report.txt")])
    assert_found(store, "cider", [("reports.zip", "report.txt (2)")])


def test_nesting_does_not_multiply_an_archives_limits(tmp_path: Path) -> None:
    """Each archive counted its members and bytes afresh: a zip of ten zips
    of ten zips of a 100 MiB text -- 15 MB on disk -- unpacked 10,000 MiB
    and stored a GiB, all 'ok', where one archive may unpack 512 MiB.  The
    limit is the whole file's, archives within archives counted together
    (here scaled down: 1 MiB members, a 12 MiB limit)."""
    from lifededup.extract import Extracted, Failure, Limits, Source, extract_source, walk

    member = ("the tide tables for the harbour wall " * 30_000)[:2**20].encode()  # 1 MiB of text
    inner = zipped({f"log{n}.txt": member for n in range(5)})
    middle = zipped({f"inner{n}.zip": inner for n in range(5)})
    outer = zipped({f"middle{n}.zip": middle for n in range(5)})  # 125 MiB unpacked in all
    path = tmp_path / "bomb.zip"
    path.write_bytes(outer)
    limits = Limits(max_unpacked_bytes=12 * 2**20)
    items = list(walk(extract_source(Source(name=path.name, path=path, limits=limits))))
    texts = [i for i in items if isinstance(i, Extracted) and i.text]
    refused = [i for i in items if isinstance(i, Failure) and i.status == "too-large"]
    assert len(texts) * 2**20 <= limits.max_unpacked_bytes, f"{len(texts)} MiB of text read from one file"
    assert refused and "counted together" in refused[0].reason, refused
