"""A tar compressed by bzip2 under a short name -- ``.tbz``, as GNU tar's
``-a`` reads it -- was read by neither reader: the compressed reader left
it to the archive reader (a bzip2 tar streams its members there), which
took only ``.tbz2``, so `lifededup failures` listed it as "binary data of no
format lifededup reads".  Every short name of a bzip2, xz or LZMA tar
(``.tbz`` ``.tbz2`` ``.tz2`` ``.tb2`` ``.txz`` ``.tlz``, case aside) is the
archive reader's: each member's text is found by `search`, and nothing
fails.  ``.tbz`` and ``.tbz2`` are spellings of one suffix, and so are a
tar's long and short names (``.tar.bz2`` and ``.tbz2``, ``.tar.xz`` and
``.txz``, ``.tar.gz``, ``.tgz`` and ``.taz``): a file renamed from one to
another keeps its item and is not read again; a gzipped tar is titled by
the tar it holds under each.  Through the CLI, on both backends."""

from __future__ import annotations

import io
import json
import lzma
import tarfile
from pathlib import Path

import pytest
from test_moves_failed_named import cli, index, listed
from test_moves_reread import ids, rename, stored
from test_moves_retitled import found as titled
from test_moves_retitled import shown_title

from lifededup.extract import Limits, TooLarge, extract

# file name -> (tarfile's mode, a word only its member holds)
ARCHIVES = {"receipts.tbz": ("w:bz2", "boiler"), "LETTERS.TBZ": ("w:bz2", "allotment"),
            "photos.tbz2": ("w:bz2", "harbour"), "minutes.tz2": ("w:bz2", "hedgerow"),
            "recipes.tb2": ("w:bz2", "sourdough"), "manuals.txz": ("w:xz", "thermostat")}


def a_tar(path: Path, mode: str, word: str) -> None:
    data = f"the note about the {word}, kept in {path.name}\n".encode()
    with tarfile.open(path, mode) as archive:
        member = tarfile.TarInfo("notes/note.txt")
        member.size = len(data)
        archive.addfile(member, io.BytesIO(data))


def found(store_url: str, word: str) -> list[tuple[str, str, str]]:
    """(file name, part, snippet) of each hit of `lifededup search --all WORD`."""
    done = cli("search", "--json", "--all", "--db", store_url, "--", word)
    assert done.exit_code == 0, done.output
    return [(Path(h["path"]).name, h["part"], h["snippet"]) for h in json.loads(done.stdout)["hits"]]


def test_a_compressed_tar_by_its_short_name_is_read_as_an_archive(store_url: str, tmp_path: Path) -> None:
    root = tmp_path / "backups"
    root.mkdir()
    for name, (mode, word) in ARCHIVES.items():
        a_tar(root / name, mode, word)
    said = index(store_url, root)
    assert f"new {len(ARCHIVES)}, updated 0, unchanged 0, moved 0, removed 0, failed 0 (" in said, said
    assert listed(store_url) == [], f"`failures` lists none of them: {listed(store_url)}"
    for name, (_, word) in ARCHIVES.items():
        assert found(store_url, word) == [(name, "notes/note.txt", f"the note about the {word}, kept in {name}")], \
            f"{name}'s member is searchable: {found(store_url, word)}"
    whole = {name: row[:1] + row[3:4] for (name, part), row in stored(store_url).items() if part == ""}
    assert whole == {name: ("archive", name) for name in ARCHIVES}, f"each an archive titled by its name: {whole}"


def test_lzma_data_is_read_as_the_file_or_tar_it_holds(store_url: str, tmp_path: Path) -> None:
    """LZMA's own format (``xz --format=lzma``, 7-Zip's LZMA SDK: ``.lzma``,
    and a tar so, ``.tar.lzma`` or GNU tar's ``.tlz``) was "binary data of no
    format lifededup reads": it is read as the file it holds, a tar's members
    as parts; refused as a bomb past the limit on unpacked size, as a .xz is."""
    root = tmp_path / "old disk"
    root.mkdir()
    for name, word in (("photos.tlz", "lighthouse"), ("letters.tar.lzma", "greenhouse")):
        a_tar(root / name, "w", word)
        (root / name).write_bytes(lzma.compress((root / name).read_bytes(), format=lzma.FORMAT_ALONE))
    (root / "diary.txt.lzma").write_bytes(lzma.compress(b"the day the swifts came back to the eaves\n",
                                                        format=lzma.FORMAT_ALONE))
    said = index(store_url, root)
    assert "new 3, updated 0, unchanged 0, moved 0, removed 0, failed 0 (" in said, said
    assert listed(store_url) == [], f"`failures` lists none of them: {listed(store_url)}"
    for name, word in (("photos.tlz", "lighthouse"), ("letters.tar.lzma", "greenhouse")):
        assert found(store_url, word) == [(name, "notes/note.txt", f"the note about the {word}, kept in {name}")], \
            f"{name}'s member is searchable: {found(store_url, word)}"
    assert found(store_url, "swifts") == [("diary.txt.lzma", "", "the day the swifts came back to the eaves")], \
        found(store_url, "swifts")
    bomb = tmp_path / "zeros.lzma"
    bomb.write_bytes(lzma.compress(b"\0" * 2**22, format=lzma.FORMAT_ALONE))  # 4 MiB of zeros, packed small
    assert bomb.stat().st_size < 2**12
    with pytest.raises(TooLarge, match="refused as a bomb"):
        extract(bomb, Limits(max_unpacked_bytes=2**20))


def test_a_bzip2_tar_renamed_from_tbz_to_tbz2_is_not_read_again(store_url: str, tmp_path: Path) -> None:
    root = tmp_path / "backups"
    root.mkdir()
    a_tar(root / "receipts.tbz", "w:bz2", "boiler")
    index(store_url, root)
    before = ids(store_url, root)
    rename(root, {"receipts.tbz": "receipts.tbz2"})
    said = index(store_url, root)
    assert "new 0, updated 0, unchanged 0, moved 1, removed 0, failed 0 (" in said, said
    assert ids(store_url, root) == {"receipts.tbz2": before["receipts.tbz"]}, ids(store_url, root)
    fresh = tmp_path / "fresh.db"
    index(str(fresh), root)
    assert stored(store_url) == stored(fresh), "the moved item is as a fresh index reads the file"


def test_a_gzipped_tar_named_taz_is_titled_as_a_tgz_is(store_url: str, tmp_path: Path) -> None:
    """A gzipped tar named ``.taz`` (GNU tar's third name for it) kept its
    whole name as its title, where ``.tgz`` and ``.tar.gz`` are titled by the
    tar they hold: ``photos.tar``. ``.taz`` is a spelling of them: a rename
    between them is not read again."""
    root = tmp_path / "backups"
    root.mkdir()
    a_tar(root / "photos.taz", "w:gz", "harbour")
    a_tar(root / "letters.tgz", "w:gz", "allotment")
    said = index(store_url, root)
    assert "new 2, updated 0, unchanged 0, moved 0, removed 0, failed 0 (" in said, said
    assert shown_title(store_url, root / "photos.taz") == "photos.tar", "as .tgz's: the tar it holds"
    assert shown_title(store_url, root / "letters.tgz") == "letters.tar"
    assert titled(store_url, "photos.tar") == [("photos.taz", "photos.tar")], "`search` finds it by that title"
    assert found(store_url, "harbour") == [("photos.taz", "notes/note.txt",
                                            "the note about the harbour, kept in photos.taz")]
    before = ids(store_url, root)
    rename(root, {"letters.tgz": "letters.taz"})
    said = index(store_url, root)
    assert "new 0, updated 0, unchanged 1, moved 1, removed 0, failed 0 (" in said, "a spelling: not read again"
    assert ids(store_url, root) == {"photos.taz": before["photos.taz"], "letters.taz": before["letters.tgz"]}
    assert shown_title(store_url, root / "letters.taz") == "letters.tar"


# old name -> new name: a tar compressed by bzip2, xz or LZMA, renamed to another of its names (the same bytes)
RENAMED_TARS = {"receipts.tar.bz2": "receipts.tbz2", "minutes.tbz2": "minutes.tar.bz2",
                "manuals.tar.xz": "manuals.txz", "photos.tlz": "photos.tar.lzma"}


def test_a_compressed_tar_renamed_to_another_of_its_names_is_not_read_again(store_url: str, tmp_path: Path) -> None:
    """``receipts.tar.bz2`` renamed ``receipts.tbz2`` (the same bytes) was
    read again, where any other rename the archive reader reads alike is
    followed without a read: ``.tar.bz2`` was not among the spellings of
    ``.tbz2`` (its last suffix, ``.bz2``, names the compressed reader; by
    its content and name the file is the archive reader's), and a member's
    part is its path inside (``notes/note.txt``), without the archive's
    name. It keeps its item, is not read, and is titled by its new name, as
    a fresh index titles it; so for xz and LZMA. Gzip data named so is the
    compressed reader's, not the archive reader's: read again."""
    root = tmp_path / "backups"
    root.mkdir()
    for name, word in zip(RENAMED_TARS, ("boiler", "hedgerow", "thermostat", "lighthouse")):
        mode = "w:bz2" if "bz2" in name else "w:xz" if "xz" in name else "w"
        a_tar(root / name, mode, word)
        if name.endswith(".tlz"):
            (root / name).write_bytes(lzma.compress((root / name).read_bytes(), format=lzma.FORMAT_ALONE))
    a_tar(root / "odd.tbz2", "w:gz", "fence")  # gzip data: the compressed reader's, titled odd.tbz2 (inner_name)
    index(store_url, root)
    before = ids(store_url, root)
    rename(root, {**RENAMED_TARS, "odd.tbz2": "odd.tar.bz2"})
    said = index(store_url, root)
    assert "new 0, updated 1, unchanged 0, moved 5, removed 0, failed 0 (" in said, \
        f"the tars moved, not read; only the gzip data read again: {said}"
    renamed = {**RENAMED_TARS, "odd.tbz2": "odd.tar.bz2"}
    assert ids(store_url, root) == {new: before[old] for old, new in renamed.items()}, "each keeps its item"
    assert {new: shown_title(store_url, root / new) for new in RENAMED_TARS.values()} == \
        {new: new for new in RENAMED_TARS.values()}, "`show` titles each by its new name"
    assert shown_title(store_url, root / "odd.tar.bz2") == "odd.tar", "the gzip data: the tar it holds"
    fresh = tmp_path / "fresh.db"
    index(str(fresh), root)
    assert stored(store_url) == stored(fresh), "each item as a fresh index reads the file"


def compressed_by_compress(data: bytes) -> bytes:
    """``data`` as compress(1) writes it (.Z: LZW, 16 bits at most, block mode), each byte a code of its own --
    valid while the codes stay 9 bits wide (under 256 bytes); uncompress and gzip -d read it back."""
    assert len(data) < 256
    bits = sum(byte << (9 * n) for n, byte in enumerate(data))
    return b"\x1f\x9d\x90" + bits.to_bytes((9 * len(data) + 7) // 8, "little")


def test_a_file_compressed_by_compress_is_refused_in_words_that_say_so(store_url: str, tmp_path: Path) -> None:
    """A ``.taz`` may hold compress(1)'s LZW as well as gzip, which Python
    cannot unpack: it was "binary data of no format lifededup reads" -- it is
    a format, and one a copy of can be read: it is refused in words that say
    which and what to do; so for a ``.tgz`` and a ``.tar.Z``."""
    root = tmp_path / "old disk"
    root.mkdir()
    for name in ("letters.taz", "letters.tgz", "letters.tar.Z"):
        (root / name).write_bytes(compressed_by_compress(b"the note about the harbour\n"))
    said = index(store_url, root)
    assert "new 0, updated 0, unchanged 0, moved 0, removed 0, failed 3 (" in said, said
    assert sorted((Path(path).name, status, reason) for path, status, reason in listed(store_url)) == [
        (name, "unsupported", f"{name} is compressed by compress (LZW, .Z), which lifededup does not read: "
                              "unpack a copy (gzip -dc, or uncompress) to index what it holds")
        for name in ("letters.tar.Z", "letters.taz", "letters.tgz")], listed(store_url)


def test_a_bzip2_tar_renamed_to_or_from_tb2_is_not_read_again(store_url: str, tmp_path: Path) -> None:
    """``.tb2`` is one of a bzip2 tar's short names (the archive reader reads
    it whole, titled by it, as ``.tbz2``), but was no spelling of them:
    ``receipts.tar.bz2`` renamed ``receipts.tb2`` (the same bytes) was read
    again, and ``recipes.tb2`` renamed ``recipes.tbz2``.  Each keeps its
    item, is not read, and is titled by its new name, as a fresh index
    titles it."""
    root = tmp_path / "backups"
    root.mkdir()
    renamed = {"receipts.tar.bz2": "receipts.tb2", "recipes.tb2": "recipes.tbz2", "minutes.TB2": "minutes.tbz"}
    for name, word in zip(renamed, ("boiler", "sourdough", "hedgerow")):
        a_tar(root / name, "w:bz2", word)
    index(store_url, root)
    before = ids(store_url, root)
    rename(root, renamed)
    said = index(store_url, root)
    assert "new 0, updated 0, unchanged 0, moved 3, removed 0, failed 0 (" in said, f"moved, not read: {said}"
    assert ids(store_url, root) == {new: before[old] for old, new in renamed.items()}, "each keeps its item"
    assert {new: shown_title(store_url, root / new) for new in renamed.values()} == \
        {new: new for new in renamed.values()}, "`show` titles each by its new name"
    assert found(store_url, "sourdough") == [("recipes.tbz2", "notes/note.txt",
                                              "the note about the sourdough, kept in recipes.tb2")]
    fresh = tmp_path / "fresh.db"
    index(str(fresh), root)
    assert stored(store_url) == stored(fresh), "each item as a fresh index reads the file"
