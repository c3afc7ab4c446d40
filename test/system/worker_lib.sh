# Shared by the worker system tests (sourced after server_lib.sh): submit a spec, run
# `torcrun worker` against the server with short poll intervals, find per-job log directories.

# worker_test_cleanup: the worker tests' EXIT trap. A worker still running ($worker_pid) is
# killed, then the servers; $tmp is removed unless TORCRUN_KEEP is set.
worker_pid=""
worker_test_cleanup() {
    if [ -n "$worker_pid" ]; then kill -9 "$worker_pid" 2>/dev/null || true; fi
    kill_servers
    [ -n "${TORCRUN_KEEP:-}" ] || rm -rf "$tmp"
}

# submit_spec FILE: sets wf.
submit_spec() {
    wf=$("$torcrun" submit --url "$base" "$1" 2>"$tmp/submit.err") || fail "submit: $(cat "$tmp/submit.err")"
    [[ "$wf" =~ ^[0-9]+$ ]] || fail "submit stdout is not an id: '$wf'"
}

# worker_args: the flags every test passes (output in $tmp/out, quick polls, an idle bound).
worker_args() {
    echo --url "$base" --output-dir "$tmp/out" --mode direct --long-poll 1 \
        --poll-interval 0.5 --set limits.idle_timeout_seconds=20
}

# job_id JOB_NAME: the id of the job of $wf with that name.
job_id() {
    "$torcrun" jobs --url "$base" "$wf" --json |
        python3 -c 'import json,sys; print([j["id"] for j in json.load(sys.stdin) if j["name"] == sys.argv[1]][0])' "$1"
}

# attempt_dir JOB_NAME ATTEMPT: the log directory of that attempt (one run).
attempt_dir() {
    local id
    id=$(job_id "$1")
    local dirs=("$tmp/out/jobs/wf${wf}_j${id}"/r*_a"$2")
    [ -d "${dirs[0]}" ] || fail "no log directory for $1 attempt $2: $(find "$tmp/out" | head -50)"
    echo "${dirs[0]}"
}

# job_statuses: "name=status ..." sorted by name.
job_statuses() {
    "$torcrun" jobs --url "$base" "$wf" --json |
        python3 -c 'import json,sys; print(" ".join(sorted(j["name"] + "=" + j["status"] for j in json.load(sys.stdin))))'
}

# job_processes: pids and command lines of the live processes other than the worker that sleep
# $nap or carry TORCRUN_TEST_MARKER=$marker in their environment (the test sets that variable for
# the worker, so every job process inherits it). The worker's job guardian (named torcrun-guard)
# inherits it too and is not a job process.
job_processes() {
    local dir pid cmd
    for dir in /proc/[0-9]*; do
        pid=${dir#/proc/}
        [ "$pid" = "$worker_pid" ] && continue
        [ "$(cat "$dir/comm" 2>/dev/null)" = torcrun-guard ] && continue
        { cmd=$(tr '\0' ' ' <"$dir/cmdline"); } 2>/dev/null || continue
        if [[ $cmd == *"sleep $nap"* ]] ||
            grep -qa "TORCRUN_TEST_MARKER=$marker" "$dir/environ" 2>/dev/null; then
            echo "$pid $cmd;"
        fi
    done
}

# running_jobs: how many jobs of $wf are running on the server.
running_jobs() { "$torcrun" jobs --url "$base" "$wf" --status running --json | field "$(cat)" 'len(d)'; }

# wait_running N SECONDS [LABEL]: until N jobs run, or fail with the statuses and the worker log.
wait_running() {
    local i
    for ((i = 0; i < $2 * 10; i++)); do
        [ "$(running_jobs)" = "$1" ] && return 0
        sleep 0.1
    done
    fail "${3:-}not $1 running: $(job_statuses) $(tail -5 "$tmp/worker.log")"
}
