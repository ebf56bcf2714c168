"""A file renamed keeps its item (``test_moves``) without being read again --
but its name decides more than its title (``test_moves_retitled``): which
reader reads it where its content has no signature, what that reader makes
of it, and a date.  ``page.txt`` become ``page.html`` stayed text, tags and
all, with no title; ``notes.txt`` become ``notes.md`` had no Markdown
title; a diary renamed to another day kept the old day; a file unreadable
as ``x.dat`` stayed a failure as ``x.eml``; a gzipped tar called ``backup``
become ``backup.tgz`` kept the title ``backup``.  A file renamed so is read
again under its item, and stored as a fresh index of it stores it; one
renamed to be read alike (``a.pdf`` to ``b.pdf``, a folder renamed) is
followed without a read.  For ``index`` run twice (the renames between the
runs), a run stopped before the read, and the watcher's real events, on both
backends."""

from __future__ import annotations

import gzip
import io
import json
import shutil
import tarfile
import threading
from pathlib import Path

from test_moves_failed_named import cli, index
from test_watch import eventually, watching

from lifededup.extract.renamed import read_alike
from lifededup.index import IndexConfig, run
from lifededup.store import Store, check_store, open_store

SAMPLE_PDF = Path(__file__).parent.parent / "sample_corpus/Documents/residents-minutes/PDF/residents-minutes-v1.pdf"
PAGE = (b"<html><head><title>The parish news</title></head><body><p>the <b>fete</b> is on saturday at the hall "
        b"near the church, with cakes, a tombola and the brass band from the next village</p></body></html>")
# a mail with a stray NUL byte: binary by its bytes, a mail only where its name says so (registry._mail_despite_binary)
MAIL = (b"X-Mailer: an old one\nSubject: the boiler\n\nthe man comes on friday\x00 to look at the boiler, "
        b"the pipes in the loft and the tap that drips in the kitchen\n")

# old name -> new name: each read otherwise under its new name
READ_OTHERWISE = {
    "page.txt": "page.html",  # the HTML reader: tags stripped, its <title>
    "notes.txt": "notes.md",  # a Markdown title
    "2023-08-25 diary.txt": "2024-01-02 diary.txt",  # the date in its name
    "x.dat": "x.eml",  # unreadable before, a mail now
    "words.txt": "words.pdf",  # read before, a PDF that is none now: failed
    "report.pdf": "report.bak",  # its content says PDF: read again, a PDF still
    "backup": "backup.tgz",  # one layer of compression the old name did not tell: titled backup.tar now
}
# and read alike: followed, not read
READ_ALIKE = {"minutes.pdf": "minutes 2023.pdf", "old/kept.txt": "new/kept.txt"}


def a_folder(root: Path) -> Path:
    (root / "old").mkdir(parents=True)
    (root / "page.txt").write_bytes(PAGE)
    (root / "copy.html").write_bytes(PAGE)  # the page's text once it is read as a page: one cluster
    (root / "notes.txt").write_text("# Garden plans\n\nroses along the fence and beans by the shed door\n")
    (root / "2023-08-25 diary.txt").write_text("rain all day, the gutters overflowed again by the porch\n")
    (root / "x.dat").write_bytes(MAIL)
    (root / "words.txt").write_text("plain words about the allotment and the new water butt\n")
    shutil.copy(SAMPLE_PDF, root / "report.pdf")
    shutil.copy(SAMPLE_PDF, root / "minutes.pdf")
    (root / "old" / "kept.txt").write_text("the list of who brings what to the summer picnic\n")
    packed = io.BytesIO()
    with tarfile.open(fileobj=packed, mode="w") as archive:
        data = b"the receipts for the boiler and the roof\n"
        member = tarfile.TarInfo("receipts.txt")
        member.size = len(data)
        archive.addfile(member, io.BytesIO(data))
    (root / "backup").write_bytes(gzip.compress(packed.getvalue()))
    return root.resolve()


def rename(root: Path, renames: dict[str, str]) -> None:
    for old, new in renames.items():
        (root / old).rename(root / new)


def rename_all(root: Path) -> None:
    rename(root, READ_OTHERWISE)
    (root / "minutes.pdf").rename(root / "minutes 2023.pdf")
    (root / "old").rename(root / "new")


Row = tuple[object, ...]


def stored(db: Path | str) -> dict[tuple[str, str], Row]:
    """What a fresh read decides of each item, by (file name, part): all but ids, stats and times."""
    with open_store(db, readonly=True) as store:
        _, rows = store.execute("SELECT path, part, kind, mime_type, doc_date, title, text, status, error, people, "
                                "text_cut FROM items")
    return {(Path(str(r[0])).name, str(r[1])): r[2:] for r in rows}


def clusters(db: Path | str) -> set[frozenset[tuple[str, str]]]:
    """The clusters, each the (file name, part) of its members."""
    with open_store(db, readonly=True) as store:
        _, rows = store.execute("SELECT c.cluster_id, i.path, i.part FROM clusters c JOIN items i ON i.id = c.item_id")
    found: dict[object, set[tuple[str, str]]] = {}
    for cluster, path, part in rows:
        found.setdefault(cluster, set()).add((Path(str(path)).name, str(part)))
    return {frozenset(members) for members in found.values()}


def ids(db: Path | str, root: Path) -> dict[str, int]:
    """Each file's item, by its path in ``root``."""
    with open_store(db, readonly=True) as store:
        _, rows = store.execute("SELECT path, id FROM items WHERE part = ''")
    return {str(Path(str(path)).relative_to(root)): int(str(i)) for path, i in rows}


def checked(store_url: str) -> str:
    done = cli("check", "--db", store_url)
    assert done.exit_code == 0, f"`check` after the moves: {done.output}"
    return done.stdout


def test_index_reads_a_file_renamed_to_be_read_otherwise_as_a_fresh_index_does(store_url: str,
                                                                               tmp_path: Path) -> None:
    root = a_folder(tmp_path / "archive")
    index(store_url, root)
    before = ids(store_url, root)
    rename_all(root)
    said = index(store_url, root)
    moved = len(READ_OTHERWISE) + len(READ_ALIKE)
    # read again: those read otherwise, words.pdf failed; copy.html unchanged, the files read alike only moved
    assert f"new 0, updated {len(READ_OTHERWISE) - 1}, unchanged 1, moved {moved}, removed 0, failed 1" in said, said
    fresh = tmp_path / "fresh.db"
    index(str(fresh), root)
    got, want = stored(store_url), stored(fresh)
    assert got == want, f"after the renames, then as a fresh index reads them: {got} != {want}"
    assert clusters(store_url) == clusters(fresh), "the clusters are those of a fresh index"
    after = ids(store_url, root)
    kept = {new: after[new] for new in (*READ_OTHERWISE.values(), *READ_ALIKE.values())}
    assert kept == {new: before[old] for old, new in (*READ_OTHERWISE.items(), *READ_ALIKE.items())}, \
        f"every renamed file keeps its item: {before} -> {after}"
    assert "all invariants hold" in checked(store_url)
    # as a person sees it: the page's reading, not its markup
    shown = cli("show", "--json", "--db", store_url, str(root / "page.html"))
    assert shown.exit_code == 0, shown.output
    item = json.loads(shown.stdout)["item"]
    assert (item["kind"], item["title"]) == ("web page", "The parish news"), item
    assert {Path(m["item"]["path"]).name for m in json.loads(shown.stdout)["members"]} == {"page.html", "copy.html"}, \
        "the page and its copy are one text now"
    assert found(store_url, "tombola") == {("page.html", "The parish news"), ("copy.html", "The parish news")}
    assert found(store_url, "title") == set(), "no markup is searched"
    assert found(store_url, "Garden plans") == {("notes.md", "Garden plans")}
    assert found(store_url, "backup.tar") == {("backup.tgz", "backup.tar")}
    listed = cli("failures", "--json", "--db", store_url)
    assert [Path(f["path"]).name for f in json.loads(listed.stdout)] == ["words.pdf"], listed.output


def found(store_url: str, query: str) -> set[tuple[str, str]]:
    """The (file name, title) of each whole file `lifededup search --all --json QUERY` finds."""
    done = cli("search", "--all", "--json", "--db", store_url, query)
    assert done.exit_code == 0, done.output
    return {(Path(h["path"]).name, h["title"]) for h in json.loads(done.stdout)["hits"] if not h["part"]}


def test_a_run_stopped_before_the_read_leaves_it_to_the_next(store_url: str, tmp_path: Path) -> None:
    root = a_folder(tmp_path / "archive")
    index(store_url, root)
    rename(root, READ_OTHERWISE)
    stop = threading.Event()
    stop.set()  # the first file read is written, then the run stops
    with open_store(store_url) as store:
        summary = run(store, [root], IndexConfig(workers=1), stop=stop)
    assert summary.interrupted and summary.moved == len(READ_OTHERWISE) and summary.updated < len(READ_OTHERWISE), \
        summary
    # a rename keeps a file's size and mtime: the files not read yet are still to read
    index(store_url, root)
    fresh = tmp_path / "fresh.db"
    index(str(fresh), root)
    got, want = stored(store_url), stored(fresh)
    assert got == want, f"after the stopped run and the next, then as a fresh index reads them: {got} != {want}"


def test_the_watcher_reads_a_file_renamed_to_be_read_otherwise(store_url: str, tmp_path: Path) -> None:
    root = a_folder(tmp_path / "archive")
    with watching(tmp_path, root, store_url=store_url) as store:
        eventually(lambda: len(item_rows(store)) == 10, "the files are read")
        before = {name: row[0] for name, row in item_rows(store).items()}
        assert item_rows(store)["page.txt"][1:] == ("text", None)
        rename_all(root)
        eventually(lambda: item_rows(store).get("page.html", ())[1:] == ("web page", "The parish news"),
                   "page.html is read as a page")
        eventually(lambda: item_rows(store).get("backup.tgz", ())[1:] == ("archive", "backup.tar"),
                   "backup.tgz is read as a gzipped tar")
        rows = item_rows(store)
        assert rows["page.html"][0] == before["page.txt"], "the page keeps its item"
        assert rows["minutes 2023.pdf"][0] == before["minutes.pdf"], "a PDF renamed a PDF keeps its item"
        assert check_store(store) == [], "the store is sound after the moves"


def item_rows(store: Store) -> dict[str, tuple[object, ...]]:
    """(id, kind, title) of each file by its name."""
    _, rows = store.execute("SELECT path, id, kind, title FROM items WHERE part = ''")
    return {Path(str(path)).name: (int(str(i)), kind, title) for path, i, kind, title in rows}


def test_read_alike_by_the_suffix_at_each_layer() -> None:
    assert read_alike("a.pdf", "b.pdf")
    assert read_alike("a.PDF", "report 2023.pdf"), "a suffix's case is not read"
    assert read_alike("notes", "NEWS"), "no suffix: text read by its content, under either"
    assert read_alike("a.tar.bz2", "b.tar.bz2")
    assert not read_alike("page.txt", "page.html")
    assert not read_alike("a.tar.bz2", "a.bz2"), "the bzip2 data of a tar is the archive reader's"
    assert not read_alike("backup", "backup.tgz"), "one layer of compression the old name did not tell"
    assert not read_alike("notes.txt.gz", "notes.md.gz"), "the inner name's suffix"
    assert not read_alike("a.tgz", "a.tar.gz"), "read alike, but not told from the names alone"
