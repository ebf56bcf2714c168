"""A file still being written leaves nothing in the store when it cannot be
read: the watcher reads a PDF downloading slowly as it is every
``max_wait`` seconds, and each such partial read was recorded a failure --
`lifededup failures` listed it from the first partial read until it was read
whole, and a good version of the file being rewritten slowly lost its item's
text to it.  The store keeps what it had (the previous good item, or
nothing) until the file reads, or is found damaged once still.  Real
watchdog events, the watcher's ``max_wait`` cut to 3 s as in
``test_watch_growing``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from test_watch import eventually
from test_watch_growing import PDF, watching, write_slowly

from lifededup.store import Store
from lifededup.store.failures import failures

SECONDS = 8.0  # written for this long: two reads at least while it grows (max_wait 3 s)


def listed(store: Store, path: Path) -> list[str]:
    """What `lifededup failures` says of ``path``."""
    return [f"{f.status}: {f.reason}" for f in failures(store) if f.path == str(path.resolve())]


def item_of(store: Store, path: Path) -> tuple[object, ...] | None:
    rows = store.execute("SELECT id, status, text FROM items WHERE path = :p AND part = ''",
                         {"p": str(path.resolve())})[1]
    return tuple(rows[0]) if rows else None


def write_watching(path: Path, data: bytes, look: list[object], check: Callable[[], object]) -> float:
    """``data`` written to ``path`` in pieces over SECONDS, ``check()`` taken
    into ``look`` after each piece but the last; returns when it ended
    (time.time())."""
    ended = write_slowly(path, data, SECONDS, after_each=lambda: look.append(check()))
    # the last check is taken once the file is whole: it may be read, or listed, by then (a check
    # slowed past the watcher's DELAY_S by a loaded machine saw the PDF stored whole, rightly)
    del look[-1:]
    return ended


def written_unlisted(store: Store, target: Path) -> float:
    """The PDF written to ``target`` over SECONDS while a watcher on ``store``
    runs: neither listed by `failures` nor stored while it grows, and read
    whole once written (nor listed then); returns when the writing ended."""
    seen: list[object] = []
    ended = write_watching(target, PDF.read_bytes(), seen, lambda: (listed(store, target), item_of(store, target)))
    eventually(lambda: (item_of(store, target) or (0, ""))[1] == "ok", "the PDF is read whole once written")
    after = listed(store, target)
    failed = [said for said, _ in seen if said]  # type: ignore[misc]
    assert not failed, f"`failures` listed the PDF while it was written: {failed[:3]}"
    items = {item for _, item in seen if item is not None}  # type: ignore[misc]
    assert not items, f"a half-written PDF was stored: {sorted(map(str, items))[:3]}"
    assert not after, after
    return ended


def test_a_pdf_still_being_written_is_never_listed_as_failed(tmp_path: Path) -> None:
    root = tmp_path / "Downloads"
    root.mkdir()
    with watching(tmp_path, root) as store:
        written_unlisted(store, root / "minutes.pdf")


def test_a_pdf_left_damaged_is_listed_once_still(tmp_path: Path) -> None:
    root = tmp_path / "Downloads"
    root.mkdir()
    target = root / "cut.pdf"
    with watching(tmp_path, root) as store:
        seen: list[object] = []
        write_watching(target, PDF.read_bytes()[:20_000], seen, lambda: listed(store, target))
        eventually(lambda: bool(listed(store, target)), "the half PDF is listed once it is still")
        assert [said.split(":")[0] for said in listed(store, target)] == ["corrupt"], listed(store, target)
    assert not any(seen), f"listed while it was written: {[s for s in seen if s][:3]}"


def test_a_good_pdf_rewritten_slowly_keeps_its_item_until_the_new_one_reads(tmp_path: Path) -> None:
    root = tmp_path / "Downloads"
    root.mkdir()
    target = root / "minutes.pdf"
    with watching(tmp_path, root) as store:
        target.write_bytes(PDF.read_bytes())
        eventually(lambda: (item_of(store, target) or (0, ""))[1] == "ok", "the first version is read")
        first = item_of(store, target)
        assert first is not None and "Elm Court" in str(first[2]), first
        seen: list[object] = []
        newer = PDF.with_name("residents-minutes-v3.pdf").read_bytes()
        write_watching(target, newer, seen, lambda: (item_of(store, target), listed(store, target)))
        eventually(lambda: (item_of(store, target) or (0, "", ""))[2] != first[2], "the new version is read")
        last = item_of(store, target)
    changed = [item for item, _ in seen if item != first]  # type: ignore[misc]
    assert not changed, f"the good item changed while the new version was written: {str(changed[0])[:200]}"
    assert not any(said for _, said in seen), [said for _, said in seen if said][:3]  # type: ignore[misc]
    assert last is not None and last[0] == first[0] and last[1] == "ok", f"kept its id and read whole: {last!r:.200}"
