#!/usr/bin/env bash
# Install everything the test suite needs on a fresh machine, then run it.
# This is the README's test command, and what .ci/run calls.  Python packages
# go into a virtual environment (the active one, else .venv, made by
# scripts/venv.sh), never into the system's Python (PEP 668 refuses that).
set -euo pipefail
cd "$(dirname "$0")/.."

# System tools some formats need (Debian packages, apt-get when root).
bash scripts/install-system-deps.sh

if [ -z "${VIRTUAL_ENV:-}" ]; then
    sh scripts/venv.sh .venv
    # shellcheck disable=SC1091
    . .venv/bin/activate
fi
python -m pip install --quiet --disable-pip-version-check ".[test]"

# Two runs.  The first: every test but those marked "alone", in three processes or more
# (pytest-xdist; one per core and one more, at most 5, each with its own PostgreSQL
# server and browser): most tests wait on real events, servers and subprocesses, and a
# process per core left a seventh of two cores idle (13:34 against 14:45 on two cores,
# the same 2,118 tests).  The second: the "alone" tests, by themselves -- they change a
# setting of the whole machine (the kernel's inotify queue) that another process's
# watchers would get.  Arguments go to both runs.  --dist worksteal: a process that
# runs out of tests takes some of another's, where xdist's default hands out fixed
# shares and one process may end a minute after the other (13:37 against 14:27 on two
# cores, the same 2,105 tests).
cores=$(nproc 2>/dev/null || echo 2)
workers=$(( cores >= 4 ? 5 : (cores < 2 ? 2 : cores + 1) ))
set +e
python -m pytest -n "$workers" --dist worksteal -m "not alone" "$@"
first=$?
python -m pytest -m alone "$@"
second=$?
set -e
# pytest exits 5 when it collected no tests.  One run without any is expected (an
# argument may pick tests of one kind only); both without any is a failure of the
# suite, not a pass, so say so plainly instead of passing silently.
if [ "$first" -eq 5 ] && [ "$second" -eq 5 ]; then
    echo "pytest collected no tests" >&2
    exit 1
fi
for status in "$first" "$second"; do
    if [ "$status" -ne 0 ] && [ "$status" -ne 5 ]; then
        exit "$status"
    fi
done
exit 0
