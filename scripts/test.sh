#!/usr/bin/env bash
# Installs what the tests need (yajl; pytest if missing) when it is missing, then runs every
# test: the Swift packages' tests, then the Python client's tests against the docserver
# binary built here.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/install-deps.sh

swift build --build-tests
swift test --skip-build

# The Python client (clients/python): its tests start the real docserver built above.
if ! python3 -m pytest --version >/dev/null 2>&1; then
    echo "pytest is missing: installing it" >&2
    python3 -m pip install --quiet pytest
fi
DOCSERVER_BINARY="$(swift build --show-bin-path)/docserver" python3 -m pytest clients/python/tests -q
