#!/usr/bin/env bash
# Installs what the tests need (yajl) when it is missing, then runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! pkg-config --exists yajl 2>/dev/null; then
    echo "yajl is missing: installing libyajl-dev and pkg-config"
    if [ "$(id -u)" -eq 0 ]; then
        apt-get update
        apt-get install -y libyajl-dev pkg-config
    else
        sudo apt-get update
        sudo apt-get install -y libyajl-dev pkg-config
    fi
fi

swift build --build-tests
swift test --skip-build
