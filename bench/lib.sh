# The benchmarks bench/run.sh runs (sourced). Each one appends "bench tool rep metric value"
# lines to $samples; report.py turns them into medians and ratios. Expects $torcrun, $work,
# $samples, $cores, $jobs, $chain, $sleepers, $window and $job_command from run.sh.

started_pids=()

bench_log() { printf '==> %s\n' "$*" >&2; }
bench_fail() { echo "bench: $*" >&2; exit 1; }

record() { printf '%s\t%s\t%s\t%s\t%s\n' "$@" >>"$samples"; }

# elapsed T0 T1: seconds between two $EPOCHREALTIME readings.
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", b - a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }

# Stops what this script started and still runs (by pid; the job processes of a worker killed
# here are in their own process groups, found as its children first).
stop_started() {
    local pid pgid
    for pid in "${started_pids[@]}"; do
        [ -d "/proc/$pid" ] || continue
        for pgid in $(ps -o pgid= --ppid "$pid"); do kill -KILL -- "-$pgid" 2>/dev/null || true; done
        kill -KILL "$pid" 2>/dev/null || true
    done
}

# start_server DIR: a `torcrun server` on a free port with its database in DIR; sets server_pid
# and base (the API URL).
start_server() {
    local dir=$1 line=""
    mkdir -p "$dir"
    : >"$dir/server.log"  # exists before the first grep below, however late the server starts
    "$torcrun" server --port 0 --db "$dir/torcrun.db" 2>"$dir/server.log" &
    server_pid=$!
    started_pids+=("$server_pid")
    for _ in $(seq 1 200); do
        line=$(grep -m1 '^torcrun server: listening on .*/torc-service/v1$' "$dir/server.log" || true)
        [ -n "$line" ] && break
        [ -d "/proc/$server_pid" ] || bench_fail "server exited: $(cat "$dir/server.log")"
        sleep 0.05
    done
    [ -n "$line" ] || bench_fail "no listening line after 10 s: $(cat "$dir/server.log")"
    base=${line#torcrun server: listening on }
}

stop_server() {
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
}

# submit SPEC: sets wf.
submit() {
    wf=$("$torcrun" submit --url "$base" "$1" 2>"$work/submit.err") ||
        bench_fail "submit $1: $(cat "$work/submit.err")"
}

# completed_count: the completed jobs of workflow $wf.
completed_count() {
    "$torcrun" status --url "$base" "$wf" --json |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"]["completed"])'
}

# cpu_ticks PID: utime + stime in clock ticks (fields 14 and 15 of /proc/PID/stat; the fields
# after the command name in parentheses start at field 3).
cpu_ticks() {
    local stat rest
    stat=$(cat "/proc/$1/stat")
    rest=${stat##*) }
    read -ra f <<<"$rest"
    echo $((f[11] + f[12]))
}

# status_kb PID KEY: a kB value of /proc/PID/status (VmRSS, VmHWM).
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }

# timed TOOL BENCH REP COUNT CMD...: runs CMD, records its wall time and COUNT / wall.
timed() {
    local tool=$1 bench=$2 rep=$3 count=$4; shift 4
    local t0 t1 wall rc=0
    t0=$EPOCHREALTIME
    "$@" || rc=$?
    t1=$EPOCHREALTIME
    [ $rc = 0 ] || bench_fail "$tool ($bench, repetition $rep) exited $rc"
    wall=$(elapsed "$t0" "$t1")
    record "$bench" "$tool" "$rep" wall_s "$wall"
    record "$bench" "$tool" "$rep" jobs_per_s "$(ratio "$count" "$wall")"
    bench_log "$bench $tool #$rep: $count jobs in $wall s"
}

# run_spec SPEC DIR: `torcrun run` with its output in DIR/out, its terminal output in DIR/run.out.
run_spec() {
    local rc=0
    mkdir -p "$2"
    "$torcrun" run "$1" --quiet --output-dir "$2/out" >"$2/run.out" 2>&1 || rc=$?
    [ $rc = 0 ] || echo "torcrun run: $(tail -5 "$2/run.out")" >&2
    return $rc
}

# run_worker DIR: `torcrun worker` on workflow $wf until it is complete; log in DIR/worker.log.
run_worker() {
    local rc=0
    "$torcrun" worker "$wf" --url "$base" --mode direct --output-dir "$1/out" \
        2>"$1/worker.log" || rc=$?
    [ $rc = 0 ] || echo "torcrun worker: $(tail -5 "$1/worker.log")" >&2
    return $rc
}

# -- throughput: $jobs independent jobs, one output file (or log directory) per job. The disk
# pass sets tp_bench=throughput_disk and tp_work (a directory on disk) around the same functions.

# own_cpu_ms LOG: the CPU (user + system, ms) the worker's process reported for itself on its
# `stopped` line: every thread of it, the jobs not counted.
own_cpu_ms() {
    sed -n 's/^.*info worker: stopped .*cpu_user_seconds=\([0-9.]*\) cpu_system_seconds=\([0-9.]*\).*/\1 \2/p' "$1" |
        awk '{ printf "%.1f", ($1 + $2) * 1000 }'
}

# record_per_job TOOL REP METRIC MS: MS (milliseconds over the whole run) per job, as METRIC.
record_per_job() {
    [ -n "$4" ] || bench_fail "$1: no CPU figures on the worker's stopped line"
    record "${tp_bench:-throughput}" "$1" "$2" "$3" "$(awk -v ms="$4" -v n="$jobs" 'BEGIN { printf "%.4f", ms / n }')"
}

# `torcrun run` hosts the server and the worker in one process, so its own CPU is both.
throughput_torcrun_run() {
    local dir=${tp_work:-$work}/t-run-$1
    timed torcrun_run "${tp_bench:-throughput}" "$1" "$jobs" run_spec "$work/independent.json" "$dir"
    record_per_job torcrun_run "$1" torcrun_cpu_ms_per_job "$(own_cpu_ms "$dir/out/worker.log")"
    rm -rf "$dir"
}

throughput_torcrun_worker() {
    local dir=$work/t-worker-$1 s0 s1 worker_ms server_ms
    start_server "$dir"
    submit "$work/independent.json"
    s0=$(cpu_ticks "$server_pid")
    timed torcrun_worker throughput "$1" "$jobs" run_worker "$dir"
    s1=$(cpu_ticks "$server_pid")
    [ "$(completed_count)" = "$jobs" ] || bench_fail "worker left jobs undone: $(tail "$dir/worker.log")"
    worker_ms=$(own_cpu_ms "$dir/worker.log")
    server_ms=$(awk -v t=$((s1 - s0)) -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", t * 1000 / hz }')
    record_per_job torcrun_worker "$1" worker_cpu_ms_per_job "$worker_ms"
    record_per_job torcrun_worker "$1" server_cpu_ms_per_job "$server_ms"
    record_per_job torcrun_worker "$1" torcrun_cpu_ms_per_job \
        "$(awk -v w="$worker_ms" -v s="$server_ms" 'BEGIN { printf "%.1f", w + s }')"
    stop_server
    rm -rf "$dir"
}

xargs_jobs() {
    seq 1 "$jobs" | xargs -P"$cores" -I{} bash -c "$job_command >'$1'/{}.out 2>&1"
}

parallel_jobs() {
    seq 1 "$jobs" | PARALLEL_SHELL=bash parallel --will-cite -j"$cores" "$job_command >'$1'/{}.out 2>&1"
}

# throughput_peer TOOL REP: xargs or parallel runs the jobs, each writing one file.
throughput_peer() {
    local dir=${tp_work:-$work}/t-$1-$2
    mkdir -p "$dir"
    timed "$1" "${tp_bench:-throughput}" "$2" "$jobs" "$1"_jobs "$dir"
    local n
    n=$(find "$dir" -name '*.out' | wc -l)
    [ "$n" = "$jobs" ] || bench_fail "$1 wrote $n output files, not $jobs"
    rm -rf "$dir"
}
throughput_xargs() { throughput_peer xargs "$1"; }
throughput_parallel() { throughput_peer parallel "$1"; }

# -- chain: $chain jobs, each depending on the one before

# job_run_time REP: the mean time of one `bash -c true` started from bash, over 200 runs; the
# chain's per-link latency is what remains of wall / links after it.
job_run_time() {
    local t0 t1
    t0=$EPOCHREALTIME
    for _ in $(seq 1 200); do bash -c "$job_command"; done
    t1=$EPOCHREALTIME
    record chain bash_c_true "$1" run_ms "$(awk -v s="$(elapsed "$t0" "$t1")" 'BEGIN { printf "%.4f", s * 1000 / 200 }')"
}

chain_torcrun_run() {
    local dir=$work/c-run-$1
    timed torcrun_run chain "$1" "$chain" run_spec "$work/chain.json" "$dir"
    rm -rf "$dir"
}

chain_torcrun_worker() {
    local dir=$work/c-worker-$1
    start_server "$dir"
    submit "$work/chain.json"
    timed torcrun_worker chain "$1" "$chain" run_worker "$dir"
    [ "$(completed_count)" = "$chain" ] || bench_fail "worker left chain jobs undone: $(tail "$dir/worker.log")"
    stop_server
    rm -rf "$dir"
}

# -- footprint: a worker's CPU and memory over $window seconds

# sample PHASE REP WORKER_PID: CPU % of one core of the worker and the server over the window,
# and the worker's RSS at its end and peak RSS since it started.
sample() {
    local phase=$1 rep=$2 wpid=$3 tck w0 w1 s0 s1 t0 t1
    tck=$(getconf CLK_TCK)
    w0=$(cpu_ticks "$wpid") s0=$(cpu_ticks "$server_pid") t0=$EPOCHREALTIME
    sleep "$window"
    w1=$(cpu_ticks "$wpid") s1=$(cpu_ticks "$server_pid") t1=$EPOCHREALTIME
    local secs
    secs=$(elapsed "$t0" "$t1")
    record footprint "$phase" "$rep" worker_cpu_pct \
        "$(awk -v d=$((w1 - w0)) -v t="$tck" -v s="$secs" 'BEGIN { printf "%.4f", d / t / s * 100 }')"
    record footprint "$phase" "$rep" server_cpu_pct \
        "$(awk -v d=$((s1 - s0)) -v t="$tck" -v s="$secs" 'BEGIN { printf "%.4f", d / t / s * 100 }')"
    record footprint "$phase" "$rep" worker_rss_kb "$(status_kb "$wpid" VmRSS)"
    record footprint "$phase" "$rep" worker_hwm_kb "$(status_kb "$wpid" VmHWM)"
    bench_log "footprint $phase #$rep: worker $((w1 - w0)) ticks in $secs s, RSS $(status_kb "$wpid" VmRSS) kB, peak $(status_kb "$wpid" VmHWM) kB"
}

# stop_worker PID: SIGTERM (the worker stops its jobs and reports them), at most 60 s.
stop_worker() {
    kill -TERM "$1"
    for _ in $(seq 1 600); do [ -d "/proc/$1" ] || break; sleep 0.1; done
    [ -d "/proc/$1" ] && bench_fail "worker $1 still running 60 s after SIGTERM"
    wait "$1" 2>/dev/null || true
}

footprint() {
    local rep=$1 dir=$work/f-$1 wpid n
    start_server "$dir"
    submit "$work/idle.json"
    "$torcrun" worker "$wf" --url "$base" --mode direct --output-dir "$dir/idle" \
        --set limits.idle_timeout_seconds=0 2>"$dir/idle.log" &
    wpid=$!
    started_pids+=("$wpid")
    for _ in $(seq 1 100); do grep -q '^info worker: running$' "$dir/idle.log" && break; sleep 0.1; done
    grep -q '^info worker: running$' "$dir/idle.log" || bench_fail "idle worker: $(cat "$dir/idle.log")"
    sleep 2
    sample idle "$rep" "$wpid"
    stop_worker "$wpid"

    submit "$work/sleep.json"
    "$torcrun" worker "$wf" --url "$base" --mode direct --output-dir "$dir/busy" \
        --set limits.idle_timeout_seconds=0 --set resources.cpus="$sleepers" 2>"$dir/busy.log" &
    wpid=$!
    started_pids+=("$wpid")
    for _ in $(seq 1 600); do
        n=$(ps --ppid "$wpid" --no-headers -o comm | grep -c '^sleep$' || true)
        [ "$n" -ge "$sleepers" ] && break
        sleep 0.1
    done
    [ "$n" -ge "$sleepers" ] || bench_fail "busy worker runs $n sleep jobs, not $sleepers: $(tail "$dir/busy.log")"
    sleep 2
    sample busy "$rep" "$wpid"
    stop_worker "$wpid"
    stop_server
    rm -rf "$dir"
}
