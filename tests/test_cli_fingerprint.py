"""`lifededup fingerprint` and `lifededup compare`: the JSON contracts the rest
of the project and its users rely on."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
from click.testing import CliRunner

from lifededup.cli import main

LETTERS = np.array(list("bcdfghjklmnpqrstvwxz"))


def prose(seed: int, count: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return ["".join(rng.choice(LETTERS, size=int(n))) for n in rng.integers(4, 9, size=count)]


def write(path: Path, words: list[str]) -> Path:
    path.write_text(" ".join(words), encoding="utf-8")
    return path


def test_fingerprint_json_contract(tmp_path: Path) -> None:
    words = prose(1, 300)
    a = write(tmp_path / "a.txt", words)
    short = write(tmp_path / "note.txt", ["call", "mum"])
    result = CliRunner().invoke(main, ["fingerprint", "--json", str(a), str(short)])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert [line["path"] for line in lines] == [str(a), str(short)]
    first = lines[0]
    assert len(first["sha1"]) == 40 and first["words"] == 300 and first["shingles"] == 297
    assert len(first["features"]) == 6 and all(isinstance(f, int) for f in first["features"])
    assert all(-(2**63) <= f < 2**63 for f in first["features"]), "features fit SQLite's INTEGER"
    params = first["params"]
    assert (params["shingle_words"], params["features"], params["minima"], params["threshold"]) == (4, 6, 14, 2)
    assert lines[1]["features"] is None, "a two-word note is exact-only"


def test_compare_json_says_near_duplicate_for_a_revision(tmp_path: Path) -> None:
    words = prose(2, 1000)
    revised = list(words)
    revised[500] = "zzzzzz"
    a, b = write(tmp_path / "a.txt", words), write(tmp_path / "b.txt", revised)
    other = write(tmp_path / "c.txt", prose(3, 1000))
    near = json.loads(CliRunner().invoke(main, ["compare", "--json", str(a), str(b)]).output)
    assert near["near_duplicate"] and not near["exact"] and near["shared_features"] >= 2
    assert near["word_edit_distance"] == 0.001 and 0.99 < near["resemblance"] < 1
    far = json.loads(CliRunner().invoke(main, ["compare", "--json", str(a), str(other)]).output)
    assert not far["near_duplicate"] and far["shared_features"] == 0 and far["resemblance"] == 0


def test_compare_text_output_names_the_verdict(tmp_path: Path) -> None:
    words = prose(4, 200)
    a = write(tmp_path / "a.txt", words)
    b = tmp_path / "b.txt"
    b.write_text("\n\n".join(w.upper() for w in words), encoding="utf-8")
    result = CliRunner().invoke(main, ["compare", str(a), str(b)])
    assert result.exit_code == 0 and result.output.startswith("exact copy"), result.output


def test_compare_says_when_a_text_is_too_short_to_sample(tmp_path: Path) -> None:
    a = write(tmp_path / "a.txt", ["call", "mum", "sunday", "party", "40th"])
    b = write(tmp_path / "b.txt", ["call", "mum", "sunday", "party"])
    result = CliRunner().invoke(main, ["compare", str(a), str(b)])
    assert result.output.startswith("different") and "too short to sample" in result.output, result.output
    data = json.loads(CliRunner().invoke(main, ["compare", "--json", str(a), str(b)]).output)
    assert data["sampled"] is False and data["near_duplicate"] is False


def test_unreadable_input_is_a_clear_error_and_the_rest_goes_on(tmp_path: Path) -> None:
    binary = tmp_path / "photo.txt"
    binary.write_bytes(bytes(range(256)) * 40)
    good = write(tmp_path / "good.txt", prose(5, 100))
    result = CliRunner().invoke(main, ["fingerprint", "--json", str(binary), str(good)])
    assert result.exit_code == 1, "a failed file makes the exit status non-zero"
    assert "photo.txt" in result.stderr
    assert json.loads(result.stdout.splitlines()[-1])["path"] == str(good), "the good file is still printed"


def test_help_teaches() -> None:
    for command in ("fingerprint", "compare"):
        result = CliRunner().invoke(main, [command, "--help"])
        assert result.exit_code == 0, result.output
        assert "Example" in result.output and "near-duplicate" in result.output, f"{command} --help: {result.output}"


def test_installed_console_script_runs(tmp_path: Path) -> None:
    exe = shutil.which("lifededup")
    assert exe, "pip install . must put a lifededup command on PATH"
    a = write(tmp_path / "a.txt", prose(6, 50))
    out = subprocess.run([exe, "fingerprint", "--json", str(a)], capture_output=True, text=True, check=True).stdout
    assert json.loads(out)["words"] == 50
