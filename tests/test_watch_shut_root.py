"""A watched folder behind a folder that is shut while the watcher runs
(``chmod 000`` of its parent): the watcher goes on, keeps the folder's
items, and reads it again once it opens (helper G saw Python 3.11's
``Path.is_dir`` raise PermissionError there and stop the watcher).  A real
watcher process that permissions bind, real files."""

from __future__ import annotations

import time
from pathlib import Path

from index_samples import write_text
from test_watch_permissions import env, home, items, needs_permissions, wait_for, watcher  # noqa: F401

# the watcher looks at its folders every few seconds (watch/watcher.py): one more look after the one that
# found this one shut
_LOOK_S = 6.0


@needs_permissions
def test_a_watched_folder_behind_a_shut_folder_keeps_its_items_and_is_read_once_open(
        tmp_path: Path, env: dict[str, str], home: Path) -> None:  # noqa: F811
    outer = home / "locked"
    docs = outer / "docs"
    note = write_text(docs / "council.txt", seed=7)
    with watcher(tmp_path, docs, env, settled=note) as log:
        was = items(tmp_path / "s.db")[str(note)][:2]
        outer.chmod(0)
        # the watcher looks at its folders, and cannot see this one; then looks again
        wait_for(lambda: "locked/docs is not there any more" in log.read_text(errors="replace"), "the shut folder said",
                 log)
        time.sleep(_LOOK_S)
        assert items(tmp_path / "s.db")[str(note)][:2] == was, "the shut folder's items are kept"
        outer.chmod(0o755)
        later = write_text(docs / "later.txt", seed=8)
        wait_for(lambda: items(tmp_path / "s.db").get(str(later), (0, ""))[1] == "ok", "a new file read", log)
        assert items(tmp_path / "s.db")[str(note)][:2] == was
