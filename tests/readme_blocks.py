"""The README's sections and their shell examples, as the docs tests read them."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def readme_section(heading: str) -> str:
    """The README from ``heading`` (``"## Searching and reports"``) up to the next ``## `` heading."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text.index(heading)
    end = text.find("\n## ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def sh_blocks(section: str) -> list[str]:
    """The bodies of the section's ```sh code blocks."""
    return re.findall(r"```sh\n(.*?)```", section, flags=re.S)
