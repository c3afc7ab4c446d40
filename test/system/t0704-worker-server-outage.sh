#!/usr/bin/env bash
# The server is killed (SIGKILL) mid-run, stays down for 30 s and comes back on the same database
# and port. Meanwhile the worker keeps its jobs running: short ones finish during the outage
# (their results go to the journal), long ones span it and finish after the restart. Afterwards
# every job is completed, each with exactly one result on the server (none lost, none twice),
# the worker exits 0 and its journal holds nothing.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
trap worker_test_cleanup EXIT

start_server "$tmp/db"
python3 - "$tmp/outage.json" <<'PY'
import json, sys
jobs = [{"name": f"long{i}", "command": "sleep 33"} for i in range(2)]
jobs += [{"name": f"short{i:02d}", "command": "sleep 2"} for i in range(10)]
json.dump({"name": "outage", "jobs": jobs}, open(sys.argv[1], "w"))
PY
submit_spec "$tmp/outage.json"

# Four CPUs: both long jobs and two short ones start at once, eight short ones wait.
"$torcrun" worker "$wf" $(worker_args) --set resources.cpus=4 \
    --set limits.idle_timeout_seconds=60 2>"$tmp/worker.log" &
worker_pid=$!
wait_running 4 10

fixed_port=$port
stop_server KILL
sleep 30
kill -0 "$worker_pid" 2>/dev/null || fail "the worker ended during the outage: $(tail -20 "$tmp/worker.log")"
journaled=$(cat "$tmp"/out/journal/*.jsonl 2>/dev/null | wc -l)
[ "$journaled" -ge 2 ] || fail "results journaled during the outage: $journaled, expected >= 2: $(ls -la "$tmp/out/journal")"
start_server "$tmp/db"

rc=0
for _ in $(seq 1 300); do
    kill -0 "$worker_pid" 2>/dev/null || break
    sleep 0.1
done
kill -0 "$worker_pid" 2>/dev/null && fail "the worker still runs 30 s after the restart: $(tail -20 "$tmp/worker.log")"
wait "$worker_pid" || rc=$?
worker_pid=""
[ "$rc" = 0 ] || fail "worker exit $rc: $(tail -20 "$tmp/worker.log")"
left=$(job_statuses | tr ' ' '\n' | grep -v '=completed$' || true)
[ -z "$left" ] || fail "not completed: $left"
expect GET "/results?workflow_id=$wf&offset=0&limit=1000" "" 200
counts=$(python3 -c '
import collections, json, sys
items = json.loads(sys.argv[1])["items"]
per_job = collections.Counter((r["job_id"], r["status"], r["return_code"]) for r in items)
print(len(items), len(per_job), sorted(set(per_job.values())), sorted({k[1:] for k in per_job}))' "$body")
[ "$counts" = "12 12 [1] [('completed', 0)]" ] ||
    fail "results (count, jobs, results per job, outcomes): $counts: $body"
for f in "$tmp"/out/journal/*.jsonl; do
    [ -e "$f" ] || continue
    [ ! -s "$f" ] || fail "journal not empty: $f: $(cat "$f")"
done
stop_server
echo "ok ($journaled results journaled during the outage)"
