#!/usr/bin/env bash
# Builds docserver in release mode (scripts/build.sh: installs yajl and jemalloc first when they are missing)
# and serves: by default the sample model from ./data/store.json on 127.0.0.1:7878.
# Arguments go to `docserver serve` (see `docserver serve --help`), except a first --full, which
# builds with every trait (PostgreSQL, TLS, users; scripts/build.sh --full) instead of the
# default build of JSON store files only.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --full ]; then
    shift
    ./scripts/build.sh --full
else
    ./scripts/build.sh
fi
exec .build/release/docserver serve "$@"
