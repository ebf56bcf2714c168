"""`lifededup check --mend` makes the search words of the items `check`
names under fts-index again, as the store's trigger makes them: a search
row altered by `sql --write`, one deleted, and on PostgreSQL the documents
of items indexed while the text search configuration was altered, which
kept their wrong words after it was mended.  Before, `check` named them and
nothing offered a way to make them again.  Both backends, the real
commands, the words found again by `search`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from in_process import lifededup_here

TOKENS = ("asciihword, asciiword, email, file, float, host, hword, hword_asciipart, hword_numpart, hword_part, int, "
          "numhword, numword, sfloat, uint, url, url_path, version, word")
MENDED = "mended: {} item(s), their search words made again\n"
POINTED = "`lifededup check --mend` makes their search words again"


def lifededup(db: str, *args: str, code: int = 0) -> str:
    done = lifededup_here(args[0], "--db", db, *args[1:], env={"LIFEDEDUP_DB": ""})
    assert done.returncode == code, f"{args}: exit {done.returncode}\n{done.stdout}{done.stderr}"
    return done.stdout + done.stderr


def found(db: str, query: str) -> set[str]:
    hits = json.loads(lifededup(db, "search", "--json", "--all", "--", query))["hits"]
    return {Path(hit["path"]).name for hit in hits}


def indexed(tmp_path: Path, db: str) -> dict[str, int]:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "apple.txt").write_text("a note on apples and pears", encoding="utf-8")
    (folder / "river.txt").write_text("the river survey report", encoding="utf-8")
    (folder / "cafe.txt").write_text("Mon résumé du café, une crème brûlée.", encoding="utf-8")
    lifededup(db, "index", str(folder))
    assert lifededup(db, "check").startswith("ok: 3 items")
    rows = json.loads(lifededup(db, "sql", "--json", "SELECT id, path FROM items"))
    return {Path(row["path"]).name: int(row["id"]) for row in rows}


def mended_clean(db: str, count: int) -> None:
    said = lifededup(db, "check", "--mend")
    assert MENDED.format(count) in said and "\nok: 3 items" in said, said
    assert "mended: 0" not in said, said  # only the ways that mended something are said
    assert lifededup(db, "check").startswith("ok: 3 items")
    # a store with nothing to mend is told so once (it was "mended: 0 item(s), ..." three times)
    again = lifededup(db, "check", "--mend").splitlines()
    assert again[0] == "mended: nothing" and again[1].startswith("ok: 3 items"), again
    assert json.loads(lifededup(db, "check", "--json", "--mend"))["mended"] == 0


def test_a_search_row_written_by_hand_is_made_again(tmp_path: Path, store_url: str) -> None:
    db = store_url
    ids = indexed(tmp_path, db)
    apple = ids["apple.txt"]
    postgres = "://" in db
    written = ("UPDATE items_fts SET document = to_tsvector('simple', 'zebra') " if postgres
               else "UPDATE items_fts SET text = 'zebra' ")
    lifededup(db, "sql", "--write", written + f"WHERE rowid = {apple}")
    harm = (found(db, "apples"), found(db, "zebra"))
    assert harm == (set(), {"apple.txt"}), f"the search reads the row written by hand: {harm}"

    said = lifededup(db, "check", code=1)
    problem = next(line for line in said.splitlines() if line.startswith("problem: fts-index: "))
    # a server compares each row with its item's words; FTS5 only the whole index
    named = f" [items {apple}]" if postgres else ""
    assert problem.startswith("problem: fts-index: items_fts rows that are not their item's title, text and "
                              "people") and problem.endswith(named), said
    assert said.splitlines()[-1] == f"Error: 1 problem(s) in {db}; {POINTED}", said

    mended_clean(db, 1 if postgres else 3)  # FTS5's whole index is made again: every item's words
    assert (found(db, "apples"), found(db, "zebra"), found(db, "river")) == ({"apple.txt"}, set(), {"river.txt"})


def test_a_search_row_deleted_by_hand_is_made_again(tmp_path: Path, store_url: str) -> None:
    db = store_url
    ids = indexed(tmp_path, db)
    river = ids["river.txt"]
    lifededup(db, "sql", "--write", f"DELETE FROM items_fts WHERE rowid = {river}")
    assert found(db, "river") == set(), "the harm: the item is found by no word"

    said = lifededup(db, "check", code=1)
    assert said == (f"problem: fts-index: items missing from items_fts (so no search finds them) [items {river}]\n"
                    f"Error: 1 problem(s) in {db}; {POINTED}\n"), said

    mended_clean(db, 1)
    assert (found(db, "river"), found(db, "apples"), found(db, "cafe")) == ({"river.txt"}, {"apple.txt"},
                                                                             {"cafe.txt"})


def test_an_item_indexed_while_the_search_configuration_was_altered_is_given_its_words_again(
        tmp_path: Path, pg_url: str) -> None:
    """The configuration altered (accented words read without unaccent), an
    item indexed meanwhile, the configuration mended as check says: the
    item keeps the words it was given, and no 'cafe' finds its 'café'."""
    db = pg_url
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "river.txt").write_text("the river survey report", encoding="utf-8")
    lifededup(db, "index", str(folder))
    lifededup(db, "sql", "--write", "ALTER TEXT SEARCH CONFIGURATION lifededup ALTER MAPPING FOR word WITH simple")
    (folder / "cafe.txt").write_text("Mon résumé du café, une crème brûlée.", encoding="utf-8")
    lifededup(db, "index", str(folder))
    lifededup(db, "sql", "--write", f"ALTER TEXT SEARCH CONFIGURATION lifededup ALTER MAPPING FOR {TOKENS} "
              "WITH public.unaccent, pg_catalog.simple")
    assert found(db, "cafe") == set(), "the harm: the item keeps the words the altered configuration gave it"
    [cafe] = [row["id"] for row in json.loads(lifededup(db, "sql", "--json",
                                                        "SELECT id FROM items WHERE path LIKE '%cafe.txt'"))]

    said = lifededup(db, "check", code=1)
    assert said == ("problem: fts-index: items_fts rows that are not their item's title, text and people "
                    f"[items {cafe}]\nError: 1 problem(s) in {db}; {POINTED}\n"), said

    said = lifededup(db, "check", "--mend")
    assert MENDED.format(1) in said and "\nok: 2 items" in said, said
    assert lifededup(db, "check").startswith("ok: 2 items")
    assert (found(db, "cafe"), found(db, "creme brulee"), found(db, "river")) == ({"cafe.txt"}, {"cafe.txt"},
                                                                                   {"river.txt"})


def test_mend_leaves_the_words_while_the_configuration_they_are_made_with_is_wrong(
        tmp_path: Path, pg_url: str) -> None:
    """Made with an altered configuration, the words would be wrong again:
    --mend leaves them and the configuration's problem stands, with its
    statements."""
    db = pg_url
    ids = indexed(tmp_path, db)
    lifededup(db, "sql", "--write", f"DELETE FROM items_fts WHERE rowid = {ids['river.txt']}")
    lifededup(db, "sql", "--write", "ALTER TEXT SEARCH CONFIGURATION lifededup ALTER MAPPING FOR word WITH simple")
    said = lifededup(db, "check", "--mend", code=1)
    assert "mended: nothing\n" in said and "problem: search-configuration: " in said, said
    assert f"problem: fts-index: items missing from items_fts (so no search finds them) [items {ids['river.txt']}]" \
        in said and POINTED not in said, said


@pytest.mark.parametrize("deleted", [False, True])
def test_a_long_texts_document_and_pieces_are_made_again(pg_url: str, deleted: bool) -> None:
    """A long text's pieces (revision 0027) are made with its document."""
    from store_samples import fp

    from lifededup.store import ItemRecord, open_store

    db = pg_url
    text = " ".join(f"the walk went {n} miles north" for n in range(300)) + " then install the package."
    with open_store(db) as store, store.transaction():
        item = store.upsert_item(ItemRecord("/walk.txt", title="notes", text=text), fp(text))
        for name in ("apple", "river"):
            store.upsert_item(ItemRecord(f"/{name}.txt", title=name, text=f"a note on {name}"), fp(name))
    pieces = "SELECT count(*) AS n FROM items_fts_pieces"
    [had] = json.loads(lifededup(db, "sql", "--json", pieces))
    assert had["n"] == 3
    if deleted:
        lifededup(db, "sql", "--write", f"DELETE FROM items_fts WHERE rowid = {item}")
    else:
        lifededup(db, "sql", "--write", "UPDATE items_fts SET document = to_tsvector('simple', 'zebra') "
                  f"WHERE rowid = {item}")
    lifededup(db, "check", code=1)
    said = lifededup(db, "check", "--mend")
    assert MENDED.format(1) in said and "\nok: 3 items" in said, said
    assert json.loads(lifededup(db, "sql", "--json", pieces)) == [had]
    assert found(db, '"install the package"') == {"walk.txt"}


def test_an_item_whose_row_was_deleted_and_whose_cjk_text_was_changed_is_mended_at_once(store_url: str) -> None:
    """Its words apart written again, SQLite's trigger takes the old words
    out of its row, which FTS5 refuses for a row it does not hold -- said as
    a damaged file -- unless the row is made first."""
    from store_samples import fp

    from lifededup.store import ItemRecord, open_store

    db = store_url
    with open_store(db) as store, store.transaction():
        for record in (ItemRecord("/ja.txt", title="日記", text="私は東京に住んでいます"),
                       ItemRecord("/en.txt", title="Diary", text="I live in Leeds these days")):
            store.upsert_item(record, fp(str(record.text)))
    lifededup(db, "sql", "--write", "UPDATE items SET text = '私は大阪に住んでいます' WHERE path = '/ja.txt'")
    lifededup(db, "sql", "--write", "DELETE FROM items_fts WHERE rowid IN (SELECT id FROM items WHERE path = '/ja.txt')")
    said = lifededup(db, "check", code=1)
    assert "problem: fts-index: items missing from items_fts" in said and "problem: cjk-apart: " in said, said

    said = lifededup(db, "check", "--mend")
    assert MENDED.format(1) in said and "\nok: 2 items" in said, said
    assert (found(db, "大阪"), found(db, "東京"), found(db, "Leeds")) == ({"ja.txt"}, set(), {"en.txt"})
