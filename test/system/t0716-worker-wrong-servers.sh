#!/usr/bin/env bash
# Servers that answer everything wrong: one answers every request with 404, one with 500, one
# with 409, one with 503 (a proxy whose server is away). `torcrun worker` with its default
# settings (but for a 20 s retry window against 503), `torcrun submit` and `torcrun status` each
# end with a message naming the answer, and none sends more than a few requests: no error answer
# makes any client retry without a pause. The servers are test/support/fixed_answer_server.py,
# which counts what it is sent.
set -euo pipefail
torcrun=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
answer_pid=""
stop_answers() {
    [ -n "$answer_pid" ] && kill "$answer_pid" 2>/dev/null && { wait "$answer_pid" 2>/dev/null || true; }
    answer_pid=""
}
trap 'stop_answers; rm -rf "$tmp"' EXIT

# start_answers STATUS: the server on a free port; sets url, counted in $tmp/count.
start_answers() {
    rm -f "$tmp/count" "$tmp/port"
    python3 "$root/test/support/fixed_answer_server.py" "$1" "$tmp/port" "$tmp/count" \
        2>"$tmp/answers.log" &
    answer_pid=$!
    for _ in $(seq 1 100); do [ -s "$tmp/port" ] && break; sleep 0.05; done
    [ -s "$tmp/port" ] || fail "the fixed-answer server did not start: $(cat "$tmp/answers.log")"
    url=http://127.0.0.1:$(cat "$tmp/port")/torc-service/v1
}
requests() { cat "$tmp/count" 2>/dev/null || echo 0; }

cat >"$tmp/spec.json" <<'SPEC'
{"name": "w", "jobs": [{"name": "a", "command": "true"}]}
SPEC

for status in 404 500 409 503; do
    start_answers "$status"
    window=()
    [ "$status" = 503 ] && window=(--set server.retry_window_seconds=20)
    rc=0
    start=$SECONDS
    timeout 120 "$torcrun" worker 1 --url "$url" --output-dir "$tmp/out" "${window[@]}" \
        2>"$tmp/worker.$status" || rc=$?
    took=$((SECONDS - start))
    [ "$rc" = 1 ] || fail "worker against $status everywhere: exit $rc: $(cat "$tmp/worker.$status")"
    grep -q "HTTP $status" "$tmp/worker.$status" ||
        fail "worker against $status: no message naming the answer: $(cat "$tmp/worker.$status")"
    n=$(requests)
    # 404, 500, 409: /version, then the workflow's read fails at once. 503: a retry after
    # 1, 2, 4, 8 s ... within the 20 s window, for /version alone.
    limit=3
    [ "$status" = 503 ] && limit=8
    [ "$n" -le "$limit" ] || fail "worker against $status: $n requests in ${took} s"
    echo "worker against $status everywhere: exit 1 after ${took} s, $n requests"

    rc=0
    "$torcrun" submit --url "$url" "$tmp/spec.json" >/dev/null 2>"$tmp/submit.$status" || rc=$?
    [ "$rc" = 1 ] || fail "submit against $status: exit $rc: $(cat "$tmp/submit.$status")"
    grep -q "HTTP $status" "$tmp/submit.$status" ||
        fail "submit against $status: $(cat "$tmp/submit.$status")"
    rc=0
    "$torcrun" status 1 --url "$url" >/dev/null 2>"$tmp/status.$status" || rc=$?
    [ "$rc" = 1 ] || fail "status against $status: exit $rc: $(cat "$tmp/status.$status")"
    grep -q "HTTP $status" "$tmp/status.$status" ||
        fail "status against $status: $(cat "$tmp/status.$status")"
    total=$(requests)
    [ "$total" -le $((n + 4)) ] || fail "submit and status against $status: $((total - n)) requests"
    stop_answers
done
echo "ok"
