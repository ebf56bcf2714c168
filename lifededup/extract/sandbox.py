"""The readers read only what they were given (Linux Landlock).

An extraction worker of ``index`` or ``watch`` may read only the folders
being indexed, the system, Python's files, the tools' installs and a
temporary folder of its own (:func:`confine_worker`); each outside program
it starts, only the system, the tools' installs and its input
(:func:`confinement`).

groff follows a page's ``.so /path`` and ``.nx /path`` requests, and
Tesseract reads a text file given as an image as a list of images to read:
a hostile man page, or a text file named ``.png``, had them pull files from
outside the folders lifededup was given into the index. Each tool
:func:`lifededup.extract.tool.run_tool` starts is now confined before it
runs, by Landlock (Linux 5.13 and later, no privilege needed): it may read
and run what is under the system's folders (``/usr``, ``/lib*``, ``/bin``,
``/sbin``, a few files of ``/etc`` the loader and the tools need), where
the tools are installed if elsewhere (:func:`_installs`), and the files
named on its command line, nothing else -- no home folder, no
``/etc/passwd``, no other watched file. Writing is not restricted (the
tools write to their standard output, or to lifededup's temporary folders).

Where the kernel has no Landlock (another system, an old kernel, a
container that forbids it) the tools run unconfined, as before;
:func:`available` says which.
"""

from __future__ import annotations

import ctypes
import functools
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable

# Linux's system call numbers, the same on x86-64 and arm64 (generic table)
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38
_EXECUTE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 2, 1 << 3
_READS = _EXECUTE | _READ_FILE | _READ_DIR

# what every tool may read: programs, libraries, their data, and what the
# loader and the C library read at start
SYSTEM = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin",
          "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/alternatives",
          "/etc/fonts", "/etc/groff", "/etc/papersize", "/var/cache/fontconfig",
          "/dev/null", "/dev/urandom", "/proc/cpuinfo", "/proc/meminfo", "/sys/devices/system/cpu")


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


@functools.lru_cache(maxsize=1)
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


@functools.lru_cache(maxsize=1)
def available() -> bool:
    """Whether this kernel confines the tools (Landlock is there and enabled)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        return int(_libc().syscall(_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION)) >= 1
    except (OSError, AttributeError):
        return False


# What a worker's refusal says (and the indexer reads it again next run: the
# cause may be an install outside the folders allowed, since mended)
REFUSED = "the reader was refused a file outside the folders it may read (Landlock)"
# the programs the workers start (extract/tool.py's callers)
TOOLS = ("groff", "antiword", "catdoc", "tesseract")


def _installs() -> list[str]:
    """Where the tools are installed, outside the system's folders (conda,
    Homebrew, ``/opt``, ``~/.local``: the prefix above their ``bin``), and
    Tesseract's models where ``TESSDATA_PREFIX`` puts them."""
    found = [os.environ["TESSDATA_PREFIX"]] if os.environ.get("TESSDATA_PREFIX") else []
    for tool in TOOLS:
        where = shutil.which(tool)
        if where is not None:
            prefix = os.path.dirname(os.path.dirname(os.path.realpath(where)))
            if not any(prefix == s or prefix.startswith(s.rstrip("/") + "/") for s in SYSTEM):
                found.append(prefix)
    return found


def confinement(inputs: Iterable[str]) -> Callable[[], None] | None:
    """What a tool's child process runs before the tool (``preexec_fn``):
    confine it to the system's folders, the tools' installs and ``inputs``;
    None without Landlock."""
    if not available():
        return None
    paths = [p for p in (*SYSTEM, *_installs(), *inputs) if os.path.exists(p)]
    return functools.partial(_confine, tuple(paths))


def _confine(paths: tuple[str, ...]) -> None:
    """In the child, before exec: no read but beneath ``paths``, for it and all it starts."""
    libc = _libc()
    handled = ctypes.c_uint64(_READS)
    ruleset = int(libc.syscall(_CREATE_RULESET, ctypes.byref(handled), ctypes.sizeof(handled), 0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset")
    try:
        for path in paths:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # gone since it was listed: nothing to allow
            try:
                access = _READS if os.path.isdir(path) else _EXECUTE | _READ_FILE
                rule = _PathBeneath(access, fd)
                if libc.syscall(_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0) != 0:
                    raise OSError(ctypes.get_errno(), f"landlock_add_rule {path}")
            finally:
                os.close(fd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
        if libc.syscall(_RESTRICT_SELF, ruleset, 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self")
    finally:
        os.close(ruleset)


# What a worker reads besides the folders it reads in: the system (/etc whole:
# its configuration, not a person's files), Python and its packages, and the
# process's own /proc entry.
_WORKER_SYSTEM = ("/etc", "/proc/self", "/dev/null", "/dev/zero", "/dev/urandom", "/dev/shm")


def confine_worker(walls: Iterable[str], own: str) -> None:
    """Confine this extraction worker, and every program it starts, to read
    only the system, Python's files and ``walls`` (the folders being
    indexed), plus a temporary folder of its own (parts copied out for a
    tool, OCR's pages), ``own``, which its parent made and removes.  Then a
    folder swapped for a link to elsewhere between the indexer's check and
    the read (a tester's race stored text from outside the folders) leads
    to a refusal, recorded as ``unreadable``, not to another file.  Nothing
    without Landlock."""
    if not available():
        return
    tempfile.tempdir = own
    os.environ["TMPDIR"] = own  # the programs it starts write there too
    import lifededup

    # Python's folders (PYTHONPATH's too), but the current folder, which
    # `python -m` puts first: a home perhaps, which would open it whole
    here = os.getcwd()
    libraries = (p for p in sys.path if p and os.path.abspath(p) != here)
    python = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.dirname(lifededup.__file__)),
              *libraries}
    paths = [p for p in (*SYSTEM, *_WORKER_SYSTEM, *python, *_installs(), own, *walls) if os.path.exists(p)]
    _confine(tuple(os.path.realpath(p) if p == "/proc/self" else p for p in paths))
