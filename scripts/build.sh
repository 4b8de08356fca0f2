#!/usr/bin/env bash
# Builds the release docserver (.build/release/docserver), installing yajl and jemalloc first when
# they are missing. The one build of the server: scripts/serve.sh, the Dockerfile's builder stage and
# Tests/Container/check_container.py all run this script.
# The Swift runtime and Foundation are linked in (--static-swift-stdlib), so the binary needs
# only Debian's libraries (libyajl2, libjemalloc2, libxml2 and what it links, libc, libstdc++, libgcc): no Swift
# toolchain where it runs.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/install-deps.sh

swift build -c release --product docserver --static-swift-stdlib >&2
