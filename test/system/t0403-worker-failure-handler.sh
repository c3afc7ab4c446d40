#!/usr/bin/env bash
# A failing job with a failure handler: the matching rule retries it, the second attempt
# completes, and the failed attempt keeps its own result - on the server (two result records)
# and in its own log directory.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
trap worker_test_cleanup EXIT

start_server "$tmp/db"
cat >"$tmp/retry.json" <<SPEC
{"name": "retry",
 "failure_handlers": [{"name": "again", "rules": [{"exit_codes": [10], "max_retries": 2}]}],
 "jobs": [{"name": "flaky", "failure_handler": "again",
           "command": "if [ -e $tmp/marker ]; then echo second; else touch $tmp/marker; exit 10; fi"}]}
SPEC
submit_spec "$tmp/retry.json"

rc=0
timeout 60 "$torcrun" worker "$wf" $(worker_args) 2>"$tmp/worker.log" || rc=$?
[ "$rc" = 0 ] || fail "worker exit $rc: $(cat "$tmp/worker.log")"
[ "$(job_statuses)" = "flaky=completed" ] || fail "statuses: $(job_statuses): $(cat "$tmp/worker.log")"

first=$(attempt_dir flaky 1)/result.json
second=$(attempt_dir flaky 2)/result.json
[ "$(field "$(cat "$first")" '[d["status"], d["return_code"], d["attempt_id"]]')" = '["failed", 10, 1]' ] ||
    fail "attempt 1 result.json: $(cat "$first")"
[ "$(field "$(cat "$second")" '[d["status"], d["return_code"], d["attempt_id"]]')" = '["completed", 0, 2]' ] ||
    fail "attempt 2 result.json: $(cat "$second")"
grep -qx second "$(attempt_dir flaky 2)/stdout" || fail "attempt 2 stdout"

expect GET "/results?workflow_id=$wf&all_runs=true" "" 200
[ "$(field "$body" 'sorted((r["attempt_id"], r["return_code"], r["status"]) for r in d["items"])')" = \
    '[[1, 10, "failed"], [2, 0, "completed"]]' ] || fail "results on the server: $body" "$(cat "$tmp/worker.log")"
stop_server
echo ok
