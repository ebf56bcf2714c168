"""External programs (antiword, catppt, groff, tesseract): run with a time limit, missing ones named.

Each program gets less time than the worker's own limit, so a hung program
fails this file with its own name rather than stopping the worker, and reads
only the system's files and the files it is given (:mod:`.sandbox`).
"""

from __future__ import annotations

import os
import shutil
import subprocess

from lifededup.extract.base import CorruptFile, EncryptedFile, MissingTool
from lifededup.extract.sandbox import confinement

# Seconds a program may run on one file (the worker's own limit is 60 s without progress).
TOOL_TIMEOUT_S = 50


def run_tool(tool: str, package: str, fmt: str, args: list[str], stdin: bytes | None = None,
             timeout_s: float = TOOL_TIMEOUT_S, env: dict[str, str] | None = None, name: str | None = None) -> bytes:
    """``tool``'s standard output; :class:`MissingTool` (naming Debian ``package``) when it is not installed.

    ``name``: the file's name as its owner knows it, said in the program's message where it names the path
    it was given -- an attachment's or a member's temporary copy ("/tmp/lifededup-worker-14702-4zchgx5i/
    lifededup-part-lthue6tz.doc is not a Word Document" said neither which file nor where)."""
    if shutil.which(tool) is None:
        raise MissingTool(tool, package, fmt)
    # confined to the system's files and the files it is given (sandbox.py): a
    # page's `.so /etc/passwd` or a text file posing as an image reads nothing else
    confined = confinement([arg for arg in args if os.path.isfile(arg)])
    try:
        done = subprocess.run([tool, *args], input=stdin, capture_output=True, timeout=timeout_s, check=False,
                              env=env, preexec_fn=confined)  # noqa: PLW1509 -- the workers run no threads
    except subprocess.TimeoutExpired as exc:
        raise CorruptFile(f"{tool} gave up after {timeout_s:g} s") from exc
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = message[-1] if message else f"exit {done.returncode}"
        if name is not None:
            for arg in (a for a in args if os.path.isfile(a)):
                reason = reason.replace(arg, name)
        if "encrypt" in reason.lower() or "password" in reason.lower():
            raise EncryptedFile(f"the {fmt} file is encrypted: {reason}")
        raise CorruptFile(f"{tool} could not read it: {reason}")
    return done.stdout
