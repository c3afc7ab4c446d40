#!/usr/bin/env bash
# torcrun's benchmarks beside its peers, in one run (bench/README.md says what each measures):
#   throughput  N independent jobs through `torcrun run`, `torcrun worker` (server started and
#               workflow submitted beforehand, untimed), `xargs -P<cores>`, GNU `parallel -j<cores>`
#   chain       a chain of M dependent jobs through `torcrun run` and `torcrun worker`
#   footprint   a `torcrun worker`'s CPU time and RSS, idle and with many running `sleep` jobs
# Each repetition runs every tool once, in an order that alternates between repetitions, so a
# burst of load from the rest of the machine hits all of them alike. Medians and ratios go to
# bench/results/<date>-<host>.md and .json (bench/report.py). A missed target is reported, never
# a failure: the script fails only when a tool fails to run its jobs.
#
# Environment: BENCH_REPS (5), BENCH_QUICK=1 (1 repetition, 500 jobs, chain of 100, 10 s windows,
# results under the work directory), BENCH_JOBS, BENCH_CHAIN, BENCH_SLEEPERS, BENCH_WINDOW (s),
# BENCH_TORCRUN (a built binary; default: build Release into build/), BENCH_OUT (results dir),
# BENCH_ONLY (space-separated subset of: throughput chain footprint), BENCH_KEEP=1 (keep the
# work directory), BENCH_NOTE (a line added to the results), BENCH_TMP (where the work directory
# goes), BENCH_TAG (appended to the results' name).
set -euo pipefail
bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$bench_dir/../scripts/lib.sh"
source "$bench_dir/lib.sh"

quick=${BENCH_QUICK:-0}
if [ "$quick" = 1 ]; then
    reps=${BENCH_REPS:-1} jobs=${BENCH_JOBS:-500} chain=${BENCH_CHAIN:-100}
    sleepers=${BENCH_SLEEPERS:-100} window=${BENCH_WINDOW:-10}
else
    reps=${BENCH_REPS:-5} jobs=${BENCH_JOBS:-5000} chain=${BENCH_CHAIN:-500}
    sleepers=${BENCH_SLEEPERS:-500} window=${BENCH_WINDOW:-60}
fi
only=${BENCH_ONLY:-throughput chain footprint}
cores=$(nproc)
job_command=true   # every tool runs it as one `bash -c` process per job

ensure_packages parallel python3 procps
if [ -n "${BENCH_TORCRUN:-}" ]; then
    torcrun=$(realpath "$BENCH_TORCRUN")
else
    TORCRUN_TARGET=torcrun build_torcrun "$TORCRUN_ROOT/build"
    torcrun=$TORCRUN_ROOT/build/src/torcrun
fi
grep -q '^CMAKE_BUILD_TYPE:STRING=Release$' "$(dirname "$torcrun")/../CMakeCache.txt" 2>/dev/null ||
    bench_log "warning: $torcrun is not from a Release build directory"
has_run=0
"$torcrun" run --help >/dev/null 2>&1 && has_run=1

# Every tool writes its outputs under the work directory, so all pay the same file system;
# BENCH_TMP picks it (default $TMPDIR, else /tmp). Creating a file costs ~5 us on tmpfs and can
# cost ~1 ms on a busy VM's disk, and torcrun creates 7 entries per job to xargs' 1: the results
# name the file system and the measured cost of one create.
work=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/torcrun-bench.XXXXXX")
trap 'stop_started; [ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$work"' EXIT
samples=$work/samples.tsv
: >"$samples"
python3 "$bench_dir/gen_spec.py" independent "$jobs" "$job_command" >"$work/independent.json"
python3 "$bench_dir/gen_spec.py" chain "$chain" "$job_command" >"$work/chain.json"
python3 "$bench_dir/gen_spec.py" idle >"$work/idle.json"
python3 "$bench_dir/gen_spec.py" sleep "$sleepers" 120 >"$work/sleep.json"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
fs_type=$(df --output=fstype "$work" | tail -1)
create_us=$(python3 "$bench_dir/create_cost.py" "$work")
bench_log "work in $work: $reps repetitions, $cores cores, torcrun run: $([ $has_run = 1 ] && echo yes || echo no)"

for rep in $(seq 1 "$reps"); do
    if [[ " $only " == *" throughput "* ]]; then
        tools=(torcrun_worker xargs parallel)
        [ $has_run = 1 ] && tools=(torcrun_run "${tools[@]}")
        (( rep % 2 == 0 )) && tools=($(printf '%s\n' "${tools[@]}" | tac))
        for tool in "${tools[@]}"; do throughput_"$tool" "$rep"; done
    fi
    if [[ " $only " == *" chain "* ]]; then
        job_run_time "$rep"
        tools=(torcrun_worker)
        [ $has_run = 1 ] && tools=(torcrun_run torcrun_worker)
        (( rep % 2 == 0 )) && tools=($(printf '%s\n' "${tools[@]}" | tac))
        for tool in "${tools[@]}"; do chain_"$tool" "$rep"; done
    fi
    if [[ " $only " == *" footprint "* ]]; then
        footprint "$rep"
    fi
done

out=${BENCH_OUT:-$bench_dir/results}
[ "$quick" = 1 ] && out=${BENCH_OUT:-${TMPDIR:-/tmp}}
mkdir -p "$out"
name=$(date +%Y-%m-%d)-$(hostname -s)
[ -n "${BENCH_TAG:-}" ] && name=$name-$BENCH_TAG
[ "$quick" = 1 ] && name=$name-quick
python3 "$bench_dir/report.py" "$samples" "$out/$name" \
    reps="$reps" quick="$quick" cores="$cores" jobs="$jobs" chain="$chain" sleepers="$sleepers" \
    window_s="$window" has_run="$has_run" load_before="$load_before" \
    fs="$fs_type" create_us="$create_us" \
    load_after="$(cut -d' ' -f1-3 /proc/loadavg)" \
    torcrun_version="$("$torcrun" version 2>&1 | head -1)" \
    commit="$(git -C "$TORCRUN_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
    parallel_version="$(parallel --version 2>/dev/null | head -1)" \
    xargs_version="$(xargs --version 2>/dev/null | head -1)" \
    bash_version="$BASH_VERSION" kernel="$(uname -sr)" \
    cpu="$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)" \
    note="${BENCH_NOTE:-}"
bench_log "results: $out/$name.md"
cat "$out/$name.md"
