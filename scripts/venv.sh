#!/bin/sh
# Make a virtual environment for lifededup (default: .venv in the checkout)
# with the system's python3, so that pip never touches the system's Python
# (Debian 12 and Ubuntu 24.04 refuse that: PEP 668, "externally-managed-environment").
# Debian and Ubuntu ship venv's pip bootstrap (ensurepip) apart, in python3-venv:
# as root it is installed with apt-get; otherwise this says what to install.
# Usage: sh scripts/venv.sh [FOLDER]      then: . FOLDER/bin/activate
set -eu
cd "$(dirname "$0")/.."
venv="${1:-.venv}"
[ -x "$venv/bin/python" ] && exit 0
if ! command -v python3 >/dev/null 2>&1; then
    echo "lifededup needs Python 3.10 or later as python3 (Debian/Ubuntu: apt install python3)" >&2
    exit 1
fi
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    echo "lifededup needs Python 3.10 or later; python3 is $(python3 -V 2>&1)" >&2
    exit 1
fi
if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing python3-venv (python3 cannot make a virtual environment without it)" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
    else
        echo "python3 cannot make a virtual environment: install python3-venv first," >&2
        echo "    sudo apt install python3-venv" >&2
        echo "then run this command again." >&2
        exit 1
    fi
fi
python3 -m venv "$venv"
