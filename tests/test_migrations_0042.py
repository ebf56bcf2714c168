"""Revision 0042 on a populated store, both backends: Apple Mail's messages
(.emlx) were read as text -- their length, raw headers and Mail's property
list as words, and the same message saved as .eml no copy of them; 0042
marks the files holding one -- alone or inside a zip -- to be read again,
and the next ``index`` reads each as the mail it holds, under its item id.
The .eml is not read again."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

from test_extract_emlx import EML, EMLX
from test_migrations import downgrade_to, read_again_at, search_ids

from lifededup.index import IndexConfig, run
from lifededup.store import open_store


def test_0042_reads_again_apple_mail_messages_read_as_text(store_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "Backup"
    folder.mkdir()
    shutil.copyfile(EMLX, folder / "4112.emlx")
    shutil.copyfile(EML, folder / "saved.eml")
    with zipfile.ZipFile(folder / "mail.zip", "w") as archive:
        archive.write(EMLX, "Messages/4112.emlx")
    with open_store(store_url) as store:  # written at head, then the .emlx as 0041's code read them: text
        run(store, [folder], IndexConfig(workers=1))
        _, rows = store.execute("SELECT path, part, id FROM items WHERE title = 'Test for MSGConvert'")
        ids = {(Path(str(path)).name, str(part)): int(str(i)) for path, part, i in rows}
        assert sorted(ids) == [("4112.emlx", ""), ("mail.zip", "Messages/4112.emlx"), ("saved.eml", "")], ids
        raw = EMLX.read_text(encoding="utf-8")
        for name in (("4112.emlx", ""), ("mail.zip", "Messages/4112.emlx")):
            store.remove_ids(int(str(r[0])) for r in store.execute(
                "SELECT id FROM items WHERE parent_id = :id", {"id": ids[name]})[1])
            store.execute("UPDATE items SET kind = 'text', mime_type = 'text/plain', title = '4112.emlx', "
                          "text = :raw WHERE id = :id", {"raw": raw, "id": ids[name]})
    downgrade_to(store_url, "0041")
    with open_store(store_url) as store:
        assert search_ids(store, "plist") == sorted([ids[("4112.emlx", "")], ids[("mail.zip", "Messages/4112.emlx")]])

    marked = {"4112.emlx": True, "mail.zip": True, "saved.eml": False}
    with read_again_at(store_url, "0042", folder, marked) as store:
        assert search_ids(store, "plist") == [], "Mail's property list is no word of the message"
        _, rows = store.execute("SELECT id, kind, text FROM items WHERE id IN (:a, :b, :c)",
                                {"a": ids[("4112.emlx", "")], "b": ids[("mail.zip", "Messages/4112.emlx")],
                                 "c": ids[("saved.eml", "")]})
        assert {str(k) for _, k, _ in rows} == {"email"} and len({str(t) for _, _, t in rows}) == 1, rows
