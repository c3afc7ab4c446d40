#!/usr/bin/env bash
# The API contract: Prism's validating proxy (`prism proxy --errors`) in front of `torcrun
# server` checks every request and response of a scripted session against Torc v0.10's OpenAPI
# contract (test/data/torc-openapi-v0.10.0-prism.yaml): create a workflow with files, user data,
# resource requirements and jobs (single and bulk), initialize, claim both ways, start, complete,
# results, compute nodes create/get/update/list, status, is_complete, actions, retry, cancel,
# delete, the access groups (create, list, get, members, a user's groups, sharing a workflow,
# access_check, revoke, delete; the 403, 404 and 409 the contract declares for them), and the 404
# answers. The server runs with access control on (an htpasswd file, alice the owner, ops the
# admin), so the session also shows torcrun's owner passes everywhere. Any violation fails
# (prism_lib.sh starts Prism and checks each call; t0331 runs 0.23's contract the same way).
set -euo pipefail
torcrun=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
contract=$root/test/data/torc-openapi-v0.10.0-prism.yaml
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/prism_lib.sh"
trap 'stop_prism; kill_servers; rm -rf "$tmp"' EXIT

# bcrypt (cost 4) of "<user>-pw".
cat >"$tmp/users" <<'EOF'
alice:$2b$04$KBXsZ1ZzXqr5KvF2RoTzxu9HLy0hvCGtr8//S1XAFeCIWnwtFY2o2
bob:$2b$04$gL.o8/MJXgn6zCVmHhwr5Oaevs9r/SZRGh99O0j3RxqwVF2Nef3gO
ops:$2b$04$K/0N0djr9h.LJbXh0gr9oOL1OYamoSVYGAGlMSUVbGEvOejZDcGQ2
EOF
start_server "$tmp/db" --set auth.htpasswd_file="$tmp/users" \
    --set auth.enforce_access_control=true --set auth.admin_users=ops
start_prism "$contract" "$base"

# Every call goes through Prism (prism_lib.sh: check, refused); a violation or an unexpected
# status fails with Prism's answer.
as=alice  # the user of the next calls

# Prism validates: a request the contract forbids never reaches the server.
curl -s -o "$tmp/body" -w '%{http_code}' -X POST -H 'Content-Type: application/json' -u alice:alice-pw \
    --data-binary '{"workflow_id": 1, "name": "no path"}' "$base/files" >"$tmp/code"
[ "$(cat "$tmp/code")" = 422 ] && grep -q 'prism/errors#UNPROCESSABLE_ENTITY' "$tmp/body" \
    && grep -q "must have required property 'path'" "$tmp/body" \
    || fail "Prism is not validating requests: $(cat "$tmp/code") $(cat "$tmp/body")"
grep -q 'post /files' "$tmp/prism.log" || fail "Prism logged nothing: $(tail -3 "$tmp/prism.log")"

check GET /ping "" 200
check GET /version "" 200
check POST /workflows '{"name": "contract", "user": "alice", "description": "Prism session"}' 200
wf=$(field "$body" 'd["id"]')
check GET "/workflows/$wf" "" 200
check GET "/workflows?offset=0&limit=10" "" 200
check PUT "/workflows/$wf" "{\"id\": $wf, \"name\": \"contract\", \"user\": \"alice\", \"description\": \"updated\"}" 200
check GET "/workflows/$wf/status" "" 200
check GET "/workflows/$wf/is_uninitialized" "" 200

check POST /files "{\"workflow_id\": $wf, \"name\": \"raw\", \"path\": \"/data/raw.csv\"}" 200
raw=$(field "$body" 'd["id"]')
check POST /files "{\"workflow_id\": $wf, \"name\": \"clean\", \"path\": \"/data/clean.csv\"}" 200
clean=$(field "$body" 'd["id"]')
check GET "/files?workflow_id=$wf" "" 200
check GET "/files/$raw" "" 200
check PUT "/files/$raw" "{\"id\": $raw, \"workflow_id\": $wf, \"name\": \"raw\", \"path\": \"/data/raw.csv\", \"st_mtime\": 1767225600.5}" 200
check POST /user_data "{\"workflow_id\": $wf, \"name\": \"settings\", \"data\": {\"alpha\": 0.5}}" 200
ud=$(field "$body" 'd["id"]')
check GET "/user_data/$ud" "" 200
check GET "/user_data?workflow_id=$wf" "" 200
check POST /resource_requirements "{\"workflow_id\": $wf, \"name\": \"small\", \"num_cpus\": 2, \"num_gpus\": 0, \"num_nodes\": 1, \"memory\": \"2g\", \"runtime\": \"PT30M\"}" 200
rr=$(field "$body" 'd["id"]')
check GET "/resource_requirements/$rr" "" 200
check GET "/resource_requirements?workflow_id=$wf" "" 200

# clean waits for prepare through the file, report explicitly for clean; two independent jobs.
check POST /bulk_jobs "{\"jobs\": [
    {\"workflow_id\": $wf, \"name\": \"prepare\", \"command\": \"prep\", \"output_file_ids\": [$raw], \"resource_requirements_id\": $rr},
    {\"workflow_id\": $wf, \"name\": \"clean\", \"command\": \"clean\", \"input_file_ids\": [$raw], \"output_file_ids\": [$clean], \"input_user_data_ids\": [$ud]},
    {\"workflow_id\": $wf, \"name\": \"side1\", \"command\": \"side 1\"},
    {\"workflow_id\": $wf, \"name\": \"side2\", \"command\": \"side 2\", \"invocation_script\": \"source env.sh\"}]}" 200
prepare=$(field "$body" 'd["jobs"][0]["id"]')
clean_job=$(field "$body" 'd["jobs"][1]["id"]')
check POST /jobs "{\"workflow_id\": $wf, \"name\": \"report\", \"command\": \"report\", \"depends_on_job_ids\": [$clean_job], \"cancel_on_blocking_job_failure\": true}" 200
report=$(field "$body" 'd["id"]')
check GET "/jobs?workflow_id=$wf&offset=0&limit=100" "" 200
check GET "/jobs/$clean_job" "" 200
check PUT "/jobs/$report" "{\"workflow_id\": $wf, \"name\": \"report\", \"command\": \"report --all\"}" 200
check POST "/workflows/$wf/actions" "{\"workflow_id\": $wf, \"trigger_type\": \"on_jobs_complete\", \"action_type\": \"run_commands\", \"action_config\": {\"commands\": [\"echo done\"]}, \"job_ids\": [$prepare]}" 200
action=$(field "$body" 'd["id"]')
check GET "/workflows/$wf/actions" "" 200

check POST "/workflows/$wf/initialize_jobs" "" 200
check GET "/workflows/$wf/job_dependencies" "" 200
check GET "/workflows/$wf/job_file_relationships" "" 200
check GET "/workflows/$wf/job_user_data_relationships" "" 200
check GET "/workflows/$wf/job_ids" "" 200
check GET "/jobs?workflow_id=$wf&status=ready" "" 200
[ "$(field "$body" 'sorted(j["name"] for j in d["items"])')" = '["prepare", "side1", "side2"]' ] \
    || fail "ready after initialize: $body"

check POST /compute_nodes "{\"workflow_id\": $wf, \"hostname\": \"node1\", \"pid\": 4242, \"start_time\": \"2026-01-19T22:41:30.123456789+00:00\", \"is_active\": true, \"num_cpus\": 8, \"memory_gb\": 16.0, \"num_gpus\": 0, \"num_nodes\": 1, \"compute_node_type\": \"local\", \"scheduler\": {}}" 200
node=$(field "$body" 'd["id"]')
check GET "/compute_nodes/$node" "" 200
check GET "/compute_nodes?workflow_id=$wf" "" 200
check GET "/workflows/$wf/actions/pending?trigger_type=on_workflow_start&trigger_type=on_worker_start" "" 200

# Claims, both ways.
check POST "/workflows/$wf/claim_next_jobs?limit=1" "" 200
[ "$(field "$body" 'len(d["jobs"])')" = 1 ] || fail "claim_next_jobs: $body"
first=$(field "$body" 'd["jobs"][0]["id"]')
check POST "/workflows/$wf/claim_jobs_based_on_resources/5?sort_method=gpus_runtime_memory&strict_scheduler_match=false" \
    '{"num_cpus": 8, "memory_gb": 16.0, "num_gpus": 0, "num_nodes": 1, "time_limit": "PT3H57M"}' 200
claimed=$(field "$body" '" ".join(str(j["id"]) for j in d["jobs"])')
[ "$(wc -w <<<"$claimed")" = 2 ] || fail "claim_jobs_based_on_resources: $body"

result() {  # result JOB STATUS RC
    echo "{\"job_id\": $1, \"workflow_id\": $wf, \"run_id\": 0, \"compute_node_id\": $node, \"return_code\": $3, \"exec_time_minutes\": 0.25, \"completion_time\": \"2026-01-19T22:45:30.123Z\", \"status\": \"$2\"}"
}
for job in $first $claimed; do
    check PUT "/jobs/$job/start_job/0/$node" "" 200
done
check POST "/jobs/$prepare/complete_job/completed/0" "$(result "$prepare" completed 0)" 200
check GET "/workflows/$wf/actions/pending?trigger_type=on_jobs_ready&trigger_type=on_jobs_complete" "" 200
[ "$(field "$body" '[a["id"] for a in d]')" = "[$action]" ] || fail "pending action: $body"
check POST "/workflows/$wf/actions/$action/claim" "{\"compute_node_id\": $node}" 200
for job in $first $claimed; do
    [ "$job" = "$prepare" ] && continue
    check POST "/jobs/$job/retry/0?max_retries=3" "" 200
done
check GET "/results?workflow_id=$wf" "" 200
res=$(field "$body" 'd["items"][0]["id"]')
check GET "/results/$res" "" 200
check GET "/workflows/$wf/is_complete" "" 200
[ "$(field "$body" 'd["is_complete"]')" = false ] || fail "is_complete: $body"

# clean is ready now (prepare wrote its file); run it to a failure and let report be canceled.
check POST "/workflows/$wf/claim_next_jobs?limit=10" "" 200
for job in $(field "$body" '" ".join(str(j["id"]) for j in d["jobs"])'); do
    check PUT "/jobs/$job/start_job/0/$node" "" 200
    if [ "$job" = "$clean_job" ]; then
        check POST "/jobs/$job/complete_job/failed/0" "$(result "$job" failed 1)" 200
    else
        check POST "/jobs/$job/complete_job/completed/0" "$(result "$job" completed 0)" 200
    fi
done
check GET "/jobs/$report" "" 200
[ "$(field "$body" 'd["status"]')" = canceled ] || fail "report after a failed blocker: $body"
check GET "/workflows/$wf/is_complete" "" 200
[ "$(field "$body" 'd["is_complete"]')" = true ] || fail "is_complete at the end: $body"
check PUT "/compute_nodes/$node" "{\"workflow_id\": $wf, \"hostname\": \"node1\", \"pid\": 4242, \"start_time\": \"2026-01-19T22:41:30.123456789+00:00\", \"is_active\": false, \"duration_seconds\": 310.5, \"num_cpus\": 8, \"memory_gb\": 16.0, \"num_gpus\": 0, \"num_nodes\": 1, \"compute_node_type\": \"local\"}" 200

# A rerun of what failed, as `torcrun rerun --failed` makes it (Torc's reset-status
# --failed-only --reinitialize): reset_status, reset_job_status?failed_only=true, the run id
# raised through PUT status, initialize_jobs?only_uninitialized=true. Two jobs are reset by their
# status: the failed blocker and the report it canceled.
check POST "/workflows/$wf/reset_status?force=false" "" 200
check POST "/workflows/$wf/reset_job_status?failed_only=true" "" 200
[ "$(field "$body" '[d["updated_count"], d["status"], d["reset_type"]]')" = '[2, "uninitialized", "failed_only"]' ] \
    || fail "reset_job_status failed_only: $body"
check GET "/workflows/$wf/status" "" 200
check PUT "/workflows/$wf/status" "$(field "$body" 'json.dumps(dict(d, run_id=d["run_id"] + 1))')" 200
[ "$(field "$body" 'd["run_id"]')" = 1 ] || fail "run id after the bump: $body"
check POST "/workflows/$wf/initialize_jobs?only_uninitialized=true" "" 200
# Reset, then cancel: a canceled workflow claims nothing and is complete.
check POST "/workflows/$wf/reset_status?force=true" "" 200
check POST "/workflows/$wf/reset_job_status?failed_only=false" "" 200
check POST "/workflows/$wf/initialize_jobs" "" 200
check PUT "/workflows/$wf/cancel" "" 200
check GET "/workflows/$wf/status" "" 200
[ "$(field "$body" 'd["is_canceled"]')" = true ] || fail "status after cancel: $body"
check POST "/workflows/$wf/claim_next_jobs?limit=1" "" 200
check GET "/workflows/$wf/is_complete" "" 200
[ "$(field "$body" '[d["is_complete"], d["is_canceled"]]')" = '[true, true]' ] || fail "canceled: $body"

# Refusals. The contract declares 409 for an action claimed twice and 422 for retry; the others
# are 4xx JSON answers where Torc 0.10 answers 500 with plain text, and the contract lists no
# such status: Prism reports exactly that, as a warning, and nothing else.
check POST "/workflows/$wf/actions/$action/claim" "{\"compute_node_id\": $node}" 200
check POST "/workflows/$wf/actions/$action/claim" "{\"compute_node_id\": $node}" 409
check POST "/jobs/$prepare/retry/0?max_retries=1" "" 422
refused PUT "/jobs/$prepare/start_job/0/$node" "" 409 \
    "start_job: job $prepare is \"ready\"; only a \"pending\" job can start"
refused POST "/jobs/$prepare/complete_job/running/0" "$(result "$prepare" completed 0)" 422 \
    'complete_job: "running" is not a final status; use completed, failed, canceled, terminated or pending_failed'
refused POST "/jobs/999999/complete_job/completed/0" "$(result 999999 completed 0)" 404 \
    'complete_job: no job has id 999999'
refused POST "/workflows/999999/claim_next_jobs?limit=1" "" 404 \
    'claim_next_jobs: no workflow with id 999999'
refused POST "/workflows/$wf/actions/999999/claim" "{\"compute_node_id\": $node}" 404 \
    "claim_action: workflow $wf has no action 999999"

# Access groups: the admin manages them, the owner shares the workflow, bob may then read it.
as=ops
check POST /access_groups '{"name": "team", "description": "alice and bob"}' 200
team=$(field "$body" 'd["id"]')
check POST /access_groups '{"name": "team"}' 409
check GET "/access_groups?offset=0&limit=10" "" 200
check GET "/access_groups/$team" "" 200
check GET /access_groups/999999 "" 404
check POST "/access_groups/$team/members" "{\"user_name\": \"bob\", \"group_id\": $team, \"role\": \"member\"}" 200
check POST "/access_groups/$team/members" "{\"user_name\": \"bob\", \"group_id\": $team}" 409
check POST /access_groups/999999/members '{"user_name": "bob", "group_id": 999999}' 404
check GET "/access_groups/$team/members?offset=0&limit=10" "" 200
check GET /users/bob/groups "" 200
[ "$(field "$body" '[g["name"] for g in d["items"]]')" = '["team"]' ] || fail "bob's groups: $body"
as=alice
check POST /access_groups '{"name": "mine"}' 403
check DELETE "/access_groups/$team" "" 403
check POST "/workflows/$wf/access_groups" "{\"workflow_id\": $wf, \"group_id\": $team}" 200
check POST "/workflows/$wf/access_groups" "{\"workflow_id\": $wf, \"group_id\": $team}" 409
check POST "/workflows/$wf/access_groups" "{\"workflow_id\": $wf, \"group_id\": 999999}" 404
check GET "/workflows/$wf/access_groups" "" 200
check GET "/access_check/$wf/bob" "" 200
[ "$(field "$body" 'd["has_access"]')" = true ] || fail "access_check bob: $body"
check GET "/access_check/$wf/carol" "" 200
[ "$(field "$body" 'd["has_access"]')" = false ] || fail "access_check carol: $body"
as=bob
check GET "/workflows/$wf" "" 200
check POST "/workflows/$wf/access_groups" "{\"workflow_id\": $wf, \"group_id\": $team}" 403
check DELETE "/workflows/$wf/access_groups/$team" "" 403
as=alice
check DELETE "/workflows/$wf/access_groups/$team" "" 200
check DELETE "/workflows/$wf/access_groups/$team" "" 404
as=ops
check DELETE "/access_groups/$team/members/bob" "" 200
check DELETE "/access_groups/$team/members/bob" "" 404
check DELETE "/access_groups/$team" "" 200
check DELETE "/access_groups/$team" "" 404
as=alice

# Not found answers, then delete.
check GET /workflows/999999 "" 404
check GET /jobs/999999 "" 404
check GET /files/999999 "" 404
check DELETE "/workflows/$wf" "" 200
check GET "/workflows/$wf" "" 404

# Prism's log: the one deliberate request error above, nothing else.
prism_log_clean 1
stop_prism || true
stop_server TERM
[ "$stop_rc" = 0 ] || fail "server exit $stop_rc"
echo "ok ($calls calls through Prism; no violations but the undeclared status of $refusals refusals)"
