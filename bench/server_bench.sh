# The server at scale (sourced by run.sh after lib.sh): B4 (64 simulated workers, batched and
# unbatched completions; creating a workflow of 100,000 jobs and 1,000,000 dependencies), B5
# (the cost per job at 1k, 10k and 100k jobs) and B7 (workflows up to a million jobs, created and
# run to the end: the server's peak RSS and CPU per job). Expects $server_load (the
# torcrun-server-load binary) and, from run.sh, $server_jobs, $scale_sizes, $create_jobs,
# $create_edges, $million_sizes, $load_workers and $load_slots.

# spec_of KIND N [ARGS...]: the path of a generated spec, written once per run.
spec_of() {
    local kind=$1 n=$2; shift 2
    local path=$work/$kind-$n${1:+-$1}.json
    [ -f "$path" ] || python3 "$bench_dir/gen_spec.py" "$kind" "$n" "$@" >"$path"
    echo "$path"
}

# server_load_run BENCH TOOL REP MODE N: a fresh server, a workflow of N independent jobs
# submitted (untimed), then $load_workers simulated workers complete it; records the load
# tool's figures.
server_load_run() {
    local bench=$1 tool=$2 rep=$3 mode=$4 n=$5 dir=$work/s-$1-$2-$3 spec line
    spec=$(spec_of independent "$n" true)
    start_server "$dir"
    submit "$spec"
    line=$("$server_load" --url "$base" --workflow "$wf" --workers "$load_workers" \
        --slots "$load_slots" --mode "$mode" --jobs "$n" --server-pid "$server_pid" \
        2>"$dir/load.err") || bench_fail "$bench $tool #$rep: $(cat "$dir/load.err")"
    stop_server
    rm -rf "$dir"
    local metric
    for metric in completions_per_s wall_s claim_p50_ms claim_p99_ms server_cpu_us_per_job \
        load_cpu_s; do
        record "$bench" "$tool" "$rep" "$metric" \
            "$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]])' \
                "$line" "$metric")"
    done
    bench_log "$bench $tool #$rep: $line"
}

# create_run REP: `torcrun submit` (through initialize_jobs) of $create_jobs jobs with
# $create_edges dependencies against a fresh server: the wall time, the client's CPU (user +
# system) and the server's.
create_run() {
    local rep=$1 dir=$work/create-$1 spec tck s0 s1 t0 t1 times
    spec=$(spec_of dag "$create_jobs" "$create_edges" 1000)
    start_server "$dir"
    tck=$(getconf CLK_TCK)
    s0=$(cpu_ticks "$server_pid")
    t0=$EPOCHREALTIME
    TIMEFORMAT='%U %S'
    times=$({ time "$torcrun" submit --url "$base" --no-schedule "$spec" \
        >"$dir/submit.out" 2>"$dir/submit.err"; } 2>&1) ||
        bench_fail "create #$rep: $(cat "$dir/submit.err")"
    t1=$EPOCHREALTIME
    s1=$(cpu_ticks "$server_pid")
    stop_server
    rm -rf "$dir"
    local wall client server
    wall=$(elapsed "$t0" "$t1")
    client=$(awk -v u="${times% *}" -v s="${times#* }" 'BEGIN { printf "%.3f", u + s }')
    server=$(awk -v d=$((s1 - s0)) -v t="$tck" 'BEGIN { printf "%.3f", d / t }')
    record create torcrun_submit "$rep" wall_s "$wall"
    record create torcrun_submit "$rep" client_cpu_s "$client"
    record create torcrun_submit "$rep" server_cpu_s "$server"
    bench_log "create #$rep: $create_jobs jobs, $create_edges dependencies in $wall s" \
        "(client CPU $client s, server CPU $server s)"
}

# server_bench REP: B4.
server_bench() {
    local modes=(batched unbatched) mode
    (( $1 % 2 == 0 )) && modes=(unbatched batched)
    for mode in "${modes[@]}"; do server_load_run server "$mode" "$1" "$mode" "$server_jobs"; done
    create_run "$1"
}

# scale_bench REP: B5, batched completions at each size of $scale_sizes.
scale_bench() {
    local sizes=($scale_sizes) n
    (( $1 % 2 == 0 )) && sizes=($(printf '%s\n' "${sizes[@]}" | tac))
    for n in "${sizes[@]}"; do server_load_run scale "n$n" "$1" batched "$n"; done
}

# million_run REP N: B7 at one size: a fresh server, a workflow of N independent jobs created
# through `torcrun submit` (timed: the creation's wall time), then run to the end by
# $load_workers simulated workers (batched); the server's peak RSS (VmHWM) after the run.
million_run() {
    local rep=$1 n=$2 dir=$work/m-$2-$1 spec line t0 t1 hwm metric
    spec=$(spec_of independent "$n" true)
    start_server "$dir"
    t0=$EPOCHREALTIME
    submit "$spec"
    t1=$EPOCHREALTIME
    line=$("$server_load" --url "$base" --workflow "$wf" --workers "$load_workers" \
        --slots "$load_slots" --mode batched --jobs "$n" --server-pid "$server_pid" \
        2>"$dir/load.err") || bench_fail "million n$n #$rep: $(cat "$dir/load.err")"
    hwm=$(status_kb "$server_pid" VmHWM)
    stop_server
    rm -rf "$dir"
    record million "n$n" "$rep" create_s "$(elapsed "$t0" "$t1")"
    record million "n$n" "$rep" server_hwm_kb "$hwm"
    for metric in completions_per_s server_cpu_us_per_job; do
        record million "n$n" "$rep" "$metric" \
            "$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]])' \
                "$line" "$metric")"
    done
    bench_log "million n$n #$rep: created in $(elapsed "$t0" "$t1") s, server peak RSS $hwm kB: $line"
}

# million_bench REP: B7 at each size of $million_sizes (opt-in: BENCH_ONLY=million).
million_bench() {
    local n
    for n in $million_sizes; do million_run "$1" "$n"; done
}
