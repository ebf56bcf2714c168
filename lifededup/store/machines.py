"""Which computer each machine name is (table ``machines``, revision 0013).

A store keeps its items per machine name ($LIFEDEDUP_MACHINE, else the host
name), and a machine moves and removes only its own items.  Two computers of
one name -- two Raspberry Pis both ``raspberrypi``, cloned VMs -- indexing
the same folder path into one shared store would each take the other's files
for files deleted from its disk, and remove them.  So the first computer to
write under a name claims it, by a keyed hash of its machine ID; on a shared
(PostgreSQL) store another computer is refused the name until it is said to
replace the first (``lifededup machines claim``).  An SQLite store is one
computer's file: copied to a new computer, it follows it there.
"""

from __future__ import annotations

import hashlib
import hmac
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from lifededup.store.errors import StoreError
from lifededup.store.records import MACHINE_ENV, printed_back, read_time, stored_time, utc_now

if TYPE_CHECKING:
    from lifededup.store.reader import Readable
    from lifededup.store.store import Store

# systemd's machine-id(5), and D-Bus's copy of it on systems without systemd
MACHINE_ID_FILES = (Path("/etc/machine-id"), Path("/var/lib/dbus/machine-id"))
# Where there is neither (macOS, Windows, a bare container): an ID made once
# and kept in the user's data folder, beside the default store.
KEPT_ID_FILE = "machine-id"
# machine-id(5): an application shows a keyed hash of the ID, never the ID
# itself -- HMAC-SHA256 keyed by the ID over the application's own name, as
# systemd's sd_id128_get_machine_app_specific() does.
_APPLICATION = b"lifededup"


class MachineTaken(StoreError):
    """Another computer writes under this machine's name into a shared store."""


class MachineGone(MachineTaken):
    """This machine's name was renamed or forgotten while a process (a
    watcher) wrote under it: it must stop, not claim the name again."""


@dataclass(frozen=True)
class Machine:
    """A machine name the store knows: claimed by a computer, or named by
    items from before revision 0013 that no computer has claimed since
    (``claimed_at`` None).  ``here``: claimed by the computer asking."""

    name: str
    claimed_at: datetime | None
    items: int
    folders: int
    here: bool


def machine_identity(sources: Sequence[Path] = MACHINE_ID_FILES, kept: Path | None = None) -> str:
    """This computer, as 32 hex digits: a keyed hash of the first of
    ``sources`` that holds an ID, else of an ID kept in ``kept`` (default
    the user's data folder), made there the first time."""
    for source in sources:
        try:
            raw = source.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            continue
        if raw:
            break
    else:
        raw = _kept_id(kept or _data_folder() / KEPT_ID_FILE)
    return hmac.new(raw.encode(), _APPLICATION, hashlib.sha256).hexdigest()[:32]


def _data_folder() -> Path:
    import platformdirs

    return platformdirs.user_data_path("lifededup")


def _kept_id(path: Path) -> str:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with path.open("x", encoding="ascii") as out:  # two processes at once: one makes it
                made = uuid.uuid4().hex
                out.write(made + "\n")
                return made
        except FileExistsError:
            kept = path.read_text(encoding="ascii").strip()
            if kept:
                return kept
            raise OSError(f"{path} is empty") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise StoreError(f"cannot tell which computer this is: there is no {MACHINE_ID_FILES[0]}, and the ID "
                         f"kept in {path} cannot be read or made ({exc})") from exc


def claim(store: Store, *, replace: bool = False, held: bool = False) -> bool:
    """Claim ``store.machine``'s name for this computer (``store.identity``);
    True if the claim is new.  On a shared store a name another computer
    claimed is refused (:class:`MachineTaken`) unless ``replace``; an
    SQLite store's name follows the file to whichever computer writes it.
    ``held``: this process claimed the name before -- a claim gone since is
    a machine forgotten (``machines forget``) under a running watcher, which
    must stop rather than claim it again and write its files back."""
    with store.transaction():
        found = _claimant(store)
        if found is not None and found[0] == store.identity:
            return False
        if found is None and held:
            raise _gone(store)
        if found is None:
            # two computers claiming at once: the first insert wins, the other is refused below
            store.execute("INSERT INTO machines (name, identity, claimed_at) VALUES (:name, :identity, :now) "
                          "ON CONFLICT (name) DO NOTHING", _claim_row(store))
            found = _claimant(store)
            assert found is not None, "a claim was just made"
            if found[0] == store.identity:
                return True
        if not replace and store.location.backend != "sqlite":
            raise MachineTaken(_taken(store, found[1]))
        store.execute("UPDATE machines SET identity = :identity, claimed_at = :now WHERE name = :name",
                      _claim_row(store))
        return True


def still_named(store: Store) -> None:
    """Raise :class:`MachineGone` if no computer claims ``store.machine``
    any more, which a process that claimed it (a watcher, at its start)
    takes for the name renamed or forgotten by another computer (`machines
    rename`, `forget`).  Both take the machine's watched folders with its
    name, so a watcher asks when its folders vanish from the store: with
    none left it writes nothing, and a write was all that found the name
    gone -- it watched nothing on, silently.  A read: no writer's turn."""
    with store.snapshot():
        if _claimant(store) is None:
            raise _gone(store)


def _gone(store: Store) -> MachineGone:
    _, rows = store.execute("SELECT machine, count(*) FROM items GROUP BY machine ORDER BY machine")
    now = ", ".join(f"{name} ({count} items)" for name, count in rows) or "none"
    return MachineGone(
        f"the machine {store.machine!r} was renamed or forgotten (lifededup machines rename, or forget) while "
        "this process wrote as it: it stops rather than write its files back under a name that is gone. "
        f"The store's machines now: {now}. Renamed: export {MACHINE_ENV}=NEW (the new name) and start it "
        "again; folders add and index under the old name would store every file a second time. Forgotten: "
        "lifededup folders add and index (or start the watcher) again index this computer anew")


def _claimant(store: Store) -> tuple[str, datetime | None] | None:
    _, rows = store.execute("SELECT identity, claimed_at FROM machines WHERE name = :name", {"name": store.machine})
    return (str(rows[0][0]), read_time(rows[0][1])) if rows else None


def _claim_row(store: Store) -> dict[str, object]:
    return {"name": store.machine, "identity": store.identity, "now": stored_time(utc_now())}


def _taken(store: Store, since: datetime | None) -> str:
    when = f" since {since:%Y-%m-%d %H:%M} UTC" if since else ""
    return (f"another computer writes into {store.location} as the machine {store.machine!r}{when}. Two computers "
            "of one name would each take the other's files for files deleted, and remove them from the store. "
            f"If this computer is another one, give it a name of its own: export {MACHINE_ENV}=NAME "
            "(README, \"Machines\"); if it replaces that computer (a new disk, a system installed again), "
            "say so: lifededup machines claim")


def list_machines(store: Readable, name: str | None = None) -> list[Machine]:
    """Every machine name the store knows: claimed, or naming items or
    watched folders; by name.  ``here``: claimed by ``store.identity``
    (this computer).  Given ``name``, that machine alone (none if the store
    does not know it), counted through the index its paths are unique in
    rather than a census of the whole store (half a second at a million
    items)."""
    params = {"name": name} if name is not None else {}
    only, of_name = (" WHERE name = :name", " WHERE machine = :name") if name is not None else ("", "")
    with store.reading() as db:
        claims = db.execute(f"SELECT name, identity, claimed_at FROM machines{only}", params).fetchall()
        items = db.execute(f"SELECT machine, count(*) FROM items{of_name} GROUP BY machine", params).fetchall()
        folders = db.execute(f"SELECT machine, count(*) FROM watched_folders{of_name} GROUP BY machine",
                             params).fetchall()
    me = store.identity
    claimed = {str(name): (str(who), read_time(at)) for name, who, at in claims}
    item_count = {str(name): int(str(n)) for name, n in items}
    folder_count = {str(name): int(str(n)) for name, n in folders}
    names = sorted(set(claimed) | set(item_count) | set(folder_count))
    return [Machine(name, claimed[name][1] if name in claimed else None, item_count.get(name, 0),
                    folder_count.get(name, 0), name in claimed and claimed[name][0] == me)
            for name in names]


def forget_machine(store: Store, name: str) -> int | None:
    """Remove every item of the machine ``name`` (the items inside them too,
    clusters repaired: its copies elsewhere stay, one of them made their
    representative), its watched folders and its claim -- a computer retired
    from a shared store.  Its files, wherever they are, are not touched.
    How many items went; None if the store knows no such machine."""
    with store.transaction():
        _, rows = store.execute("SELECT id FROM items WHERE machine = :name", {"name": name})
        removed = store.remove_ids(int(str(r[0])) for r in rows)
        _, folders = store.execute("DELETE FROM watched_folders WHERE machine = :name RETURNING id", {"name": name})
        _, claims = store.execute("DELETE FROM machines WHERE name = :name RETURNING name", {"name": name})
        return removed if rows or folders or claims else None


def rename_machine(store: Store, old: str, new: str) -> int | None:
    """Give the machine ``old``'s items and watched folders the name ``new``
    -- a computer whose host name changed, or a store from before revision
    0009 whose items went to whichever machine upgraded it.  ``new`` must
    hold no items or folders (two machines' files are not merged) and not
    be claimed by another computer; ``old``'s claim goes, and the next
    computer to write as ``new`` claims it.  How many items were renamed;
    None if the store knows no machine ``old``.  No file is touched."""
    if not printed_back(new) or not new.strip() or new != new.strip():
        raise StoreError(f"{new!r} cannot be a machine name: it is printed MACHINE:PATH, so it holds neither "
                         "':' nor '/', nor spaces at its ends")
    with store.transaction():
        known = {m.name: m for m in list_machines(store, old)}
        if old not in known:
            return None
        if new == old:
            return known[old].items
        taken = next(iter(list_machines(store, new)), None)
        if taken is not None and (taken.items or taken.folders):
            raise StoreError(f"the machine {new!r} has {taken.items} item(s) and {taken.folders} folder(s) of its "
                             f"own: two machines' files are not merged (lifededup machines forget {new} first, if "
                             "they are stale)")
        if taken is not None and taken.claimed_at is not None and not taken.here:
            raise StoreError(f"another computer claimed the machine name {new!r}: a name of its own, or that "
                             "computer's `lifededup machines forget` first")
        store.execute("UPDATE items SET machine = :new WHERE machine = :old", {"new": new, "old": old})
        store.execute("UPDATE watched_folders SET machine = :new WHERE machine = :old", {"new": new, "old": old})
        store.execute("DELETE FROM machines WHERE name = :old", {"old": old})
        return known[old].items
