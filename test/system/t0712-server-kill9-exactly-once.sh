#!/usr/bin/env bash
# A server killed with SIGKILL at random points while a worker runs its jobs, and restarted on
# the same database and port each time: no job is lost and none is executed twice. Each job
# appends its name to one file; the test counts. Claims whose reply the kill swallowed are
# answered again under their request key (kept in the database), starts and completions sent
# again are answered as the first, and the restarted server gives the worker a full lease.
# TORCRUN_KILL9_JOBS (default 500) and TORCRUN_KILL9_TIMES (default 5) size it; the issue's full
# form is 2,000 jobs and 5 kills.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
trap worker_test_cleanup EXIT

jobs=${TORCRUN_KILL9_JOBS:-500}
kills=${TORCRUN_KILL9_TIMES:-5}
lease=(--set worker_lease_seconds=10)
start_server "$tmp/db" "${lease[@]}"
fixed_port=$port
python3 - "$tmp/spec.json" "$tmp/ran" "$jobs" <<'PY'
import json, sys
jobs = [{"name": f"j{i}", "command": f"echo j{i} >> {sys.argv[2]}"} for i in range(int(sys.argv[3]))]
json.dump({"name": "kill9", "jobs": jobs}, open(sys.argv[1], "w"))
PY
submit_spec "$tmp/spec.json"

# The worker rides out each outage (a few seconds) without giving up on the server.
"$torcrun" worker "$wf" $(worker_args) --set resources.cpus=4 \
    --set server.lost_lease_policy=finish --set server.retry_window_seconds=60 \
    --set server.allow_retry_beyond_lease=true 2>"$tmp/worker.log" &
worker_pid=$!

at=""
done_count() { [ -e "$tmp/ran" ] && wc -l <"$tmp/ran" || echo 0; }
for k in $(seq 1 "$kills"); do
    # Kill at a random point of the run: after a random share of the jobs has run.
    target=$(( jobs * k / (kills + 1) + RANDOM % (jobs / (kills + 1) / 2 + 1) ))
    for _ in $(seq 1 600); do
        [ "$(done_count)" -ge "$target" ] && break
        kill -0 "$worker_pid" 2>/dev/null || fail "the worker ended early: $(tail -20 "$tmp/worker.log")"
        sleep 0.05
    done
    at+="$(done_count) "
    stop_server KILL
    sleep 0.$((RANDOM % 9 + 1))
    start_server "$tmp/db" "${lease[@]}"
done

for _ in $(seq 1 1800); do kill -0 "$worker_pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$worker_pid" 2>/dev/null && fail "the worker still runs: $(tail -20 "$tmp/worker.log")"
rc=0
wait "$worker_pid" || rc=$?
worker_pid=""
[ "$rc" = 0 ] || fail "worker exit $rc: $(tail -20 "$tmp/worker.log")"

left=$(job_statuses | tr ' ' '\n' | grep -v '=completed$' || true)
[ -z "$left" ] || fail "not completed: $(echo "$left" | head -5)"
twice=$(sort "$tmp/ran" | uniq -d | head -5)
[ -z "$twice" ] || fail "executed twice: $twice"
[ "$(sort -u "$tmp/ran" | wc -l)" = "$jobs" ] || fail "executed: $(sort -u "$tmp/ran" | wc -l) of $jobs"
stop_server
echo "ok ($jobs jobs, $kills server kill -9 after ${at% } jobs had run: each executed once)"
