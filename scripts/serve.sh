#!/usr/bin/env bash
# Installs what the server needs (yajl) when it is missing, builds docserver in release mode
# and serves: by default the sample model from ./data/store.json on 127.0.0.1:7878.
# Arguments go to `docserver serve` (see `docserver serve --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/install-deps.sh

swift build -c release --product docserver >&2
exec .build/release/docserver serve "$@"
