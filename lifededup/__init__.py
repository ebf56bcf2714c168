"""lifededup: a personal-archive indexer that finds exact and near-duplicate
documents (MyLifeBits' super-shingles) and shows each document once."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(package: str, names: Mapping[str, tuple[str, str]]) -> Callable[[str], Any]:
    """A package face's ``__getattr__`` (PEP 562) that imports each of
    ``names`` (name -> (module, attribute)) when it is first used: a command
    that needs a face's light names (an option's default) does not pay for
    its heavy ones (SQLAlchemy, numpy, watchdog) at start-up."""

    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        wanted = names[name][0]
        loaded = importlib.import_module(wanted)
        # every name of that module at once: importing a submodule binds its
        # own name on the package (``lifededup.index.run``), which the
        # function of that name must cover again
        for other, (module, attribute) in names.items():
            if module == wanted:
                setattr(sys.modules[package], other, getattr(loaded, attribute))
        return getattr(sys.modules[package], name)

    return __getattr__


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
