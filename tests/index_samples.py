"""Folders of real files for the indexer's and the watcher's tests, and what
the store should hold for them."""

from __future__ import annotations

from pathlib import Path

from store_samples import prose

from lifededup.index import FolderRules
from lifededup.store import Store, check_store


def write_text(path: Path, seed: int, words: int = 200) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(prose(seed, words) + "\n", encoding="utf-8")
    return path


def write_html(path: Path, seed: int, words: int = 200) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"<html><body><p>{prose(seed, words)}</p></body></html>",
                    encoding="utf-8")
    return path


def stored_files(store: Store) -> dict[str, str]:
    """path -> status of every file item (part '')."""
    _, rows = store.execute("SELECT path, status FROM items WHERE part = ''")
    return {str(p): str(s) for p, s in rows}


def files_on_disk(root: Path) -> set[str]:
    """The files the default rules admit (no junk, nothing hidden)."""
    rules = FolderRules()
    return {str(p.resolve()) for p in root.rglob("*") if p.is_file() and rules.admits(p.relative_to(root))}


def item_ids(store: Store) -> dict[str, int]:
    _, rows = store.execute("SELECT path, id FROM items WHERE part = ''")
    return {str(p): int(i) for p, i in rows}  # type: ignore[call-overload]


def assert_matches(store: Store, root: Path) -> None:
    """The store holds exactly the folder's files, each once, and is sound."""
    want = files_on_disk(root)
    got = stored_files(store)
    assert set(got) == want, f"store has {sorted(set(got) - want)} extra, misses {sorted(want - set(got))}"
    _, dupes = store.execute("SELECT path, part, count(*) FROM items GROUP BY path, part HAVING count(*) > 1")
    assert dupes == [], f"items stored twice: {dupes}"
    problems = check_store(store)
    assert problems == [], "store invariants broken:\n" + "\n".join(map(str, problems))
