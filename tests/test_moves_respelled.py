"""A file renamed to another spelling of its format's suffix -- ``.htm`` to
``.html``, ``.tgz`` to ``.tar.gz``, ``.jpg`` to ``.jpeg``, ``.mbx`` to
``.mbox`` -- was read again in full (``read_alike`` takes the names strictly),
and the read changed nothing: the same reader reads both names.  It keeps its
item and is not read (a mailbox's title, its name, follows it, as for any
rename).  Where the content decides otherwise under the two names it is still
read: binary data named ``.jpg`` is refused in words that quote its suffix,
and a bzip2 tar named ``.tgz`` is read as a compressed file, named
``.tar.gz`` as a tar; so is a rename to another format (``.txt`` to
``.html``).  ``index`` run twice (the renames between the runs), on both
backends, the store then as a fresh index makes it."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import shutil
import tarfile
from pathlib import Path

from test_moves_failed_named import cli, index
from test_moves_reread import PAGE, ids, rename, stored

from lifededup.extract import formats

PHOTO = Path(__file__).parent.parent / "sample_corpus/Bad files/holiday photo.jpg"  # a JPEG, no text without OCR
MAILBOX = (b"From ann@example.org Mon Jan  1 09:00:00 2024\nFrom: ann@example.org\nSubject: the allotment\n\n"
           b"the beans are up and the slugs have found them, bring the pellets on sunday\n")

# old name -> new name: the same reader reads both, whatever the file holds: not read again
RESPELLED = {"page.htm": "page.html", "backup.tgz": "backup.tar.gz", "photo.jpg": "photo.jpeg",
             "letters.mbx": "letters.mbox"}
# read otherwise under the new name: read again
READ_AGAIN = {
    "junk.jpg": "junk.jpeg",  # binary: "junk.jpeg holds binary data ... (despite its .jpeg name)"
    "odd.tgz": "odd.tar.gz",  # a bzip2 tar: a compressed file holding odd.tar, then a tar titled odd.tar.gz
    "news.txt": "news.html",  # another format by its name
}


def a_tar(data: bytes) -> bytes:
    packed = io.BytesIO()
    with tarfile.open(fileobj=packed, mode="w") as archive:
        member = tarfile.TarInfo("receipts.txt")
        member.size = len(data)
        archive.addfile(member, io.BytesIO(data))
    return packed.getvalue()


def a_folder(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "page.htm").write_bytes(PAGE)
    (root / "news.txt").write_bytes(PAGE.replace(b"parish", b"village"))
    (root / "backup.tgz").write_bytes(gzip.compress(a_tar(b"the receipts for the boiler and the roof\n")))
    (root / "odd.tgz").write_bytes(bz2.compress(a_tar(b"the receipts for the shed and the fence\n")))
    shutil.copy(PHOTO, root / "photo.jpg")
    (root / "junk.jpg").write_bytes(bytes(range(256)) * 40)
    (root / "letters.mbx").write_bytes(MAILBOX)
    return root.resolve()


def test_a_file_renamed_to_another_spelling_of_its_suffix_is_not_read_again(store_url: str,
                                                                              tmp_path: Path) -> None:
    root = a_folder(tmp_path / "archive")
    index(store_url, root)
    before = ids(store_url, root)
    rename(root, {**RESPELLED, **READ_AGAIN})
    said = index(store_url, root)
    # read again: odd.tar.gz and news.html updated, junk.jpeg failed again; the files respelled only moved
    moved = len(RESPELLED) + len(READ_AGAIN)
    assert f"new 0, updated 2, unchanged 0, moved {moved}, removed 0, failed 1 (" in said, said
    after = ids(store_url, root)
    assert {new: after[new] for new in after if new in {*RESPELLED.values(), *READ_AGAIN.values()}} == \
        {new: before[old] for old, new in (*RESPELLED.items(), *READ_AGAIN.items())}, \
        f"every renamed file keeps its item: {before} -> {after}"
    fresh = tmp_path / "fresh.db"
    index(str(fresh), root)
    got, want = stored(store_url), stored(fresh)
    assert got == want, f"after the renames, then as a fresh index reads them: {got} != {want}"
    assert got["letters.mbox", ""][3] == "letters.mbox", "the mailbox is titled by its new name"
    listed = json.loads(cli("failures", "--json", "--db", store_url).stdout)
    assert {Path(f["path"]).name: f["reason"] for f in listed if f["status"] == "unsupported"} == \
        {"junk.jpeg": "junk.jpeg holds binary data of no format lifededup reads (despite its .jpeg name)"}, listed


def test_each_spelling_names_its_format() -> None:
    """A spelling is of one format's suffix: a file named by any of a group is that format's by its name --
    a tar compressed by bzip2, xz or LZMA by its long name (``x.tar.bz2``, whose last suffix names the
    compressed reader) the archive reader's by its name and its compression (``archive._is_archive``)."""
    from lifededup.extract.compressed import is_compressed_tar
    from lifededup.extract.registry import _suffix_format  # the registry's reading of a name

    for fmt in formats().values():
        for group in fmt.spellings:
            assert len(group) >= 2, f"{fmt.name}: a spelling needs another: {group}"
            for ending in group:
                streamed = is_compressed_tar("x" + ending) and not ending.endswith(".gz")  # gzip: unpacked whole
                named = "archive" if streamed else _suffix_format("x" + ending)
                assert named == fmt.name, f"{fmt.name}: x{ending} is read otherwise"
