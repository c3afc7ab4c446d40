#!/usr/bin/env bash
# Torc 0.23's API contract, as t0330 runs v0.10's: Prism's validating proxy in front of `torcrun
# server` checks every request and response of a session shaped as a 0.23 client sends it
# against the 0.23 document (test/data/torc-openapi-v0.23.0.yaml: NatLabRockies/torc
# api/openapi.codegen.yaml at commit f3757afca17c96b53bba8d09df09ffbca361cb69, copied byte for
# byte), through its copy with one mend (torc-openapi-v0.23.0-prism.yaml: a null `task` in
# active_task's answer, as the document's own words say; see test/data/README.md), which this
# test first checks is the only difference. The session: /version as VersionResponse (and torcrun's
# `server` key), configuration fields as objects (answered as objects), run_id and is_canceled
# read from the workflow, initialize_jobs?async=true and its task, no body on the body-less calls,
# claims, start, complete_job and batch_complete_jobs, an action claimed with no compute node and
# read through `success`, retry with max_retries, /status as WorkflowStatusResponse, is_complete
# without needs_to_run_completion_script, manage_status_change, the reads a runner makes, its
# node registered with end_time and deactivated with its usage, cancel, reset and delete. Any
# violation fails (prism_lib.sh).
set -euo pipefail
torcrun=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
published=$root/test/data/torc-openapi-v0.23.0.yaml
contract=$root/test/data/torc-openapi-v0.23.0-prism.yaml
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/prism_lib.sh"
trap 'stop_prism; kill_servers; rm -rf "$tmp"' EXIT

# The mended copy is the published document but for its header comment and the one mend.
python3 - "$published" "$contract" <<'PY' || fail "$contract is not the published document with its one mend"
import sys
published, mended = (open(p).read() for p in sys.argv[1:])
header = "".join(l for l in mended.splitlines(True) if l.startswith("#"))
before = "        task:\n          $ref: '#/components/schemas/TaskModel'\n"
after = ("        task:\n          oneOf:\n          - $ref: '#/components/schemas/TaskModel'\n"
         "          - type: 'null'\n")
assert published.count(before) == 1
assert mended == header + published.replace(before, after)
PY

start_server "$tmp/db"
start_prism "$contract" "$base"

# Prism validates: 0.23 requires max_retries on retry_job, so a retry without it never reaches
# the server.
curl -s -o "$tmp/body" -w '%{http_code}' -X POST "$base/jobs/1/retry/0" >"$tmp/code"
[ "$(cat "$tmp/code")" = 422 ] && grep -q 'prism/errors#UNPROCESSABLE_ENTITY' "$tmp/body" \
    && grep -q "must have required property 'max_retries'" "$tmp/body" \
    || fail "Prism is not validating requests: $(cat "$tmp/code") $(cat "$tmp/body")"

check GET /ping "" 200
[ "$body" = '{"status":"ok"}' ] || fail "ping: $body"
check GET /version "" 200
[ "$(field "$body" '[d["api_version"], d["server"], type(d["version"]).__name__]')" = \
    '["0.23.0", "torcrun", "str"]' ] || fail "version: $body"

# A workflow as a 0.23 client creates it: its configuration fields are objects, and come back so.
monitor='{"jobs": {"enabled": true, "sample_interval_seconds": 5}, "granularity": "summary"}'
check POST /workflows "{\"name\": \"contract-0.23\", \"user\": \"alice\", \"project\": \"p\",
    \"metadata\": {\"team\": \"a\"}, \"env\": {\"STAGE\": \"test\"},
    \"resource_monitor_config\": $monitor, \"slurm_defaults\": {\"qos\": \"high\"},
    \"execution_config\": {\"mode\": \"direct\"}}" 200
wf=$(field "$body" 'd["id"]')
[ "$(field "$body" '[d["resource_monitor_config"]["jobs"]["sample_interval_seconds"], d["slurm_defaults"], d["execution_config"], d["run_id"], d["is_canceled"], d["is_archived"]]')" = \
    '[5, {"qos": "high"}, {"mode": "direct"}, 0, false, false]' ] || fail "created workflow: $body"
check GET "/workflows/$wf" "" 200
[ "$(field "$body" '[d["run_id"], d["is_canceled"], d["slurm_defaults"]]')" = '[0, false, {"qos": "high"}]' ] \
    || fail "workflow: $body"
check GET "/workflows?offset=0&limit=10" "" 200
# Values of the read-only fields that a client sends are ignored.
check PUT "/workflows/$wf" "{\"name\": \"contract-0.23\", \"user\": \"alice\", \"run_id\": 7,
    \"is_canceled\": true, \"slurm_defaults\": {\"qos\": \"low\"}}" 200
[ "$(field "$body" '[d["run_id"], d["is_canceled"], d["slurm_defaults"], d["resource_monitor_config"]["granularity"]]')" = \
    '[0, false, {"qos": "low"}, "summary"]' ] || fail "updated workflow: $body"

check POST /resource_requirements "{\"workflow_id\": $wf, \"name\": \"small\", \"num_cpus\": 1, \"num_gpus\": 0, \"num_nodes\": 1, \"memory\": \"1g\", \"runtime\": \"PT10M\"}" 200
rr=$(field "$body" 'd["id"]')
check POST /bulk_jobs "{\"jobs\": [
    {\"workflow_id\": $wf, \"name\": \"first\", \"command\": \"true\", \"priority\": 5, \"resource_requirements_id\": $rr},
    {\"workflow_id\": $wf, \"name\": \"second\", \"command\": \"true\", \"env\": {\"X\": \"1\"}},
    {\"workflow_id\": $wf, \"name\": \"third\", \"command\": \"false\"}]}" 200
first=$(field "$body" 'd["jobs"][0]["id"]')
check POST /jobs "{\"workflow_id\": $wf, \"name\": \"last\", \"command\": \"true\", \"depends_on_job_ids\": [$first]}" 200
last=$(field "$body" 'd["id"]')
check POST "/workflows/$wf/actions" "{\"workflow_id\": $wf, \"trigger_type\": \"on_workflow_start\", \"action_type\": \"run_commands\", \"action_config\": {\"commands\": [\"echo start\"]}}" 200
action=$(field "$body" 'd["id"]')

# initialize_jobs?async=true: 202 and the task, read back as succeeded; none is active after.
check POST "/workflows/$wf/initialize_jobs?async=true" "" 202
task=$(field "$body" 'd["id"]')
[ "$(field "$body" '[d["workflow_id"], d["operation"]]')" = "[$wf, \"initialize_jobs\"]" ] || fail "task: $body"
check GET "/tasks/$task" "" 200
[ "$(field "$body" 'd["status"]')" = succeeded ] || fail "task after: $body"
check GET "/workflows/$wf/active_task" "" 200
[ "$(field "$body" 'd.get("task")')" = null ] || fail "active task: $body"
check GET "/workflows/$wf/is_uninitialized" "" 200
check GET "/workflows/$wf/required_existing_files" "" 200
check GET "/workflows/$wf/ready_job_requirements" "" 200
check GET "/jobs?workflow_id=$wf&status=ready&offset=0&limit=10" "" 200
check GET "/resource_requirements/$rr" "" 200
check GET "/workflows/$wf/job_dependencies" "" 200

# Registered as a 0.23 runner does: the allocation's end_time, no time_limit.
start=$(date -u +%Y-%m-%dT%H:%M:%S.000000000+00:00)
end=$(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ)
check POST /compute_nodes "{\"workflow_id\": $wf, \"hostname\": \"node1\", \"pid\": 4242, \"start_time\": \"$start\", \"end_time\": \"$end\", \"is_active\": true, \"num_cpus\": 4, \"memory_gb\": 8.0, \"num_gpus\": 0, \"num_nodes\": 1, \"time_limit\": null, \"compute_node_type\": \"local\", \"scheduler\": null}" 200
node=$(field "$body" 'd["id"]')
[ "$(field "$body" 'd["end_time"]')" = "$end" ] || fail "compute node: $body"
# (No trigger_type filter: 0.23 declares it `type: [array, null]`, which Prism 5 does not build
# an array for from a query string, so it refuses any value; v0.10's t0330 sends the filter.)
check GET "/workflows/$wf/actions/pending" "" 200
[ "$(field "$body" '[a["id"] for a in d]')" = "[$action]" ] || fail "pending actions: $body"
# 0.23 makes the compute node optional: {} claims for no node in particular.
check POST "/workflows/$wf/actions/$action/claim" '{}' 200
[ "$(field "$body" '[d["action_id"], d["success"]]')" = "[$action, true]" ] || fail "claim_action: $body"

# Claims, both ways, with no body where 0.23 declares none.
check POST "/workflows/$wf/claim_next_jobs?limit=1" "" 200
[ "$(field "$body" '[j["name"] for j in d["jobs"]]')" = '["first"]' ] || fail "claim_next_jobs (priority): $body"
check POST "/workflows/$wf/claim_jobs_based_on_resources/5?strict_scheduler_match=false" \
    '{"num_cpus": 4, "memory_gb": 8.0, "num_gpus": 0, "num_nodes": 1, "time_limit": "PT1H", "scheduler_config_id": null}' 200
others=$(field "$body" '" ".join(str(j["id"]) for j in d["jobs"])')
[ "$(wc -w <<<"$others")" = 2 ] || fail "claim_jobs_based_on_resources: $body"
for job in $first $others; do
    check PUT "/jobs/$job/start_job/0/$node" "" 200
    [ "$(field "$body" '[d["status"], d["compute_node_id"]]')" = "[\"running\", $node]" ] \
        || fail "start_job: $body"
done
check GET "/workflows/$wf/status" "" 200
[ "$(field "$body" '[d["jobs_by_status"]["running"], d["jobs_by_status"]["pending_failed"], d["active_compute_nodes"], d["runtime_blocked_ready_jobs"], 0 < d["max_allocation_remaining_seconds"] <= 3600]')" = \
    '[3, 0, 1, 0, true]' ] || fail "status while running: $body"

result() {  # result JOB STATUS RC
    echo "{\"job_id\": $1, \"workflow_id\": $wf, \"run_id\": 0, \"attempt_id\": 1, \"compute_node_id\": $node, \"return_code\": $3, \"exec_time_minutes\": 0.5, \"completion_time\": \"2026-01-19T22:45:30.123Z\", \"status\": \"$2\", \"peak_memory_bytes\": null}"
}
check POST "/jobs/$first/complete_job/completed/0" "$(result "$first" completed 0)" 200
set -- $others
second=$1 third=$2
check POST "/workflows/$wf/batch_complete_jobs" "{\"completions\": [
    {\"job_id\": $second, \"status\": \"completed\", \"run_id\": 0, \"result\": $(result "$second" completed 0)},
    {\"job_id\": $third, \"status\": \"failed\", \"run_id\": 0, \"result\": $(result "$third" failed 1)},
    {\"job_id\": $third, \"status\": \"completed\", \"run_id\": 0, \"result\": $(result "$third" completed 0)}]}" 200
[ "$(field "$body" '[d["completed"], [e["job_id"] for e in d["errors"]]]')" = "[[$second, $third], [$third]]" ] \
    || fail "batch_complete_jobs: $body"
check POST "/jobs/$third/retry/0?max_retries=2" "" 200
[ "$(field "$body" '[d["status"], d["attempt_id"]]')" = '["ready", 2]' ] || fail "retry: $body"
check POST "/workflows/$wf/claim_next_jobs?limit=5" "" 200
[ "$(field "$body" 'sorted(j["name"] for j in d["jobs"])')" = '["last", "third"]' ] || fail "claim after retry: $body"
# Handed back with no body, then claimed again.
check PUT "/jobs/$last/manage_status_change/ready/0" "" 200
check POST "/workflows/$wf/claim_next_jobs" "" 200
check GET "/workflows/$wf/is_complete" "" 200
[ "$body" = '{"is_canceled":false,"is_complete":false,"needs_to_run_completion_script":false}' ] \
    || fail "is_complete: $body"
check GET "/results?workflow_id=$wf" "" 200
check GET "/results/$(field "$body" 'd["items"][0]["id"]')" "" 200
check GET "/jobs/$first" "" 200
check GET "/compute_nodes?workflow_id=$wf" "" 200
# The runner's shutdown: its node with its usage, no longer active.
check PUT "/compute_nodes/$node" "{\"workflow_id\": $wf, \"hostname\": \"node1\", \"pid\": 4242, \"start_time\": \"$start\", \"end_time\": \"$end\", \"is_active\": false, \"duration_seconds\": 12.5, \"num_cpus\": 4, \"memory_gb\": 8.0, \"num_gpus\": 0, \"num_nodes\": 1, \"compute_node_type\": \"local\", \"sample_count\": 2, \"peak_cpu_percent\": 50.0, \"avg_memory_bytes\": 1048576}" 200
[ "$(field "$body" '[d["is_active"], d["sample_count"], d["avg_memory_bytes"]]')" = '[false, 2, 1048576]' ] \
    || fail "compute node at shutdown: $body"
# The retried job's failed result stays its current one until the next: three half minutes.
check GET "/workflows/$wf/status" "" 200
[ "$(field "$body" '[d["workflow_name"], d["total_jobs"], d["jobs_by_status"]["completed"], d["jobs_by_status"]["pending"], d["total_exec_time_minutes"], d["is_complete"]]')" = \
    '["contract-0.23", 4, 2, 2, 1.5, false]' ] || fail "status: $body"

# Refusals of statuses 0.23 declares only 200 for (its generated document lists no errors on
# these routes), so Prism warns of the status and of nothing else: a second claim of a one-time
# action is 409 (as v0.10 declares), and a deleted workflow is 404 (below).
refused POST "/workflows/$wf/actions/$action/claim" '{"compute_node_id": null}' 409 \
    "claim_action: action $action already claimed"

# Cancel, reset, delete: no bodies.
check PUT "/workflows/$wf/cancel" "" 200
check GET "/workflows/$wf" "" 200
[ "$(field "$body" 'd["is_canceled"]')" = true ] || fail "workflow after cancel: $body"
check GET "/workflows/$wf/is_complete" "" 200
[ "$(field "$body" '[d["is_complete"], d["is_canceled"]]')" = '[true, true]' ] || fail "canceled: $body"
# RO-Crate entities (0.23's endpoints).
check POST /ro_crate_entities "{\"workflow_id\": $wf, \"entity_id\": \"data/in.csv\", \"entity_type\": \"File\", \"metadata\": {\"@id\": \"data/in.csv\", \"@type\": \"File\", \"name\": \"in.csv\"}}" 200
entity=$(field "$body" 'd["id"]')
check GET "/ro_crate_entities/$entity" "" 200
check PUT "/ro_crate_entities/$entity" "{\"workflow_id\": $wf, \"entity_id\": \"data/in.csv\", \"entity_type\": \"File\", \"metadata\": {\"name\": \"renamed.csv\"}}" 200
check GET "/workflows/$wf/ro_crate_entities?offset=0&limit=10" "" 200
[ "$(field "$body" '[d["total_count"], d["items"][0]["metadata"]["name"]]')" = '[1, "renamed.csv"]' ] \
    || fail "ro_crate_entities: $body"
check DELETE "/workflows/$wf/ro_crate_entities" "" 200
[ "$(field "$body" 'd["deleted_count"]')" = 1 ] || fail "deleted_count: $body"
check POST "/workflows/$wf/reset_status?force=true" "" 200
check POST "/workflows/$wf/reset_job_status?failed_only=false" "" 200
check GET "/workflows/$wf/status" "" 200
[ "$(field "$body" '[d["is_canceled"], d["jobs_by_status"]["uninitialized"]]')" = '[false, 4]' ] \
    || fail "status after reset: $body"
check DELETE "/workflows/$wf" "" 200
refused GET "/workflows/$wf" "" 404 "workflows: no workflow with id $wf"

# Prism's log: the one deliberate request error above, nothing else.
prism_log_clean 1
stop_prism || true
stop_server TERM
[ "$stop_rc" = 0 ] || fail "server exit $stop_rc"
echo "ok ($calls calls through Prism; no violations but the undeclared status of $refusals refusals)"
