"""A file renamed keeps its item (``test_moves``), but where its reader
titled it by its name -- a mailbox, an archive, an address book or a
calendar of several entries, a man page that is only a link -- search and
`show` went on naming it by a name no file has any more: ``old.mbox`` after
it became ``2023 mail.mbox``.  The move titles it as reading the file at its
new name does, without reading it; a title from the contents (an HTML
``<title>``, a Markdown heading, a card's name) stays, even one that happens
to be the file's old name.  For ``index`` run twice (the renames between
the runs) and for the watcher's real events, on both backends."""

from __future__ import annotations

import json
import os
import tarfile
import zipfile
from pathlib import Path

from test_moves_failed_named import cli, index
from test_watch import eventually, watching

from lifededup.extract.renamed import renamed_title
from lifededup.store import Store, open_store

MBOX = (b"From alice@example.org Mon Jan  1 00:00:00 2024\nSubject: the garden\nFrom: alice@example.org\n\n"
        b"the roses came up early this spring\n\n"
        b"From bob@example.org Mon Jan  1 00:00:00 2024\nSubject: the kitchen\nFrom: bob@example.org\n\n"
        b"the joiner comes on tuesday\n")
CARDS = b"BEGIN:VCARD\nVERSION:3.0\nFN:Alice Arden\nEND:VCARD\nBEGIN:VCARD\nVERSION:3.0\nFN:Bob Brand\nEND:VCARD\n"
CARD = b"BEGIN:VCARD\nVERSION:3.0\nFN:Carol Chen\nEND:VCARD\n"

# old name -> new name, and the title each should have after the move
RENAMES = {
    "old.mbox": ("2023 mail.mbox", "2023 mail.mbox"),
    "old.zip": ("photos.zip", "photos.zip"),
    "old.tar.gz": ("backup.tgz", "backup.tar"),  # read through gzip under its inner name, before and after
    "old.vcf": ("friends.vcf", "friends.vcf"),
    "oldlink.1": ("vdir.1", "vdir.1"),  # a man page that is only a .so link
    "sun.mbox": ("東京.mbox", "東京.mbox"),  # a CJK title: the words the search index reads of it too
    # titled by their contents, though the title was their name: unchanged
    "page.html": ("saved.html", "page.html"),
    "notes.md": ("diary.md", "notes.md"),
    "carol.vcf": ("c.vcf", "Carol Chen"),
}


def a_folder(root: Path) -> Path:
    root.mkdir()
    for name in ("old.mbox", "sun.mbox"):
        (root / name).write_bytes(MBOX if name == "old.mbox" else MBOX.replace(b"roses", b"tulips"))
    with zipfile.ZipFile(root / "old.zip", "w") as archive:
        archive.writestr("list.txt", "the holiday pictures from the lake")
    member = root / "inside.txt"
    member.write_text("the receipts for the boiler and the roof")
    with tarfile.open(root / "old.tar.gz", "w:gz") as archive:
        archive.add(member, arcname="inside.txt")
    member.unlink()
    (root / "old.vcf").write_bytes(CARDS)
    (root / "carol.vcf").write_bytes(CARD)
    (root / "oldlink.1").write_text(".so man1/ls.1\n")
    (root / "page.html").write_text("<html><head><title>page.html</title></head>"
                                    "<body><p>a page saved from the parish website</p></body></html>")
    (root / "notes.md").write_text("# notes.md\n\nwhat to plant next to the fence\n")
    return root


def shown_title(store_url: str, path: Path) -> str:
    shown = cli("show", "--json", "--db", store_url, str(path))
    assert shown.exit_code == 0, shown.output
    return str(json.loads(shown.stdout)["item"]["title"])


def found(store_url: str, query: str) -> list[tuple[str, str]]:
    """The (file name, title) of each hit of `lifededup search --all --json QUERY`."""
    done = cli("search", "--all", "--json", "--db", store_url, query)
    assert done.exit_code == 0, done.output
    return sorted((Path(h["path"]).name, h["title"]) for h in json.loads(done.stdout)["hits"] if not h["part"])


def rename_all(root: Path, but: str = "") -> None:
    for old, (new, _) in RENAMES.items():
        if old != but:
            (root / old).rename(root / new)


def test_index_titles_a_renamed_file_by_its_new_name(store_url: str, tmp_path: Path) -> None:
    root = a_folder(tmp_path / "archive")
    index(store_url, root)
    assert shown_title(store_url, root / "old.mbox") == "old.mbox"
    assert found(store_url, "old.zip") == [("old.zip", "old.zip")], "before: found by its title"
    rename_all(root)
    said = index(store_url, root)
    assert f"moved {len(RENAMES)}, removed 0, failed 0" in said, said
    titles = {new: shown_title(store_url, root / new) for new, _ in RENAMES.values()}
    assert titles == {new: title for new, title in RENAMES.values()}, \
        f"`show` titles a file titled by its name by its name now, and no other: {titles}"
    for title in ("old.mbox", "old.zip", "old.tar", "old.vcf"):
        assert found(store_url, title) == [], f"no item is found by a name no file has any more: {title}"
    assert found(store_url, "photos.zip") == [("photos.zip", "photos.zip")]
    assert found(store_url, "backup.tar") == [("backup.tgz", "backup.tar")]
    assert found(store_url, "東京") == [("東京.mbox", "東京.mbox")], "the CJK title's words are searched apart"
    assert found(store_url, "page.html") == [("saved.html", "page.html")]


def titles(db: Path | str) -> dict[tuple[str, str], str | None]:
    with open_store(db, readonly=True) as store:
        _, rows = store.execute("SELECT path, part, title FROM items")
    return {(str(path), str(part)): None if title is None else str(title) for path, part, title in rows}


def test_a_renamed_file_is_titled_as_a_fresh_index_of_it_titles_it(store_url: str, tmp_path: Path) -> None:
    root = a_folder(tmp_path / "archive")
    # names that are not UTF-8, before and after: their odd bytes U+FFFD in the title, as the reader has them
    raw = os.fsencode(root)
    os.rename(root / "old.zip", raw + b"/caf\xe9.zip")
    index(store_url, root)
    rename_all(root, but="old.zip")
    os.rename(raw + b"/caf\xe9.zip", raw + b"/na\xefve \xe9t\xe9.zip")
    index(store_url, root)
    fresh = tmp_path / "fresh.db"
    index(str(fresh), root)
    moved, read = titles(store_url), titles(fresh)
    assert moved == read, f"titles after the moves, then as read afresh: {moved} != {read}"
    assert "na\ufffdve \ufffdt\ufffd.zip" in moved.values(), moved


def test_renamed_title_follows_the_layers_of_compression_the_names_tell() -> None:
    assert renamed_title("a.tar", "a.tar.gz", "b.tgz") == "b.tar"
    assert renamed_title("a.tar.bz2", "a.tar.bz2", "b.tar.bz2") == "b.tar.bz2"  # read whole by the tar reader
    assert renamed_title("a.tbz2", "a.tbz2", "a.tar.bz2") == "a.tar.bz2", "a spelling: one layer, as the tar reader's"
    assert renamed_title("a.tar", "a.tgz", "a.taz") == "a.tar"
    assert renamed_title("a", "a.gz.gz", "b.tar.gz.gz") == "b.tar"  # two layers
    assert renamed_title("contents", "a.mbox", "b.mbox") is None, "a title that is not the name is left"
    # one layer under a name without a suffix: how many the new name's would strip is not known
    assert renamed_title("backup", "backup", "backup.tgz") is None


def item_titles(store: Store) -> dict[str, str]:
    _, rows = store.execute("SELECT path, title FROM items WHERE part = '' AND title IS NOT NULL")
    return {Path(str(path)).name: str(title) for path, title in rows}


def test_the_watcher_titles_a_renamed_file_by_its_new_name(store_url: str, tmp_path: Path) -> None:
    root = a_folder(tmp_path / "archive")
    with watching(tmp_path, root, store_url=store_url) as store:
        eventually(lambda: len(item_titles(store)) == len(RENAMES), "the files are read")
        rename_all(root)
        want = {new: title for new, title in RENAMES.values()}
        eventually(lambda: item_titles(store) == want, f"the moves are taken up: {want}")
