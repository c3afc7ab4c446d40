#!/usr/bin/env bash
# A worker with server.lost_lease_policy finish loses its lease while its jobs run: the server has
# worker_lease_seconds 10; the worker runs 4 jobs that append "name attempt" to a file at once and
# then sleep 25 s, and is frozen (SIGSTOP) for 16 s. Its job processes are not frozen (they run in
# sessions of their own). The server expires its node and puts the running jobs back on a new
# attempt; a second worker claims them and runs attempt 2. The first worker resumes, learns its
# lease is gone, lets its processes of attempt 1 finish (policy finish) and reports them under a
# fresh compute node, where the fence refuses them: they are not that node's attempt. Afterwards
# every job is completed, each (job, attempt) appears in the file exactly once (attempt 1 from the
# first worker, attempt 2 from the second), and the results record attempt 2 on the second
# worker's node. Before attempts were opened by the sweep, the second worker ran attempt 1 again.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
trap frozen_test_cleanup EXIT

start_server "$tmp/db" --set worker_lease_seconds=10
ran=$tmp/ran.txt
submit_appending_jobs lost-lease-finish 'APPEND; sleep 25'
start_finish_worker 4 4

kill -STOP "$worker_pid"
frozen_at=$SECONDS
take_over_frozen 4
while [ $((SECONDS - frozen_at)) -lt 16 ]; do sleep 0.2; done
kill -CONT "$worker_pid"
wait_exit_0 "$second_pid" "$worker_pid"
once_per_attempt "$ran" 8
[ "$(sort "$ran" | tr '\n' ',')" = "job0 1,job0 2,job1 1,job1 2,job2 1,job2 2,job3 1,job3 2," ] ||
    fail "attempts 1 and 2 of each job, got: $(sort "$ran" | tr '\n' ',')"
grep "the lease of compute node $first_node is lost" "$tmp/worker.log" | grep -q 'policy finish: 4 running jobs go on' ||
    fail "no lost lease with policy finish: $(grep -i lease "$tmp/worker.log")"
refused=$(grep -c 'not this worker.s any more.*on attempt 2' "$tmp/worker.log" || true)
[ "$refused" = 4 ] || fail "late reports of attempt 1 refused: $refused, expected 4: $(tail -30 "$tmp/worker.log")"
left=$(job_statuses | tr ' ' '\n' | grep -v '=completed$' || true)
[ -z "$left" ] || fail "not completed: $left"
call GET "/results?workflow_id=$wf"
[ "$code" = 200 ] || fail "GET /results: HTTP $code: $body"
recorded=$(field "$body" '",".join(sorted("%d:%s:%d" % (r["attempt_id"], r["status"], r["compute_node_id"]) for r in d["items"]))')
expected="2:completed:$second_node,2:completed:$second_node,2:completed:$second_node,2:completed:$second_node"
[ "$recorded" = "$expected" ] || fail "results (attempt:status:node): $recorded, expected $expected"
stop_server
echo "ok (nodes $first_node, $second_node; $(sort "$ran" | tr '\n' ','))"
