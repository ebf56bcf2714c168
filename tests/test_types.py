"""The package is typed (STYLE.md: type hints on every function, py.typed
shipped, mypy clean): run mypy --strict on it, as a user of the library would."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import lifededup

ROOT = Path(__file__).resolve().parent.parent


def test_package_ships_py_typed() -> None:
    assert (Path(lifededup.__file__).parent / "py.typed").is_file()


def test_mypy_strict_is_clean() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "lifededup"],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert result.returncode == 0, f"mypy found problems:\n{result.stdout}{result.stderr}"
