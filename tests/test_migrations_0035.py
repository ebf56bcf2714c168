"""Revision 0035 on a populated store, both backends: a calendar or an
address book cut short was "corrupt" whole; 0035 marks the files holding a
calendar or a card that failed as corrupt -- alone or inside an archive -- to
be read again, and the next ``index`` reads each entry as far as the file
goes, under the same item ids. A card read whole and a text file are not
read again."""

from __future__ import annotations

import zipfile
from pathlib import Path

from test_migrations import downgrade_to, read_again_at, search_ids

from lifededup.index import IndexConfig, run
from lifededup.store import ItemRecord, open_store

CALENDAR = ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nSUMMARY:Dentist\r\nDTSTART:20240105T093000Z\r\n"
            "END:VEVENT\r\nBEGIN:VEVENT\r\nSUMMARY:Choir rehearsal\r\nDESCRIPTION:bring the Brahms sc")
CARDS = "BEGIN:VCARD\nVERSION:3.0\nFN:Ann Example\nEND:VCARD\nBEGIN:VCARD\nVERSION:3.0\nFN:Bob Cutoff\nTEL:+44 20"


def test_0035_reads_calendars_and_cards_cut_short_again(store_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "synced"
    folder.mkdir()
    (folder / "cut.ics").write_text(CALENDAR, newline="")
    (folder / "cut.vcf").write_text(CARDS)
    with zipfile.ZipFile(folder / "backup.zip", "w") as archive:
        archive.writestr("phone/calendar.ics", CALENDAR)
    (folder / "whole.vcf").write_text("BEGIN:VCARD\nVERSION:3.0\nFN:Cora Whole\nEND:VCARD\n")
    (folder / "letter.txt").write_text("Choir rehearsal moved to Thursday; bring the Brahms score.\n")
    with open_store(store_url) as store:  # written at head, then the cut files as 0034's code recorded them
        run(store, [folder], IndexConfig(workers=1))
        ids = {}
        for path, part, kind in (("cut.ics", "", "calendar"), ("cut.vcf", "", "address book"),
                                 ("backup.zip", "phone/calendar.ics", "calendar")):
            stored = str(folder / path)
            _, rows = store.execute("SELECT id FROM items WHERE path = :p AND part LIKE :part || '%' "
                                    "AND part <> :part ORDER BY id", {"p": stored, "part": part})
            store.remove_ids([int(str(r[0])) for r in rows])
            ids[path] = store.record_failure(ItemRecord(path=stored, part=part, kind=kind,
                                                        parent_id=store.item_id(stored) if part else None),
                                             "damaged: Component VEVENT was never closed", status="corrupt")
        assert search_ids(store, "Dentist") == [], "0034's state: the events lost to search"
    downgrade_to(store_url, "0034")

    marked = {"cut.ics": True, "cut.vcf": True, "backup.zip": True, "whole.vcf": False, "letter.txt": False}
    with read_again_at(store_url, "0035", folder, marked) as store:
        _, rows = store.execute("SELECT path, part, id, status FROM items WHERE part = '' OR part LIKE 'phone%' "
                                "ORDER BY path, part")
        kept = {(str(path).rsplit("/", 1)[-1], str(part)): (int(str(i)), str(status)) for path, part, i, status in rows}
        assert kept[("cut.ics", "")] == (ids["cut.ics"], "ok"), kept
        assert kept[("cut.vcf", "")] == (ids["cut.vcf"], "ok"), kept
        assert kept[("backup.zip", "phone/calendar.ics")] == (ids["backup.zip"], "ok"), kept
        assert len(search_ids(store, "Dentist")) == 2, "each calendar's first event is found again"
        assert len(search_ids(store, "Brahms")) == 3, "and its cut one, beside the letter"
        assert len(search_ids(store, "Cutoff")) == 1
