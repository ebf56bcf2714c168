"""External programs (antiword, catppt, groff, tesseract): run with a time limit, missing ones named.

Each program gets less time than the worker's own limit, so a hung program
fails this file with its own name rather than stopping the worker.
"""

from __future__ import annotations

import shutil
import subprocess

from lifededup.extract.base import CorruptFile, EncryptedFile, MissingTool

# Seconds a program may run on one file (the worker's own limit is 60 s without progress).
TOOL_TIMEOUT_S = 50


def run_tool(tool: str, package: str, fmt: str, args: list[str], stdin: bytes | None = None,
             timeout_s: float = TOOL_TIMEOUT_S, env: dict[str, str] | None = None) -> bytes:
    """``tool``'s standard output; :class:`MissingTool` (naming Debian ``package``) when it is not installed."""
    if shutil.which(tool) is None:
        raise MissingTool(tool, package, fmt)
    try:
        done = subprocess.run([tool, *args], input=stdin, capture_output=True, timeout=timeout_s, check=False,
                              env=env)
    except subprocess.TimeoutExpired as exc:
        raise CorruptFile(f"{tool} gave up after {timeout_s:g} s") from exc
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = message[-1] if message else f"exit {done.returncode}"
        if "encrypt" in reason.lower() or "password" in reason.lower():
            raise EncryptedFile(f"the {fmt} file is encrypted: {reason}")
        raise CorruptFile(f"{tool} could not read it: {reason}")
    return done.stdout
