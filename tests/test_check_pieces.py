"""`lifededup check` on PostgreSQL finds the items whose pieces
(``items_fts_pieces``, revision 0027: a long text's words a thousand at a
time, where a phrase past its 16,383rd word or a word's 256th place is
found) are not the ones the trigger makes of their text -- a piece deleted
or altered by `sql --write`, pieces given a short text, all of a long
text's gone -- and `check --mend`, to which it points, makes those
items' pieces again."""

from __future__ import annotations

import json

from click.testing import CliRunner
from store_samples import fp

from lifededup.cli import main
from lifededup.store import ItemRecord, open_store


def run(*args: str, db: str, code: int = 0) -> str:
    done = CliRunner().invoke(main, [args[0], "--db", db, *args[1:]])
    assert done.exit_code == code, f"{args}: exit {done.exit_code}\n{done.output}"
    return done.output


def long_text(name: str) -> str:
    """About 1,800 words, ``the`` one in six: its document keeps 256 places of ``the`` (pieces 0, 1 and 2)."""
    return " ".join(f"the {name} went {n} miles north" for n in range(300)) + " then install the package."


def pieces(db: str) -> dict[str, list[int]]:
    _, rows = open_store(db).execute("SELECT i.path, k.piece FROM items_fts_pieces k JOIN items i ON i.id = k.rowid "
                                     "ORDER BY 1, 2")
    found: dict[str, list[int]] = {}
    for path, piece in rows:
        found.setdefault(str(path), []).append(int(str(piece)))
    return found


def test_check_names_the_items_whose_pieces_are_not_their_texts_and_mend_makes_them_again(pg_url: str) -> None:
    db = pg_url
    texts = {f"/{name}.txt": long_text(name) for name in ("kept", "cut", "altered", "emptied")}
    texts |= {"/short.txt": "install the package", "/short2.txt": "a short note"}
    with open_store(db) as store, store.transaction():
        ids = {path: store.upsert_item(ItemRecord(path, title="notes", text=text), fp(text))
               for path, text in texts.items()}
    long = {path: [0, 1, 2] for path in ("/altered.txt", "/cut.txt", "/emptied.txt", "/kept.txt")}
    assert pieces(db) == long
    assert run("check", db=db).startswith("ok:")

    for statement in (f"DELETE FROM items_fts_pieces WHERE rowid = {ids['/cut.txt']} AND piece = 2",
                      "UPDATE items_fts_pieces SET document = to_tsvector('simple', 'written by hand') "
                      f"WHERE rowid = {ids['/altered.txt']} AND piece = 1",
                      f"DELETE FROM items_fts_pieces WHERE rowid = {ids['/emptied.txt']}",
                      "INSERT INTO items_fts_pieces (rowid, piece, document) "
                      f"SELECT rowid, 0, document FROM items_fts WHERE rowid = {ids['/short.txt']}",
                      "INSERT INTO items_fts_pieces (rowid, piece, document) "
                      f"SELECT rowid, 3, document FROM items_fts WHERE rowid = {ids['/short2.txt']}"):
        run("sql", "--write", statement, db=db)
    said = run("check", db=db, code=1)
    wrong = sorted(ids[p] for p in ("/cut.txt", "/altered.txt", "/emptied.txt", "/short.txt", "/short2.txt"))
    line = next(line for line in said.splitlines() if "items_fts_pieces" in line)
    assert line.startswith("problem: fts-index: items whose pieces") and \
        line.endswith(f"[items {', '.join(map(str, wrong))}]"), said
    assert [p["check"] for p in json.loads(run("check", "--json", db=db, code=1))["problems"]] == ["fts-index"]

    # what it points to mends exactly those items
    assert said.splitlines()[-1].endswith("; `lifededup check --mend` makes their search words again"), said
    assert f"mended: {len(wrong)} item(s), their search words made again\n" in run("check", "--mend", db=db)
    assert pieces(db) == long
    assert run("check", db=db).startswith("ok:")
