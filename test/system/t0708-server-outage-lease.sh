#!/usr/bin/env bash
# A server outage longer than the lease costs no worker its lease. With worker_lease_seconds 10,
# four jobs (each appends its name to a file, then sleeps) run on a worker when the server is
# killed; it stays down for 20 s and starts again on the same database and port, and a second
# worker starts at once; the first is held for 4 s after the restart. The restarted server gives the first worker a full lease (leases run on
# its steady clock, from its start), the worker's next heartbeat renews it, so its four jobs are
# not handed back: each ran once, all complete with one result each, the second worker runs
# none, and the server lost no worker. (Before: within 3 s of the restart the first worker was
# expired, its jobs went back to ready and the second worker ran all four again.) Last, a worker
# whose retry window was set longer than the lease, not allowed to be, is refused at its first
# heartbeat (a window nobody set follows the lease: t0718).
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
second_pid=""
trap '[ -n "$second_pid" ] && kill -9 "$second_pid" 2>/dev/null; worker_test_cleanup' EXIT

lease=(--set worker_lease_seconds=10)
start_server "$tmp/db" "${lease[@]}"
python3 - "$tmp/lease.json" "$tmp/ran" <<'PY'
import json, sys
jobs = [{"name": f"long{i}", "command": f"echo long{i} >> {sys.argv[2]}; sleep 30"}
        for i in range(4)]
json.dump({"name": "lease", "jobs": jobs}, open(sys.argv[1], "w"))
PY
submit_spec "$tmp/lease.json"

# The default retry window (120 s) is longer than this lease: asked for, as the restart grace
# makes it safe here.
beyond=(--set server.allow_retry_beyond_lease=true)
# The worker rides the outage out (server.lost_lease_policy finish): with the default, stop, a
# silence of the lease minus its margin makes it kill its jobs and register again, whatever the
# reason for the silence, and the jobs would run again (once each attempt, never side by side).
"$torcrun" worker "$wf" $(worker_args) --set resources.cpus=4 "${beyond[@]}" \
    --set server.lost_lease_policy=finish 2>"$tmp/worker.log" &
worker_pid=$!
wait_running 4 10

fixed_port=$port
stop_server KILL
sleep 20
kill -0 "$worker_pid" 2>/dev/null || fail "the worker ended during the outage: $(tail -20 "$tmp/worker.log")"
# The worker is held (SIGSTOP; its jobs run on) for the first 4 s after the restart, so the
# server's first sweeps (every 2.5 s) come before the worker's first heartbeat can.
kill -STOP "$worker_pid"
start_server "$tmp/db" "${lease[@]}"
"$torcrun" worker "$wf" --url "$base" --output-dir "$tmp/out2" --mode direct --long-poll 1 \
    --poll-interval 0.5 --set limits.idle_timeout_seconds=20 --set resources.cpus=4 \
    "${beyond[@]}" 2>"$tmp/worker2.log" &
second_pid=$!
sleep 4
kill -CONT "$worker_pid"

# Wait for both workers (the jobs end about 30 s after they started).
for pid in $worker_pid $second_pid; do
    for _ in $(seq 1 600); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -0 "$pid" 2>/dev/null && fail "worker $pid still runs 60 s after the restart: $(job_statuses)"
done
rc=0
wait "$worker_pid" || rc=$?
worker_pid=""
[ "$rc" = 0 ] || fail "first worker exit $rc: $(tail -20 "$tmp/worker.log")"
rc=0
wait "$second_pid" || rc=$?
second_pid=""
[ "$rc" = 0 ] || fail "second worker exit $rc: $(tail -20 "$tmp/worker2.log")"

ran=$(sort "$tmp/ran" | tr '\n' ' ')
[ "$ran" = "long0 long1 long2 long3 " ] || fail "jobs executed (each must run once): $ran"
left=$(job_statuses | tr ' ' '\n' | grep -v '=completed$' || true)
[ -z "$left" ] || fail "not completed: $left"
expect GET "/results?workflow_id=$wf&all_runs=true&offset=0&limit=1000" "" 200
counts=$(field "$body" 'sorted({r["compute_node_id"] for r in d["items"]}) + [len(d["items"])]')
[ "$counts" = "[1, 4]" ] || fail "results (nodes, count): $counts: $body"
if grep -q 'worker lost' "$server_log"; then
    fail "the restarted server expired a worker: $(cat "$server_log")"
fi
[ ! -d "$tmp/out2/jobs" ] || fail "the second worker ran jobs: $(find "$tmp/out2/jobs" | head)"

# Set, not allowed to be, a retry window longer than the lease stops the worker at its first
# heartbeat answer (exit 2), its claimed job handed back.
cat >"$tmp/refused.json" <<'JSON'
{"name": "refused", "jobs": [{"name": "waits", "command": "sleep 30"}]}
JSON
submit_spec "$tmp/refused.json"
"$torcrun" worker "$wf" $(worker_args) --set server.retry_window_seconds=120 \
    2>"$tmp/worker3.log" &
worker_pid=$!
for _ in $(seq 1 150); do
    kill -0 "$worker_pid" 2>/dev/null || break
    sleep 0.1
done
rc=0
wait "$worker_pid" || rc=$?
worker_pid=""
[ "$rc" = 2 ] || fail "worker with a retry window beyond the lease: exit $rc: $(tail -5 "$tmp/worker3.log")"
grep -q "server.retry_window_seconds: 120 s is longer than the server's lease (10 s)" \
    "$tmp/worker3.log" || fail "no refusal in the worker log: $(tail -5 "$tmp/worker3.log")"
[ "$(job_statuses)" = "waits=ready" ] || fail "after the refusal: $(job_statuses)"
stop_server
echo "ok (4 jobs, each once, across a 20 s outage with a 10 s lease)"
