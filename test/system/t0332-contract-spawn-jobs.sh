#!/usr/bin/env bash
# Dynamic jobs against Torc 0.23's contract: Prism's validating proxy in front of `torcrun server`
# checks the requests and answers of spawn_jobs (SpawnJobsRequest, SpawnJobsResponse,
# ErrorResponse on 422) and the workflow's `dynamic_jobs` and the job's `origin` as 0.23's models
# have them (test/data/torc-openapi-v0.23.0-prism.yaml; t0331 checks that copy). The session: a
# workflow with dynamic_jobs {max_iterations: 1}, its job claimed and started, a spawn, the same
# spawn again (the replay answers the same ids), a second generation refused by the cap, the
# convergence call, and the spawned jobs read back blocked with origin "spawn". Any violation
# fails (prism_lib.sh).
set -euo pipefail
torcrun=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
contract=$root/test/data/torc-openapi-v0.23.0-prism.yaml
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/prism_lib.sh"
trap 'stop_prism; kill_servers; rm -rf "$tmp"' EXIT

start_server "$tmp/db"
start_prism "$contract" "$base"

check POST /workflows '{"name": "spawn", "user": "alice", "dynamic_jobs": {"max_iterations": 1}}' 200
wf=$(field "$body" 'd["id"]')
[ "$(field "$body" 'd["dynamic_jobs"]')" = '{"max_iterations": 1}' ] || fail "workflow: $body"
check POST /resource_requirements "{\"workflow_id\": $wf, \"name\": \"small\", \"num_cpus\": 1, \"num_gpus\": 0, \"num_nodes\": 1, \"memory\": \"1g\", \"runtime\": \"PT10M\"}" 200
check POST /jobs "{\"workflow_id\": $wf, \"name\": \"orch\", \"command\": \"true\"}" 200
orch=$(field "$body" 'd["id"]')
check POST "/workflows/$wf/initialize_jobs" "" 200
start=$(date -u +%Y-%m-%dT%H:%M:%S.000000000+00:00)
check POST /compute_nodes "{\"workflow_id\": $wf, \"hostname\": \"node1\", \"pid\": 4242, \"start_time\": \"$start\", \"is_active\": true, \"num_cpus\": 4, \"memory_gb\": 8.0, \"num_gpus\": 0, \"num_nodes\": 1, \"time_limit\": null, \"compute_node_type\": \"local\", \"scheduler\": null}" 200
node=$(field "$body" 'd["id"]')
check POST "/workflows/$wf/claim_next_jobs?limit=1" "" 200
check PUT "/jobs/$orch/start_job/0/$node" "" 200

batch='{"lineage": "L", "state": {"gen": 1}, "jobs": [
    {"name": "work", "command": "true", "resource_requirements": "small", "priority": 2},
    {"name": "next", "command": "true", "depends_on": ["work"], "cancel_on_blocking_job_failure": false}]}'
check POST "/jobs/$orch/spawn_jobs" "$batch" 200
ids=$(field "$body" 'd["spawned_job_ids"]')
[ "$(field "$body" 'd["iteration"]')" = 1 ] || fail "spawn: $body"
check POST "/jobs/$orch/spawn_jobs" "$batch" 200
[ "$(field "$body" '[d["spawned_job_ids"], d["iteration"]]')" = "[$ids, 1]" ] || fail "replay: $body"
check POST "/jobs/$orch/spawn_jobs" '{"lineage": "L", "jobs": [{"name": "more", "command": "true"}]}' 422
grep -q 'attempted iteration 2 exceeds dynamic_jobs.max_iterations=1 (current spawn_count=1)' <<<"$body" \
    || fail "cap: $body"
check POST "/jobs/$orch/spawn_jobs" '{"lineage": "L", "jobs": [], "state": {"done": true}}' 200
[ "$(field "$body" '[d["spawned_job_ids"], d["iteration"]]')" = "[[], 1]" ] || fail "converge: $body"
check GET "/jobs?workflow_id=$wf&offset=0&limit=10" "" 200
[ "$(field "$body" '[[j["name"], j["status"], j.get("origin")] for j in d["items"]]')" = \
    '[["orch", "running", null], ["work", "blocked", "spawn"], ["next", "blocked", "spawn"]]' ] \
    || fail "jobs: $body"
echo "ok ($calls calls checked against the 0.23 contract)"
