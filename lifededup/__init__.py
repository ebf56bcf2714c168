"""lifededup: a personal-archive indexer that finds exact and near-duplicate
documents (MyLifeBits' super-shingles) and shows each document once."""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(package: str, names: Mapping[str, tuple[str, str]]) -> Callable[[str], Any]:
    """A package face's ``__getattr__`` (PEP 562) that imports each of
    ``names`` (name -> (module, attribute)) when it is first used: a command
    that needs a face's light names (an option's default) does not pay for
    its heavy ones (SQLAlchemy, numpy, watchdog) at start-up.

    Importing a submodule binds it on its package under its own name, which
    may be a name of the face (``lifededup.index.run``, the function ``run``
    of the module ``run``): the face keeps the name's own value instead, as
    a face that imports everything at once does, whichever is imported first."""

    class Face(types.ModuleType):
        def __setattr__(self, attribute: str, value: Any) -> None:
            if isinstance(value, types.ModuleType) and names.get(attribute, ("",))[0] == value.__name__:
                value = getattr(value, names[attribute][1])
            super().__setattr__(attribute, value)

    sys.modules[package].__class__ = Face

    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, attribute = names[name]
        value = getattr(importlib.import_module(module), attribute)
        setattr(sys.modules[package], name, value)
        return value

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
