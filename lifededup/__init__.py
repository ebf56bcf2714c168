"""lifededup: a personal-archive indexer that finds exact and near-duplicate
documents (MyLifeBits' super-shingles) and shows each document once."""

from __future__ import annotations


def __getattr__(name: str) -> str:
    # __version__ is looked up when asked for: importlib.metadata costs every
    # command some 20 ms of start-up, and only --version needs it
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("lifededup")
        except PackageNotFoundError:  # running from a source tree that was not installed
            return "0.0.0"
    raise AttributeError(f"module 'lifededup' has no attribute {name!r}")
