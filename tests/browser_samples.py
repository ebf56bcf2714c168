"""For the tests in a real browser (Debian's Chromium, headless, driven by
Playwright): the module skipped, saying what installs them, where Chromium,
the web view's extra or Playwright is missing; the browser a module shares."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
# No sandbox: tests may run as root, where Chromium's sandbox refuses to
# start; no GPU, no background downloads, no first-run pages.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run"]


def browser_api() -> ModuleType:
    """Playwright's sync API, once Chromium and the web view's extra are
    here; else the calling test module is skipped (call it at its top)."""
    if not CHROMIUM.exists():
        pytest.skip("no Debian chromium at /usr/bin/chromium: scripts/install-system-deps.sh installs it",
                    allow_module_level=True)
    pytest.importorskip("starlette", reason="the web view needs its extra: pip install '.[web]'")
    return pytest.importorskip("playwright.sync_api", reason="the browser tests need playwright: pip install '.[test]'")


def launched(sync_api: ModuleType) -> Iterator[Any]:
    """Chromium, launched for the length of a fixture (``yield from``)."""
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
        yield chromium
        chromium.close()
