"""Revision 0034 on a populated store, both backends: a reStructuredText
file was read with its markup as words; 0034 marks the files named as
reStructuredText -- alone, as a Sphinx build's ``_sources`` copy, or inside
an archive -- to be read again, and the next ``index`` reads them as their
page shows them, under the same item ids. A text file and a page are not
read again."""

from __future__ import annotations

import zipfile
from pathlib import Path

from test_migrations import downgrade_to, read_again_at, search_ids

from lifededup.index import IndexConfig, run
from lifededup.store import open_store

SOURCE = "The :class:`.Session` keeps the harbour's ledger.\n\n.. sourcecode:: pycon+sql\n\n   >>> ledger.close()\n"


def test_0034_reads_restructuredtext_again_without_its_markup(store_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    (folder / "_sources").mkdir(parents=True)
    (folder / "session.rst").write_text(SOURCE)
    (folder / "_sources" / "session.rst.txt").write_text(SOURCE)
    with zipfile.ZipFile(folder / "docs.zip", "w") as archive:
        archive.writestr("docs/session.rst", SOURCE)
    (folder / "letter.txt").write_text("The :class: of the harbour's sourcecode committee meets on Thursday.\n")
    (folder / "session.html").write_text("<html><body><p>The Session keeps the harbour's ledger.</p></body></html>")
    with open_store(store_url) as store:  # written at head, then the sources as 0033's code read them
        run(store, [folder], IndexConfig(workers=1))
        store.execute("UPDATE items SET text = :text WHERE path LIKE '%rst%' OR part LIKE '%rst'",
                      {"text": SOURCE})
        _, rows = store.execute("SELECT id FROM items WHERE text = :text ORDER BY id", {"text": SOURCE})
        sources = [int(str(r[0])) for r in rows]
    downgrade_to(store_url, "0033")
    with open_store(store_url) as store:
        assert len(sources) == 3 and set(sources) <= set(search_ids(store, "sourcecode")), "0033's state"

    marked = {"session.rst": True, "session.rst.txt": True, "docs.zip": True, "letter.txt": False,
              "session.html": False}
    with read_again_at(store_url, "0034", folder, marked) as store:
        _, rows = store.execute("SELECT id FROM items WHERE text LIKE '%ledger%' AND kind = 'text' ORDER BY id")
        assert [int(str(r[0])) for r in rows] == sources, "the same items, read again"
        assert [i for i in search_ids(store, "sourcecode") if i in sources] == [], "the markup is no word of theirs"
        assert search_ids(store, "pycon") == []
