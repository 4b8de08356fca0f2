#!/usr/bin/env bash
# Fuzzes the parsers that read untrusted input with libFuzzer (Fuzz/README.md).
#
#   scripts/fuzz.sh [TARGET|all] [SECONDS]   build, then fuzz each target for SECONDS (default 60)
#   scripts/fuzz.sh --replay [TARGET|all]    build, then run the seed corpus and the saved
#                                            regressions (Fuzz/Regressions/<target>/) once, no fuzzing
#   scripts/fuzz.sh --build                  build only
#
# Targets: store-file, journal, wire, predicate, xcode-model, import-line, users. Built with -sanitize=fuzzer,address into .build-fuzz
# (the main package's build is untouched). Each run works on a copy of Fuzz/Corpus/<target>
# in a temporary directory, so the repository is never written. Exits non-zero on a crash,
# a leak, a timeout or an out-of-memory, printing the reproducer's path.
#
# Settings (environment): FUZZ_TIMEOUT seconds one input may take (default 10),
# FUZZ_RSS_MB memory limit in MB (default 2048), FUZZ_SEED libFuzzer's random seed (default:
# a new one each run), FUZZ_RUNS the most inputs to try per target (default: no limit; the run
# stops at whichever of SECONDS and FUZZ_RUNS comes first), FUZZ_ARGS more libFuzzer options
# (for example "-jobs=2 -workers=2" or "-fork=1 -ignore_crashes=1"). With FUZZ_SEED set, Swift's
# hashing is made deterministic too, so that the same code from one seed tries the same inputs on any machine.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/install-deps.sh

ALL_TARGETS=(store-file journal wire predicate xcode-model import-line users)
SCRATCH="$PWD/.build-fuzz"

usage() {
    sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

binary_name() {
    case "$1" in
        store-file) echo StoreFileFuzzer ;;
        journal) echo JournalFuzzer ;;
        wire) echo WireFuzzer ;;
        predicate) echo PredicateFuzzer ;;
        xcode-model) echo XcodeModelFuzzer ;;
        import-line) echo ImportLineFuzzer ;;
        users) echo UsersFuzzer ;;
        *) echo "unknown fuzz target '$1' (targets: ${ALL_TARGETS[*]}, all)" >&2; exit 2 ;;
    esac
}

targets_of() {
    if [ "${1:-all}" = all ]; then echo "${ALL_TARGETS[@]}"; else binary_name "$1" >/dev/null; echo "$1"; fi
}

# SwiftPM names a package after its directory: in a checkout whose directory is itself named
# "fuzz", Fuzz/ and the repository would be one package to it, so that case builds from a copy
# of the sources (updated at each build; the copy keeps its path, so builds stay incremental).
package_path() {
    local name
    name="$(basename "$PWD" | tr '[:upper:]' '[:lower:]')"
    if [ "$name" != fuzz ]; then echo Fuzz; return; fi
    local copy="$SCRATCH/src/DocumentStore"
    mkdir -p "$copy"
    # Copies what changed (newer files), keeping modification times, and removes from the copy
    # what the checkout no longer has.
    local excludes=(--exclude='./.build*' --exclude=./.git --exclude='./Fuzz/.build*')
    tar -c "${excludes[@]}" . | tar -x -C "$copy" --keep-newer-files 2>/dev/null || true
    comm -13 <(tar -c "${excludes[@]}" . | tar -t | grep -v '/$' | sort) \
             <(cd "$copy" && find . -type f -not -path './.build*' -not -name Package.resolved | sort) |
        while IFS= read -r gone; do rm -f "$copy/$gone"; done
    echo "$copy/Fuzz"
}

build() {
    echo "== building the fuzz targets (-sanitize=fuzzer,address) into $SCRATCH" >&2
    local package
    package="$(package_path)"
    swift build --package-path "$package" --scratch-path "$SCRATCH" \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -enable-testing >&2
    BIN="$(swift build --package-path "$package" --scratch-path "$SCRATCH" --show-bin-path)"
}

# LeakSanitizer suppressions of a target (leaks in the platform's libraries, not ours), if any.
lsan_options() {
    if [ -f "Fuzz/Suppressions/$1.lsan" ]; then echo "suppressions=$PWD/Fuzz/Suppressions/$1.lsan"; fi
}

dictionary_option() {
    if [ -f "Fuzz/Dictionaries/$1.dict" ]; then echo "-dict=Fuzz/Dictionaries/$1.dict"; fi
}

# Runs the seeds and the regressions of one target once each.
replay() {
    local target="$1" files=()
    shopt -s nullglob
    files=(Fuzz/Corpus/"$target"/* Fuzz/Regressions/"$target"/*)
    shopt -u nullglob
    if [ "${#files[@]}" -eq 0 ]; then return 0; fi
    echo "== replaying $target: ${#files[@]} inputs (seed corpus and regressions)" >&2
    local log
    log="$(mktemp)"
    if ! LSAN_OPTIONS="$(lsan_options "$target")" "$BIN/$(binary_name "$target")" -timeout="$TIMEOUT" -rss_limit_mb="$RSS_MB" "${files[@]}" >"$log" 2>&1; then
        cat "$log" >&2
        echo "FAILED: replaying $target: see the input named just before the error above" >&2
        rm -f "$log"
        return 1
    fi
    rm -f "$log"
}

# Fuzzes one target for $RUN_SECONDS on a copy of its corpus.
fuzz() {
    local target="$1" work
    work="$(mktemp -d "${TMPDIR:-/tmp}/fuzz-$target.XXXXXX")"
    mkdir -p "$work/corpus" "$work/artifacts"
    cp -R "Fuzz/Corpus/$target/." "$work/corpus/" 2>/dev/null || true
    local limits=(-max_total_time="$RUN_SECONDS") seeding=() environment=(LSAN_OPTIONS="$(lsan_options "$target")")
    if [ -n "${FUZZ_RUNS:-}" ]; then limits+=(-runs="$FUZZ_RUNS"); fi
    if [ -n "${FUZZ_SEED:-}" ]; then seeding=(-seed="$FUZZ_SEED"); environment+=(SWIFT_DETERMINISTIC_HASHING=1); fi
    echo "== fuzzing $target for $RUN_SECONDS s${FUZZ_RUNS:+ or $FUZZ_RUNS inputs}${FUZZ_SEED:+, seed $FUZZ_SEED} (work directory $work)" >&2
    local status=0
    # shellcheck disable=SC2046,SC2086
    env "${environment[@]}" "$BIN/$(binary_name "$target")" "$work/corpus" "${limits[@]}" "${seeding[@]}" -timeout="$TIMEOUT" \
        -rss_limit_mb="$RSS_MB" -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
        $(dictionary_option "$target") ${FUZZ_ARGS:-} >"$work/log" 2>&1 || status=$?
    grep -E '^(#[0-9]+ +DONE|Done [0-9]+ runs|stat::)' "$work/log" >&2 || tail -n 5 "$work/log" >&2
    if [ "$status" -ne 0 ] || [ -n "$(ls -A "$work/artifacts")" ]; then
        tail -n 60 "$work/log" >&2
        echo "FAILED: fuzzing $target (exit $status). Reproducers:" >&2
        ls -1 "$work/artifacts"/* >&2 2>/dev/null || true
        echo "Replay one: $BIN/$(binary_name "$target") <reproducer>; keep it in Fuzz/Regressions/$target/ once fixed. Log: $work/log" >&2
        grep -m1 -E '^INFO: Seed: ' "$work/log" >&2 || true
        return 1
    fi
    rm -rf "$work"
}

TIMEOUT="${FUZZ_TIMEOUT:-10}"
RSS_MB="${FUZZ_RSS_MB:-2048}"

case "${1:-all}" in
    -h|--help) usage ;;
    --build) build ;;
    --replay)
        build
        failed=0
        for target in $(targets_of "${2:-all}"); do replay "$target" || failed=1; done
        exit "$failed"
        ;;
    *)
        SECONDS_EACH="${2:-60}"
        case "$SECONDS_EACH" in ''|*[!0-9]*) echo "SECONDS must be a whole number, not '$SECONDS_EACH'" >&2; exit 2 ;; esac
        targets="$(targets_of "${1:-all}")"
        build
        failed=0
        for target in $targets; do RUN_SECONDS="$SECONDS_EACH" fuzz "$target" || failed=1; done
        exit "$failed"
        ;;
esac
