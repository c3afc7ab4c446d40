#!/usr/bin/env bash
# `kill -9` of a worker with running jobs, against a server with worker_lease_seconds=5 (the
# least it accepts): the worker's heartbeats stop, the server counts it lost, and its jobs do not
# stay `running`: they go back to `ready` or become `failed` as lost_worker_jobs says (both are
# run). The jobs' processes die with the worker (PR_SET_PDEATHSIG): none is left, found by the
# sleep duration on its command line or by the marker variable each job inherits.
# PDEATHSIG reaches the job's own process only; the jobs here exec their sleep (bash -c with one
# command), since a grandchild of a SIGKILLed worker is beyond anything the worker can do.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
trap worker_test_cleanup EXIT

marker=t0705-$$-$RANDOM
nap=297.$RANDOM  # a duration no other process on this machine sleeps

python3 - "$tmp/lost.json" "$nap" <<'PY'
import json, sys
jobs = [{"name": f"nap{i}", "command": f"sleep {sys.argv[2]}"} for i in range(4)]
json.dump({"name": "lost", "jobs": jobs}, open(sys.argv[1], "w"))
PY

for policy in ready failed; do
    start_server "$tmp/$policy.db" --set worker_lease_seconds=5 --set lost_worker_jobs=$policy
    submit_spec "$tmp/lost.json"
    rm -rf "$tmp/out"
    TORCRUN_TEST_MARKER=$marker "$torcrun" worker "$wf" $(worker_args) \
        --set resources.cpus=4 --set server.retry_window_seconds=5 2>"$tmp/worker.log" &
    worker_pid=$!
    wait_running 4 10 "$policy: "
    seen=$(job_processes | wc -l)
    [ "$seen" = 4 ] || fail "$policy: job processes before kill -9: $seen, expected 4: $(job_processes)"

    kill -9 "$worker_pid"
    wait "$worker_pid" 2>/dev/null || true
    worker_pid=""
    killed_at=$SECONDS
    for _ in $(seq 1 20); do
        [ -z "$(job_processes)" ] && break
        sleep 0.1
    done
    [ -z "$(job_processes)" ] || fail "$policy: job processes left 2 s after kill -9: $(job_processes)"

    want="nap0=$policy nap1=$policy nap2=$policy nap3=$policy"
    for _ in $(seq 1 150); do
        [ "$(job_statuses)" = "$want" ] && break
        sleep 0.1
    done
    [ "$(job_statuses)" = "$want" ] ||
        fail "$policy: 15 s after kill -9: $(job_statuses); server log: $(tail -5 "$server_log")"
    waited=$((SECONDS - killed_at))
    grep -q "^info lease: jobs of lost workers moved ready=$([ $policy = ready ] && echo 4 || echo 0) failed=$([ $policy = failed ] && echo 4 || echo 0)\$" "$server_log" ||
        fail "$policy: no moved-jobs line: $(cat "$server_log")"
    stop_server TERM
    echo "$policy: jobs $policy ${waited} s after kill -9"
done
echo ok
