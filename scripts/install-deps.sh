#!/usr/bin/env bash
# Installs the system libraries the package needs (yajl; jemalloc, the server's allocator) when they are missing, and gives the
# scripts that source it `apt_install`, which runs `apt-get update` at most once.
# Sourced by scripts/build.sh, scripts/test.sh and the scripts they run (APT_UPDATED is exported,
# so that a script run by another does not update the lists again).
if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
export APT_UPDATED=${APT_UPDATED:-no}

# apt_install PACKAGE...: installs Debian packages, updating the package lists first (once).
apt_install() {
    if [ "$APT_UPDATED" != yes ]; then
        $SUDO apt-get update >&2 || return 1
        APT_UPDATED=yes
    fi
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y "$@" >&2
}

if ! pkg-config --exists yajl 2>/dev/null; then
    echo "yajl is missing: installing libyajl-dev and pkg-config" >&2
    apt_install libyajl-dev pkg-config
fi

if ! pkg-config --exists jemalloc 2>/dev/null; then
    echo "jemalloc is missing: installing libjemalloc-dev" >&2
    apt_install libjemalloc-dev pkg-config
fi
