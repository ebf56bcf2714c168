"""Revision 0041 on a populated store, both backends: text under a binary
format's name went to that format's reader and failed -- a mail saved as
.msg "vanished", a web application's HTML table named .xls and a web page
saved as .doc were corrupt, one inside a zip, as was a message saved alone as
.mbox -- and plain text named .rtf ran its lines together; 0041 marks the files holding one to be read again,
and the next ``index`` reads each under its item id, found by its words.  A
.pdf holding a download's error page stays corrupt, with the reason that
says so; a workbook read well and a letter are not read again."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

from openpyxl import Workbook
from test_extract_misnamed import EXPORT, FIXTURES
from test_migrations import downgrade_to, read_again_at, search_ids

from lifededup.index import IndexConfig, run
from lifededup.store import open_store

# each file as 0040's code recorded it: (status, kind, reason); a failure has no text, type nor title
AS_READ_BEFORE = {
    "note.msg": ("vanished", "email", "the file was deleted or moved while it was read (cannot read note.msg: No "
                                      "such file or directory)"),
    "tides.xls": ("corrupt", "spreadsheet", "damaged tides.xls: XLRDError: Unsupported format, or corrupt file: "
                                            "Expected BOF record; found b'<html xm'"),
    "saved.mbox": ("corrupt", "mailbox", "saved.mbox is not an mbox mailbox (it does not start with 'From ')"),
    "statement.pdf": ("corrupt", "document", "damaged or truncated PDF (pypdfium2: Failed to load document "
                                             "(PDFium: Data format error).; pdfminer.six: PDFSyntaxError: No /Root "
                                             "object! - Is this really a PDF?)"),
}


def test_0041_reads_again_text_that_failed_under_a_binary_formats_name(store_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "Saved"
    folder.mkdir()
    shutil.copyfile(FIXTURES / "msg" / "plain_unsent.eml", folder / "note.msg")
    (folder / "tides.xls").write_text(EXPORT, encoding="utf-8")
    shutil.copyfile(FIXTURES / "msg" / "plain_unsent.eml", folder / "saved.mbox")
    (folder / "letter.rtf").write_text("Saved with the wrong name.\nDear Sam, the boat trip is on Monday.\n")
    (folder / "statement.pdf").write_text("<html><head><title>403 Forbidden</title></head></html>\n")
    with zipfile.ZipFile(folder / "sent.zip", "w") as archive:
        archive.writestr("report/page.doc", "<html><body><p>The quarry report, saved by Word as a web page.</p>"
                                            "</body></html>")
    book = Workbook()
    book.active["A1"] = "Harbour dues by tonnage"
    book.save(folder / "dues.xlsx")
    (folder / "letter.txt").write_text("Dear harbour master, the dues are enclosed.\n")
    with open_store(store_url) as store:  # written at head, then as 0040's code read them
        run(store, [folder], IndexConfig(workers=1))
        _, rows = store.execute("SELECT path, part, id, status FROM items")
        ids = {Path(str(path)).name + (f":{part}" if part else ""): int(str(i)) for path, part, i, _ in rows}
        assert {n: str(s) for n, _, _, s in ((Path(str(p)).name + (f":{q}" if q else ""), q, i, s)
                                             for p, q, i, s in rows)} == {
            **dict.fromkeys(ids, "ok"), "statement.pdf": "corrupt"}, rows
        for name, (status, kind, reason) in AS_READ_BEFORE.items():
            store.execute("UPDATE items SET status = :status, kind = :kind, error = :reason, text = NULL, "
                          "title = NULL, mime_type = NULL WHERE id = :id",
                          {"status": status, "kind": kind, "reason": reason, "id": ids[name]})
        store.execute("UPDATE items SET status = 'corrupt', error = 'antiword could not read it: page.doc is not a "
                      "Word Document. It is probably an HTML file', text = NULL, mime_type = NULL WHERE id = :id",
                      {"id": ids["sent.zip:report/page.doc"]})
        store.remove_ids([ids["saved.mbox:message 1"]])  # the mailbox failed whole: no message of it was stored
        store.execute("UPDATE items SET text = 'Saved with the wrong name.Dear Sam, the boat trip is on Monday.' "
                      "WHERE id = :id", {"id": ids["letter.rtf"]})
    downgrade_to(store_url, "0040")
    with open_store(store_url) as store:
        assert search_ids(store, "quarry") == [] and search_ids(store, "harbour") == [ids["dues.xlsx"],
                                                                                        ids["letter.txt"]]
        assert search_ids(store, "msgconvert") == [], "0040's state: neither mail's words are found"

    # the store went to head when it was opened above: 0041 leaves the workbook read well alone, and 0046 reads
    # every workbook again (its dates)
    marked = {"note.msg": True, "saved.mbox": True, "tides.xls": True, "letter.rtf": True, "statement.pdf": True,
              "sent.zip": True, "dues.xlsx": True, "letter.txt": False}
    with read_again_at(store_url, "0041", folder, marked, failing=1) as store:
        assert search_ids(store, "quarry") == [ids["sent.zip:report/page.doc"]], "the page saved as .doc"
        assert ids["tides.xls"] in search_ids(store, "lighthouse"), "the table exported as .xls"
        assert ids["note.msg"] in search_ids(store, "msgconvert"), "the mail saved as .msg"
        _, [(message,)] = store.execute("SELECT id FROM items WHERE path = :path AND part = 'message 1'",
                                        {"path": str(folder / "saved.mbox")})
        assert search_ids(store, "msgconvert") == sorted([ids["note.msg"], int(str(message))]), "both mails"
        _, rows = store.execute("SELECT id, status, kind, error, text FROM items")
        got = {int(str(i)): (str(s), str(k), e, t) for i, s, k, e, t in rows}
        assert got[ids["tides.xls"]][:2] == ("ok", "spreadsheet") and got[ids["note.msg"]][:2] == ("ok", "email")
        assert got[ids["letter.rtf"]][3] == "Saved with the wrong name.\nDear Sam, the boat trip is on Monday.\n"
        assert got[ids["statement.pdf"]][:2] == ("corrupt", "document"), got[ids["statement.pdf"]]
        assert 'holds a web page ("403 Forbidden")' in str(got[ids["statement.pdf"]][2])
