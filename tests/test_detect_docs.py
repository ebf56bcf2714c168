"""The README's "Detectors and evaluation" section: its Python example runs,
and every detector it lists is one ``make_detector`` knows."""

from __future__ import annotations

import re
from pathlib import Path

from lifededup.detect import DETECTOR_NAMES

README = Path(__file__).resolve().parents[1] / "README.md"


def _section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("## Detectors and evaluation")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else len(text)]


def test_the_python_example_runs() -> None:
    blocks = re.findall(r"```python\n(.*?)```", _section(), flags=re.S)
    assert blocks, "the section lost its Python example"
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})  # noqa: S102 - our own README


def test_every_detector_is_documented() -> None:
    section = _section()
    missing = [name for name in DETECTOR_NAMES if f"`{name}" not in section]
    assert missing == [], f"detectors missing from the README: {missing}"


def test_eval_help_lists_every_detector_spec() -> None:
    """`eval --help` names the detectors without importing them (it starts
    in a tenth of a second): its list must stay the one make_detector knows."""
    from click.testing import CliRunner

    from lifededup.cli import main

    shown = CliRunner().invoke(main, ["eval", "--help"]).output
    specs = shown.split("Detector specs")[1].split("\n\n")[0]
    listed = re.findall(r"^\s{2,}([a-z0-9-]+)(?:\[:[^\]]*\]+)*\s{2,}\S", specs, flags=re.M)
    assert sorted(listed) == sorted(DETECTOR_NAMES), f"eval --help lists {listed}, the detectors are {DETECTOR_NAMES}"
