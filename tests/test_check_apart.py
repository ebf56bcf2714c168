"""`lifededup check` finds the items whose CJK words apart (revision 0022,
store/searchable.py) are not their title, text and people since
`sql --write` changed those, and `check --mend` writes them again: the new
text's words are found, the old text's are not.  Both backends."""

from __future__ import annotations

import json

from click.testing import CliRunner
from store_samples import fp

from lifededup.cli import main
from lifededup.store import ItemRecord, open_store

OSAKA = "私は大阪に住んでいます"


def run(*args: str, db: str, code: int = 0) -> str:
    done = CliRunner().invoke(main, [args[0], "--db", db, *args[1:]])
    assert done.exit_code == code, f"{args}: exit {done.exit_code}\n{done.output}"
    return done.output


def found(db: str, query: str) -> list[str]:
    hits = json.loads(run("search", "--json", "--all", "--", query, db=db))["hits"]
    return sorted(str(h["path"]) for h in hits)


def test_check_names_cjk_words_apart_left_stale_by_sql_write_and_mend_writes_them_again(store_url: str) -> None:
    db = store_url
    with open_store(db) as store, store.transaction():
        for record in (ItemRecord("/ja.txt", title="日記", text="私は東京に住んでいます"),
                       ItemRecord("/en.txt", title="Diary", text="I live in Leeds these days"),
                       ItemRecord("/mail.eml", title="Lunch", text="see you at noon then", people="from 山田太郎")):
            store.upsert_item(record, fp(str(record.text)))
    assert found(db, "東京") == ["/ja.txt"] and found(db, "山田") == ["/mail.eml"]
    assert run("check", db=db).startswith("ok:")
    # a CJK text for another, a Latin text given CJK, a CJK sender made Latin
    run("sql", "--write", f"UPDATE items SET text = '{OSAKA}' WHERE path = '/ja.txt'", db=db)
    run("sql", "--write", "UPDATE items SET title = '旅行の日記' WHERE path = '/en.txt'", db=db)
    run("sql", "--write", "UPDATE items SET people = 'from Taro Yamada' WHERE path = '/mail.eml'", db=db)
    stale = (found(db, "大阪"), found(db, "東京"), found(db, "旅行"), found(db, "山田"))
    assert stale == ([], ["/ja.txt"], [], ["/mail.eml"]), f"the search index read the old texts: {stale}"

    said = run("check", db=db, code=1)
    _, rows = open_store(db).execute("SELECT id FROM items ORDER BY id")
    ids = ", ".join(str(r[0]) for r in rows)
    assert f"cjk-apart: " in said and f"[items {ids}]" in said, said
    assert "`lifededup check --mend` writes the words apart again" in said.splitlines()[-1], said
    assert json.loads(run("check", "--json", db=db, code=1))["problems"][0]["check"] == "cjk-apart"

    said = run("check", "--mend", db=db)
    assert said.startswith("mended: 3 item(s)") and "\nok: 3 items" in said, said
    mended = (found(db, "大阪"), found(db, "東京"), found(db, "旅行"), found(db, "山田"), found(db, "Yamada"))
    assert mended == (["/ja.txt"], [], ["/en.txt"], [], ["/mail.eml"]), f"after --mend: {mended}"
    assert run("check", db=db).startswith("ok:")
    assert json.loads(run("check", "--json", "--mend", db=db))["mended"] == 0


def test_after_writing_words_apart_only_what_the_search_reads_is_checked_again(store_url: str) -> None:
    """Words apart written again change only the search index's rows, so
    `check --mend` checks again only the search index and the words apart
    (at a million items 15 s of a whole check's 132); what else it found
    stands as found -- a dropped index, which --mend does not make."""
    from lifededup.cli.store import checked_again
    from lifededup.store import check_store

    db = store_url
    with open_store(db) as store, store.transaction():
        for record in (ItemRecord("/ja.txt", title="日記", text="私は東京に住んでいます"),
                       ItemRecord("/en.txt", title="Diary", text="I live in Leeds these days")):
            store.upsert_item(record, fp(str(record.text)))
    run("sql", "--write", f"UPDATE items SET text = '{OSAKA}' WHERE path = '/ja.txt'", db=db)
    run("sql", "--write", "DROP INDEX ix_clusters_members", db=db)

    said = run("check", "--mend", db=db, code=1)
    assert "mended: 1 item(s), their CJK words apart written again" in said, said
    assert "problem: missing-index: the store has no index ix_clusters_members" in said, said
    assert "cjk-apart" not in said and "fts-index" not in said, said

    with open_store(db) as store:
        left = check_store(store)
        assert [p.check for p in left] == ["missing-index"], left
        heard: list[str] = []
        again = checked_again(store, left, {"their CJK words apart written again": 1}, heard.append)
        assert again == left, again
        search = ["the search index", "every CJK item's words apart"]
        assert heard == search + (["every item's search words"] if "postgresql" in db else []), heard
        heard.clear()
        again = checked_again(store, left, {"fingerprinted and clustered again from their text": 1}, heard.append)
        assert again == left and "the cluster invariants" in heard and "the sketch keys" in heard, heard
