#!/usr/bin/env bash
# Issue 11 §4: `kill -9` of a worker with 8 running jobs of four shapes - simple (bash execs the
# sleep), compound (`sleep; true`: bash waits for its child), forking (two background sleeps of
# an inner bash) and TERM-ignoring - leaves none of their processes: each job's whole session
# dies with the worker (the job guardian), well within the lease + 10 s. The jobs go back to
# `ready` after the 5 s lease; a second worker runs each once more and each completes once (the
# command sleeps only on its first attempt, found by a marker file).
# Each job process is found by the sleep duration on its command line ($nap, which the bash
# processes of compound commands carry too: pgrep, fast enough to time the kill), and at the end
# also by the marker variable of worker_lib's job_processes (a scan of seconds).
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
# Should the test fail, the processes it found left are killed too.
trap '{ pgrep -f "sleep $nap" || true; } | xargs -r kill -9 || true; worker_test_cleanup' EXIT

marker=t0710-$$-$RANDOM
nap=296.$RANDOM  # a duration no other process on this machine sleeps
mkdir -p "$tmp/attempted"

python3 - "$tmp/spec.json" "$nap" "$tmp" <<'PY'
import json, sys
spec_path, nap, tmp = sys.argv[1:]
shapes = {
    "simple": f"exec sleep {nap}",
    "compound": f"sleep {nap}; true",
    "forking": f"bash -c 'sleep {nap} & sleep {nap} & wait'",
    "ignoring": f"trap '' TERM; sleep {nap}",
}
jobs = []
for shape, long_part in shapes.items():
    for i in range(2):
        name = f"{shape}{i}"
        first = (f"if [ -e {tmp}/attempted/{name} ]; then "
                 f"echo {name} >>{tmp}/completed; exit 0; fi; touch {tmp}/attempted/{name}; ")
        jobs.append({"name": name, "command": first + long_part})
json.dump({"name": "orphans", "jobs": jobs}, open(spec_path, "w"))
PY

start_server "$tmp/db" --set worker_lease_seconds=5 --set lost_worker_jobs=ready
submit_spec "$tmp/spec.json"
TORCRUN_TEST_MARKER=$marker "$torcrun" worker "$wf" $(worker_args) \
    --set resources.cpus=8 --set server.retry_window_seconds=5 2>"$tmp/worker.log" &
worker_pid=$!
wait_running 8 20 "first worker: "
nap_processes() { pgrep -f "sleep $nap" || true; }
sleeps() { pgrep -fx "sleep $nap" | wc -l; }
# Every shape has started its sleeps (the forking ones two each).
for _ in $(seq 1 100); do
    [ "$(sleeps)" -ge 10 ] && break
    sleep 0.1
done
before=$(nap_processes | wc -l)
[ "$(sleeps)" -ge 10 ] ||
    fail "10 sleeps expected before kill -9, found $(sleeps): $(job_processes)"

kill -9 "$worker_pid"
wait "$worker_pid" 2>/dev/null || true
worker_pid=""
killed_at=$EPOCHREALTIME
for _ in $(seq 1 150); do  # the lease (5 s) + 10 s
    [ -z "$(nap_processes)" ] && break
    sleep 0.1
done
gone=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" \
    "$killed_at" "$EPOCHREALTIME")
left=$(nap_processes)
[ -z "$left" ] || fail "job processes left 15 s after kill -9 of the worker: $(job_processes)"
left=$(job_processes)
[ -z "$left" ] || fail "processes with the jobs' marker left after kill -9 of the worker: $left"
grep -q "guardian: the worker is gone; its jobs are stopped groups=8" "$tmp/worker.log" ||
    fail "no guardian line in the first worker's log: $(tail -5 "$tmp/worker.log")"

# The jobs return to ready after the lease; a second worker completes each one once.
"$torcrun" worker "$wf" $(worker_args) --set resources.cpus=8 --set server.retry_window_seconds=5 \
    2>"$tmp/worker2.log" &
worker_pid=$!
for _ in $(seq 1 600); do
    kill -0 "$worker_pid" 2>/dev/null || break
    sleep 0.1
done
kill -0 "$worker_pid" 2>/dev/null && fail "the second worker still runs after 60 s: $(job_statuses)"
rc=0
wait "$worker_pid" || rc=$?
worker_pid=""
[ "$rc" = 0 ] || fail "second worker exit $rc: $(tail -5 "$tmp/worker2.log")"
want="compound0=completed compound1=completed forking0=completed forking1=completed"
want+=" ignoring0=completed ignoring1=completed simple0=completed simple1=completed"
[ "$(job_statuses)" = "$want" ] || fail "statuses: $(job_statuses)"
completed=$(sort "$tmp/completed" | tr '\n' ' ')
[ "$completed" = "compound0 compound1 forking0 forking1 ignoring0 ignoring1 simple0 simple1 " ] ||
    fail "each job should complete once: $completed"
[ -z "$(job_processes)" ] || fail "processes left at the end: $(job_processes)"
echo "ok: $before job processes of 8 jobs, none left ${gone} s after kill -9;" \
    "each job completed once by a second worker"
