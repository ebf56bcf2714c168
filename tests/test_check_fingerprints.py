"""`lifededup check` finds the items whose text `sql --write` changed since
it was fingerprinted (their SHA-1, features and cluster are the old
text's), and `check --mend` fingerprints them again and places them through
the store's clustering: afterwards the store holds what indexing the same
texts afresh gives.  Both backends."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from corpus_store import CorpusStore
from store_samples import prose, revised

from lifededup.cli import main
from lifededup.fingerprint import fingerprint, text_sha1
from lifededup.store import open_store
from lifededup.store.check import stale_fingerprints
from lifededup.store.settings import FEATURE_COLUMNS

DRAFT = prose(1)
# what the files hold when first indexed, and what `sql --write` makes of their texts
FIRST = {"a.txt": DRAFT, "b.txt": revised(DRAFT, 1), "c.txt": prose(2), "d.txt": prose(3), "e.txt": prose(4),
         "f.txt": ""}
CHANGED = {
    "a.txt": prose(5),  # the representative of {a, b} becomes another text: b represents itself
    "c.txt": revised(DRAFT, 2),  # a text apart becomes a near copy of b
    "d.txt": "  " + prose(3).upper() + " !",  # the same words: the same fingerprint, nothing stale
    "e.txt": None,  # its text gone (an item without text keeps no fingerprint)
    "f.txt": revised(DRAFT, 3),  # an item without text given one, a near copy of b too
}


def run(*args: str, db: str, code: int = 0) -> str:
    done = CliRunner().invoke(main, [args[0], "--db", db, *args[1:]])
    assert done.exit_code == code, f"{args}: exit {done.exit_code}\n{done.output}"
    return done.output


def index(folder: Path, texts: dict[str, str | None], db: str) -> dict[str, int]:
    """Index a folder of these texts (None: an empty file, which has none); each file's item id."""
    folder.mkdir(exist_ok=True)
    for name, text in texts.items():
        (folder / name).write_text(text or "", encoding="utf-8")
    run("index", str(folder), "-j", "1", db=db)
    _, rows = open_store(db).execute("SELECT path, id FROM items")
    return {Path(str(path)).name: int(str(item)) for path, item in rows}


def held(db: str) -> tuple[list[tuple[object, ...]], str]:
    """Each item's fingerprint and cluster, named by file, and what `dups` shows."""
    _, rows = open_store(db).execute(
        f"SELECT i.path, f.sha1, {', '.join('f.' + c for c in FEATURE_COLUMNS)}, f.sketch, f.words, f.shingles, "
        "r.path, c.resemblance, c.word_distance FROM items i JOIN fingerprints f ON f.item_id = i.id "
        "JOIN clusters c ON c.item_id = i.id JOIN items r ON r.id = c.cluster_id ORDER BY i.path")
    fingerprints = [tuple(bytes(v) if isinstance(v, memoryview) else v for v in row) for row in rows]
    return fingerprints, run("dups", "--json", db=db)


def test_check_names_texts_changed_by_sql_write_and_mend_gives_what_a_fresh_index_gives(
        store_url: str, tmp_path: Path) -> None:
    db = store_url
    ids = index(tmp_path / "archive", FIRST, db)
    assert run("check", db=db).startswith("ok:")
    for name, text in CHANGED.items():
        # (with the status an empty file has, or a file with text)
        value = "NULL, status = 'empty'" if text is None else "'" + text.replace("'", "''") + "', status = 'ok'"
        run("sql", "--write", f"UPDATE items SET text = {value} WHERE id = {ids[name]}", db=db)

    said = run("check", db=db, code=1)
    stale = sorted(ids[name] for name in ("a.txt", "c.txt"))
    assert "fingerprint-stale: 2 item(s) whose text is not the one their fingerprint" in said, said
    assert f"[items {', '.join(map(str, stale))}]" in said, said
    assert "fingerprint-without-text: " in said and f"[items {ids['e.txt']}]" in said, said
    assert "fingerprint-missing: " in said and f"[items {ids['f.txt']}]" in said, said
    assert "`lifededup check --mend` fingerprints the changed texts again" in said.splitlines()[-1], said
    found = {p["check"]: p["item_ids"] for p in json.loads(run("check", "--json", db=db, code=1))["problems"]}
    assert found.get("fingerprint-stale") == stale, found

    said = run("check", "--mend", db=db)
    assert "mended: 4 item(s), fingerprinted and clustered again from their text\nok: 6 items" in said, said
    assert run("check", db=db).startswith("ok:")
    assert json.loads(run("check", "--json", "--mend", db=db))["mended"] == 0

    # the same files holding the changed texts, indexed afresh (in the same order: the same ids)
    fresh = str(tmp_path / "fresh.db")  # an SQLite file either way: what it holds is compared by value
    again = index(tmp_path / "archive", {**FIRST, **CHANGED}, fresh)
    assert again == ids, f"the fresh index gave other ids: {again} != {ids}"
    mended, afresh = held(db), held(fresh)
    assert mended[0] == afresh[0], f"fingerprints and clusters after --mend:\n{mended[0]}\nafresh:\n{afresh[0]}"
    assert mended[1] == afresh[1], f"dups after --mend:\n{mended[1]}\nafresh:\n{afresh[1]}"
    clusters = {Path(str(row[0])).name: Path(str(row[-3])).name for row in mended[0]}
    assert clusters == {"a.txt": "a.txt", "b.txt": "b.txt", "c.txt": "b.txt", "d.txt": "d.txt", "f.txt": "b.txt"}, \
        clusters


@given(st.text(max_size=300))
def test_a_texts_sha1_alone_is_its_fingerprints(text: str) -> None:
    assert text_sha1(text) == fingerprint(text).sha1


def test_every_text_the_indexer_stores_is_the_one_it_fingerprinted(corpus: CorpusStore) -> None:
    """The sample corpus indexed (every format, mail, archives, texts cut):
    no item is found stale, on either backend."""
    with open_store(corpus.db, readonly=True) as store, store.snapshot() as conn:
        stale = stale_fingerprints(conn)
        _, [(fingerprinted,)] = store.execute("SELECT count(*) FROM fingerprints")
    assert int(str(fingerprinted)) > 200 and stale == [], f"{len(stale)} of {fingerprinted} stale: {stale}"
