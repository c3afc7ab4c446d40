#!/usr/bin/env bash
# `torcrun server --set max_connections=2`: two open event streams fill the cap, so a ping is
# answered 503 with a JSON message naming the key (and Retry-After), promptly; once a stream
# closes, pings are served again. A cap of 0 is refused at start (exit 2).
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
trap 'stop_background; kill_servers; rm -rf "$tmp"' EXIT

out=$("$torcrun" server --set max_connections=0 --db "$tmp/x.db" 2>&1) && fail "max_connections=0 started"
[[ "$out" == *"max_connections: 0 is out of range (1 to 1000000)"* ]] || fail "max_connections=0: $out"

start_server "$tmp/db" --set max_connections=2
grep -q 'listening .* max_connections=2$' "$server_log" || fail "listening line: $(cat "$server_log")"
expect POST /workflows '{"name": "cap", "user": "alice"}' 200
wf=$(field "$body" 'd["id"]')

# open_stream I: an events stream in the background, opened again while it is refused: the
# connections of the requests above may still be counted until the server sees them close.
open_stream() {
    local pid
    for _ in $(seq 1 50); do
        rm -f "$tmp/stream.$1.h"
        timeout 60 curl -sN -D "$tmp/stream.$1.h" "$base/workflows/$wf/events/stream" \
            >"$tmp/stream.$1" 2>/dev/null &
        pid=$!
        for _ in $(seq 1 100); do
            [ -s "$tmp/stream.$1.h" ] || ! kill -0 "$pid" 2>/dev/null && break
            sleep 0.02
        done
        if grep -q '^HTTP/1.1 200' "$tmp/stream.$1.h" 2>/dev/null; then
            background_pids+=("$pid")
            return 0
        fi
        wait "$pid" 2>/dev/null || true
        sleep 0.1
    done
    fail "stream $1 was never accepted: $(cat "$tmp/stream.$1")"
}
open_stream 1
open_stream 2
for _ in $(seq 1 100); do  # both streams open: the next connection is refused
    code=$(curl -s -o "$tmp/body" -w '%{http_code}' -D "$tmp/headers" "$base/ping" || true)
    [ "$code" = 503 ] && break
    sleep 0.05
done
[ "$code" = 503 ] || fail "with two streams open a ping got HTTP $code"
[ "$(cat "$tmp/body")" = '{"message":"server busy: 2 connections are open, the most this server accepts (max_connections); try again later"}' ] \
    || fail "503 body: $(cat "$tmp/body")"
grep -qi '^retry-after: 1' "$tmp/headers" || fail "no Retry-After: $(cat "$tmp/headers")"
seconds=$(curl -s -o /dev/null -w '%{time_total}' "$base/ping")
python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) < 1.5 else 1)' "$seconds" \
    || fail "the 503 took $seconds s"

kill "${background_pids[0]}"
for _ in $(seq 1 100); do
    code=$(curl -s -o "$tmp/body" -w '%{http_code}' "$base/ping" || true)
    [ "$code" = 200 ] && break
    sleep 0.05
done
[ "$code" = 200 ] || fail "after a stream closed a ping got HTTP $code"
grep -q 'warning http: connection refused: at max_connections max_connections=2 refused=1' "$server_log" \
    || fail "no refusal warning: $(cat "$server_log")"

stop_background
stop_server
[ "$stop_rc" = 0 ] || fail "server exit status $stop_rc: $(cat "$server_log")"
