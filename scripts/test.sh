#!/usr/bin/env bash
# Installs what the tests need (yajl) when it is missing, then runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/install-deps.sh

swift build --build-tests
swift test --skip-build

# The container: no engine runs here or in CI, so the Dockerfile is checked by construction
# against the release binary (scripts/build.sh): libraries, ENV, ENTRYPOINT/CMD, HEALTHCHECK.
python3 Tests/Container/check_container.py
