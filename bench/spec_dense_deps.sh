#!/usr/bin/env bash
# Spec expansion of 2,000 jobs with dense dependencies (bench/README.md, "Dense dependencies"):
#   triangle  every job lists every job before it by name (1,999,000 edges)
#   staged    20 stages of 100, each job waiting for the whole stage before it, by name in even
#             stages and by one regex in odd ones (190,000 edges)
#   fan       1,000 jobs each waiting for 1,000 others through `stage1_.*` (1,000,000 edges)
# For each: the median wall time and CPU time (user + system) of `torcrun spec SPEC >/dev/null`
# over BENCH_REPS runs (default 5), PASS/MISS against 1 s of CPU time: `torcrun spec` is one
# thread, so on an idle machine that is its wall time, and on a shared one the wall time mostly
# measures the rest of the machine. Then, for information, the time of
# `torcrun submit` of the staged spec through initialize_jobs against a `torcrun server` on a
# database in the work directory, and that server's CPU time. A MISS is reported, never a failure.
# Environment: BENCH_REPS, BENCH_TORCRUN (a built binary; default: build Release into build/),
# BENCH_TMP (where the work directory goes), BENCH_KEEP=1.
set -euo pipefail
bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$bench_dir/../scripts/lib.sh"
source "$bench_dir/lib.sh"

reps=${BENCH_REPS:-5}
if [ -n "${BENCH_TORCRUN:-}" ]; then
    torcrun=$(realpath "$BENCH_TORCRUN")
else
    TORCRUN_TARGET=torcrun build_torcrun "$TORCRUN_ROOT/build"
    torcrun=$TORCRUN_ROOT/build/src/torcrun
fi
work=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/torcrun-dense.XXXXXX")
trap 'stop_started; [ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$work"' EXIT
python3 "$bench_dir/gen_spec.py" triangle 2000 >"$work/triangle.json"
python3 "$bench_dir/gen_spec.py" staged 20 100 >"$work/staged.json"
python3 "$bench_dir/gen_spec.py" fan 1000 >"$work/fan.json"

median() {
    sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

verdict=PASS
printf '%-9s %10s %10s  %s\n' spec "wall (s)" "CPU (s)" "target: CPU < 1 s"
for spec in triangle staged fan; do
    : >"$work/$spec.wall"
    : >"$work/$spec.cpu"
    for _ in $(seq 1 "$reps"); do
        TIMEFORMAT='%3R %3U %3S'
        { time "$torcrun" spec "$work/$spec.json" >/dev/null; } 2>"$work/time" ||
            bench_fail "torcrun spec $spec failed"
        awk '{ print $1 }' "$work/time" >>"$work/$spec.wall"
        awk '{ print $2 + $3 }' "$work/time" >>"$work/$spec.cpu"
    done
    wall=$(median <"$work/$spec.wall")
    cpu=$(median <"$work/$spec.cpu")
    mark=$(awk -v c="$cpu" 'BEGIN { print (c < 1) ? "PASS" : "MISS" }')
    [ "$mark" = PASS ] || verdict=MISS
    printf '%-9s %10s %10s  %s\n' "$spec" "$wall" "$cpu" "$mark"
done

start_server "$work/server"
TIMEFORMAT='%3R'
{ time "$torcrun" submit --url "$base" --no-schedule "$work/staged.json" >"$work/submit.out"; } \
    2>"$work/submit.time" || bench_fail "submit: $(cat "$work/submit.out")"
read -r _ _ _ _ _ _ _ _ _ _ _ _ _ utime stime _ <"/proc/$server_pid/stat"
server_cpu=$(awk -v u="$utime" -v s="$stime" -v t="$(getconf CLK_TCK)" \
    'BEGIN { printf "%.2f", (u + s) / t }')
printf 'submit staged through initialize_jobs: %s s wall; server CPU %s s (information)\n' \
    "$(cat "$work/submit.time")" "$server_cpu"
stop_server
echo "spec expansion: $verdict"
