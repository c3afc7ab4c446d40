#!/usr/bin/env bash
# Streamed creation (docs/TORC-COMPATIBILITY.md §5) under faults, through a fault-injecting proxy
# (test/support/fault_proxy.py) between a real `torcrun submit` and a real server. The spec has
# 2,500 jobs on three levels (1,000 + 1,000 + 500, each job of levels 1 and 2 after 4 of the
# level before: 6,000 dependencies), so three job batches, each naming the reserved ids of the
# one before. Each time the workflow must end with exactly 2,500 jobs and 6,000 dependencies,
# 1,000 ready and 1,500 blocked:
#   lost replies   the replies of the first two batches are dropped after the server committed
#                  them; the client sends each again and the server answers "created": false;
#   sent twice     every batch reaches the server twice;
#   restart        the first batch's reply is lost and the server is restarted (same database,
#                  same port) before the client's second try (the client held meanwhile);
#   client killed  every batch reply is dropped, and the client is killed while it retries: the
#                  workflow keeps the first batch, uninitialized, and a worker runs none of it.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
submit_pid=""
cleanup() {
    if [ -n "$submit_pid" ]; then kill -9 "$submit_pid" 2>/dev/null || true; fi
    worker_test_cleanup
}
trap cleanup EXIT

python3 - "$tmp" >"$tmp/spec.json" <<'PY'
import json, sys
tmp = sys.argv[1]
jobs = []
def level(prefix, n, before):
    for i in range(n):
        job = {"name": f"{prefix}{i}", "command": f"echo {prefix}{i} >> {tmp}/ran.txt"}
        if before:
            job["depends_on"] = [f"{before}{(i * 7 + k * 13) % 1000}" for k in range(4)]
        jobs.append(job)
level("a", 1000, None)
level("b", 1000, "a")
level("c", 500, "b")
print(json.dumps({"name": "streamed-faults", "jobs": jobs}))
PY

start_server "$tmp/db"
proxy_url() { echo "http://127.0.0.1:$proxy_port/torc-service/v1"; }
# proxy ARGS...: a fresh proxy log and port file, then the proxy.
proxy() {
    rm -f "$tmp/proxy.log" "$tmp/proxy.out"  # an old "listening" line would be read
    start_fault_proxy "$@"
}
batches='/bulk_jobs?first_id='

# check_created LABEL: the workflow $wf has every job and edge once, initialized.
check_created() {
    call GET "/jobs?workflow_id=$wf&limit=1"
    [ "$(field "$body" 'd["total_count"]')" = 2500 ] || fail "$1: jobs: $body"
    call GET "/workflows/$wf/job_dependencies?limit=1"
    [ "$(field "$body" 'd["total_count"]')" = 6000 ] || fail "$1: dependencies: $body"
    call GET "/jobs?workflow_id=$wf&status=ready&limit=1"
    [ "$(field "$body" 'd["total_count"]')" = 1000 ] || fail "$1: ready: $body"
    call GET "/jobs?workflow_id=$wf&status=blocked&limit=1"
    [ "$(field "$body" 'd["total_count"]')" = 1500 ] || fail "$1: blocked: $body"
}

# submit_through_proxy LABEL: `torcrun submit` through the proxy; sets wf.
submit_through_proxy() {
    wf=$("$torcrun" submit --url "$(proxy_url)" --no-schedule "$tmp/spec.json" \
        2>"$tmp/submit.err") || fail "$1: submit: $(cat "$tmp/submit.err")"
}

# Lost replies.
proxy --drop-match "$batches" --drop-count 2
submit_through_proxy "lost replies"
stop_fault_proxy
[ "$(grep -c "^dropped the reply (HTTP/1.1 200 OK): POST .*$batches" "$tmp/proxy.log")" = 2 ] ||
    fail "lost replies: $(cat "$tmp/proxy.log")"
check_created "lost replies"

# Sent twice.
proxy --twice 1 --twice-match "$batches"
submit_through_proxy "sent twice"
stop_fault_proxy
[ "$(grep -c "^sent twice (HTTP/1.1 200 OK): POST .*$batches" "$tmp/proxy.log")" = 3 ] ||
    fail "sent twice: $(cat "$tmp/proxy.log")"
check_created "sent twice"

# A server restart between a batch and its second try.
proxy --drop-match "$batches"
"$torcrun" submit --url "$(proxy_url)" --no-schedule "$tmp/spec.json" >"$tmp/wf.txt" \
    2>"$tmp/submit.err" &
submit_pid=$!
for _ in $(seq 1 200); do grep -q '^dropped the reply' "$tmp/proxy.log" && break; sleep 0.05; done
grep -q '^dropped the reply' "$tmp/proxy.log" || fail "restart: no reply dropped"
# The client is held while the server restarts (it pauses a second before its second try), so
# its retry meets the new server rather than the proxy's refused upstream.
kill -STOP "$submit_pid"
stop_server
fixed_port=$port start_server "$tmp/db"
kill -CONT "$submit_pid"
rc=0
wait "$submit_pid" || rc=$?
submit_pid=""
stop_fault_proxy
[ "$rc" = 0 ] || fail "restart: submit exit $rc: $(cat "$tmp/submit.err")"
wf=$(cat "$tmp/wf.txt")
check_created "restart"

# A client killed mid-creation leaves an uninitialized workflow that no worker runs.
proxy --drop-match "$batches" --drop-count 1000
"$torcrun" submit --url "$(proxy_url)" --no-schedule "$tmp/spec.json" >/dev/null \
    2>"$tmp/submit.err" &
submit_pid=$!
for _ in $(seq 1 200); do grep -q '^dropped the reply' "$tmp/proxy.log" && break; sleep 0.05; done
grep -q '^dropped the reply' "$tmp/proxy.log" || fail "killed: no reply dropped"
kill -9 "$submit_pid"
wait "$submit_pid" 2>/dev/null || true
submit_pid=""
stop_fault_proxy
call GET "/workflows?limit=100"
wf=$(field "$body" 'd["items"][-1]["id"]')
call GET "/jobs?workflow_id=$wf&limit=1"
[ "$(field "$body" 'd["total_count"]')" = 1000 ] || fail "killed: jobs: $body"
call GET "/jobs?workflow_id=$wf&status=uninitialized&limit=1"
[ "$(field "$body" 'd["total_count"]')" = 1000 ] || fail "killed: uninitialized: $body"
rc=0
timeout 60 "$torcrun" worker "$wf" --url "$base" --output-dir "$tmp/out" --mode direct \
    --long-poll 1 --poll-interval 0.2 --set limits.idle_timeout_seconds=2 \
    2>"$tmp/worker.log" || rc=$?
[ ! -e "$tmp/ran.txt" ] || fail "killed: a job of the half-made workflow ran: $(head "$tmp/ran.txt")"
call GET "/jobs?workflow_id=$wf&status=uninitialized&limit=1"
[ "$(field "$body" 'd["total_count"]')" = 1000 ] || fail "killed: after the worker: $body"
echo PASS
