#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS_EACH] [TARGET...]: builds the libFuzzer targets of fuzz/ with clang in
# build-fuzz/ (TORCRUN_FUZZ_BUILD), replays every kept finding (fuzz/regressions/<target>/), then
# fuzzes each target for SECONDS_EACH seconds (default 600), one after another. Inputs that crash,
# hang (10 s) or take more memory than allowed are written to fuzz/findings/<target>/; the exit
# status is 1 when any target failed. The corpus each run grows is kept in
# build-fuzz/corpus/<target>/ and seeds the next run.
#
# --ctest (first argument): as the suite runs it (ctest fuzz.short): exits 77, which ctest reports
# as skipped, when clang or libFuzzer is missing instead of installing them, and fuzzes from a
# fixed seed, so that a short run on a clean clone explores the same inputs each time (a slower
# machine, fewer of them) and a failure in CI can be replayed.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$TORCRUN_ROOT"

from_ctest=0
if [ "${1:-}" = --ctest ]; then
    from_ctest=1
    shift
fi
seconds=${1:-600}
[ $# -gt 0 ] && shift
case $seconds in
    '' | *[!0-9]*)
        torcrun_log "SECONDS_EACH must be a whole number of seconds, not '$seconds'"
        exit 2
        ;;
esac

all_targets=(spec_json spec_json5 spec_yaml spec_kdl parameter_table config hostlist slurm_env step_stats units
    http_request worker_replies)
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all_targets[@]}")
for target in "${targets[@]}"; do
    if [[ " ${all_targets[*]} " != *" $target "* ]]; then
        torcrun_log "unknown fuzz target '$target' (targets: ${all_targets[*]})"
        exit 2
    fi
done

if [ "$from_ctest" = 1 ] && ! have_libfuzzer; then
    echo "skipped: clang++ with libFuzzer is missing" \
        "(apt-get install ${TORCRUN_FUZZ_PACKAGES[*]}; scripts/test.sh installs them)"
    exit 77
fi
ensure_packages "${TORCRUN_BUILD_PACKAGES[@]}" "${TORCRUN_FUZZ_PACKAGES[@]}"

build_dir=${TORCRUN_FUZZ_BUILD:-$TORCRUN_ROOT/build-fuzz}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# -Werror stays off: the warning set is tuned for g++, the compiler of the main build.
TORCRUN_TARGET=fuzz_targets build_torcrun "$build_dir" -DCMAKE_CXX_COMPILER=clang++ \
    -DTORCRUN_FUZZ=ON -DTORCRUN_WERROR=OFF "${launcher[@]}"

# Seeds beyond fuzz/corpus/<target>/: the workflow examples and the example configurations.
extra_seeds() {
    case $1 in
        spec_kdl) echo "$TORCRUN_ROOT/test/data/torc-newest/kdl" ;;
        spec_*) echo "$TORCRUN_ROOT/examples $TORCRUN_ROOT/test/data/torc-examples" ;;
        config) echo "$TORCRUN_ROOT/config" ;;
    esac
}

failed=()
for target in "${targets[@]}"; do
    bin=$build_dir/fuzz/fuzz_$target
    findings=$TORCRUN_ROOT/fuzz/findings/$target
    corpus=$build_dir/corpus/$target
    log_dir=$build_dir/fuzz-logs
    mkdir -p "$findings" "$corpus" "$log_dir"
    limits=(-timeout=10 -rss_limit_mb=2048)

    regressions=("$TORCRUN_ROOT"/fuzz/regressions/"$target"/*)
    if [ -e "${regressions[0]}" ]; then
        torcrun_log "$target: replaying ${#regressions[@]} kept finding(s)"
        if ! "$bin" "${limits[@]}" "${regressions[@]}" >"$log_dir/$target.replay.log" 2>&1; then
            tail -n 40 "$log_dir/$target.replay.log" >&2
            torcrun_log "$target: a kept finding fails again (log: $log_dir/$target.replay.log)"
            failed+=("$target")
            continue
        fi
    fi

    seeds=("$TORCRUN_ROOT/fuzz/corpus/$target")
    # shellcheck disable=SC2207
    seeds+=($(extra_seeds "$target"))
    torcrun_log "$target: fuzzing for ${seconds} s"
    seed=()
    [ "$from_ctest" = 1 ] && seed=(-seed=1)
    if "$bin" "${limits[@]}" "${seed[@]}" -max_total_time="$seconds" -print_final_stats=1 \
        -artifact_prefix="$findings/" "$corpus" "${seeds[@]}" >"$log_dir/$target.log" 2>&1; then
        grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb)' "$log_dir/$target.log" |
            tr '\n' ' ' | sed "s|^|==> $target: |;s| $|\n|" >&2
    else
        tail -n 60 "$log_dir/$target.log" >&2
        torcrun_log "$target: FAILED; the input is in $findings/ (log: $log_dir/$target.log)"
        failed+=("$target")
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    torcrun_log "fuzzing failed: ${failed[*]}"
    exit 1
fi
torcrun_log "fuzzing: ${#targets[@]} target(s), ${seconds} s each, no findings"
