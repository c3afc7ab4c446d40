#!/usr/bin/env bash
# The server process runs the worker-lease sweep on its timer: a worker that heartbeats once and
# goes silent loses its running job after worker_lease_seconds (5, the minimum), the job goes back
# to ready, and a second worker's parked long-poll claim receives it without polling again.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
trap 'kill_servers; rm -rf "$tmp"' EXIT

start_server "$tmp/db" --set worker_lease_seconds=5 --set long_poll_max_seconds=20
expect POST /workflows '{"name": "lease", "user": "u"}' 200
wf=$(field "$body" 'd["id"]')
expect POST /jobs "{\"workflow_id\": $wf, \"name\": \"only\", \"command\": \"true\"}" 200
job=$(field "$body" 'd["id"]')
expect POST "/workflows/$wf/initialize_jobs" "" 200
expect POST /compute_nodes "$(compute_node_body a)" 200
a=$(field "$body" 'd["id"]')
expect POST /compute_nodes "$(compute_node_body b)" 200
b=$(field "$body" 'd["id"]')

# Worker a: heartbeat, claim, start, then silence.
expect POST "/compute_nodes/$a/heartbeat" "" 200
[ "$(field "$body" 'd["lease_seconds"]')" = 5 ] || fail "heartbeat: $body"
expect POST "/workflows/$wf/claim_next_jobs?limit=1&compute_node_id=$a" "" 200
[ "$(field "$body" 'd["jobs"][0]["id"]')" = "$job" ] || fail "claim by a: $body"
expect PUT "/jobs/$job/start_job/0/$a" "" 200
lost_at=$SECONDS

# Worker b waits on the server for up to 15 s; the sweep hands it a's job.
expect POST "/workflows/$wf/claim_next_jobs?limit=1&compute_node_id=$b&wait_seconds=15" "" 200
waited=$((SECONDS - lost_at))
[ "$(field "$body" '[(j["id"], j["status"]) for j in d["jobs"]]')" = "[[$job, \"pending\"]]" ] \
    || fail "claim by b after a's lease: $body"
[ $waited -ge 4 ] && [ $waited -le 9 ] || fail "the job came back after $waited s (lease 5 s)"
expect GET "/compute_nodes/$a" "" 200
[ "$(field "$body" 'd["is_active"]')" = false ] || fail "worker a still active: $body"
grep -qx "warning lease: worker lost compute_node_id=$a" "$server_log" \
    || fail "no lost-worker line: $(cat "$server_log")"
grep -qx 'info lease: jobs of lost workers moved ready=1 failed=0' "$server_log" \
    || fail "no moved-jobs line: $(cat "$server_log")"
expect POST "/compute_nodes/$a/heartbeat" "" 409

stop_server TERM
[ "$stop_rc" = 0 ] || fail "server exit $stop_rc"
echo "ok (job back after ${waited}s)"
