"""lifededup: a personal-archive indexer that finds exact and near-duplicate
documents (MyLifeBits' super-shingles) and shows each document once."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("lifededup")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0"
