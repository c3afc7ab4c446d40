#!/usr/bin/env bash
# What the server repairs for its workers, over curl against `torcrun server`:
# - a keyed claim (compute_node_id + request_key) sent again after a server restart gets the
#   first claim's job, not a new one;
# - deactivating a node (PUT compute_nodes is_active=false) that still holds a pending and a
#   running job puts both back to ready; a late start or unfenced completion (a Torc v0.10
#   client, the node only in the result body) from that node is refused with 409;
# - the same POST /results sent twice stores one record;
# - afterwards a worker completes every job, each executed once.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
trap worker_test_cleanup EXIT

start_server "$tmp/db"
python3 - "$tmp/repairs.json" "$tmp/ran" <<'PY'
import json, sys
jobs = [{"name": f"j{i}", "command": f"echo j{i} >> {sys.argv[2]}"} for i in range(1, 4)]
json.dump({"name": "repairs", "jobs": jobs}, open(sys.argv[1], "w"))
PY
submit_spec "$tmp/repairs.json"
expect POST /compute_nodes "$(compute_node_body a)" 200
a=$(field "$body" 'd["id"]')
expect POST /compute_nodes "$(compute_node_body b)" 200
b=$(field "$body" 'd["id"]')
claimed() { field "$body" '[j["id"] for j in d["jobs"]]'; }

# A keyed claim, the server restarted, the same claim again: the same job.
expect POST "/workflows/$wf/claim_next_jobs?limit=1&compute_node_id=$b&request_key=k1" "" 200
first=$(claimed)
[ "$(field "$body" 'len(d["jobs"])')" = 1 ] || fail "keyed claim: $body"
fixed_port=$port
stop_server TERM
start_server "$tmp/db"
expect POST "/workflows/$wf/claim_next_jobs?limit=1&compute_node_id=$b&request_key=k1" "" 200
[ "$(claimed)" = "$first" ] || fail "the claim sent again after the restart: $(claimed), first $first"
held_by_b=$(field "$first" 'd[0]')

# Node a holds a running job; a and b are deactivated: their jobs are ready again.
expect POST "/workflows/$wf/claim_next_jobs?limit=1&compute_node_id=$a" "" 200
running=$(field "$body" 'd["jobs"][0]["id"]')
expect PUT "/jobs/$running/start_job/0/$a" "" 200
expect PUT "/compute_nodes/$a" "$(compute_node_body a false)" 200
expect PUT "/compute_nodes/$b" "$(compute_node_body b false)" 200
for job in $running $held_by_b; do
    expect GET "/jobs/$job" "" 200
    [ "$(field "$body" 'd["status"]')" = ready ] || fail "job $job after deactivation: $body"
done
result() {
    echo "{\"workflow_id\": $wf, \"job_id\": $1, \"run_id\": 0, \"attempt_id\": 1,
        \"compute_node_id\": $2, \"return_code\": 0, \"exec_time_minutes\": 0.1,
        \"completion_time\": \"2026-01-01T00:01:00Z\", \"status\": \"completed\"}"
}
# The job went back, so the late completion (unfenced, as a Torc v0.10 client sends it) and a
# start are refused.
expect POST "/jobs/$running/complete_job/completed/0" "$(result "$running" "$a")" 409
[ "$(field "$body" 'd["message"]')" = "complete_job: job $running is \"ready\"; nobody claimed it, so only a pending, running or pending_failed job can complete" ] ||
    fail "unfenced completion from the deactivated node: $body"
expect PUT "/jobs/$running/start_job/0/$a" "" 409

# The same result twice: one record.
expect POST /results "$(result "$running" "$a")" 200
id1=$(field "$body" 'd["id"]')
expect POST /results "$(result "$running" "$a")" 200
[ "$(field "$body" 'd["id"]')" = "$id1" ] || fail "a second record for the same result: $body"
expect GET "/results?workflow_id=$wf&all_runs=true&compute_node_id=$a" "" 200
[ "$(field "$body" 'len(d["items"])')" = 1 ] || fail "results of node $a: $body"

# A new worker completes every job, each once.
"$torcrun" worker "$wf" $(worker_args) 2>"$tmp/worker.log" &
worker_pid=$!
rc=0
wait "$worker_pid" || rc=$?
worker_pid=""
[ "$rc" = 0 ] || fail "worker exit $rc: $(tail -20 "$tmp/worker.log")"
[ "$(job_statuses)" = "j1=completed j2=completed j3=completed" ] || fail "statuses: $(job_statuses)"
[ "$(sort "$tmp/ran" | tr '\n' ' ')" = "j1 j2 j3 " ] || fail "executed: $(cat "$tmp/ran")"
stop_server
echo "ok"
