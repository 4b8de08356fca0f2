#!/usr/bin/env bash
# Builds docserver in release mode (scripts/build.sh: installs yajl and jemalloc first when they are missing)
# and serves: by default the sample model from ./data/store.json on 127.0.0.1:7878.
# Arguments go to `docserver serve` (see `docserver serve --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
exec .build/release/docserver serve "$@"
