"""Revision 0045 on a populated store, both backends: an RTF holding a
character past U+FFFF stopped its worker (its UTF-16 halves could not be
stored), recorded ``crashed`` with exit 1 and never read again; 0045 marks
the files holding such an item -- alone or inside a zip -- to be read again,
and the next ``index`` reads them under their item ids.  A file whose parser
died by a signal (a native crash) is not read again, nor a plain text."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

from test_migrations import downgrade_to, read_again_at, search_ids

from lifededup.index import IndexConfig, run
from lifededup.store import open_store

RTF = Path(__file__).parent / "fixtures" / "office" / "beyond-bmp.rtf"
CRASHED = "the parser crashed ({how}) after 0 item(s): a native-code crash, or the 2048 MiB memory limit"


def test_0045_reads_again_what_stopped_on_half_a_character(store_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "Saved"
    folder.mkdir()
    shutil.copyfile(RTF, folder / "http.rtf")
    (folder / "segfault.rtf").write_bytes(b"")  # empty at head: stored of no text
    with zipfile.ZipFile(folder / "saved.zip", "w") as archive:
        archive.write(RTF, "Saved/http.rtf")
    (folder / "plain.txt").write_text("The tide tables of the port.\n")
    with open_store(store_url) as store:  # written at head, then as 0044's code stored them
        run(store, [folder], IndexConfig(workers=1))
        _, rows = store.execute("SELECT path, part, id FROM items WHERE path LIKE '%.rtf' OR part LIKE '%.rtf'")
        ids = {(Path(str(path)).name, str(part)): int(str(i)) for path, part, i in rows}
        assert sorted(ids) == [("http.rtf", ""), ("saved.zip", "Saved/http.rtf"), ("segfault.rtf", "")], ids
        for name, how in (("http.rtf", ""), ("saved.zip", "Saved/http.rtf"), ("segfault.rtf", "")):
            store.execute("UPDATE items SET status = 'crashed', text = NULL, text_apart = NULL, title = NULL, "
                          "title_apart = NULL, error = :error "
                          "WHERE id = :id", {"id": ids[name, how], "error": CRASHED.format(
                              how="killed by signal SIGSEGV" if name == "segfault.rtf" else "exit 1")})
    downgrade_to(store_url, "0044")
    with open_store(store_url) as store:
        assert search_ids(store, "latin1") == []

    marked = {"http.rtf": True, "saved.zip": True, "segfault.rtf": False, "plain.txt": False}
    with read_again_at(store_url, "0045", folder, marked) as store:
        assert search_ids(store, "latin1") == sorted([ids["http.rtf", ""], ids["saved.zip", "Saved/http.rtf"]])
        _, rows = store.execute("SELECT status FROM items WHERE id = :id", {"id": ids["segfault.rtf", ""]})
        assert rows == [("crashed",)], "a native crash is not read again each run"
