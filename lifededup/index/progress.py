"""How a run reports progress: a small interface, so the CLI shows a bar on a
terminal and plain log lines otherwise, and the library prints nothing."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Protocol

from lifededup.model import shown


class Progress(Protocol):
    def listed(self, files: Mapping[str, tuple[int, float]]) -> None:
        """The files about to be read (stored paths), each with its (size, mtime) as the scan found it --
        what its item will record -- just before ``start``."""

    def start(self, total: int) -> None:
        """``total`` files are about to be read."""

    def file_done(self, path: str, size: int) -> None:
        """One more file read (``size`` bytes)."""

    def finish(self) -> None:
        """The run is over (also after an interruption)."""


class Quiet:
    """Reports nothing (the library's default, the watcher's batches)."""

    def listed(self, files: Mapping[str, tuple[int, float]]) -> None:
        pass

    def start(self, total: int) -> None:
        pass

    def file_done(self, path: str, size: int) -> None:
        pass

    def finish(self) -> None:
        pass


class LogLines:
    """A line every ``every_s`` seconds: for logs, pipes and systemd's journal."""

    def __init__(self, write: Callable[[str], None], every_s: float = 5.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.write, self.every_s, self.clock = write, every_s, clock
        self.total = self.done = self.bytes = 0
        self.started = self.last = 0.0

    def listed(self, files: Mapping[str, tuple[int, float]]) -> None:
        pass

    def start(self, total: int) -> None:
        self.total, self.started = total, self.clock()
        self.last = self.started
        self.write(f"reading {total:,} file(s)")

    def file_done(self, path: str, size: int) -> None:
        self.done, self.bytes = self.done + 1, self.bytes + size
        now = self.clock()
        if now - self.last >= self.every_s:
            self.last = now
            self.write(f"{self._counts(now)}  {shown(path)}")  # a name's newline or escape stays in its line

    def finish(self) -> None:
        if self.total:
            self.write(self._counts(self.clock()))

    def _counts(self, now: float) -> str:
        elapsed = max(now - self.started, 1e-9)
        return (f"{self.done:,}/{self.total:,} files, {self.done / elapsed:.1f} files/s, "
                f"{self.bytes / elapsed / 2**20:.2f} MB/s")


class Bar:
    """A tqdm bar with counts, rate and the current file (for a terminal)."""

    def __init__(self) -> None:
        self._bar: object | None = None
        self.bytes = 0

    def listed(self, files: Mapping[str, tuple[int, float]]) -> None:
        pass

    def start(self, total: int) -> None:
        from tqdm import tqdm  # type: ignore[import-untyped]

        self._bar = tqdm(total=total, unit="file", dynamic_ncols=True, smoothing=0.1)

    def file_done(self, path: str, size: int) -> None:
        from tqdm import tqdm

        bar = self._bar
        if isinstance(bar, tqdm):
            self.bytes += size
            name = shown(path.rsplit("/", 1)[-1])
            bar.set_postfix_str(f"{self.bytes / 2**20:.1f} MB  {name[-40:]}", refresh=False)
            bar.update(1)

    def finish(self) -> None:
        from tqdm import tqdm

        if isinstance(self._bar, tqdm):
            self._bar.close()
