#!/usr/bin/env bash
# Installs the system libraries the package needs (yajl) when they are missing.
# Sourced by scripts/build.sh and scripts/test.sh.
if ! pkg-config --exists yajl 2>/dev/null; then
    echo "yajl is missing: installing libyajl-dev and pkg-config" >&2
    if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update >&2
    $SUDO apt-get install -y libyajl-dev pkg-config >&2
fi
