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

set +e
python -m pytest "$@"
status=$?
set -e
# pytest exits 5 when it collected no tests: that is a failure of the suite,
# not a pass, so say so plainly instead of passing silently.
if [ "$status" -eq 5 ]; then
    echo "pytest collected no tests" >&2
    exit 1
fi
exit "$status"
