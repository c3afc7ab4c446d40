# Shared by the worker system tests (sourced after server_lib.sh): submit a spec, run
# `torcrun worker` against the server with short poll intervals, find per-job log directories.

# worker_test_cleanup: the worker tests' EXIT trap. A fault proxy ($proxy_pid) and a worker
# still running ($worker_pid) are killed, then the servers; $tmp is removed unless TORCRUN_KEEP is set.
worker_pid=""
proxy_pid=""
worker_test_cleanup() {
    if [ -n "$proxy_pid" ]; then kill "$proxy_pid" 2>/dev/null || true; fi
    if [ -n "$worker_pid" ]; then kill -9 "$worker_pid" 2>/dev/null || true; fi
    kill_servers
    [ -n "${TORCRUN_KEEP:-}" ] || rm -rf "$tmp"
}

# start_fault_proxy ARGS...: test/support/fault_proxy.py in front of the server ($port), with
# ARGS (--drop, --drop-match, --twice ...) and its log in $tmp/proxy.log; sets proxy_pid and
# proxy_port. stop_fault_proxy ends it.
start_fault_proxy() {
    : >"$tmp/proxy.out"  # emptied before the proxy starts: an earlier proxy's line is never read
    python3 "$(dirname "${BASH_SOURCE[0]}")/../support/fault_proxy.py" "$port" "$tmp/proxy.log" \
        "$@" >"$tmp/proxy.out" &
    proxy_pid=$!
    for _ in $(seq 1 100); do grep -q '^listening ' "$tmp/proxy.out" 2>/dev/null && break; sleep 0.05; done
    proxy_port=$(sed -n 's/^listening //p' "$tmp/proxy.out")
    [ -n "$proxy_port" ] || fail "the proxy did not start"
}
stop_fault_proxy() {
    kill "$proxy_pid"
    wait "$proxy_pid" 2>/dev/null || true
    proxy_pid=""
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

# attempt_dir JOB_NAME ATTEMPT: a directory with that attempt's files (one run) under the names
# an attempt directory gives them (stdout, stderr or output, command.txt, environment.txt,
# result.json, usage.json): the attempt directory where the worker wrote one (the attempt failed,
# or attempt_directory: always), else a view made here of its flat stdio files (job_stdio/) and
# of what the worker's record (job_records/) says of it, as `torcrun jobs` and the report read it.
attempt_dir() {
    local id
    id=$(job_id "$1")
    local dirs=("$tmp/out/jobs/wf${wf}_j${id}"/r*_a"$2")
    if [ -d "${dirs[0]}" ]; then
        echo "${dirs[0]}"
        return
    fi
    local view="$tmp/attempt_view/wf${wf}_j${id}_a$2"
    attempt_view "$tmp/out" "$wf" "$id" "$2" "$view" ||
        fail "no files for $1 attempt $2: $(find "$tmp/out" | head -50)"
    echo "$view"
}

# attempt_view OUTPUT_DIR WF JOB_ID ATTEMPT VIEW: writes VIEW from the flat files and the records;
# fails when neither has the attempt.
attempt_view() {
    python3 - "$@" <<'PY'
import glob, json, os, shutil, sys
out, wf, job, attempt, view = sys.argv[1:]
os.makedirs(view, exist_ok=True)
found = False
for ext, name in ((".o", "stdout"), (".e", "stderr"), (".log", "output")):
    for f in sorted(glob.glob(f"{out}/job_stdio/job_wf{wf}_j{job}_r*_a{attempt}{ext}")):
        shutil.copyfile(f, os.path.join(view, name))
        found = True
for f in sorted(glob.glob(f"{out}/job_records/*.jsonl")):
    for line in open(f):
        try:
            d = json.loads(line)
        except ValueError:
            continue
        if (d.get("workflow_id"), d.get("job_id"), d.get("attempt_id")) != (int(wf), int(job), int(attempt)):
            continue
        found = True
        kind = d.pop("kind")
        if kind == "attempt":
            open(os.path.join(view, "command.txt"), "w").write(d["command"])
            open(os.path.join(view, "environment.txt"), "w").write(d["environment"])
        elif kind == "usage":
            open(os.path.join(view, "usage.json"), "w").write(json.dumps(d["points"]) + "\n")
        elif kind == "result":
            open(os.path.join(view, "result.json"), "w").write(json.dumps(d) + "\n")
sys.exit(0 if found else 1)
PY
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

# frozen_test_cleanup: the EXIT trap of the tests that freeze the first worker ($worker_pid) while
# a second one ($second_pid) takes over: the first is resumed (so it can be killed), the second
# killed, then worker_test_cleanup.
second_pid=""
frozen_test_cleanup() {
    if [ -n "$worker_pid" ]; then kill -CONT "$worker_pid" 2>/dev/null || true; fi
    if [ -n "$second_pid" ]; then kill -9 "$second_pid" 2>/dev/null || true; fi
    worker_test_cleanup
}

# take_over_frozen N: starts a second worker ($second_pid, output in $tmp/out2, log
# $tmp/worker2.log) while the first is frozen past its lease, and waits until it has started N
# jobs: the lease runs out 10 s after the last beat and the sweep (every 2.5 s) sees it, up to
# 13 s after the freeze, later on a loaded machine. Sets second_node.
take_over_frozen() {
    mkdir -p "$tmp/out2"
    "$torcrun" worker "$wf" --url "$base" --output-dir "$tmp/out2" --mode direct --long-poll 1 \
        --poll-interval 0.5 --set resources.cpus=4 --set server.retry_window_seconds=5 \
        --set limits.idle_timeout_seconds=40 2>"$tmp/worker2.log" &
    second_pid=$!
    for _ in $(seq 1 300); do
        grep -c ': started attempt=' "$tmp/worker2.log" 2>/dev/null | grep -qx "$1" && break
        sleep 0.1
    done
    grep -c ': started attempt=' "$tmp/worker2.log" | grep -qx "$1" ||
        fail "the second worker did not start the $1 jobs: $(tail -20 "$tmp/worker2.log") $(tail -5 "$server_log")"
    second_node=$(grep -m1 -o 'registered as compute node [0-9]*' "$tmp/worker2.log" | grep -o '[0-9]*$')
}

# wait_exit_0 PID...: each worker exits 0 within 90 s; clears worker_pid and second_pid.
wait_exit_0() {
    local pid rc
    for pid in "$@"; do
        rc=0
        for _ in $(seq 1 900); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$pid" 2>/dev/null && fail "worker $pid still runs: $(tail -20 "$tmp/worker.log") $(tail -20 "$tmp/worker2.log" 2>/dev/null)"
        wait "$pid" || rc=$?
        [ "$rc" = 0 ] || fail "worker $pid exit $rc: $(tail -20 "$tmp/worker.log") $(tail -20 "$tmp/worker2.log" 2>/dev/null)"
    done
    worker_pid=""
    second_pid=""
}

# submit_appending_jobs NAME COMMAND: submits workflow NAME of 4 jobs job0..job3, each running
# COMMAND with APPEND in it replaced by an append of "name attempt" to $ran (see
# once_per_attempt); sets wf.
submit_appending_jobs() {
    python3 - "$tmp/$1.json" "$ran" "$1" "$2" <<'PY'
import json, sys
path, ran, name, command = sys.argv[1:]
append = 'echo "$TORC_JOB_NAME $TORC_ATTEMPT_ID" >> ' + ran
jobs = [{"name": f"job{i}", "command": command.replace("APPEND", append)} for i in range(4)]
json.dump({"name": name, "jobs": jobs}, open(path, "w"))
PY
    submit_spec "$tmp/$1.json"
}

# once_per_attempt FILE LINES: FILE (each job appends "name attempt") has LINES lines and none
# twice: no (job, attempt) ran twice.
once_per_attempt() {
    local counts
    counts=$(sort "$1" | uniq -c | awk '{print $1}' | sort -u | tr '\n' ' ')
    [ "$(wc -l <"$1")" = "$2" ] && [ "$counts" = "1 " ] ||
        fail "each (job, attempt) once, $2 lines, got: $(sort "$1" | tr '\n' ',')"
}

# start_finish_worker CPUS RUNNING: starts the worker under test ($worker_pid, log $tmp/worker.log)
# with server.lost_lease_policy finish and CPUS CPUs, waits until RUNNING jobs run, and sets
# first_node to its compute node.
start_finish_worker() {
    "$torcrun" worker "$wf" $(worker_args) --set resources.cpus="$1" \
        --set server.retry_window_seconds=5 --set server.lost_lease_policy=finish \
        --set limits.idle_timeout_seconds=40 2>"$tmp/worker.log" &
    worker_pid=$!
    wait_running "$2" 10
    first_node=$(grep -m1 -o 'registered as compute node [0-9]*' "$tmp/worker.log" | grep -o '[0-9]*$')
}
