"""Two ``lifededup index`` runs of the same folder started together: each
planned before the other wrote, so both said "new" of every file, while the
store held each file once (the second upserted what the first had stored).
A file read as new that another run stored meanwhile as the same bytes is
left as it is and counted unchanged; the summaries add up to the files
once.  Real processes, a folder of 300 files, SQLite and PostgreSQL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from index_samples import write_text

from lifededup.store import check_store, open_store

FILES = 300


def test_two_runs_together_say_new_of_each_file_once(tmp_path: Path, store_url: str) -> None:
    folder = tmp_path / "docs"
    paths = {str(write_text(folder / f"note{n:03}.txt", seed=n).resolve()) for n in range(FILES)}
    env = {**os.environ, **{name: str(tmp_path / name.lower()) for name in
                            ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME")}}
    open_store(store_url).close()  # made first: the two runs meet over the files, not over making the store
    command = [sys.executable, "-m", "lifededup", "index", "--json", "--workers", "1", "--db", store_url, str(folder)]
    runs = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)]
    said = []
    for run in runs:
        out, err = run.communicate(timeout=300)
        assert run.returncode == 0 and "Traceback" not in err, err
        said.append(json.loads(out))
    counts = [{k: s[k] for k in ("new", "updated", "unchanged", "failed")} for s in said]
    assert sum(s["new"] for s in said) == FILES, f"each file new once, in one run or the other: {counts}"
    assert all(s["new"] + s["updated"] + s["unchanged"] == FILES and s["failed"] == 0 for s in said), counts
    with open_store(store_url, readonly=True) as store:
        stored = [str(r[0]) for r in store.execute("SELECT path FROM items")[1]]
        problems = check_store(store)
    assert sorted(stored) == sorted(paths), f"the store holds each file once: {len(stored)} items"
    assert not problems, problems
