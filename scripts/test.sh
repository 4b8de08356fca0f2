#!/usr/bin/env bash
# Installs what the tests need when it is missing (yajl; pytest), then runs every test: the
# Swift packages' tests, the Python client's tests against the docserver binary built here,
# the container check against the release binary, and the fuzz targets (FUZZ_SECONDS each,
# default 30; 0 replays their seeds and regressions only).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/install-deps.sh

# PostgreSQL for Tests/PostgresStoreTests: the tests start a throwaway cluster themselves
# (initdb + pg_ctl in a temporary directory, as an unprivileged user, on a free port) and stop
# it at the end; here its programs are installed from Debian's packages when they are missing.
if ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 && ! command -v pg_ctl >/dev/null 2>&1; then
    echo "PostgreSQL is missing: installing postgresql" >&2
    if ! apt_install postgresql; then
        echo "SKIPPED: PostgreSQL could not be installed: the PostgreSQL store's tests will be skipped" >&2
    fi
fi

swift build --build-tests
swift test --skip-build

# The Python client (clients/python): its tests start the real docserver built above and
# check store files against docs/store.schema.json with jsonschema (test-only dependencies).
if ! python3 -m pytest --version >/dev/null 2>&1; then
    echo "pytest is missing: installing it" >&2
    python3 -m pip install --quiet pytest
fi
if ! python3 -c "import jsonschema" >/dev/null 2>&1; then
    echo "jsonschema is missing: installing it" >&2
    python3 -m pip install --quiet jsonschema
fi
DOCSERVER_BINARY="$(swift build --show-bin-path)/docserver" python3 -m pytest clients/python/tests -q

# The container: no engine runs here or in CI, so the Dockerfile is checked by construction
# against the release binary (scripts/build.sh): libraries, ENV, ENTRYPOINT/CMD, HEALTHCHECK.
python3 Tests/Container/check_container.py

# Fuzzing (Fuzz/README.md): the seeds and saved regressions once, then each target briefly.
scripts/fuzz.sh --replay all
if [ "${FUZZ_SECONDS:-30}" -gt 0 ]; then
    scripts/fuzz.sh all "${FUZZ_SECONDS:-30}"
fi
