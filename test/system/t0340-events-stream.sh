#!/usr/bin/env bash
# GET /workflows/{id}/events/stream as Torc's dashboard reads it: `curl -N` holds the stream open
# while `torcrun worker` runs a small workflow; the stream has the SSE headers and a
# job_started and a job_completed event for every job; an unknown workflow is a 404; the server
# exits promptly on SIGTERM with the stream still open.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
curl_pid=""
cleanup() {
    if [ -n "$curl_pid" ]; then kill -9 "$curl_pid" 2>/dev/null || true; fi
    worker_test_cleanup
}
trap cleanup EXIT

start_server "$tmp/db"
cat >"$tmp/chain.json" <<'SPEC'
{"name": "events", "jobs": [
  {"name": "a", "command": "echo a"},
  {"name": "b", "command": "echo b", "depends_on": ["a"]},
  {"name": "c", "command": "echo c", "depends_on": ["a"]}
]}
SPEC
submit_spec "$tmp/chain.json"

expect GET "/workflows/999999/events/stream" "" 404

timeout 60 curl -sN -D "$tmp/headers" "$base/workflows/$wf/events/stream" >"$tmp/stream" 2>/dev/null &
curl_pid=$!
for _ in $(seq 1 100); do [ -s "$tmp/headers" ] && break; sleep 0.05; done
grep -qi '^content-type: text/event-stream' "$tmp/headers" || fail "headers: $(cat "$tmp/headers")"
grep -qi '^cache-control: no-cache' "$tmp/headers" || fail "headers: $(cat "$tmp/headers")"

rc=0
timeout 60 "$torcrun" worker "$wf" $(worker_args) 2>"$tmp/worker.log" || rc=$?
[ "$rc" = 0 ] || fail "worker exit $rc: $(cat "$tmp/worker.log")"

want() {  # want EVENT JOB: an `event:` line followed by its data naming the job
    python3 - "$tmp/stream" "$1" "$2" "$wf" <<'PY' || fail "no $1 for job $2 in the stream: $(cat "$tmp/stream")"
import json, sys
path, name, job, wf = sys.argv[1:]
frames = open(path).read().split("\n\n")
for f in frames:
    lines = dict(l.split(": ", 1) for l in f.splitlines() if ": " in l and not l.startswith(":"))
    if lines.get("event") != name: continue
    d = json.loads(lines["data"])
    if d["event_type"] == name and d["workflow_id"] == int(wf) and d["data"]["job_name"] == job:
        sys.exit(0)
sys.exit(1)
PY
}
for _ in $(seq 1 40); do [ "$(grep -c '^event: job_completed' "$tmp/stream" || true)" -ge 3 ] && break; sleep 0.05; done
for job in a b c; do
    want job_started "$job"
    want job_completed "$job"
done
kill -0 "$curl_pid" 2>/dev/null || fail "the stream ended before the server stopped"

stop_server TERM
[ "$stop_rc" = 0 ] || fail "server exit $stop_rc: $(cat "$server_log")"
[ "$stop_seconds" -le 3 ] || fail "server took ${stop_seconds} s to stop with a stream open"
rc=0
wait "$curl_pid" || rc=$?
curl_pid=""
[ "$rc" = 0 ] || fail "curl exit $rc after the server stopped"
echo ok
