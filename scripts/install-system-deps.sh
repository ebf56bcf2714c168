#!/usr/bin/env bash
# Debian packages that extraction of some formats (and the browser tests) need.  Installs only what is
# missing, and only where it can (root with apt-get); elsewhere it says what to
# install and carries on: those formats then report a clear "missing-tool" error
# (or, for OCR, "no-text-layer" with the command to install it).
set -euo pipefail
packages=(
    antiword                  # Word 97-2003 .doc (lifededup/extract/doc.py)
    catdoc                    # ... the short ones antiword refuses (its text stream under 4 KiB)
    groff-base                # manual pages: groff renders roff (lifededup/extract/man.py)
    tesseract-ocr             # OCR of scans, `lifededup index --ocr` (lifededup/extract/ocr.py)
    tesseract-ocr-eng         # ... its English model
    libreoffice-impress-nogui # tests only: saves a .pptx as PowerPoint 97-2003 .ppt (tests/test_extract_formats.py)
    chromium                  # the web view's browser tests (tests/test_web_browser.py), driven by Playwright
    postgresql                # tests only: the PostgreSQL store's tests start their own server (tests/pg_server.py)
)
missing=()
for pkg in "${packages[@]}"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
[ "${#missing[@]}" -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq
    # the downloaded .deb files (Chromium, LibreOffice, PostgreSQL: several hundred MB) go once
    # installed, as apt's own `apt install` does: on a small disk the tests need the room
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        -o APT::Keep-Downloaded-Packages=false "${missing[@]}"
else
    echo "note: install these Debian packages for full format support: ${missing[*]}" >&2
fi
