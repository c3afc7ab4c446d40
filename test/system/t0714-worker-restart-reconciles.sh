#!/usr/bin/env bash
# A worker killed with `kill -9` while 4 jobs run, started again at once in the same output
# directory, against a server with a long lease (worker_lease_seconds 300): the new worker finds
# the compute node of the old one in the journal, lists the jobs that node still holds, and
# deactivates it, so the server puts them back (on a new attempt: their processes ran, and the job
# guardian killed them with the worker) and the new worker runs them at once instead of waiting
# 300 s for the lease. Each job appends "name attempt" to a file when it starts: every (job,
# attempt) appears once, every job is completed well before the lease, and the journal ends with
# no node left in it. Before, the restarted worker found nothing to claim and idled out while the
# jobs stayed running on the dead node.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
trap worker_test_cleanup EXIT

start_server "$tmp/db" --set worker_lease_seconds=300
ran=$tmp/ran.txt
submit_appending_jobs restart 'APPEND; sleep 4'

"$torcrun" worker "$wf" $(worker_args) --set resources.cpus=4 2>"$tmp/worker.log" &
worker_pid=$!
wait_running 4 10
first_node=$(grep -m1 -o 'registered as compute node [0-9]*' "$tmp/worker.log" | grep -o '[0-9]*$')
grep -q "\"compute_node_id\":$first_node" "$tmp/out/journal/"wf"$wf"_*.jsonl ||
    fail "the journal does not name compute node $first_node: $(cat "$tmp/out/journal/"*.jsonl)"
kill -9 "$worker_pid"
wait "$worker_pid" 2>/dev/null || true
killed_at=$SECONDS

"$torcrun" worker "$wf" $(worker_args) --set resources.cpus=4 --set limits.idle_timeout_seconds=5 \
    2>"$tmp/worker2.log" &
worker_pid=$!
rc=0
for _ in $(seq 1 600); do kill -0 "$worker_pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$worker_pid" 2>/dev/null && fail "the restarted worker still runs after 60 s: $(job_statuses) $(tail -20 "$tmp/worker2.log")"
wait "$worker_pid" || rc=$?
worker_pid=""
took=$((SECONDS - killed_at))
[ "$rc" = 0 ] || fail "restarted worker exit $rc: $(tail -20 "$tmp/worker2.log")"
left=$(job_statuses | tr ' ' '\n' | grep -v '=completed$' || true)
[ -z "$left" ] || fail "not completed $took s after the kill: $left; $(tail -20 "$tmp/worker2.log")"
grep -q "^warning worker: compute node $first_node of an earlier worker deactivated; the server put back the 4 jobs it held (4 of them running)" "$tmp/worker2.log" ||
    fail "no release of compute node $first_node: $(head -20 "$tmp/worker2.log")"
lines=$(sort "$ran" | uniq -c | awk '{print $1}' | sort -u | tr '\n' ' ')
[ "$lines" = "1 " ] || fail "each (job, attempt) once, got: $(sort "$ran" | tr '\n' ',')"
[ "$(sort "$ran" | tr '\n' ',')" = "job0 1,job0 2,job1 1,job1 2,job2 1,job2 2,job3 1,job3 2," ] ||
    fail "attempt 1 (killed) and 2 of each job, got: $(sort "$ran" | tr '\n' ',')"
nodes=$(cat "$tmp/out/journal/"wf"$wf"_*.jsonl | grep -c '"kind":"node"' || true)
[ "$nodes" = 0 ] || fail "nodes left in the journal: $(cat "$tmp/out/journal/"*.jsonl)"
stop_server
echo "ok (compute node $first_node released; all 4 jobs completed $took s after kill -9, lease 300 s)"
