"""A tar compressed by bzip2 under a short name -- ``.tbz``, as GNU tar's
``-a`` reads it -- was read by neither reader: the compressed reader left
it to the archive reader (a bzip2 tar streams its members there), which
took only ``.tbz2``, so `lifededup failures` listed it as "binary data of no
format lifededup reads".  Every short name of a bzip2, xz or LZMA tar
(``.tbz`` ``.tbz2`` ``.tz2`` ``.tb2`` ``.txz`` ``.tlz``, case aside) is the
archive reader's: each member's text is found by `search`, and nothing
fails.  ``.tbz`` and ``.tbz2`` are spellings of one suffix: a file renamed
from one to the other keeps its item and is not read again.  Through the
CLI, on both backends."""

from __future__ import annotations

import io
import json
import lzma
import tarfile
from pathlib import Path

import pytest
from test_moves_failed_named import cli, index, listed
from test_moves_reread import ids, rename, stored

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
