"""The README's first command, exactly as written, in a fresh copy of the
checkout, with the system's own python3 first on PATH and no virtual
environment active (as on a stock Debian or Ubuntu, where pip refuses the
system's Python: PEP 668): it makes and uses .venv, installs lifededup,
indexes sample_corpus/ into the default store and lists the sample's clusters.

Slow (a real `pip install .`, about a minute; pip's cache helps), so marked
``slow``; it runs with the rest of the suite.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from corpus_store import CorpusStore, corpus_store

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")
# the PATH of a login shell on Debian and Ubuntu: the system's python3, no pyenv, no virtual environment
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
_TIMING = re.compile(r"\(\d+\.\d s, \d+\.\d files/s\)")


def first_command() -> str:
    block = README[README.index("```sh\n") + len("```sh\n"):]
    lines = block[:block.index("```")].splitlines()
    return lines[[i for i, line in enumerate(lines) if line.startswith("# 1.")][0] + 1]


def fresh_copy(destination: Path) -> Path:
    """What a clone holds (tracked files, with this checkout's changes), nothing built or installed."""
    git = shutil.which("git")
    if git is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout: cannot tell what a fresh clone holds")
    listed = subprocess.run([git, "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = REPO / name
        if source.is_symlink() or source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if source.is_symlink():
                target.symlink_to(os.readlink(source))
            else:
                shutil.copy2(source, target)
    return destination


def user_shell(tmp_path: Path) -> dict[str, str]:
    """This user's environment (pip's configuration and certificates kept), with no
    virtual environment and the system's PATH; the default store goes under tmp_path."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "LIFEDEDUP_DB", "CONDA_PREFIX", "PYENV_VERSION")}
    env.update(PATH=SYSTEM_PATH, XDG_DATA_HOME=str(tmp_path / "data"), XDG_STATE_HOME=str(tmp_path / "state"))
    return env


@pytest.mark.slow
def test_the_first_command_works_as_written(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    python3 = shutil.which("python3", path=SYSTEM_PATH)
    if python3 is None:
        pytest.skip("no system python3 on " + SYSTEM_PATH)
    clone = fresh_copy(tmp_path / "lifededup")
    env = user_shell(tmp_path)
    command = first_command()
    assert command.startswith("sh scripts/venv.sh && . .venv/bin/activate && "), command
    done = subprocess.run(["bash", "-c", command], cwd=clone, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"`{command}` failed ({python3}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert (tmp_path / "data" / "lifededup" / "lifededup.db").is_file(), "it indexed into the default store"

    # the index summary the README shows, and the sample's clusters
    readme_summary = README[README.index("The summary at the end:"):].split("```")[1].strip().splitlines()
    for line in readme_summary:
        assert _TIMING.sub("", line) in _TIMING.sub("", done.stdout), \
            f"the README's summary line {line!r} is not what the command printed:\n{done.stdout[:1500]}"
    corpus: CorpusStore = corpus_store(tmp_path_factory)
    from lifededup.store import open_store

    with open_store(corpus.db, readonly=True) as store:
        _, [(want,)] = store.execute("SELECT count(*) FROM cluster_sizes WHERE members > 1")
    shown = re.findall(r"^cluster \d+ \((\d+) items\)$", done.stdout, flags=re.MULTILINE)
    assert len(shown) == want, f"`lifededup dups` listed {len(shown)} clusters, the sample has {want}"

    # eval with the sample truth shipped in the package: in the checkout, and from anywhere with --corpus
    venv_lifededup = str(clone / ".venv" / "bin" / "lifededup")
    here = subprocess.run([venv_lifededup, "eval", "-d", "shingles"], cwd=clone, env=env, capture_output=True,
                          text=True, timeout=300)
    assert here.returncode == 0 and "true clusters" in here.stdout, here.stdout + here.stderr
    elsewhere = subprocess.run([venv_lifededup, "eval", "-d", "shingles"], cwd=tmp_path, env=env,
                               capture_output=True, text=True, timeout=300)
    assert elsewhere.returncode == 1 and "--corpus PATH/TO/lifededup/sample_corpus" in elsewhere.stderr, \
        elsewhere.stderr
    told = subprocess.run([venv_lifededup, "eval", "-d", "shingles", "--corpus", str(clone / "sample_corpus")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert told.returncode == 0, told.stderr
    assert told.stdout.splitlines()[0] == here.stdout.splitlines()[0], (told.stdout, here.stdout)
