"""A store shared by several machines, as a household runs it (explorer's
findings): `failures --machine` lists the files one computer could not read,
`daemon status` counts its own failures apart from the store's and says when
the store's server cannot be reached.  Real stores on both backends, real
processes, a real server stopped under a running daemon."""

from __future__ import annotations

import json
import os
from pathlib import Path

from test_daemon import lifededup
from store_samples import prose

from lifededup.index import IndexConfig, run
from lifededup.store import open_store


def two_machines_failing(tmp_path: Path, store_url: str, broken: dict[str, int]) -> dict[str, str]:
    """``broken[machine]`` broken PDFs indexed by each machine, beside a good
    report (in folders of their own: an SQLite store cannot hold one path
    twice); the environment of a command run on the laptop."""
    for machine, count in broken.items():
        folder = tmp_path / machine
        folder.mkdir()
        (folder / "report.txt").write_text(prose(3))
        for n in range(count):
            (folder / f"broken{n}.pdf").write_bytes(b"%PDF-1.4 cut short")
        with open_store(store_url, machine=machine) as store:
            run(store, [folder], IndexConfig(workers=1))
    return {**os.environ, "LIFEDEDUP_DB": store_url, "LIFEDEDUP_MACHINE": "laptop"}


def test_failures_of_one_machine(tmp_path: Path, store_url: str) -> None:
    env = two_machines_failing(tmp_path, store_url, {"laptop": 1, "nas": 2})
    everyone = lifededup(env, "failures")
    assert everyone.returncode == 0, everyone.stderr
    assert len(everyone.stdout.splitlines()) == 3, f"by default every machine's failures:\n{everyone.stdout}"

    here = lifededup(env, "failures", "--machine", "laptop")
    assert here.returncode == 0, here.stderr
    assert here.stdout.splitlines() == [f"corrupt\t{tmp_path / 'laptop' / 'broken0.pdf'}\t" +
                                        everyone.stdout.splitlines()[0].split("\t")[2]], here.stdout
    nas = lifededup(env, "failures", "--machine", "nas", "--json")
    assert nas.returncode == 0, nas.stderr
    listed = json.loads(nas.stdout)
    assert [(f["machine"], f["path"]) for f in listed] == [("nas", str(tmp_path / "nas" / f"broken{n}.pdf"))
                                                           for n in range(2)], listed
    theirs = lifededup(env, "failures", "--machine", "nas").stdout
    assert all(line.split("\t")[1].startswith(f"nas:{tmp_path}") for line in theirs.splitlines()), theirs


def test_failures_of_a_machine_with_none_or_not_in_the_store(tmp_path: Path, store_url: str) -> None:
    env = two_machines_failing(tmp_path, store_url, {"laptop": 0, "nas": 1})
    none = lifededup(env, "failures", "--machine", "laptop")
    assert (none.returncode, none.stdout) == (0, "no failures of the machine laptop\n"), none.stdout + none.stderr
    typo = lifededup(env, "failures", "--machine", "lapotp")
    assert typo.returncode == 1, typo.stdout
    assert "no machine 'lapotp' in" in typo.stderr and "lifededup machines list" in typo.stderr, typo.stderr
