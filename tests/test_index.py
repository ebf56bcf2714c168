"""The indexer on real folders: new, unchanged, changed, moved, removed and
failed files, junk and patterns, an interrupted run, and the CLI."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from dataclasses import replace
from collections.abc import Iterator
from pathlib import Path, PurePath

import pytest
from click.testing import CliRunner
from corpus_store import CORPUS
from index_samples import assert_matches, item_ids, stored_files, write_html, write_text
from store_samples import prose, revised

from lifededup.cli import main
from lifededup.extract import Limits
from lifededup.index import FolderRules, IndexConfig, failures, is_junk, run
from lifededup.store import Store, open_store

CONFIG = IndexConfig(workers=2, batch_items=8)
SAMPLE = Path(__file__).resolve().parent.parent / "sample_corpus"


@pytest.fixture
def store(tmp_path: Path) -> Store:
    opened = open_store(tmp_path / "store.db")
    yield opened  # type: ignore[misc]
    opened.close()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "archive"
    for i in range(6):
        write_text(root / "notes" / f"note{i}.txt", seed=i)
    write_html(root / "web" / "page.html", seed=1)  # the same words as note1: an exact copy
    (root / "web" / "copy.txt").write_text((root / "notes" / "note2.txt").read_text())
    return root


def mail_with_a_damaged_attachment(subject: str, body: str, name: str, subtype: str) -> bytes:
    """A mail whose one attachment, ``name``, is an office file that is no zip at all."""
    from email.message import EmailMessage

    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "a@example.org", "b@example.org", subject
    message.set_content(body)
    message.add_attachment(b"PK\x03\x04 not a zip at all", maintype="application", subtype=subtype, filename=name)
    return bytes(message)


def test_first_run_reads_everything_and_second_run_nothing(store: Store, folder: Path) -> None:
    first = run(store, [folder], CONFIG)
    assert (first.new, first.updated, first.unchanged, first.failed) == (8, 0, 0, 0), first
    assert first.exact_duplicates == 2, f"note1/page.html and note2/copy.txt are exact copies: {first}"
    assert_matches(store, folder)
    second = run(store, [folder], CONFIG)
    assert (second.new, second.updated, second.unchanged, second.read) == (0, 0, 8, 0), second


def test_changed_file_is_read_again_and_touched_one_is_not(store: Store, folder: Path) -> None:
    run(store, [folder], CONFIG)
    ids = item_ids(store)
    changed = folder / "notes" / "note3.txt"
    changed.write_text(prose(99) + "\n")
    touched = folder / "notes" / "note4.txt"
    os.utime(touched, (1_000_000, 1_000_000))
    summary = run(store, [folder], CONFIG)
    assert (summary.updated, summary.unchanged, summary.new) == (1, 7, 0), summary
    assert item_ids(store) == ids, "an update must keep the item's id"
    _, rows = store.execute("SELECT text FROM items WHERE path = ?", (str(changed.resolve()),))  # type: ignore[arg-type]
    assert rows[0][0].strip() == prose(99), "the changed file's new text is stored"
    _, rows = store.execute("SELECT mtime FROM items WHERE path = ?", (str(touched.resolve()),))  # type: ignore[arg-type]
    assert rows[0][0] == 1_000_000, "a touched file's new mtime is remembered, so it is not hashed again"
    assert_matches(store, folder)


def test_rename_and_folder_move_keep_items_and_clusters(store: Store, folder: Path) -> None:
    run(store, [folder], CONFIG)
    before = item_ids(store)
    _, clusters_before = store.execute("SELECT count(DISTINCT cluster_id) FROM clusters")
    (folder / "notes" / "note0.txt").rename(folder / "notes" / "renamed.txt")
    (folder / "web").rename(folder / "moved web")
    summary = run(store, [folder], CONFIG)
    assert (summary.moved, summary.new, summary.removed) == (3, 0, 0), summary
    after = item_ids(store)
    assert after[str((folder / "notes" / "renamed.txt").resolve())] == before[str((folder / "notes" / "note0.txt").resolve())]
    assert after[str((folder / "moved web" / "page.html").resolve())] == before[str((folder / "web" / "page.html").resolve())]
    _, clusters_after = store.execute("SELECT count(DISTINCT cluster_id) FROM clusters")
    assert clusters_after == clusters_before, "moves must not change the clusters"
    assert_matches(store, folder)


def test_deleted_files_are_removed_with_cluster_repair(store: Store, folder: Path) -> None:
    run(store, [folder], CONFIG)
    (folder / "notes" / "note1.txt").unlink()  # the representative of page.html's cluster
    (folder / "notes" / "note5.txt").unlink()
    summary = run(store, [folder], CONFIG)
    assert summary.removed == 2, summary
    assert summary.exact_duplicates == 1, summary
    assert_matches(store, folder)


def test_paths_of_single_files_and_a_vanished_file(store: Store, folder: Path) -> None:
    run(store, [folder], CONFIG)
    gone = folder / "notes" / "note2.txt"
    gone.unlink()
    summary = run(store, [gone, folder / "notes" / "note3.txt"], CONFIG)
    assert (summary.removed, summary.unchanged) == (1, 1), summary
    assert_matches(store, folder)


def test_failures_are_recorded_and_do_not_stop_the_run(store: Store, folder: Path) -> None:
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog")
    (folder / "empty.txt").write_bytes(b"")
    summary = run(store, [folder], CONFIG)
    assert (summary.new, summary.failed) == (8, 2), summary
    got = {Path(f.path).name: f.status for f in failures(store)}
    assert got == {"broken.pdf": "corrupt", "empty.txt": "empty"}, got
    assert all(f.reason for f in failures(store)), "every failure says why"
    assert run(store, [folder], CONFIG).read == 0, "a failed file that did not change is not read again"


def test_a_file_or_part_that_failed_keeps_the_kind_its_name_says(store: Store, tmp_path: Path) -> None:
    """``SELECT kind, count(*) ... WHERE status <> 'ok'`` tells mail from spreadsheets: a failure is not
    recorded as a "document" whatever it is."""
    folder = tmp_path / "life"
    folder.mkdir()
    (folder / "letter.eml").write_bytes(b"")
    (folder / "budget.xlsx").write_bytes(b"PK\x03\x04 not a zip at all")
    (folder / "notes.txt.gz").write_bytes(b"\x1f\x8b\x08 damaged")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog")
    (folder / "figures.eml").write_bytes(mail_with_a_damaged_attachment(
        "Figures", "The figures are attached.", "figures.xlsx", "vnd.openxmlformats-officedocument.spreadsheetml.sheet"))
    with (folder / "inbox.mbox").open("wb") as box:
        box.write(b"From a@example.org Mon Jan  1 00:00:00 2024\nSubject: hello\n\nA short message.\n\n")
        box.write(b"From b@example.org Mon Jan  1 00:00:00 2024\nSubject: big\n\n" + b"many words " * 20_000)
    small = Limits(max_bytes=100_000)
    run(store, [folder], replace(CONFIG, limits=small))
    _, rows = store.execute("SELECT path, part, kind FROM items WHERE status <> 'ok'")
    got = {(Path(str(r[0])).name, r[1]): r[2] for r in rows}  # type: ignore[call-overload]
    assert got == {
        ("letter.eml", ""): "email", ("budget.xlsx", ""): "spreadsheet", ("notes.txt.gz", ""): "text",
        ("broken.pdf", ""): "document", ("figures.eml", "attachment 1: figures.xlsx"): "spreadsheet",
        ("inbox.mbox", "message 2"): "email",
    }, got


def test_a_file_too_large_to_read_is_not_read_to_hash_it_and_is_followed_when_moved(store: Store,
                                                                                    tmp_path: Path) -> None:
    """A file over the readers' limit is recorded too-large unread, yet the
    indexer read every byte of it first, for its SHA-1: a virtual machine's
    20 GB disk, again at each change the watcher saw.  It is not hashed now
    (its raw_sha1 NULL), moved to another folder it is followed by its inode; a mailbox of any
    size is still hashed (it is read as a stream, and its hash tells mail appended)."""
    folder = tmp_path / "life"
    folder.mkdir()
    (folder / "disk.img").write_bytes(b"\x00\x01" * 60_000)
    (folder / "book.txt").write_text(prose(4, 30_000))
    (folder / "notes.txt").write_text(prose(3))
    with (folder / "inbox.mbox").open("wb") as box:
        for n in range(40):
            box.write(b"From a@example.org Mon Jan  1 00:00:00 2024\nSubject: note %d\n\n" % n
                      + prose(n, 600).encode() + b"\n\n")
    small = replace(CONFIG, limits=Limits(max_bytes=100_000))
    run(store, [folder], small)
    _, rows = store.execute("SELECT path, status, raw_sha1 FROM items WHERE part = ''")
    got = {Path(str(r[0])).name: (r[1], r[2] is not None) for r in rows}
    assert got == {"disk.img": ("unsupported", False), "book.txt": ("too-large", False), "notes.txt": ("ok", True),
                   "inbox.mbox": ("ok", True)}, got
    assert (folder / "inbox.mbox").stat().st_size > 100_000
    (folder / "old").mkdir()
    (folder / "disk.img").rename(folder / "old" / "disk.img")
    summary = run(store, [folder], small)
    assert (summary.moved, summary.new) == (1, 0), summary
    _, rows = store.execute("SELECT path FROM items WHERE path LIKE '%.img'")
    assert [str(r[0]) for r in rows] == [str(folder / "old" / "disk.img")], rows


def test_junk_hidden_and_patterns(store: Store, folder: Path) -> None:
    for junk in (".DS_Store", "~$report.docx", ".report.txt.swp", "film.part", "setup.crdownload", ".hidden.txt"):
        (folder / junk).write_text(prose(7))
        assert junk == ".hidden.txt" or is_junk(junk), junk
    write_text(folder / ".git" / "notes.txt", seed=3)
    run(store, [folder], CONFIG)
    assert_matches(store, folder)  # assert_matches ignores dot files; junk must not be stored either
    assert not any("~$" in p or p.endswith((".part", ".crdownload")) for p in stored_files(store))
    rules = FolderRules(include=("*.txt",), exclude=("web/*",))
    run(store, [folder], IndexConfig(workers=2, rules=rules))
    names = sorted(Path(p).name for p in stored_files(store))
    assert names == [f"note{i}.txt" for i in range(6)], f"rules not applied: {names}"


def test_thunderbirds_folder_summaries_are_not_documents(store: Store, tmp_path: Path) -> None:
    """Thunderbird keeps beside each mailbox (``Inbox``, no suffix) a summary of it, ``Inbox.msf``: a Mork
    database, text of hex numbers and the messages' headers, which was read as a document of its own (and
    found by a search for a subject).  It is junk, and an item of one stored before is removed."""
    local = tmp_path / "Mail" / "Local Folders"
    local.mkdir(parents=True)
    (local / "Inbox").write_text("From - Mon Jun  3 09:30:00 2024\nFrom: sam@example.org\nSubject: Boat trip\n"
                                 "Message-ID: <1@example.org>\n\nSee you Monday at the harbour.\n\n")
    (local / "Inbox.msf").write_text('// <!-- <mdb:mork:z v="1.4"/> -->\n< <(a=c)> // (f=iso-8859-1)\n'
                                     "  (B8=ns:msg:db:row:scope:msgs:all)(BA=subject)(BB=sender)>\n"
                                     "<(80=Boat trip)(81=sam@example.org)>\n"
                                     "{1:^80 {(k^B9:c)(s=9)} [1(^BA^80)(^BB^81)]}\n")
    assert is_junk("Inbox.msf") and not is_junk("Inbox")
    store.execute("INSERT INTO items (path, part, kind, status, text, indexed_at, machine, size, mtime) VALUES "
                  "(:path, '', 'text', 'ok', '(80=Boat trip)', 0, :machine, 10, 1)",
                  {"path": str(local / "Inbox.msf"), "machine": store.machine})  # as a run before this one read it
    summary = run(store, [tmp_path / "Mail"], CONFIG)
    assert summary.removed == 1, summary
    _, rows = store.execute("SELECT path, part, title FROM items ORDER BY part")
    assert [(Path(str(p)).name, str(part), t) for p, part, t in rows] == [
        ("Inbox", "", "Inbox"), ("Inbox", "message 1", "Boat trip")], rows


@pytest.mark.skipif(not os.path.exists("/proc/self/mountinfo"), reason="Linux's /proc: what is skipped")
def test_the_systems_own_file_systems_are_never_listed(store: Store) -> None:
    """`lifededup index /` read every process's /proc files (70 failures for
    /proc/self/net alone; some block a reader) and /sys's: the kernel's
    state, not documents.  Such a file system is recorded once, not listed."""
    from lifededup.index.scan import system_filesystems

    assert "proc" in system_filesystems().values(), system_filesystems()
    summary = run(store, [Path("/proc/self/net")], CONFIG)
    _, rows = store.execute("SELECT path, status, error FROM items")
    assert summary.failed == 1 and len(rows) == 1, rows
    [(path, status, error)] = rows
    assert path.startswith("/proc/") and status == "not-a-file" and "system's own file system (proc)" in error, rows


def test_maildir_plus_plus_folders_are_read_though_hidden(store: Store, tmp_path: Path) -> None:
    """Dovecot and Courier keep a Maildir's folders as `.Sent` and
    `.Archive.2019` (Maildir++): hidden names, so a user's sent mail was never
    indexed, with no word in `failures`. A hidden folder holding cur and new
    is read; its server's files (maildirfolder, dovecot-uidlist) are not
    documents; a program's hidden folder stays out."""
    import mailbox

    root = tmp_path / "Maildir"
    box = mailbox.Maildir(root, create=True)

    def mail(n: int, subject: str) -> bytes:
        return (f"From: me@example.org\nTo: you@example.org\nSubject: {subject}\n"
                f"Message-ID: <{n}@example.org>\n\n{prose(n)}\n").encode()

    box.add(mailbox.MaildirMessage(mail(1, "inbox")))
    box.add_folder("Sent").add(mailbox.MaildirMessage(mail(2, "sent")))
    box.add_folder("Archive.2019").add(mailbox.MaildirMessage(mail(3, "archived")))
    (root / "dovecot-uidlist").write_text("3 V1700000000 N1\n")
    write_text(root / ".cache" / "notes.txt", seed=4)
    summary = run(store, [root], CONFIG)
    _, rows = store.execute("SELECT title FROM items WHERE part = '' ORDER BY title")
    assert [r[0] for r in rows] == ["archived", "inbox", "sent"], rows
    assert summary.failed == 0, summary
    assert FolderRules().admits(PurePath(".Sent/new/1700000000.M1P2.host")), "a watcher's event in it is taken"
    assert not FolderRules().admits(PurePath(".cache/notes.txt"))


def test_stopped_run_is_finished_by_the_next(store: Store, folder: Path) -> None:
    stop = threading.Event()
    stop.set()  # as a signal handler would, while the first outcomes arrive
    first = run(store, [folder], IndexConfig(workers=1, batch_items=1), stop=stop)
    assert first.interrupted and first.read < 8, first
    second = run(store, [folder], CONFIG)
    assert first.read + second.read == 8, (first, second)
    assert_matches(store, folder)


def test_mailbox_parts_are_stored_and_refreshed(store: Store, tmp_path: Path) -> None:
    root = tmp_path / "mail"
    root.mkdir()
    box = root / "box.mbox"

    def message(n: int) -> str:
        return (f"From a@b Mon Jan  1 00:00:00 2024\nFrom: a@b\nSubject: s{n}\n"
                f"Message-ID: <{n}@b>\n\n{prose(n)}\n\n")

    box.write_text("".join(message(n) for n in range(3)))
    run(store, [root], CONFIG)
    _, rows = store.execute("SELECT part FROM items WHERE path = ? ORDER BY part", (str(box.resolve()),))  # type: ignore[arg-type]
    assert [r[0] for r in rows] == ["", "message 1", "message 2", "message 3"], rows
    box.write_text(message(0))
    run(store, [root], CONFIG)
    _, rows = store.execute("SELECT part FROM items WHERE path = ? ORDER BY part", (str(box.resolve()),))  # type: ignore[arg-type]
    assert [r[0] for r in rows] == ["", "message 1"], f"messages gone from the mailbox stay stored: {rows}"
    assert_matches(store, root)


def test_cli_index_summary_and_failures(tmp_path: Path, folder: Path) -> None:
    db = str(tmp_path / "cli.db")
    runner = CliRunner()
    (folder / "empty.txt").write_bytes(b"")
    result = runner.invoke(main, ["index", "--db", db, "-j", "2", str(folder)])
    assert result.exit_code == 0, result.output
    assert "new 8, updated 0, unchanged 0, moved 0, removed 0, failed 1" in result.output, result.output
    assert "lifededup failures" in result.output, result.output
    listed = runner.invoke(main, ["failures", "--db", db])
    assert listed.exit_code == 0 and "empty\t" in listed.output and "empty.txt" in listed.output, listed.output
    missing = runner.invoke(main, ["index", "--db", db, str(tmp_path / "nowhere")])
    assert missing.exit_code != 0 and "does not exist" in missing.output, missing.output


def test_a_store_error_in_the_writer_stops_the_run_and_surfaces(store: Store, folder: Path) -> None:
    from lifededup.config import FingerprintParams
    from lifededup.store import ParamsMismatch

    run(store, [folder], CONFIG)
    write_text(folder / "later.txt", seed=50)
    other = IndexConfig(workers=2, params=FingerprintParams(shingle_words=5))
    with pytest.raises(ParamsMismatch, match="cannot be\\s+compared"):
        run(store, [folder], other)
    assert str((folder / "later.txt").resolve()) not in stored_files(store), "the failed batch was rolled back"
    assert run(store, [folder], CONFIG).new == 1, "the next run with the store's params finishes the work"
    assert_matches(store, folder)


def test_index_follows_the_patterns_of_the_watched_folder_a_path_is_in(tmp_path: Path, folder: Path) -> None:
    db = str(tmp_path / "cli.db")
    runner = CliRunner()
    elsewhere = write_html(tmp_path / "elsewhere" / "page.html", seed=70)
    added = runner.invoke(main, ["folders", "add", "--db", db, str(folder), "--exclude", "notes"])
    assert added.exit_code == 0, added.output
    result = runner.invoke(main, ["index", "--db", db, "-j", "2", str(folder / "web"), str(folder / "notes"),
                                  str(elsewhere.parent)])
    assert result.exit_code == 0, result.output
    with open_store(db) as store:
        names = sorted(Path(p).name for p in stored_files(store))
    assert names == ["copy.txt", "page.html", "page.html"], f"notes/ is excluded by its folder's patterns: {names}"
    assert "new 3, " in result.output, result.output


def test_progress_log_lines_and_bar(capsys: pytest.CaptureFixture[str]) -> None:
    from lifededup.index import Bar, LogLines

    now = [0.0]
    lines: list[str] = []
    log = LogLines(lines.append, every_s=5.0, clock=lambda: now[0])
    log.start(3)
    for second, name in ((1.0, "/a/one.txt"), (6.0, "/a/two.pdf"), (7.0, "/a/three.eml")):
        now[0] = second
        log.file_done(name, 2**20)
    log.finish()
    assert lines == [
        "reading 3 file(s)",
        "2/3 files, 0.3 files/s, 0.33 MB/s  /a/two.pdf",
        "3/3 files, 0.4 files/s, 0.43 MB/s",
    ], lines
    bar = Bar()
    bar.start(2)
    bar.file_done("/a/one.txt", 2**20)
    bar.file_done("/a/a very long name of a report that goes on.docx", 2**20)
    bar.finish()
    shown = capsys.readouterr().err
    assert "2/2" in shown and "2.0 MB" in shown and "that goes on.docx" in shown, shown
    # a name's control characters print escaped: no terminal title set, no log line forged
    hostile = "/a/x\x1b]0;PWNED\x07\nFAKE LOG LINE.txt"
    lines.clear()
    log = LogLines(lines.append, every_s=0.0, clock=lambda: now[0])
    log.start(1)
    log.file_done(hostile, 1)
    assert lines[1].endswith("/a/x\\x1b]0;PWNED\\x07\\x0aFAKE LOG LINE.txt"), lines
    bar = Bar()
    bar.start(1)
    bar.file_done(hostile, 1)
    bar.finish()
    shown = capsys.readouterr().err
    assert "\x1b]0;" not in shown and "\\x1b]0;PWNED" in shown, repr(shown)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A filesystem of 600 kB (a tmpfs, grown on demand with ``remount``).
    Mounting needs the privilege to (root in a privileged container, as
    here); where it is missing the test cannot make a disk fill up, and is
    skipped with the system's reason."""
    where = tmp_path / "small disk"
    where.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=600k", "tmpfs", str(where)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small filesystem here: {mounted.stderr.strip() or mounted.returncode}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "--lazy", str(where)], capture_output=True)


def test_a_full_disk_is_one_line_and_the_next_run_finishes(small_disk: Path, tmp_path: Path) -> None:
    """The disk holding the store fills up while `lifededup index` writes:
    one line says so, no traceback; once there is room the same command
    finishes the work, `check` clean."""
    folder = tmp_path / "docs"
    for n in range(400):
        write_text(folder / f"{n}.txt", seed=n)
    db = small_disk / "store.db"
    command = [sys.executable, "-m", "lifededup", "index", "--db", str(db), str(folder)]
    full = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert full.returncode == 1, f"400 texts fit in 600 kB? {full.stdout} {full.stderr}"
    assert "Error: the disk holding the store is full" in full.stderr and "Traceback" not in full.stderr, full.stderr
    grown = subprocess.run(["mount", "-o", "remount,size=64m", str(small_disk)], capture_output=True, text=True)
    assert grown.returncode == 0, grown.stderr
    again = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    checked = subprocess.run([sys.executable, "-m", "lifededup", "check", "--db", str(db)], capture_output=True,
                             text=True, timeout=300)
    assert checked.returncode == 0 and "ok: 400 items" in checked.stdout, checked.stdout + checked.stderr


def test_a_file_that_ran_out_of_memory_is_read_again_with_more(store: Store, tmp_path: Path) -> None:
    """Under a memory limit too low for them (48 MiB: below what a worker
    needs), the sample letters fail as out of memory (or a crash naming the
    limit) -- never as damaged,
    which lxml's "XMLSyntaxError: unknown error" read as -- and are not
    read again under the same limit; a run with more memory reads them."""
    from dataclasses import replace

    from lifededup.extract import Limits

    folder = tmp_path / "letters"
    shutil.copytree(SAMPLE / "Letters" / "Hartwell & Penrose", folder)
    files = len(list(folder.iterdir()))
    starved = replace(CONFIG, limits=Limits(memory_mb=48))
    first = run(store, [folder], starved)
    _, rows = store.execute("SELECT status, error FROM items WHERE status <> 'ok'")
    assert first.failed and len(rows) == first.failed, (first, rows)
    for status, error in rows:  # a worker starved from its start may die before it can say so: crashed
        assert status in ("too-large", "crashed") and "48 MiB memory limit" in str(error), (status, error)
    again = run(store, [folder], starved)
    assert (again.read, again.unchanged) == (0, files), f"read again under the same limit: {again}"
    fed = run(store, [folder], CONFIG)
    assert (fed.updated, fed.failed, fed.failed_in_store) == (first.failed, 0, 0), fed
    settled = run(store, [folder], CONFIG)
    assert (settled.read, settled.unchanged) == (0, files), settled


def test_a_mailbox_whose_message_was_too_large_is_read_again_with_more_memory(store: Store, tmp_path: Path) -> None:
    """A message over an eighth of the worker's memory is ``too-large``; its mailbox, which read well, is not
    read again under the same limit, and is under a higher ``--memory-mb`` (only ``--reread`` did, before)."""
    folder = tmp_path / "mail"
    folder.mkdir()
    with (folder / "inbox.mbox").open("wb") as box:
        box.write(b"From a@example.org Mon Jan  1 00:00:00 2024\nSubject: tide\n\nThe first, about the tide.\n\n")
        box.write(b"From b@example.org Mon Jan  1 00:00:00 2024\nSubject: huge\n\n" + b"x" * (21 * 2**20) + b"\n\n")
    tight = replace(CONFIG, limits=Limits(memory_mb=160))
    run(store, [folder], tight)
    status = "SELECT status, error FROM items WHERE part = 'message 2'"
    _, rows = store.execute(status)
    assert [r[0] for r in rows] == ["too-large"] and "160 MiB memory limit" in str(rows[0][1]), rows
    assert run(store, [folder], tight).read == 0, "read again under the same limit"
    more = run(store, [folder], CONFIG)
    assert (more.read, more.updated, more.failed) == (1, 1, 0), more
    _, rows = store.execute(status)
    assert [r[0] for r in rows] == ["ok"], rows


def test_the_summary_adds_up_whole_files_and_parts_that_failed(store: Store, tmp_path: Path) -> None:
    """'failed' counts items, a part inside a file included: the summary
    says how many were whole files, so that new + updated + those are the
    files read (a user's run read 1,254 files: new 1,238, failed 56)."""
    from lifededup.cli.index import summary_lines

    folder = tmp_path / "mail"
    folder.mkdir()
    (folder / "minutes.eml").write_bytes(mail_with_a_damaged_attachment(
        "Minutes", "The minutes are attached, and the budget too.", "budget.docx",
        "vnd.openxmlformats-officedocument.wordprocessingml.document"))
    (folder / "empty.txt").write_bytes(b"")
    write_text(folder / "note.txt", seed=3)
    summary = run(store, [folder], CONFIG)
    assert (summary.new, summary.failed, summary.failed_files) == (2, 2, 1), summary
    assert summary.new + summary.updated + summary.failed_files == 3, "the files read"
    assert "failed 2 (1 file(s) and 1 part(s) inside files)" in summary_lines(summary)[0], summary_lines(summary)
    # a mail archive's failures all attachments: not "(0 file(s) and 1 part(s) inside files)"
    (folder / "empty.txt").write_text("written since", encoding="utf-8")
    again = run(store, [folder], replace(CONFIG, reread=True))
    assert (again.failed, again.failed_files) == (1, 0), again
    line = summary_lines(again)[0]
    assert "failed 1 (all of them parts inside files, no whole file)" in line and "0 file(s)" not in line, line


def test_a_store_kept_in_a_folder_it_indexes_is_not_one_of_its_files(tmp_path: Path) -> None:
    """LIFEDEDUP_DB inside a watched folder: the store's database, -wal and
    -shm were indexed as failures ('unsupported', 'empty') and read again
    every run, as they change with every write."""
    folder = tmp_path / "home"
    write_text(folder / "note.txt", seed=4)
    with open_store(folder / "archive.db") as store:
        first = run(store, [folder], CONFIG)
        assert (first.new, first.failed) == (1, 0), first
        _, rows = store.execute("SELECT path FROM items")
        assert [Path(str(r[0])).name for r in rows] == ["note.txt"], rows
        again = run(store, [folder], CONFIG)
        assert (again.read, again.unchanged) == (0, 1), again


def test_reread_reads_every_file_again_and_an_interrupted_one_is_finished_by_a_plain_index(
        store_url: str, folder: Path) -> None:
    """A store indexed by an older lifededup kept its readings for good (a
    licence file 'unsupported', a PDF's old text) while a fresh store of the
    same files read them all: only a changed file was read again.  `index
    --reread` reads every file again under its item; interrupted, the files
    it did not reach are marked, and a plain `index` finishes them."""
    with open_store(store_url) as store:
        run(store, [folder], CONFIG)
        ids = item_ids(store)
        note = str((folder / "notes" / "note0.txt").resolve())
        # what an older lifededup left: a file it could not read, unchanged since
        store.execute("UPDATE items SET status = 'unsupported', error = 'not a format lifededup reads', text = NULL"
                      " WHERE path = :path", {"path": note})
        assert run(store, [folder], CONFIG).unchanged == 8, "an unchanged file is not read again"
        moved = folder / "notes" / "note5.txt"
        moved.rename(folder / "note5 moved.txt")  # a move is followed, and the file read again too
        again = run(store, [folder], IndexConfig(workers=2, reread=True))
        assert (again.updated, again.moved, again.unchanged, again.new) == (8, 1, 0, 0), again
        _, rows = store.execute("SELECT status, text FROM items WHERE path = :path", {"path": note})
        assert rows[0][0] == "ok" and rows[0][1], rows
        now = item_ids(store)
        assert now.pop(str((folder / "note5 moved.txt").resolve())) == ids.pop(str(moved.resolve()))
        assert now == ids, "every item read again under its id"
        stop = threading.Event()
        stop.set()
        first = run(store, [folder], IndexConfig(workers=1, batch_items=1, reread=True), stop=stop)
        assert first.interrupted and first.read < 8, first
        from lifededup.cli.index import summary_lines

        # what the command says: not "run the same command again", which would start the reread over
        assert "a plain `lifededup index` of the same paths (without --reread) finishes it" in \
            summary_lines(first, reread=True)[-1]
        second = run(store, [folder], CONFIG)
        assert first.read + second.read == 8, (first, second)
        assert_matches(store, folder)
    out = CliRunner().invoke(main, ["index", "--reread", "--db", store_url, str(folder)])
    assert out.exit_code == 0 and "\nnew 0, updated 8, unchanged 0," in out.output, out.output


def test_the_summarys_exact_and_near_duplicates_add_up_to_the_items_search_hides(store: Store,
                                                                                 tmp_path: Path) -> None:
    """A near copy with two exact copies of it counted in both (the sample's
    46 exact and 29 near, where a collapsed search hides 59): each text of a
    cluster besides its representative's is counted once, its copies as exact."""
    folder = tmp_path / "drafts"
    folder.mkdir()
    text = prose(5)
    (folder / "report.txt").write_text(text)
    near = revised(text, 1)
    for name in ("report v2.txt", "report v2 copy.txt", "report v2 (1).txt"):
        (folder / name).write_text(near)
    (folder / "report copy.txt").write_text(text)
    summary = run(store, [folder], CONFIG)
    _, rows = store.execute("SELECT sum(hidden) FROM cluster_sizes")
    assert (summary.exact_duplicates, summary.near_duplicates) == (3, 1), summary
    assert summary.exact_duplicates + summary.near_duplicates == rows[0][0] == 4, rows


def test_a_table_of_readings_resaved_with_one_corrected_is_a_near_copy_and_other_months_are_not(
        store: Store, tmp_path: Path) -> None:
    """A spreadsheet is mostly numbers, which the paper's filter drops before
    shingling: its few words repeat into fewer distinct shingles than a
    sample needs, and it was matched by SHA-1 alone -- the sheet re-saved
    with one reading corrected was a document apart (a tester's find). Such
    a text is now sampled with its numbers; the monthly statements of one
    template, all numbers but their headings, stay apart."""
    import openpyxl

    folder = tmp_path / "sheets"
    folder.mkdir()
    original = CORPUS / "Documents" / "river-survey" / "river-readings.xlsx"
    shutil.copy(original, folder / "river-readings.xlsx")
    book = openpyxl.load_workbook(original)
    sheet = book.active
    cell = next(c for row in sheet.iter_rows(min_row=2) for c in row if isinstance(c.value, float))
    cell.value = round(cell.value + 1.0, 1)  # one reading corrected
    book.save(folder / "river-readings (corrected).xlsx")
    statements = sorted((CORPUS / "Finance").glob("statement-2023-*.csv"))
    for statement in statements:
        shutil.copy(statement, folder / statement.name)
    run(store, [folder], IndexConfig(workers=1))
    _, rows = store.execute("SELECT i.path, c.cluster_id, f.f1 FROM items i JOIN clusters c ON c.item_id = i.id "
                            "JOIN fingerprints f ON f.item_id = i.id")
    cluster = {Path(str(p)).name: int(str(c)) for p, c, _ in rows}
    assert cluster["river-readings.xlsx"] == cluster["river-readings (corrected).xlsx"], cluster
    assert all(f is not None for p, _, f in rows if str(p).endswith(".xlsx")), "the sheets are sampled"
    months = [cluster[s.name] for s in statements]
    assert len(set(months)) == len(statements), f"statements of other months grouped: {cluster}"


def test_daily_logs_on_one_time_grid_stay_apart(store: Store, tmp_path: Path) -> None:
    """Sampled with their numbers, eight daily sensor logs of one half-hour
    grid (their readings all other) were one cluster: 29.6% apart in words,
    the times alike, and candidates through a few shared sketch values
    (resemblance 0.13). A text sampled with its numbers is a candidate by a
    shared feature alone."""
    import random

    folder = tmp_path / "logs"
    folder.mkdir()
    rng = random.Random(7)
    for day in range(1, 9):
        lines = [f"2025-03-{day:02} {m // 60:02}:{m % 60:02}:00 site a temp {rng.uniform(10, 25):.1f} "
                 f"hum {rng.randint(40, 90)}" for m in range(0, 24 * 60, 30)]
        (folder / f"sensor-2025-03-{day:02}.log").write_text("\n".join(lines) + "\n")
    run(store, [folder], IndexConfig(workers=1))
    _, rows = store.execute("SELECT count(DISTINCT cluster_id) FROM clusters")
    assert rows == [(8,)], f"logs of other days grouped: {rows}"


def test_a_table_of_numbers_with_words_added_stays_beside_its_draft(store_url: str, tmp_path: Path) -> None:
    """A text mostly numbers was sampled with them only while its filtered
    words made too few shingles: a paragraph of notes added to a sheet of
    readings, or seven releases (two of them release candidates, "0rc1")
    added to a list of announcements -- pytest 7.4.0's and 8.0.0's
    doc/en/announce/index.rst in the real archive, 4.3% of words apart --
    sampled the new draft without its numbers, in shingles the old one
    never has (resemblance 0.002), and each draft was a cluster of its own.
    Both backends."""
    import random

    rng = random.Random(3)
    rows = ["date,site,reading,temperature"] + [f"2024-03-{d % 28 + 1:02},site a,{rng.randint(100, 999)},"
                                                f"{rng.randint(0, 30)}" for d in range(80)]
    sheets, lists = tmp_path / "sheets", tmp_path / "announce"
    sheets.mkdir()
    lists.mkdir()
    (sheets / "readings.csv").write_text("\n".join(rows) + "\n")
    (sheets / "readings with notes.csv").write_text(
        "\n".join(rows) + "\nnotes: the March readings at site a were taken after the flood by the new volunteers "
        "from the school, so treat them with care until the calibration of the meter is checked again next spring "
        "by the county office\n")
    releases = [f"release-{major}.{minor}.{patch}" for major in range(2, 8) for minor in range(5) for patch in range(4)]
    later = ["release-8.0.0", "release-8.0.0rc2", "release-8.0.0rc1", "release-7.5.3", "release-7.5.2",
             "release-7.5.1", "release-7.5.0"]
    head = "Release announcements\n=====================\n\n.. toctree::\n   :maxdepth: 2\n\n"
    (lists / "index 7.4.rst").write_text(head + "".join(f"   {r}\n" for r in releases[::-1]))
    (lists / "index 8.0.rst").write_text(head + "".join(f"   {r}\n" for r in later + releases[::-1]))
    with open_store(store_url) as opened:
        run(opened, [sheets, lists], IndexConfig(workers=1))
        _, rows_found = opened.execute("SELECT i.path, c.cluster_id, f.f1 IS NOT NULL, f.sketch IS NULL FROM items i "
                                       "JOIN clusters c ON c.item_id = i.id JOIN fingerprints f ON f.item_id = i.id")
    found = {Path(str(p)).name: (int(str(c)), bool(sampled), bool(unsketched)) for p, c, sampled, unsketched
             in rows_found}
    assert all(sampled for _, sampled, _ in found.values()), found
    # the sheet's words alone are too few for a sketch; with the notes they make one, which it keeps
    assert (found["readings.csv"][2], found["readings with notes.csv"][2]) == (True, False), found
    assert found["readings.csv"][0] == found["readings with notes.csv"][0], found
    assert found["index 7.4.rst"][0] == found["index 8.0.rst"][0], found
    assert found["readings.csv"][0] != found["index 7.4.rst"][0], found


def test_a_log_grown_by_a_quarter_is_found_through_the_sketch_of_its_words(store_url: str, tmp_path: Path) -> None:
    """A log is mostly numbers (dates, times, versions), sampled with them; a
    snapshot of it at three quarters of its length shares no feature with
    the whole (a real dpkg.log at 72-85%), and was a near copy of it through
    the sketch of its words alone (package names and actions) -- which a
    text sampled with its numbers kept no more, so it stood alone. Both
    backends."""
    import random

    rng = random.Random(5)
    names = ["lib" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(4, 9)))
             for _ in range(300)]
    lines = [f"2025-06-{day:02} {hour:02}:{minute:02}:{second:02} {rng.choice(['install', 'upgrade', 'configure'])} "
             f"{rng.choice(names)}:amd64 {rng.randint(1, 9)}.{rng.randint(0, 40)}-{rng.randint(1, 9)}"
             for day, hour, minute, second in ((rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59),
                                                rng.randint(0, 59)) for _ in range(1200))]
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "dpkg.log").write_text("\n".join(lines) + "\n")
    (logs / "dpkg.log.1").write_text("\n".join(lines[:900]) + "\n")
    with open_store(store_url) as opened:
        run(opened, [logs], IndexConfig(workers=1))
        _, rows_found = opened.execute("SELECT c.cluster_id, f.sketch IS NOT NULL FROM clusters c "
                                       "JOIN fingerprints f ON f.item_id = c.item_id")
    assert [bool(sketched) for _, sketched in rows_found] == [True, True], rows_found
    assert len({int(str(cluster)) for cluster, _ in rows_found}) == 1, rows_found


def test_a_sent_mails_blind_copies_are_among_its_people(store: Store, tmp_path: Path) -> None:
    """A sent mail keeps its Bcc: recipients in the sender's copy; items.people
    named from, to and cc only, so a search for a blind-copied friend missed it."""
    from email.message import EmailMessage

    folder = tmp_path / "Sent"
    folder.mkdir()
    sent = EmailMessage()
    sent["From"], sent["To"], sent["Bcc"] = "Me <me@example.org>", "Sam <sam@example.org>", "Dana <dana@example.org>"
    sent["Subject"] = "Plans"
    sent.set_content(prose(5))
    (folder / "plans.eml").write_bytes(bytes(sent))
    run(store, [folder], CONFIG)
    _, rows = store.execute("SELECT people FROM items WHERE part = ''")
    assert rows == [("from Me <me@example.org>; to Sam <sam@example.org>; bcc Dana <dana@example.org>",)], rows



def test_a_file_failed_for_a_missing_program_is_read_again_once_it_is_installed(store: Store, tmp_path: Path) -> None:
    """A .doc indexed before antiword was installed stayed 'missing-tool' until
    it changed, or --reread: installing the program, as the failure says to,
    changed nothing."""
    import shutil as which

    if which.which("antiword") is None:
        pytest.skip("antiword not installed (scripts/install-system-deps.sh)")
    folder = tmp_path / "docs"
    folder.mkdir()
    shutil.copy(CORPUS / "Documents" / "Other formats" / "garden-club-report-v3.doc", folder)
    run(store, [folder], CONFIG)
    store.execute("UPDATE items SET status = 'missing-tool', text = NULL, error = :e",
                  {"e": "reading Word 97-2003 .doc needs 'antiword': install it with 'sudo apt-get install antiword'"})
    again = run(store, [folder], CONFIG)
    assert again.updated == 1, again
    _, rows = store.execute("SELECT status FROM items")
    assert rows == [("ok",)], rows
