#!/usr/bin/env bash
# Installs what the tests need (yajl) when it is missing, then runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/install-deps.sh

swift build --build-tests
swift test --skip-build
