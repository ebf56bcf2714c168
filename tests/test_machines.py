"""Two computers of one name on one store (revision 0013): the first to write
under a machine name claims it, and on a shared PostgreSQL store another
computer is refused the name -- the two would each take the other's files
for files deleted and remove them -- until it says it replaces the first.
An SQLite store is one computer's file, and follows it to a new one.

The computers are told apart as lifededup tells them: by /etc/machine-id.
The command-line tests run a second computer as a real process in a mount
namespace of its own, with another machine ID and other files at the same
path bind-mounted over the real ones."""

from __future__ import annotations

import json
import os
import pty
import re
import shlex
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from index_samples import files_on_disk, write_text
from readme_blocks import readme_section
from store_samples import fp, prose
from test_daemon_unit import unit_lines
from test_store import sound
from test_watch import TIMEOUT_S
from test_watch_machines import files_of

from lifededup.index import IndexConfig, run
from lifededup.store import (
    ItemRecord,
    MachineTaken,
    StoreError,
    WatchedFolder,
    add_folder,
    forget_machine,
    list_folders,
    list_machines,
    open_store,
)
from lifededup.store.machines import machine_identity, rename_machine
from lifededup import watch as watch_package
from lifededup.watch import Watcher


def claims(url: str) -> dict[str, tuple[bool, int]]:
    """name -> (claimed, items), as ``lifededup machines list`` sees them."""
    with open_store(url, readonly=True, identity="reader") as store:
        return {m.name: (m.claimed_at is not None, m.items) for m in list_machines(store)}


# -- which computer this is --------------------------------------------------------


def test_the_identity_is_a_keyed_hash_of_the_machine_id_never_the_id(tmp_path: Path) -> None:
    machine_id = tmp_path / "machine-id"
    machine_id.write_text("3d1219c7c4c5404aaa1f6d2a48adfda4\n")
    other = tmp_path / "other-id"
    other.write_text("0123456789abcdef0123456789abcdef\n")
    mine = machine_identity([machine_id])
    assert mine == machine_identity([tmp_path / "absent", machine_id]), "the first ID there is is read"
    assert len(mine) == 32 and "3d1219c7" not in mine, f"{mine}: the machine ID itself must not be shown"
    assert machine_identity([other]) != mine


def test_without_a_machine_id_one_is_made_once_and_kept(tmp_path: Path) -> None:
    kept = tmp_path / "data" / "machine-id"
    first = machine_identity([tmp_path / "absent"], kept)
    assert kept.is_file(), "the ID made is kept for the next run"
    assert machine_identity([tmp_path / "absent"], kept) == first, "the kept ID names the same computer"
    (tmp_path / "empty").write_text("\n")
    assert machine_identity([tmp_path / "empty"], kept) == first, "an empty machine-id is no ID"


def test_an_id_that_cannot_be_kept_is_a_clear_error(tmp_path: Path) -> None:
    blocked = tmp_path / "a file, not a folder"
    blocked.write_text("")
    with pytest.raises(StoreError, match="cannot tell which computer this is"):
        machine_identity([tmp_path / "absent"], blocked / "machine-id")


# -- claims, on both backends ------------------------------------------------------


def test_the_first_write_claims_the_name(store_url: str) -> None:
    with open_store(store_url, machine="pi", identity="first") as store:
        assert list_machines(store) == [], "nothing claimed before a write"
        store.upsert_item(ItemRecord(path="/home/pi/a.txt"), None)
        [pi] = list_machines(store)
    assert (pi.name, pi.items, pi.folders, pi.here, pi.claimed_at is not None) == ("pi", 1, 0, True, True), pi


def test_a_second_computer_of_one_name_is_refused_on_a_server_and_followed_on_a_file(store_url: str) -> None:
    with open_store(store_url, machine="pi", identity="first") as first:
        first.upsert_item(ItemRecord(path="/home/pi/a.txt"), None)
    with open_store(store_url, machine="pi", identity="second") as second:
        if second.location.backend == "sqlite":
            second.upsert_item(ItemRecord(path="/home/pi/b.txt"), None)
            [pi] = list_machines(second)
            assert pi.here, "an SQLite store follows its file to the computer that writes it"
            return
        for write in (lambda: second.upsert_item(ItemRecord(path="/home/pi/b.txt"), None),
                      lambda: second.remove_items(["/home/pi/a.txt"]),
                      lambda: second.move_item("/home/pi/a.txt", "/home/pi/c.txt"),
                      lambda: second.record_failure("/home/pi/d.txt", "unreadable")):
            with pytest.raises(MachineTaken, match="export LIFEDEDUP_MACHINE=NAME.*lifededup machines claim"):
                write()
    assert claims(store_url) == {"pi": (True, 1)}, "the refused computer wrote nothing"
    with open_store(store_url, readonly=True) as reader:
        assert [str(r[0]) for r in reader.execute("SELECT path FROM items")[1]] == ["/home/pi/a.txt"]


def test_a_computer_that_replaces_another_claims_its_name(pg_url: str) -> None:
    with open_store(pg_url, machine="laptop", identity="old") as old:
        old.upsert_item(ItemRecord(path="/home/me/a.txt"), None)
        with open_store(pg_url, machine="laptop", identity="new") as new:
            new.claim_machine(replace=True)
            new.remove_items(["/home/me/a.txt"])
            new.upsert_item(ItemRecord(path="/home/me/b.txt"), None)
            [laptop] = list_machines(new)
            assert laptop.here and laptop.items == 1, laptop
        with pytest.raises(MachineTaken):
            old.upsert_item(ItemRecord(path="/home/me/c.txt"), None)


def test_a_claim_rolled_back_is_made_again(pg_url: str) -> None:
    """A batch that fails takes the claim it made with it: the next write
    claims again, and a computer that claimed meanwhile is not overridden."""
    with open_store(pg_url, machine="pi", identity="first") as first:
        with pytest.raises(RuntimeError), first.transaction():
            first.upsert_item(ItemRecord(path="/a.txt"), None)
            raise RuntimeError("the batch failed")
        assert claims(pg_url) == {}, "the claim went with its batch"
        with open_store(pg_url, machine="pi", identity="second") as second:
            second.upsert_item(ItemRecord(path="/b.txt"), None)
        with pytest.raises(MachineTaken):
            first.upsert_item(ItemRecord(path="/a.txt"), None)


def test_two_computers_claiming_at_once_one_wins(pg_url: str) -> None:
    rounds = 8
    outcomes: dict[tuple[int, str], str] = {}
    start = threading.Barrier(2)
    open_store(pg_url).close()  # the schema: two first opens at once are test_migrations' case

    def computer(identity: str) -> None:
        for n in range(rounds):
            try:
                with open_store(pg_url, machine=f"pi{n}", identity=identity) as store:
                    start.wait(TIMEOUT_S)
                    try:
                        store.upsert_item(ItemRecord(path=f"/{identity}.txt"), None)
                        outcomes[n, identity] = "claimed"
                    except MachineTaken:
                        outcomes[n, identity] = "refused"
            except BaseException as exc:  # noqa: BLE001 -- reported in the test's thread
                outcomes[n, identity] = repr(exc)
                start.abort()
                return

    threads = [threading.Thread(target=computer, args=(who,)) for who in ("one", "two")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(TIMEOUT_S)
    for n in range(rounds):
        assert {outcomes.get((n, "one")), outcomes.get((n, "two"))} == {"claimed", "refused"}, outcomes
    assert claims(pg_url) == {f"pi{n}": (True, 1) for n in range(rounds)}


def test_a_watcher_on_a_taken_name_stops_with_the_reason(tmp_path: Path, pg_url: str) -> None:
    """Not "could not write, will try again" every 30 s for ever: waiting
    does not change which computer this is."""
    root = tmp_path / "archive"
    write_text(root / "a.txt", seed=1)
    with open_store(pg_url, machine="pi", identity="first") as first:
        run(first, [root], IndexConfig(workers=1))
    errors: list[BaseException] = []
    stop = threading.Event()

    def watch() -> None:
        with open_store(pg_url, machine="pi", identity="second") as second:
            try:
                Watcher(second, [WatchedFolder(str(root))], IndexConfig(workers=1), stop, retry_after=0.2).run()
            except BaseException as exc:  # reported in the test's thread
                errors.append(exc)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    thread.join(TIMEOUT_S)
    stop.set()
    assert not thread.is_alive(), "the watcher kept retrying a name another computer claimed"
    assert len(errors) == 1 and isinstance(errors[0], MachineTaken), errors


def test_forgetting_a_retired_machine_keeps_its_copies_elsewhere(store_url: str) -> None:
    """The old laptop is sold: its items, folders and claim go; the copy of
    one of its texts on the NAS stays, in a cluster repaired around it."""
    with open_store(store_url, machine="old-laptop", identity="old") as old:
        add_folder(old, "/home/me")
        report = old.upsert_item(ItemRecord("/home/me/report.txt", text=prose(1)), fp(prose(1)))
        old.upsert_item(ItemRecord("/home/me/letter.txt", text=prose(2)), fp(prose(2)))
    with open_store(store_url, machine="nas", identity="nas") as nas:
        copy = nas.upsert_item(ItemRecord("/srv/report.txt", text=prose(1)), fp(prose(1)))
        assert nas.execute("SELECT cluster_id FROM clusters WHERE item_id = :i", {"i": copy})[1] == [(report,)]
        # what `machines forget` asks about: the one machine, counted alone
        [laptop] = list_machines(nas, "old-laptop")
        assert (laptop.name, laptop.items, laptop.folders, laptop.here) == ("old-laptop", 2, 1, False)
        assert laptop.claimed_at is not None
        assert list_machines(nas, "nobody") == []
        assert forget_machine(nas, "old-laptop") == 2
        assert forget_machine(nas, "old-laptop") is None, "a machine the store no longer knows"
        assert [(m.name, m.items, m.folders) for m in list_machines(nas)] == [("nas", 1, 0)]
        assert nas.execute("SELECT item_id, cluster_id FROM clusters")[1] == [(copy, copy)]
        assert nas.execute("SELECT count(*) FROM watched_folders")[1] == [(0,)]
        sound(nas)


def test_machines_forget_asks_or_wants_yes(tmp_path: Path) -> None:
    db = str(tmp_path / "store.db")
    with open_store(db, machine="old-laptop") as old:
        old.upsert_item(ItemRecord("/home/me/a.txt", text=prose(1)), fp(prose(1)))
    command = [sys.executable, "-m", "lifededup", "machines", "forget", "--db", db]
    piped = subprocess.run([*command, "old-laptop"], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert piped.returncode == 1 and "needs --yes" in piped.stderr, piped.stderr
    unknown = subprocess.run([*command, "--yes", "nobody"], capture_output=True, text=True, timeout=120)
    assert unknown.returncode == 1 and "the store has no machine 'nobody'" in unknown.stderr, unknown.stderr
    done = subprocess.run([*command, "--yes", "--json", "old-laptop"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and json.loads(done.stdout) == {"machine": "old-laptop", "forgotten": 1}, done.stderr
    assert claims(db) == {}


def typed_on_a_terminal(command: list[str], answer: str) -> tuple[int, str]:
    """Run ``command`` on a real (pseudo-)terminal, ``answer`` typed at it:
    its exit status and what the terminal showed."""
    controller, terminal = pty.openpty()
    try:
        process = subprocess.Popen(command, stdin=terminal, stdout=terminal, stderr=terminal)
        os.close(terminal)
        os.write(controller, answer.encode())  # the terminal keeps the line until the prompt reads it
        shown = b""
        while True:
            try:
                chunk = os.read(controller, 4096)
            except OSError:  # the process ended and its terminal closed
                break
            if not chunk:
                break
            shown += chunk
        return process.wait(timeout=120), shown.decode()
    finally:
        os.close(controller)


def test_machines_forget_on_a_terminal_asks_and_a_no_keeps_everything(tmp_path: Path) -> None:
    """The prompt a person answers: what would go, counted for that machine;
    "n" keeps every item, "y" forgets them. No file is touched either way."""
    db = str(tmp_path / "store.db")
    with open_store(db, machine="old-laptop") as old:
        add_folder(old, "/home/me")
        for n in (1, 2):
            old.upsert_item(ItemRecord(f"/home/me/{n}.txt", text=prose(n)), fp(prose(n)))
    with open_store(db, machine="nas") as nas:
        nas.upsert_item(ItemRecord("/srv/1.txt", text=prose(1)), fp(prose(1)))
    command = [sys.executable, "-m", "lifededup", "machines", "forget", "--db", db, "old-laptop"]
    status, shown = typed_on_a_terminal(command, "n\n")
    assert "forget the 2 item(s) and 1 watched folder(s) of 'old-laptop'? (no file is touched)" in shown, shown
    assert status == 1 and "nothing forgotten" in shown, shown
    assert claims(db) == {"old-laptop": (True, 2), "nas": (True, 1)}
    status, shown = typed_on_a_terminal(command, "y\n")
    assert status == 0 and "forgot the machine 'old-laptop': 2 item(s) removed from the store" in shown, shown
    assert claims(db) == {"nas": (True, 1)}


# -- the command line: a second computer as a real process -------------------------


def said_as_the_readme_shows(stderr: str) -> bool:
    """The refusal is the one README "Machines" shows, but for the store and the time."""
    [shown] = re.findall(r"```\n(Error: another computer.*?)```", readme_section("## Indexing and watching folders"),
                         flags=re.S)
    said = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", "2026-11-25 08:12 UTC",
                  re.sub(r"into \S+ as", "into postgresql://lifededup@nas/lifededup as", stderr))
    return " ".join(said.split()) == " ".join(shown.split())


class Computer:
    """``lifededup`` run as another computer: in a mount namespace of its
    own, with ``machine_id`` over /etc/machine-id and ``over``'s files
    over its path (the same path, other files)."""

    def __init__(self, machine_id: str | None, over: tuple[Path, Path] | None, env: dict[str, str]) -> None:
        """``over``: (a path, the files this computer has there)."""
        self.machine_id, self.over, self.env = machine_id, over, env

    def __call__(self, *args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "lifededup", *args]
        if self.machine_id is None:
            return subprocess.run(command, env=self.env, capture_output=True, text=True, timeout=300)
        mounts = [("/etc/machine-id", self.machine_id)] + ([(str(self.over[0]), str(self.over[1]))] if self.over else [])
        script = " && ".join(f"mount --bind {shlex.quote(src)} {shlex.quote(dst)}" for dst, src in mounts)
        return subprocess.run(["unshare", "--mount", "sh", "-c", f'{script} && exec "$@"', "sh", *command],
                              env=self.env, capture_output=True, text=True, timeout=300)


@pytest.fixture
def two_computers(tmp_path: Path) -> tuple[Path, Path]:
    """A machine ID for the second computer, and its files.  Mount
    namespaces need the privilege to (root in a privileged container, as
    here); without it there is no second computer to run, and the test is
    skipped with the system's reason."""
    if not Path("/etc/machine-id").is_file():
        pytest.skip("this system has no /etc/machine-id to stand another in for")
    other_id = tmp_path / "other-machine-id"
    other_id.write_text("0123456789abcdef0123456789abcdef\n")
    tried = subprocess.run(["unshare", "--mount", "mount", "--bind", str(other_id), "/etc/machine-id"],
                           capture_output=True, text=True)
    if tried.returncode != 0:
        pytest.skip(f"cannot run a second computer in a mount namespace here: {tried.stderr.strip()}")
    return other_id, tmp_path / "the other computer's files"


def test_two_raspberry_pis_of_one_name_do_not_remove_each_others_files(
        tmp_path: Path, pg_url: str, two_computers: tuple[Path, Path]) -> None:
    """The issue's case: two computers both called raspberrypi index the same
    path, each with other files there, into one PostgreSQL store."""
    other_id, other_files = two_computers
    root = tmp_path / "home" / "pi" / "Documents"
    for i in range(3):
        write_text(root / f"first{i}.txt", seed=i)
    for i in range(2):
        write_text(other_files / f"second{i}.txt", seed=10 + i)
    env = {**os.environ, "LIFEDEDUP_MACHINE": "raspberrypi", "LIFEDEDUP_DB": pg_url}
    first = Computer(None, None, env)
    second = Computer(str(other_id), (root, other_files), env)

    indexed = first("index", str(root))
    assert indexed.returncode == 0, indexed.stderr
    with open_store(pg_url, readonly=True) as reader:
        before = files_of(reader, "raspberrypi")
    assert set(before) == files_on_disk(root), before

    refused = second("index", str(root))
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "Error: another computer writes into" in refused.stderr and "Traceback" not in refused.stderr, refused.stderr
    assert said_as_the_readme_shows(refused.stderr), refused.stderr
    with open_store(pg_url, readonly=True) as reader:
        assert files_of(reader, "raspberrypi") == before, "the second computer removed the first one's files"

    listed = second("machines", "list")
    assert listed.returncode == 0, listed.stderr
    assert "raspberrypi" in listed.stdout and "(this computer)" not in listed.stdout, listed.stdout
    assert "which another computer claimed" in listed.stdout, listed.stdout
    refused_folder = second("folders", "add", str(root))
    assert refused_folder.returncode == 1 and "another computer writes into" in refused_folder.stderr
    watcher = second("watch", str(root))
    unit = (Path(watch_package.__file__).parent / "lifededup.service").read_text()
    assert unit_lines(unit, "RestartPreventExitStatus") == ["78"], unit
    assert watcher.returncode == 78, "EX_CONFIG, which the unit does not restart: trying every 10 s mends nothing"
    assert "another computer writes into" in watcher.stderr and "Traceback" not in watcher.stderr, watcher.stderr

    named = Computer(str(other_id), (root, other_files), {**env, "LIFEDEDUP_MACHINE": "raspberrypi2"})
    own_name = named("index", str(root))
    assert own_name.returncode == 0, own_name.stderr
    with open_store(pg_url, readonly=True) as reader:
        assert files_of(reader, "raspberrypi") == before, "the first computer's items are kept"
        assert {Path(p).name for p in files_of(reader, "raspberrypi2")} == {"second0.txt", "second1.txt"}
        sound(reader)
    assert first("machines", "list").stdout.count("(this computer)") == 1


def test_a_new_computer_claims_the_name_of_the_one_it_replaces(
        tmp_path: Path, pg_url: str, two_computers: tuple[Path, Path]) -> None:
    """The old laptop's disk died; the new one, of the same name, says it
    replaces it, and from then on the old one is the one refused."""
    other_id, other_files = two_computers
    root = tmp_path / "home" / "me"
    for i in range(3):
        write_text(root / f"note{i}.txt", seed=i)
    backup = (root / "note0.txt").read_bytes()
    other_files.mkdir(parents=True)
    (other_files / "note0.txt").write_bytes(backup)  # restored from a backup
    env = {**os.environ, "LIFEDEDUP_MACHINE": "laptop", "LIFEDEDUP_DB": pg_url}
    old, new = Computer(None, None, env), Computer(str(other_id), (root, other_files), env)
    assert old("index", str(root)).returncode == 0
    with open_store(pg_url, readonly=True) as reader:
        kept_id = files_of(reader, "laptop")[str(root / "note0.txt")][0]

    claimed = new("machines", "claim")
    assert claimed.returncode == 0 and "as the machine 'laptop'" in claimed.stdout, claimed.stdout + claimed.stderr
    indexed = new("index", str(root))
    assert indexed.returncode == 0, indexed.stderr
    with open_store(pg_url, readonly=True) as reader:
        now = files_of(reader, "laptop")
        assert set(now) == {str(root / "note0.txt")}, "the new computer's index keeps what its disk has"
        assert now[str(root / "note0.txt")][0] == kept_id, "the file restored keeps its item"
        sound(reader)
    listed = new("machines", "list")
    assert "(this computer)" in listed.stdout, listed.stdout
    # claimed again, as a script would: the name it writes as, and where
    claimed = new("machines", "claim", "--json")
    assert claimed.returncode == 0, claimed.stderr
    assert json.loads(claimed.stdout)["machine"] == "laptop", claimed.stdout
    again = old("index", str(root))
    assert again.returncode == 1 and "another computer writes into" in again.stderr, again.stderr


def test_machines_list_before_any_store_makes_no_file(tmp_path: Path) -> None:
    db = tmp_path / "not yet.db"
    listed = subprocess.run([sys.executable, "-m", "lifededup", "machines", "list", "--db", str(db)],
                            capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0 and "no machines yet" in listed.stdout, listed.stdout + listed.stderr
    assert not db.exists(), "a listing made the store"


@pytest.mark.parametrize("name", ["home:laptop", "a/b"])
def test_a_machine_name_that_cannot_be_printed_back_is_refused_before_anything_is_made(tmp_path: Path,
                                                                                       name: str) -> None:
    """Another machine's file prints as MACHINE:PATH: a name holding ':' or
    '/' would print as something that cannot be read back, so a writer
    refuses it, before the store is made."""
    folder = tmp_path / "docs"
    write_text(folder / "a.txt", seed=1)
    db = tmp_path / "new.db"
    done = subprocess.run([sys.executable, "-m", "lifededup", "index", str(folder), "--db", str(db)],
                          env={**os.environ, "LIFEDEDUP_MACHINE": name}, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and f"the machine name {name!r} holds ':' or '/'" in done.stderr, done.stderr
    assert not db.exists(), "the store was made before the name was refused"


def test_show_takes_machine_path_and_will_not_guess_between_two_machines(pg_url: str,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """search prints another machine's copy as MACHINE:PATH: show takes that
    back; a path two machines hold, asked from a third, names both to choose
    from instead of showing one of them."""
    from click.testing import CliRunner

    from lifededup.cli import main

    for machine in ("laptop", "nas"):
        text = prose(3) + f" kept on the {machine}"
        with open_store(pg_url, machine=machine) as store:
            store.upsert_item(ItemRecord("/home/me/notes.txt", text=text), fp(text))

    def show(asking: str, name: str) -> tuple[int, str]:
        monkeypatch.setenv("LIFEDEDUP_MACHINE", asking)
        done = CliRunner().invoke(main, ["show", name, "--db", pg_url])
        return done.exit_code, done.output

    code, out = show("phone", "/home/me/notes.txt")
    assert code == 1 and "is a file of 2 machines: give one of laptop:/home/me/notes.txt, nas:/home/me/notes.txt" \
        in out, out
    code, out = show("phone", "nas:/home/me/notes.txt")
    assert code == 0 and out.startswith("item ") and "nas:/home/me/notes.txt" in out.splitlines()[0], out
    code, out = show("laptop", "/home/me/notes.txt")
    assert code == 0 and out.splitlines()[0].endswith(": /home/me/notes.txt (document, ok)"), out
    code, out = show("laptop", "tablet:/home/me/notes.txt")
    assert code == 1 and "no item" in out, out


def test_a_writer_whose_machine_was_forgotten_stops_rather_than_claim_it_again(store_url: str) -> None:
    """machines forget under a running watcher: its next batch claimed the
    name again and went on writing the forgotten machine's files back.  A
    store that held the claim now refuses; one opened afresh claims anew."""
    with open_store(store_url, machine="desktop") as running:
        running.upsert_item(ItemRecord("/home/me/a.txt", text=prose(1)), fp(prose(1)))
        with open_store(store_url, machine="laptop") as other:
            assert forget_machine(other, "desktop") == 1
        with pytest.raises(MachineTaken, match="'desktop' was renamed or forgotten"):
            running.upsert_item(ItemRecord("/home/me/b.txt", text=prose(2)), fp(prose(2)))
    with open_store(store_url, machine="desktop") as afresh:
        afresh.upsert_item(ItemRecord("/home/me/b.txt", text=prose(2)), fp(prose(2)))
        assert [(m.name, m.items) for m in list_machines(afresh)] == [("desktop", 1)]
        sound(afresh)


def test_a_writer_whose_machine_was_renamed_says_to_write_as_the_new_name(store_url: str) -> None:
    """machines rename under a running watcher: it stopped saying the name
    was forgotten and to run folders add and index again -- which, done,
    stored every file twice, under the old name and the new.  It says the
    name may have been renamed, what the store's machines are now, and to
    export LIFEDEDUP_MACHINE=NEW."""
    from lifededup.store.machines import MachineGone

    with open_store(store_url, machine="laptop") as running:
        running.upsert_item(ItemRecord("/home/me/a.txt", text=prose(1)), fp(prose(1)))
        with open_store(store_url, machine="nas") as other:
            assert rename_machine(other, "laptop", "old-laptop") == 1
        with pytest.raises(MachineGone) as stopped:
            running.upsert_item(ItemRecord("/home/me/b.txt", text=prose(2)), fp(prose(2)))
    said = str(stopped.value)
    assert "'laptop' was renamed or forgotten" in said and "old-laptop (1 items)" in said, said
    assert "export LIFEDEDUP_MACHINE=NEW" in said and "a second time" in said, said


def test_rename_gives_a_machines_items_another_name_and_merges_none(store_url: str,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A store upgraded past revision 0009 by a search on the phone has its
    items under 'phone'; `machines rename phone laptop` gives them back to the
    laptop, whose next index finds them unchanged.  A name with items of its
    own is not merged into; a bad name and an unknown machine are refused."""
    from click.testing import CliRunner

    from lifededup.cli import main

    with open_store(store_url, machine="phone") as store:
        store.upsert_item(ItemRecord("/home/me/a.txt", text=prose(1)), fp(prose(1)))
        add_folder(store, "/home/me")
    with open_store(store_url, machine="nas") as store:
        store.upsert_item(ItemRecord("/srv/b.txt", text=prose(2)), fp(prose(2)))

    def cli(*args: str) -> tuple[int, str]:
        done = CliRunner().invoke(main, ["machines", *args, "--db", store_url])
        return done.exit_code, done.output

    assert cli("rename", "phone", "nas") == (1, "Error: the machine 'nas' has 1 item(s) and 0 folder(s) of its own: "
                                             "two machines' files are not merged (lifededup machines forget nas "
                                             "first, if they are stale)\n")
    assert cli("rename", "phone", "a:b")[0] == 1 and cli("rename", "tablet", "x")[0] == 1
    assert cli("rename", "phone", "laptop") == (0, "renamed the machine 'phone' to 'laptop': 1 item(s)\n")
    with open_store(store_url, machine="laptop") as store:
        assert [(m.name, m.items, m.folders) for m in list_machines(store)] == [("laptop", 1, 1), ("nas", 1, 0)]
        assert [f.path for f in list_folders(store)] == ["/home/me"]
        sound(store)
