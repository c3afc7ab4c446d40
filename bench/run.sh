#!/usr/bin/env bash
# torcrun's benchmarks beside its peers, in one run (bench/README.md says what each measures):
#   throughput  N independent jobs through `torcrun run`, `torcrun worker` (server started and
#               workflow submitted beforehand, untimed), `xargs -P<cores>`, GNU `parallel -j<cores>`
#   disk        throughput's `torcrun run` and `xargs -P` again, their files on disk
#               (BENCH_DISK_TMP, default /var/tmp) when the work directory is not on disk
#   chain       a chain of M dependent jobs through `torcrun run` and `torcrun worker`
#   footprint   a `torcrun worker`'s CPU time and RSS, idle and with many running `sleep` jobs
#   server      B4: `torcrun server` with 64 simulated workers (bench/server_load.cpp), batched
#               and unbatched completions of 100,000 jobs; creating 100,000 jobs with 1,000,000
#               dependencies through `torcrun submit` (initialize_jobs included); `create`
#               alone is that creation without the loads
#   scale       B5: the same load at 1,000, 10,000 and 100,000 jobs: throughput and server CPU
#               per job
#   million     B7 (opt-in, not in the default list: minutes): workflows of 10,000, 100,000 and
#               1,000,000 independent jobs created and run to the end by the same load: the
#               server's peak RSS and CPU per job at each size
#   slurm       B6: `torcrun worker --mode slurm` against a bare loop of `srun --exact` steps in
#               an allocation of the project's Slurm cluster; only with TORCRUN_SLURM_ENV set
# Each repetition runs every tool once, in an order that alternates between repetitions, so a
# burst of load from the rest of the machine hits all of them alike. Medians and ratios go to
# bench/results/<date>-<host>.md and .json (bench/report.py). A missed target is reported, never
# a failure: the script fails only when a tool fails to run its jobs.
#
# Environment: BENCH_REPS (5), BENCH_QUICK=1 (1 repetition, 500 jobs, chain of 100, 10 s windows,
# results under the work directory), BENCH_JOBS, BENCH_CHAIN, BENCH_SLEEPERS, BENCH_WINDOW (s),
# BENCH_TORCRUN (a built binary; default: build Release into build/), BENCH_OUT (results dir),
# BENCH_ONLY (space-separated subset of: throughput disk chain footprint server scale slurm
# million, and create: only the creation part of server, for working on it), BENCH_DISK_TMP (the
# disk pass's directory, default /var/tmp),
# BENCH_KEEP=1 (keep the work directory), BENCH_NOTE (a line added to the results), BENCH_TMP
# (where the work directory goes), BENCH_TAG (appended to the results' name). The server
# benchmarks: BENCH_SERVER_JOBS (100000), BENCH_SCALE_SIZES ("1000 10000 100000"),
# BENCH_MILLION_SIZES ("10000 100000 1000000"),
# BENCH_CREATE_JOBS (100000) and BENCH_CREATE_EDGES (1000000), BENCH_LOAD_WORKERS (64),
# BENCH_LOAD_SLOTS (16 jobs per claim), BENCH_SERVER_LOAD (a built torcrun-server-load; default:
# build it with -DTORCRUN_BENCH=ON beside torcrun), BENCH_SLURM_JOBS (200). TORCRUN_SLURM_ENV:
# the Slurm cluster's env file; without it the slurm benchmark is skipped.
set -euo pipefail
bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$bench_dir/../scripts/lib.sh"
source "$bench_dir/lib.sh"
source "$bench_dir/server_bench.sh"
source "$bench_dir/slurm_bench.sh"

quick=${BENCH_QUICK:-0}
if [ "$quick" = 1 ]; then
    reps=${BENCH_REPS:-1} jobs=${BENCH_JOBS:-500} chain=${BENCH_CHAIN:-100}
    sleepers=${BENCH_SLEEPERS:-100} window=${BENCH_WINDOW:-10}
    server_jobs=${BENCH_SERVER_JOBS:-2000} scale_sizes=${BENCH_SCALE_SIZES:-"500 2000"}
    create_jobs=${BENCH_CREATE_JOBS:-2000} create_edges=${BENCH_CREATE_EDGES:-10000}
    slurm_jobs=${BENCH_SLURM_JOBS:-32} million_sizes=${BENCH_MILLION_SIZES:-"1000 5000"}
else
    reps=${BENCH_REPS:-5} jobs=${BENCH_JOBS:-5000} chain=${BENCH_CHAIN:-500}
    sleepers=${BENCH_SLEEPERS:-500} window=${BENCH_WINDOW:-60}
    server_jobs=${BENCH_SERVER_JOBS:-100000} scale_sizes=${BENCH_SCALE_SIZES:-"1000 10000 100000"}
    create_jobs=${BENCH_CREATE_JOBS:-100000} create_edges=${BENCH_CREATE_EDGES:-1000000}
    slurm_jobs=${BENCH_SLURM_JOBS:-200}
    million_sizes=${BENCH_MILLION_SIZES:-"10000 100000 1000000"}
fi
load_workers=${BENCH_LOAD_WORKERS:-64} load_slots=${BENCH_LOAD_SLOTS:-16}
only=${BENCH_ONLY:-throughput disk chain footprint server scale slurm}
if [[ " $only " == *" slurm "* ]] && [ -z "${TORCRUN_SLURM_ENV:-}" ]; then
    bench_log "slurm benchmark skipped: TORCRUN_SLURM_ENV is not set"
    only=${only//slurm/}
fi
cores=$(nproc)
job_command=true   # every tool runs it as one `bash -c` process per job

ensure_packages parallel python3 procps
if [ -n "${BENCH_TORCRUN:-}" ]; then
    torcrun=$(realpath "$BENCH_TORCRUN")
else
    TORCRUN_TARGET=torcrun build_torcrun "$TORCRUN_ROOT/build"
    torcrun=$TORCRUN_ROOT/build/src/torcrun
fi
if [[ " $only " == *" server "* || " $only " == *" scale "* || " $only " == *" million "* ]]; then
    if [ -n "${BENCH_SERVER_LOAD:-}" ]; then
        server_load=$(realpath "$BENCH_SERVER_LOAD")
    else
        server_load=$(dirname "$torcrun")/../bench/torcrun-server-load
        [ -x "$server_load" ] || TORCRUN_TARGET=torcrun-server-load \
            build_torcrun "$(dirname "$torcrun")/.." -DTORCRUN_BENCH=ON
    fi
    [ -x "$server_load" ] || bench_fail "no torcrun-server-load at $server_load"
fi
[[ " $only " == *" slurm "* ]] && slurm_ready
grep -q '^CMAKE_BUILD_TYPE:STRING=Release$' "$(dirname "$torcrun")/../CMakeCache.txt" 2>/dev/null ||
    bench_log "warning: $torcrun is not from a Release build directory"
has_run=0
"$torcrun" run --help >/dev/null 2>&1 && has_run=1

# Every tool writes its outputs under the work directory, so all pay the same file system;
# BENCH_TMP picks it (default $TMPDIR, else /tmp). Creating a file costs ~5 us on tmpfs and can
# cost ~1 ms on a busy VM's disk, and torcrun creates 7 entries per job to xargs' 1: the results
# name the file system and the measured cost of one create.
work=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/torcrun-bench.XXXXXX")
disk_work=""
trap 'stop_started; [ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$work" ${disk_work:+"$disk_work"}' EXIT
samples=$work/samples.tsv
: >"$samples"
python3 "$bench_dir/gen_spec.py" independent "$jobs" "$job_command" >"$work/independent.json"
python3 "$bench_dir/gen_spec.py" chain "$chain" "$job_command" >"$work/chain.json"
python3 "$bench_dir/gen_spec.py" idle >"$work/idle.json"
python3 "$bench_dir/gen_spec.py" sleep "$sleepers" 120 >"$work/sleep.json"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
fs_type=$(df --output=fstype "$work" | tail -1)
create_us=$(python3 "$bench_dir/create_cost.py" "$work")
# The disk pass: the same jobs with their files on a disk file system, in the same run.
disk_fs="" disk_create_us=""
if [[ " $only " == *" disk "* ]]; then
    disk_work=$(mktemp -d "${BENCH_DISK_TMP:-/var/tmp}/torcrun-bench-disk.XXXXXX")
    disk_fs=$(df --output=fstype "$disk_work" | tail -1)
    if [[ "$disk_fs" == "$fs_type" || "$disk_fs" == tmpfs ]]; then
        bench_log "disk pass skipped: $disk_work is on $disk_fs, the work directory on $fs_type"
        only=${only//disk/} disk_fs=""
    else
        disk_create_us=$(python3 "$bench_dir/create_cost.py" "$disk_work")
    fi
fi
bench_log "work in $work: $reps repetitions, $cores cores, torcrun run: $([ $has_run = 1 ] && echo yes || echo no)"

for rep in $(seq 1 "$reps"); do
    if [[ " $only " == *" throughput "* ]]; then
        tools=(torcrun_worker xargs parallel)
        [ $has_run = 1 ] && tools=(torcrun_run "${tools[@]}")
        (( rep % 2 == 0 )) && tools=($(printf '%s\n' "${tools[@]}" | tac))
        for tool in "${tools[@]}"; do throughput_"$tool" "$rep"; done
    fi
    if [[ " $only " == *" disk "* ]]; then
        tools=(xargs)
        [ $has_run = 1 ] && tools=(torcrun_run xargs)
        (( rep % 2 == 0 )) && tools=($(printf '%s\n' "${tools[@]}" | tac))
        for tool in "${tools[@]}"; do
            tp_bench=throughput_disk tp_work=$disk_work throughput_"$tool" "$rep"
        done
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
    [[ " $only " == *" server "* ]] && server_bench "$rep"
    [[ " $only " == *" create "* ]] && create_run "$rep"
    [[ " $only " == *" scale "* ]] && scale_bench "$rep"
    [[ " $only " == *" million "* ]] && million_bench "$rep"
    [[ " $only " == *" slurm "* ]] && slurm_bench "$rep"
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
    server_jobs="$server_jobs" scale_sizes="$scale_sizes" create_jobs="$create_jobs" \
    create_edges="$create_edges" million_sizes="$million_sizes" \
    load_workers="$load_workers" load_slots="$load_slots" \
    slurm_jobs="$slurm_jobs" slurm_cpus="${slurm_cpus:-}" \
    fs="$fs_type" create_us="$create_us" disk_fs="$disk_fs" disk_create_us="$disk_create_us" \
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
