#!/usr/bin/env bash
# A server with a short lease (worker_lease_seconds 10) and a worker with its default settings:
# the retry window nobody set follows the lease the first heartbeat names (10 s less the margin:
# 8 s) and the workflow runs; a retry window set beyond the lease is still refused (exit 2).
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
trap worker_test_cleanup EXIT

start_server "$tmp/db" --set worker_lease_seconds=10
cat >"$tmp/spec.json" <<'SPEC'
{"name": "short-lease", "jobs": [{"name": "a", "command": "sleep 1"},
                                  {"name": "b", "command": "echo b", "depends_on": ["a"]}]}
SPEC
submit_spec "$tmp/spec.json"
rc=0
timeout 60 "$torcrun" worker "$wf" --url "$base" --output-dir "$tmp/out" \
    --set limits.idle_timeout_seconds=3 2>"$tmp/worker.log" || rc=$?
[ "$rc" = 0 ] || fail "default worker, 10 s lease: exit $rc: $(tail -20 "$tmp/worker.log")"
grep -q "server.retry_window_seconds follows the server's 10 s lease: 8 s" "$tmp/worker.log" ||
    fail "no line on the retry window: $(grep -i 'lease\|retry' "$tmp/worker.log")"
[ "$(job_statuses)" = "a=completed b=completed" ] || fail "statuses: $(job_statuses)"

submit_spec "$tmp/spec.json"
rc=0
timeout 60 "$torcrun" worker "$wf" --url "$base" --output-dir "$tmp/out2" \
    --set server.retry_window_seconds=60 --set limits.idle_timeout_seconds=3 \
    2>"$tmp/set.log" || rc=$?
[ "$rc" = 2 ] || fail "a window set beyond the lease: exit $rc: $(tail -20 "$tmp/set.log")"
grep -q "server.retry_window_seconds: 60 s is longer than the server's lease (10 s)" \
    "$tmp/set.log" || fail "no refusal: $(tail -20 "$tmp/set.log")"
echo "ok"
