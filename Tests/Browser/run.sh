#!/usr/bin/env bash
# The page's browser test (Tests/Browser/page_test.py) in headless Chromium: installs Debian's
# chromium, chromium-driver and python3-selenium when missing (skips, saying so, only when apt
# cannot install them), then runs the test with Debian's Python (where python3-selenium is).
# DOCSERVER_BINARY: the docserver to test; BROWSER_OBJECTS: the objects of the large entity
# (100,000 by default; 1,000,000 by hand); BROWSER_SCREENSHOTS: where the screenshots go.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/install-deps.sh
PYTHON=/usr/bin/python3
if ! command -v chromedriver >/dev/null 2>&1 || ! command -v chromium >/dev/null 2>&1 \
    || ! "$PYTHON" -c "import selenium" >/dev/null 2>&1; then
    echo "the browser test needs chromium, chromium-driver and python3-selenium: installing them" >&2
    if ! apt_install chromium chromium-driver python3-selenium; then
        echo "SKIPPED: the browser test: apt could not install chromium, chromium-driver and python3-selenium" >&2
        exit 0
    fi
fi
exec "$PYTHON" Tests/Browser/page_test.py
