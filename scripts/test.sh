#!/usr/bin/env bash
# Install everything the test suite needs on a fresh machine, then run it.
# This is the README's test command, and what .ci/run calls.
set -euo pipefail
cd "$(dirname "$0")/.."

# System tools some formats need (textract's helpers for legacy office files).
bash scripts/install-system-deps.sh

python3 -m pip install --quiet --disable-pip-version-check ".[test]"

set +e
python3 -m pytest "$@"
status=$?
set -e
# pytest exits 5 when it collected no tests: that is a failure of the suite,
# not a pass, so say so plainly instead of passing silently.
if [ "$status" -eq 5 ]; then
    echo "pytest collected no tests" >&2
    exit 1
fi
exit "$status"
