"""Extraction stage (placeholder until the extractors land): plain text only."""

from __future__ import annotations

from pathlib import Path


class ExtractionError(Exception):
    """A file whose text cannot be read; the message says why."""


def extract_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ExtractionError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if b"\x00" in data[:8192]:
        raise ExtractionError(f"{path} looks binary, not text")
    return data.decode("utf-8", errors="replace")
