#!/usr/bin/env bash
# Durability (SQLite WAL): jobs are completed through the server, and the server is killed with
# SIGKILL right after each acknowledged completion (batch_complete_jobs batches and single
# complete_job calls), then restarted on the same database. Every acknowledged completion is
# there after each restart: the job completed, its result row, its dependents released.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
trap 'kill_servers; rm -rf "$tmp"' EXIT

jobs=40        # 4 batches of 8, then 8 single completions
db=$tmp/db
start_server "$db"
expect POST /workflows '{"name": "durable", "user": "u"}' 200
wf=$(field "$body" 'd["id"]')
bulk=$(python3 -c "
import json
print(json.dumps({'jobs': [{'workflow_id': $wf, 'name': f'j{i}', 'command': 'true'}
                           for i in range($jobs)]}))")
expect POST /bulk_jobs "$bulk" 200
first=$(field "$body" 'd["jobs"][0]["id"]')
after=$(python3 -c "
import json
print(json.dumps({'jobs': [{'workflow_id': $wf, 'name': f'after{i}', 'command': 'true',
                            'depends_on_job_ids': [$first + i]} for i in range($jobs)]}))")
expect POST /bulk_jobs "$after" 200
expect POST "/workflows/$wf/initialize_jobs" "" 200
expect POST /compute_nodes "{\"workflow_id\": $wf, \"hostname\": \"h\", \"pid\": 1,
    \"start_time\": \"2026-01-01T00:00:00Z\", \"is_active\": true, \"num_cpus\": 64,
    \"memory_gb\": 64, \"num_gpus\": 0, \"num_nodes\": 1, \"compute_node_type\": \"local\"}" 200
node=$(field "$body" 'd["id"]')
expect POST "/workflows/$wf/claim_next_jobs?limit=$jobs" "" 200
[ "$(field "$body" 'len(d["jobs"])')" = $jobs ] || fail "claimed: $body"
for i in $(seq 0 $((jobs - 1))); do expect PUT "/jobs/$((first + i))/start_job/0/$node" "" 200; done

result() {  # result JOB: a ResultModel for the job
    echo "{\"job_id\": $1, \"workflow_id\": $wf, \"run_id\": 0, \"compute_node_id\": $node,
        \"return_code\": 0, \"exec_time_minutes\": 0.1,
        \"completion_time\": \"2026-01-01T00:01:00Z\", \"status\": \"completed\"}"
}

acked=0
# After SIGKILL and a restart, the acknowledged completions are all there, and no more.
kill_and_check() {
    stop_server KILL
    [ "$stop_rc" = 137 ] || fail "SIGKILL exit $stop_rc"
    start_server "$db"
    expect GET "/jobs?workflow_id=$wf&status=completed&limit=1" "" 200
    [ "$(field "$body" 'd["total_count"]')" = $acked ] || fail "completed after restart: $body (acked $acked)"
    expect GET "/results?workflow_id=$wf&limit=1" "" 200
    [ "$(field "$body" 'd["total_count"]')" = $acked ] || fail "results after restart: $body"
    expect GET "/jobs?workflow_id=$wf&status=ready&limit=1" "" 200
    [ "$(field "$body" 'd["total_count"]')" = $acked ] || fail "dependents released: $body"
}

for batch in 0 1 2 3; do
    entries=""
    for k in $(seq 0 7); do
        job=$((first + batch * 8 + k))
        entries+="${entries:+,}{\"job_id\": $job, \"status\": \"completed\", \"run_id\": 0,
            \"result\": $(result $job)}"
    done
    expect POST "/workflows/$wf/batch_complete_jobs" "{\"completions\": [$entries]}" 200
    [ "$(field "$body" '[len(d["completed"]), len(d["errors"])]')" = '[8, 0]' ] \
        || fail "batch $batch: $body"
    acked=$((acked + 8))
    kill_and_check
done
for k in $(seq 32 $((jobs - 1))); do
    job=$((first + k))
    expect POST "/jobs/$job/complete_job/completed/0" "$(result $job)" 200
    acked=$((acked + 1))
    [ $((k % 2)) = 1 ] && kill_and_check
done
kill_and_check
expect GET "/jobs?workflow_id=$wf&status=running&limit=1" "" 200
[ "$(field "$body" 'd["total_count"]')" = 0 ] || fail "jobs left running: $body"
stop_server TERM
[ "$stop_rc" = 0 ] || fail "server exit $stop_rc"
echo "ok ($acked acknowledged completions survived $((4 + 4 + 1)) kills)"
