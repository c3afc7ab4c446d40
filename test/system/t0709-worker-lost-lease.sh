#!/usr/bin/env bash
# A worker loses its lease while its jobs run: the server has worker_lease_seconds 10, the worker
# (server.lost_lease_policy stop, the default) runs 4 jobs that sleep 30 s and then append their
# name and attempt to a file, and is frozen (SIGSTOP) for 16 s, so it answers nothing and its
# heartbeats stop. The server expires its node and hands the jobs back; a second worker claims and
# runs them. When the first worker resumes it sees its lease is gone: it kills its 4 processes
# (before they append), reports none of them and registers a fresh compute node. Afterwards every
# job is completed, each (job, attempt) appears in the file exactly once, and the first worker
# logged the lost lease once and its new registration.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
trap frozen_test_cleanup EXIT

start_server "$tmp/db" --set worker_lease_seconds=10
ran=$tmp/ran.txt
submit_appending_jobs lost-lease 'sleep 30; APPEND'

"$torcrun" worker "$wf" $(worker_args) --set resources.cpus=4 --set server.retry_window_seconds=5 \
    --set limits.idle_timeout_seconds=40 2>"$tmp/worker.log" &
worker_pid=$!
wait_running 4 10
first_node=$(grep -m1 -o 'registered as compute node [0-9]*' "$tmp/worker.log" | grep -o '[0-9]*$')

kill -STOP "$worker_pid"
frozen_at=$SECONDS
take_over_frozen 4
while [ $((SECONDS - frozen_at)) -lt 16 ]; do sleep 0.2; done
kill -CONT "$worker_pid"

# The first worker's processes die at once (long before their 30 s), so none appends.
for _ in $(seq 1 100); do
    grep -q 'its process of the lost lease ended' "$tmp/worker.log" && break
    sleep 0.1
done
sleep 1
killed=$(grep -c 'its process of the lost lease ended; not reported' "$tmp/worker.log" || true)
[ "$killed" = 4 ] || fail "old processes ended: $killed, expected 4: $(tail -30 "$tmp/worker.log")"
lost=$(grep -c "the lease of compute node $first_node is lost" "$tmp/worker.log" || true)
[ "$lost" = 1 ] || fail "lost-lease lines: $lost: $(grep -i lease "$tmp/worker.log")"
grep "the lease of compute node $first_node is lost" "$tmp/worker.log" | grep -q '^warning ' ||
    fail "the lost lease is not a warning: $(grep -i lease "$tmp/worker.log")"
grep -q "registered again as compute node [0-9]* (compute node $first_node lost its lease)" \
    "$tmp/worker.log" || fail "no fresh registration: $(tail -30 "$tmp/worker.log")"

wait_exit_0 "$second_pid" "$worker_pid"
left=$(job_statuses | tr ' ' '\n' | grep -v '=completed$' || true)
[ -z "$left" ] || fail "not completed: $left"
once_per_attempt "$ran" 4
[ "$(cut -d' ' -f1 "$ran" | sort -u | wc -l)" = 4 ] || fail "not every job ran: $(cat "$ran")"
stop_server
echo "ok (first node $first_node; $(tr '\n' ',' <"$ran"))"
