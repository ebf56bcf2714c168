"""The README's "The web view" section: each `lifededup serve` command in it
starts the view on a store of sample_corpus/ (on a free port), and the
screenshot it shows is in the repository."""

from __future__ import annotations

import json
import re
import shlex
import urllib.request
from pathlib import Path

import pytest
from corpus_store import CorpusStore, corpus_store
from readme_blocks import REPO, readme_section, sh_blocks
from web_samples import serving

pytest.importorskip("starlette", reason="the web view needs its extra: pip install '.[web]'")


def section() -> str:
    return readme_section("## The web view")


def commands() -> list[list[str]]:
    lines = [line.split("  #")[0] for block in sh_blocks(section()) for line in block.splitlines()]
    return [shlex.split(line) for line in lines if line.startswith("lifededup ")]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> CorpusStore:
    return corpus_store(tmp_path_factory)


def test_the_section_shows_its_screenshot() -> None:
    shots = re.findall(r"!\[[^]]*\]\(([^)]+)\)", section())
    assert shots and all((REPO / s).read_bytes()[:4] == b"\x89PNG" for s in shots), shots
    assert len(commands()) >= 2, commands()


@pytest.mark.parametrize("args", commands(), ids=lambda args: " ".join(args[1:]))
def test_every_serve_example_serves_the_corpus(request: pytest.FixtureRequest, corpus: CorpusStore, args: list[str],
                                               tmp_path: Path) -> None:
    if any(arg.startswith("postgresql://") for arg in args):  # served from the corpus's PostgreSQL store
        corpus = corpus_store(request.getfixturevalue("tmp_path_factory"), request.getfixturevalue("postgres"))
    with serving(args[1:], corpus.db, tmp_path / "serve.log") as address:
        with urllib.request.urlopen(f"{address}/search.json?q=river", timeout=10) as answer:
            assert json.load(answer)["hits"], f"{shlex.join(args)} found nothing for 'river'"
        printed = (tmp_path / "serve.log").read_text()
        assert f"{address}/" in printed, f"the address to open is not printed: {printed}"
