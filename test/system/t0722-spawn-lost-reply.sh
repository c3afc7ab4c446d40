#!/usr/bin/env bash
# A spawn whose reply is lost creates no job twice: a fault-injecting proxy
# (test/support/fault_proxy.py --drop-match spawn_jobs) between a real worker and a real server
# lets the orchestrator's spawn_jobs request reach the server, which commits the jobs, and drops
# its reply. `torcrun spawn-jobs` (run by the orchestrator job, through the same proxy, as the
# worker's TORC_API_URL) sends the request again; the server answers the replay with the jobs
# the first request created. Afterwards the workflow has exactly the caller and its 2 children,
# each completed once, one generation record, and the reply the orchestrator printed names the
# children's ids with iteration 1. Then the fence: the same request, sent for an attempt of the
# caller that is not its current one, is refused with 409 and creates nothing; and a workflow
# with dynamic_jobs.max_iterations 0 is refused at creation.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
trap worker_test_cleanup EXIT

start_server "$tmp/db"
cat >"$tmp/request.json" <<EOF2
{"lineage": "L", "state": {"step": 1}, "jobs": [
  {"name": "child_a", "command": "echo child_a >> $tmp/ran.txt"},
  {"name": "child_b", "command": "echo child_b >> $tmp/ran.txt", "depends_on": ["child_a"]}]}
EOF2
cat >"$tmp/spec.yaml" <<EOF2
name: spawn-lost-reply
dynamic_jobs: {max_iterations: 3}
jobs:
  - name: orch
    command: $torcrun spawn-jobs $tmp/request.json --retry-seconds 60 > $tmp/reply.json
EOF2
submit_spec "$tmp/spec.yaml"

start_fault_proxy --drop-match spawn_jobs

rc=0
timeout 120 "$torcrun" worker "$wf" --url "http://127.0.0.1:$proxy_port/torc-service/v1" \
    --output-dir "$tmp/out" --mode direct --long-poll 1 --poll-interval 0.5 \
    --set limits.idle_timeout_seconds=10 2>"$tmp/worker.log" || rc=$?
stop_fault_proxy
[ "$rc" = 0 ] || fail "worker exit $rc: $(tail -20 "$tmp/worker.log")"

grep -q '^dropped the reply (HTTP/1.1 200 OK).*POST /torc-service/v1/jobs/1/spawn_jobs' \
    "$tmp/proxy.log" || fail "the spawn reply was not dropped: $(cat "$tmp/proxy.log")"
[ "$(job_statuses)" = "child_a=completed child_b=completed orch=completed" ] ||
    fail "jobs: $(job_statuses)"
[ "$(sort "$tmp/ran.txt" | tr '\n' ' ')" = "child_a child_b " ] ||
    fail "runs: $(cat "$tmp/ran.txt")"
stderr=$(cat "$tmp"/out/job_stdio/job_wf"$wf"_j1_r*_a1.e)
[[ $stderr == *"sending it again"* ]] || fail "the spawn was not sent again: $stderr"
ids=$(field "$(cat "$tmp/reply.json")" 'd["spawned_job_ids"]')
iteration=$(field "$(cat "$tmp/reply.json")" 'd["iteration"]')
[ "$ids" = "[2, 3]" ] && [ "$iteration" = 1 ] || fail "reply: $(cat "$tmp/reply.json")"
call GET "/user_data?workflow_id=$wf"
records=$(field "$body" '" ".join(u["name"] for u in d["items"])')
[ "$records" = "__torc_lineage__L__g000001" ] || fail "records: $records"

# The fence: attempt 2 of job 1 is not its attempt (1), and the job is no longer running.
code=$(curl -s -o "$tmp/fenced.json" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    --data @"$tmp/request.json" "$base/jobs/1/spawn_jobs?attempt_id=2&run_id=0")
[ "$code" = 409 ] || fail "fenced spawn answered $code: $(cat "$tmp/fenced.json")"
grep -q 'job 1 is on attempt 1, not on attempt 2' "$tmp/fenced.json" || fail "$(cat "$tmp/fenced.json")"
[ "$(job_statuses)" = "child_a=completed child_b=completed orch=completed" ] ||
    fail "jobs after the fenced spawn: $(job_statuses)"
# A workflow whose cap is below 1 is refused when created, as Torc refuses it.
call POST /workflows '{"name": "w", "user": "u", "dynamic_jobs": {"max_iterations": 0}}'
[ "$code" = 422 ] && [[ $body == *'"max_iterations\" must be at least 1, found 0'* ]] ||
    fail "max_iterations 0: HTTP $code $body"
stop_server
echo "ok (the spawn's reply dropped once, sent again, no duplicate)"
