#!/usr/bin/env bash
# Installs what the tests need when it is missing (yajl, jemalloc; pytest; tsc), then runs every test: the
# Swift packages' tests, the Python and JavaScript clients' tests against the docserver binary built here,
# the container check against the release binary, and the fuzz targets (a fixed seed and number
# of inputs each, at most FUZZ_SECONDS each, default 60; 0 replays their seeds and regressions only).
# Everything is built with every package trait (PostgreSQL, TLS, Users: Package.swift), so that
# every test runs: the debug build here, the release build of the container check (scripts/build.sh
# --full), and the Fuzz/ package (which names the traits it needs).
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

# The README's performance table is written from the benchmarks' recorded figures.
python3 scripts/readme-figures.py --check

# No file keeps a merge's conflict markers (one stood in Benchmarks/README.md unseen).
if git rev-parse --is-inside-work-tree >/dev/null 2>&1 && git grep -nE '^(<<<<<<<|>>>>>>>) ' >&2; then
    echo "FAILED: merge conflict markers are left in the files above" >&2
    exit 1
fi

TRAITS=(--enable-all-traits)
swift build --build-tests "${TRAITS[@]}"
# The suites whose tests wait on tasks (a RemoteStore's change feed, DocumentClient.changes) run
# apart from the rest. Swift's global executor has a thread per core, and a synchronous test
# holds one while it runs: beside two long synchronous tests (the PostgreSQL server suites) those
# tasks wait until one ends, and a test of a feed reconnecting ran past its time limit so.
TASK_SUITES='DocumentClientTests\.(LiveChangeTests|ChangeStreamFailureTests|DocumentClientAPITests|DocumentClientFailureTests|DocumentationExampleTests|SecureConnectionTests)'
swift test --skip-build "${TRAITS[@]}" --skip "$TASK_SUITES"
swift test --skip-build "${TRAITS[@]}" --filter "$TASK_SUITES"
# The tests of servers sharing a PostgreSQL database, again with a cache of 1 byte
# (`--cache-bytes`, given through DOCSERVER_CACHE_BYTES): every read misses and goes to the
# database, every save reads what it checks from there (docs/SCALING.md).
DOCSERVER_CACHE_BYTES=1 swift test --skip-build "${TRAITS[@]}" \
    --filter 'PostgresStoreTests\.(MultiServerTests|MultiServerFeedTests|ReadAfterTests|GroupCommitTests|ServerCrashTests|HistoryTrimTests)'

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

# The JavaScript client (clients/js): node --test against the same docserver (Node >= 20), with
# its .d.ts files checked by tsc --strict (Debian's node-typescript, installed when missing), and
# docserver codegen's output checked by tsc --strict and mypy --strict (installed when missing).
if ! command -v tsc >/dev/null 2>&1; then
    echo "tsc is missing: installing node-typescript" >&2
    apt_install node-typescript || echo "SKIPPED: node-typescript could not be installed: the JavaScript type check is skipped" >&2
fi
if ! python3 -m mypy --version >/dev/null 2>&1; then
    echo "mypy is missing: installing it (docserver codegen --lang python is checked with mypy --strict)" >&2
    python3 -m pip install --quiet mypy || echo "SKIPPED: mypy could not be installed: the generated Python is not type-checked" >&2
fi
if ! command -v node >/dev/null 2>&1; then
    echo "node is missing: installing nodejs" >&2
    apt_install nodejs || true
fi
if [ "$(node -p 'Number(process.versions.node.split(".")[0]) >= 20' 2>/dev/null)" = true ]; then
    DOCSERVER_BINARY="$(swift build --show-bin-path)/docserver" node --test clients/js/test/
else
    echo "SKIPPED: the JavaScript client's tests need Node >= 20 (found: $(node --version 2>/dev/null || echo none))" >&2
fi

# The page at / of the HTTP port, in headless Chromium (Tests/Browser/run.sh installs chromium,
# chromium-driver and python3-selenium when missing): 100,000 objects, screenshots printed.
DOCSERVER_BINARY="$(swift build --show-bin-path)/docserver" Tests/Browser/run.sh

# The container: no engine runs here or in CI, so the Dockerfile is checked by construction
# against the release binary (scripts/build.sh): libraries, ENV, ENTRYPOINT/CMD, HEALTHCHECK.
python3 Tests/Container/check_container.py

# Fuzzing (Fuzz/README.md): the seeds and saved regressions once, then each target briefly.
# The brief runs are reproducible: one fixed seed (FUZZ_SEED, default 1) and a fixed number of
# inputs per target, stopped early after FUZZ_SECONDS (default 60) on a slow machine, so that for
# the same code this step tries the same inputs on every machine and passes or fails alike; a
# crash it reports replays with the seed it prints. `scripts/fuzz.sh` alone fuzzes from a new
# seed each run: that is how new inputs are explored.
scripts/fuzz.sh --replay all
if [ "${FUZZ_SECONDS:-60}" -gt 0 ]; then
    fuzz_failed=0
    for target_runs in store-file:15000 journal:2500 wire:2000 predicate:20000 xcode-model:5000 import-line:20000 users:5000; do
        FUZZ_SEED="${FUZZ_SEED:-1}" FUZZ_RUNS="${target_runs#*:}" \
            scripts/fuzz.sh "${target_runs%%:*}" "${FUZZ_SECONDS:-60}" || fuzz_failed=1
    done
    exit "$fuzz_failed"
fi
