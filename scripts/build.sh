#!/usr/bin/env bash
# Builds the release docserver (.build/release/docserver), installing yajl and jemalloc first when
# they are missing. The one build of the server: scripts/serve.sh, the Dockerfile's builder stage and
# Tests/Container/check_container.py all run this script.
#
#   scripts/build.sh          the default build: a server of JSON store files, without the package's
#                             traits (Package.swift), so without BoringSSL: no PostgreSQL store, no
#                             TLS, no users file. The quick first build.
#   scripts/build.sh --full   every trait: PostgreSQL, TLS and the users file (the container's build).
#                             DOCSERVER_FULL_BUILD=1 in the environment does the same.
#
# The Swift runtime and Foundation are linked in (--static-swift-stdlib), so the binary needs
# only Debian's libraries (libyajl2, libjemalloc2, libxml2 and what it links, libc, libstdc++, libgcc): no Swift
# toolchain where it runs. The build's own [n/m] progress lines go to standard error.
set -euo pipefail
cd "$(dirname "$0")/.."

full="${DOCSERVER_FULL_BUILD:-0}"
case "${1:-}" in
    --full) full=1 ;;
    "") ;;
    *) echo "unknown option '$1'" >&2; sed -n '5,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
case "$full" in
    1|yes|true) full=1 ;;
    0|no|false|"") full=0 ;;
    *) echo "DOCSERVER_FULL_BUILD must be 1 or 0, not '$full'" >&2; exit 2 ;;
esac

source scripts/install-deps.sh

# The first build's time on 2 idle cores (docs/OPERATIONS.md, "The first start"); later builds
# compile only what changed.
if [ "$full" = 1 ]; then
    traits=(--enable-all-traits)
    what="every trait: PostgreSQL, TLS, users"
    first="about 6.5 minutes"
else
    traits=()
    what="default traits: JSON store files; no PostgreSQL, TLS or users (scripts/build.sh --full for those)"
    first="about 3.5 minutes"
fi
echo "building docserver (release, $what; $first on 2 cores the first time, seconds once built) ..." >&2
started=$SECONDS
swift build -c release --product docserver --static-swift-stdlib ${traits[@]+"${traits[@]}"} >&2
echo "built .build/release/docserver in $((SECONDS - started)) s: $(.build/release/docserver --version)" >&2
