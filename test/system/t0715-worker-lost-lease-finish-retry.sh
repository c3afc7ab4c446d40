#!/usr/bin/env bash
# A worker with server.lost_lease_policy finish loses its lease while a job runs whose attempt 1
# fails (exit 3, after 22 s; the worker is frozen from about 1 s until the job is back) under a
# failure rule that retries it and runs a recovery script. The server (worker_lease_seconds 10)
# expires the frozen worker's node and puts the job back, ready, on attempt 2. The worker resumes,
# registers a fresh node, lets attempt 1 end, and sends the retry of attempt 1 under the fresh node.
# The server made no retry of that attempt (the sweep ended it): 409 naming the job's attempt (or
# its holder, the fresh node, when the worker's claim got there first), and the worker drops the
# attempt: no record of it, no recovery script. It claims the job itself and runs attempt 2, which
# succeeds. Before the server remembered which node retried which attempt, a retry that reached it
# before that claim was answered 200 (the job sat ready on the next attempt, as after a retry), and
# the worker recorded attempt 1 and ran the recovery script for a retry nobody made. When the claim
# comes first (the usual order here) it took attempt 2 while the retry was open; the worker, fenced
# off, dropped that attempt too, and the job stayed held by the fresh node, never run.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
trap frozen_test_cleanup EXIT

start_server "$tmp/db" --set worker_lease_seconds=10
ran=$tmp/ran.txt
cat >"$tmp/spec.json5" <<JSON
{name: "lost-lease-finish-retry",
 failure_handlers: [{name: "again", rules: [{exit_codes: [3], max_retries: 3,
   recovery_script: "echo \"\$TORC_JOB_NAME \$TORC_ATTEMPT_ID\" >> $tmp/recovered.txt"}]}],
 jobs: [{name: "flaky", failure_handler: "again",
   command: "echo \"\$TORC_JOB_NAME \$TORC_ATTEMPT_ID\" >> $ran; if [ \"\$TORC_ATTEMPT_ID\" = 1 ]; then sleep 22; exit 3; fi"}]}
JSON
submit_spec "$tmp/spec.json5"

# One CPU: while attempt 1 runs, the worker cannot take attempt 2 beside it.
start_finish_worker 1 1

# Frozen until the sweep has put the job back (10 s after the last beat, seen by the sweep every
# 2.5 s; later on a loaded machine), well before attempt 1 ends.
kill -STOP "$worker_pid"
for _ in $(seq 1 150); do
    [ "$(job_statuses)" = "flaky=ready" ] && break
    sleep 0.2
done
[ "$(job_statuses)" = "flaky=ready" ] || fail "the sweep did not put the job back: $(job_statuses) $(tail -5 "$server_log")"
kill -CONT "$worker_pid"
wait_exit_0 "$worker_pid"

fresh_node=$(grep -m1 -o 'registered again as compute node [0-9]*' "$tmp/worker.log" | grep -o '[0-9]*$' || true)
[ -n "$fresh_node" ] || fail "no fresh node: $(grep -i 'lease\|regist' "$tmp/worker.log")"
# Which comes first is a race: the retry (after the failure handler is read), or the worker's
# claim, sent once attempt 1 freed the CPU, that takes attempt 2 and starts it.
ready="retry: job 1 is \"ready\" on attempt 2, held by no compute node, not on attempt 1 of compute node $fresh_node"
taken="retry: job 1 is on attempt 2 (held by compute node $fresh_node), not on attempt 1"
refusal=$(grep "job 1: not this worker's any more; dropped: retry_job 1: HTTP 409" "$tmp/worker.log" || true)
[[ "$refusal" == *"$ready"* || "$refusal" == *"$taken"* ]] ||
    fail "no refused retry of attempt 1: $(tail -30 "$tmp/worker.log")"
[ ! -e "$tmp/recovered.txt" ] || fail "a recovery script ran for a retry nobody made: $(cat "$tmp/recovered.txt")"
[ "$(sort "$ran" | tr '\n' ',')" = "flaky 1,flaky 2," ] || fail "attempts: $(sort "$ran" | tr '\n' ',')"
[ "$(job_statuses)" = "flaky=completed" ] || fail "not completed: $(job_statuses)"
call GET "/results?workflow_id=$wf"
[ "$code" = 200 ] || fail "GET /results: HTTP $code: $body"
recorded=$(field "$body" '",".join(sorted("%d:%s:%d" % (r["attempt_id"], r["status"], r["compute_node_id"]) for r in d["items"]))')
[ "$recorded" = "2:completed:$fresh_node" ] || fail "results (attempt:status:node): $recorded, expected 2:completed:$fresh_node"
stop_server
echo "ok (nodes $first_node, $fresh_node; ${refusal#*HTTP 409: })"
