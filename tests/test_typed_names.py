"""A name stored in one Unicode normalization, typed in the other.

Files copied from a Mac keep their names decomposed (NFD: "Re" U+0301
"sume" U+0301); Linux keeps a name's bytes as they are, and so does the
store.  A keyboard types the composed form (NFC: "Résumé").  A path or glob a
person types finds the stored item whichever form either side has: `search
--path`, `show` and `folders remove`; `index` and `watch` take a folder on
disk typed either way.  Real files named so on disk, indexed by
`lifededup index`, on both backends."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_watch import eventually

from lifededup.cli import main
from lifededup.model import name_forms
from lifededup.search import Filters

COMPOSED = unicodedata.normalize("NFC", "Résumé")
DECOMPOSED = unicodedata.normalize("NFD", "Résumé")
assert COMPOSED != DECOMPOSED

# (the folder's name on disk, the name typed): a Mac's copy typed on a keyboard, and the reverse
EITHER_WAY = pytest.mark.parametrize("on_disk, typed", [(DECOMPOSED, COMPOSED), (COMPOSED, DECOMPOSED)],
                                     ids=["stored-NFD-typed-NFC", "stored-NFC-typed-NFD"])


def cli(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, f"lifededup {' '.join(args)}: {result.output}"
    return result.output


def indexed(tmp_path: Path, store_url: str, folder_name: str, file_name: str = "violin.txt") -> Path:
    """A file under a folder named ``folder_name`` on disk, indexed; its path as stored."""
    folder = tmp_path / "Documents" / folder_name
    folder.mkdir(parents=True)
    (folder / file_name).write_text("about the violin lessons on tuesday and the bow rehair", encoding="utf-8")
    cli("index", str(tmp_path / "Documents"), "--workers", "1", "--db", store_url)
    return folder / file_name


def found_by_glob(store_url: str, glob: str) -> list[str]:
    return [h["path"] for h in json.loads(cli("search", "--all", "--path", glob, "--json", "--db", store_url))["hits"]]


@EITHER_WAY
def test_a_path_glob_finds_a_name_stored_in_the_other_normalization(tmp_path: Path, store_url: str, on_disk: str,
                                                                    typed: str) -> None:
    stored = indexed(tmp_path, store_url, on_disk)
    # LIKE on PostgreSQL; a class is matched by a regular expression there
    for glob in (f"{typed}/*", f"[R]{typed[1:]}/*", str(tmp_path / "Documents" / typed / "violin.txt")):
        got = found_by_glob(store_url, glob)
        assert got == [str(stored)], f"--path {glob!r} (as {unicodedata.is_normalized('NFC', glob) and 'NFC' or 'NFD'}) " \
                                     f"found {got}, not the file stored as {str(stored)!r}"


@EITHER_WAY
def test_show_finds_a_path_stored_in_the_other_normalization(tmp_path: Path, store_url: str, on_disk: str,
                                                             typed: str) -> None:
    stored = indexed(tmp_path, store_url, on_disk)
    shown = CliRunner().invoke(main, ["show", str(tmp_path / "Documents" / typed / "violin.txt"), "--json",
                                      "--db", store_url])
    assert shown.exit_code == 0, f"show by the name typed in the other form: {shown.output}"
    assert json.loads(shown.output)["item"]["path"] == str(stored)


def test_a_folder_of_a_mac_holding_a_file_named_on_linux_is_found_by_either_typing(tmp_path: Path,
                                                                                  store_url: str) -> None:
    """The folder's name decomposed, the file's (made here) composed: a path
    typed wholly in one form matches neither whole form of the stored one."""
    stored = indexed(tmp_path, store_url, DECOMPOSED, f"{COMPOSED} 2024.txt")
    for form in ("NFC", "NFD"):
        typed = unicodedata.normalize(form, str(stored))
        assert typed != str(stored)
        assert found_by_glob(store_url, f"{unicodedata.normalize(form, 'Résumé/Résumé*')}") == [str(stored)], form
        shown = CliRunner().invoke(main, ["show", typed, "--json", "--db", store_url])
        assert shown.exit_code == 0, f"show as {form}: {shown.output}"
        assert json.loads(shown.output)["item"]["path"] == str(stored)


def test_two_files_whose_names_differ_only_by_normalization_are_each_found_as_typed(tmp_path: Path,
                                                                                    store_url: str) -> None:
    """Linux may hold both: each typed exactly is that one, not the other."""
    folder = tmp_path / "Documents"
    folder.mkdir()
    for name, words in ((COMPOSED, "composed cello notes"), (DECOMPOSED, "decomposed viola notes")):
        (folder / f"{name}.txt").write_text(f"{words} about rosin and strings", encoding="utf-8")
    cli("index", str(folder), "--workers", "1", "--db", store_url)
    for name in (COMPOSED, DECOMPOSED):
        shown = json.loads(cli("show", str(folder / f"{name}.txt"), "--json", "--db", store_url))
        assert shown["item"]["path"] == str(folder / f"{name}.txt"), f"{name!a}: {shown['item']['path']!a}"
    assert sorted(found_by_glob(store_url, f"{COMPOSED}.txt")) == sorted(str(folder / f"{n}.txt")
                                                                        for n in (COMPOSED, DECOMPOSED))


@EITHER_WAY
def test_folders_remove_takes_a_watched_folder_typed_in_the_other_normalization(tmp_path: Path, store_url: str,
                                                                                on_disk: str, typed: str) -> None:
    folder = tmp_path / on_disk
    folder.mkdir()
    (folder / "notes.txt").write_text("bow rehair and rosin", encoding="utf-8")
    cli("folders", "add", str(folder), "--db", store_url)
    out = cli("folders", "remove", str(tmp_path / typed), "--keep", "--json", "--db", store_url)
    assert json.loads(out) == {"path": str(folder), "forgotten": 0}, out
    assert json.loads(cli("folders", "list", "--json", "--db", store_url) or "[]") == []


@EITHER_WAY
def test_folders_add_watches_the_folder_on_disk_typed_in_the_other_normalization(tmp_path: Path, store_url: str,
                                                                                 on_disk: str, typed: str) -> None:
    """Not "not there now (a disk not plugged in?)", waiting for a name that
    never appears; and said once, as `index` says it, not done silently."""
    folder = tmp_path / on_disk
    folder.mkdir()
    added = CliRunner().invoke(main, ["folders", "add", str(tmp_path / typed), "--db", store_url])
    assert added.exit_code == 0 and "not there now" not in added.output, added.output
    listed = json.loads(cli("folders", "list", "--json", "--db", store_url))
    assert [f["path"] for f in listed] == [str(folder)], listed
    said = [line for line in added.stderr.splitlines() if "accents" in line]
    assert said == [f"{str(tmp_path / typed)!r} is not there with its accents {ENCODED[typed]}, as typed, but is "
                    f"with them {ENCODED[on_disk]}: taking that one"], added.stderr
    again = CliRunner().invoke(main, ["folders", "add", str(folder), "--json", "--db", store_url])
    assert again.exit_code == 0 and "accents" not in again.stderr, f"typed as on disk: nothing said: {again.stderr}"


ENCODED = {COMPOSED: "composed (NFC)", DECOMPOSED: "decomposed (NFD, as a Mac writes names)"}


def test_folders_add_of_a_name_on_disk_in_both_normalizations_adds_the_one_typed(tmp_path: Path) -> None:
    """Linux may hold both, two folders: the one typed is meant, and nothing is said."""
    for name in (COMPOSED, DECOMPOSED):
        (tmp_path / name).mkdir()
    store = str(tmp_path / "store.db")
    for name in (COMPOSED, DECOMPOSED):
        added = CliRunner().invoke(main, ["folders", "add", str(tmp_path / name), "--db", store])
        assert added.exit_code == 0 and "accents" not in added.stderr, added.output
    listed = json.loads(cli("folders", "list", "--json", "--db", store))
    assert sorted(f["path"] for f in listed) == sorted(str(tmp_path / n) for n in (COMPOSED, DECOMPOSED)), listed


def test_an_ascii_glob_is_matched_as_before() -> None:
    """Only a name whose forms differ costs a second pattern."""
    assert name_forms("/home/me/Mail/*.eml") == ["/home/me/Mail/*.eml"]
    for postgres in (False, True):
        conditions, params = Filters(path="Mail/*").where(postgres=postgres)
        assert len(conditions) == 1 and " OR " not in conditions[0], conditions
    assert name_forms(COMPOSED) == [COMPOSED, DECOMPOSED]


# A folder typed on the command line of `index` and `watch` (click checks it is there)

@EITHER_WAY
def test_index_reads_the_folder_on_disk_typed_in_the_other_normalization(tmp_path: Path, store_url: str,
                                                                         on_disk: str, typed: str) -> None:
    """Said "does not exist" of a Mac's copy typed on a keyboard; now reads it, and says so."""
    folder = tmp_path / on_disk
    folder.mkdir()
    (folder / f"{on_disk}.txt").write_text("notes on the violin lessons and the bow rehair", encoding="utf-8")
    result = CliRunner().invoke(main, ["index", str(tmp_path / typed), "--workers", "1", "--json", "--db", store_url])
    assert result.exit_code == 0, f"index typed {typed!a}, on disk {on_disk!a}: {result.output}"
    assert json.loads(result.stdout)["new"] == 1, result.stdout
    assert "is not there with its accents" in result.stderr and "taking that one" in result.stderr, result.stderr
    hits = found_by_glob(store_url, f"{tmp_path}/*")
    assert hits == [str(folder / f"{on_disk}.txt")], f"stored {hits!a}, not the file as named on disk"


def test_index_of_a_name_on_disk_in_both_normalizations_reads_the_one_typed(tmp_path: Path) -> None:
    """Linux may hold both, two folders: the one typed is meant, as before, and nothing is said."""
    for name in (COMPOSED, DECOMPOSED):
        (tmp_path / name).mkdir()
        (tmp_path / name / "notes.txt").write_text(f"{name!a} cello notes about rosin and strings", encoding="utf-8")
    store = str(tmp_path / "store.db")
    for name in (COMPOSED, DECOMPOSED):
        result = CliRunner().invoke(main, ["index", str(tmp_path / name), "--workers", "1", "--db", store])
        assert result.exit_code == 0 and "accents" not in result.stderr, result.output
    assert sorted(found_by_glob(store, f"{tmp_path}/*")) == sorted(str(tmp_path / n / "notes.txt")
                                                                  for n in (COMPOSED, DECOMPOSED))


def test_index_of_a_name_in_neither_normalization_says_it_does_not_exist(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["index", str(tmp_path / COMPOSED), "--db", str(tmp_path / "store.db")])
    assert result.exit_code == 2 and "does not exist" in result.output, result.output


def test_a_name_not_there_is_printed_as_the_store_prints_names(tmp_path: Path) -> None:
    """click's own message printed a name by repr(): a newline as \\n, a byte
    that is not UTF-8 as \\udce9 -- not the escapes `show` takes back."""
    for name, printed in (("new\nline", "new\\x0aline"), (os.fsdecode(b"caf\xe9"), "caf\\xe9")):
        result = CliRunner().invoke(main, ["index", str(tmp_path / name), "--db", str(tmp_path / "store.db")])
        assert result.exit_code == 2, result.output
        assert f"Path '{tmp_path}/{printed}' does not exist." in result.output, result.output


def test_a_name_taken_in_the_other_normalization_is_printed_once_escaped(tmp_path: Path) -> None:
    """The accents message quoted the escaped name by repr(), escaping its escapes again ("\\\\x0a")."""
    (tmp_path / f"{DECOMPOSED}\nnotes").mkdir()
    (tmp_path / f"{DECOMPOSED}\nnotes" / "a.txt").write_text("bow rehair and rosin for the cello", encoding="utf-8")
    result = CliRunner().invoke(main, ["index", str(tmp_path / f"{COMPOSED}\nnotes"), "--workers", "1",
                                       "--db", str(tmp_path / "store.db")])
    assert result.exit_code == 0, result.output
    assert f"'{tmp_path}/{COMPOSED}\\x0anotes' is not there with its accents" in result.stderr, result.stderr


def test_index_of_a_name_two_other_forms_of_which_are_on_disk_names_them(tmp_path: Path) -> None:
    """Typed all composed, on disk mixed both ways: two folders, neither the
    one typed; which one is meant is not guessed."""
    for outer, inner in ((COMPOSED, DECOMPOSED), (DECOMPOSED, COMPOSED)):
        (tmp_path / outer / inner).mkdir(parents=True)
    result = CliRunner().invoke(main, ["index", str(tmp_path / COMPOSED / COMPOSED),
                                       "--db", str(tmp_path / "store.db")])
    assert result.exit_code == 2, result.output
    assert "2 names differing from it only in how their accents are encoded" in result.output, result.output
    assert not (tmp_path / "store.db").exists(), "refused before the store was opened"


@EITHER_WAY
def test_watch_watches_the_folder_on_disk_typed_in_the_other_normalization(tmp_path: Path, on_disk: str,
                                                                           typed: str) -> None:
    folder = tmp_path / on_disk
    folder.mkdir()
    (folder / "notes.txt").write_text("bow rehair and rosin for the violin", encoding="utf-8")
    store = str(tmp_path / "store.db")
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "LIFEDEDUP_DB": store}

    def stored() -> list[str]:  # (the watcher makes the store: an empty file a moment)
        found = CliRunner().invoke(main, ["search", "--all", "--path", f"{tmp_path}/*", "--json", "--db", store])
        return [h["path"] for h in json.loads(found.output)["hits"]] if found.exit_code == 0 else []

    watcher = subprocess.Popen([sys.executable, "-m", "lifededup", "watch", "--delay", "0.3", str(tmp_path / typed)],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        eventually(lambda: stored() != [], "the watcher indexes the folder")
        assert stored() == [str(folder / "notes.txt")]
    finally:
        watcher.terminate()
        _, err = watcher.communicate(timeout=60)
    assert "taking that one" in err and f"watching {folder} of the machine" in err, err


@EITHER_WAY
def test_folders_remove_forget_finds_the_items_of_a_gone_folder_typed_in_the_other_normalization(
        tmp_path: Path, store_url: str, on_disk: str, typed: str) -> None:
    """Neither watched nor on disk any more: only the store knows its name, as it was on disk.
    Said "is not watched" and forgot nothing."""
    stored = indexed(tmp_path, store_url, on_disk)
    stored.parent.rename(tmp_path / "moved away")  # (out of the store's sight: not indexed again)
    out = cli("folders", "remove", str(tmp_path / "Documents" / typed), "--forget", "--json", "--db", store_url)
    assert json.loads(out) == {"path": str(stored.parent), "forgotten": 1}, out
    assert found_by_glob(store_url, f"{tmp_path}/*") == []


@EITHER_WAY
def test_show_finds_a_part_named_in_the_other_normalization(tmp_path: Path, store_url: str, on_disk: str,
                                                            typed: str) -> None:
    """A zip made on a Mac names its members decomposed; `show PATH [PART]` typed the other way found nothing."""
    archive = tmp_path / "Documents" / "letters.zip"
    archive.parent.mkdir()
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr(f"{on_disk}/cover letter.txt", "dear committee about the violin teaching post in the autumn")
    cli("index", str(archive.parent), "--workers", "1", "--db", store_url)
    shown = CliRunner().invoke(main, ["show", f"{archive} [{typed}/cover letter.txt]", "--json", "--db", store_url])
    assert shown.exit_code == 0, f"show by the part typed in the other form: {shown.output}"
    assert json.loads(shown.output)["item"]["part"] == f"{on_disk}/cover letter.txt"


def test_show_of_a_part_named_in_both_normalizations_takes_the_one_typed(tmp_path: Path, store_url: str) -> None:
    archive = tmp_path / "Documents" / "letters.zip"
    archive.parent.mkdir()
    with zipfile.ZipFile(archive, "w") as zipped:
        for name, words in ((COMPOSED, "composed cello notes"), (DECOMPOSED, "decomposed viola notes")):
            zipped.writestr(f"{name}.txt", f"{words} about rosin and strings for the autumn concert")
    cli("index", str(archive.parent), "--workers", "1", "--db", store_url)
    for name in (COMPOSED, DECOMPOSED):
        shown = json.loads(cli("show", f"{archive} [{name}.txt]", "--json", "--db", store_url))
        assert shown["item"]["part"] == f"{name}.txt", f"{name!a}: {shown['item']['part']!a}"
