# Shared by the contract tests (sourced after server_lib.sh): Prism's validating proxy (`prism
# proxy --errors`) in front of a running `torcrun server`, and the calls through it. Every
# request and response is checked against one OpenAPI document; a violation makes Prism answer
# with an error status and, for a response, an `sl-violations` header. Prism comes from
# build/prism (scripts/test.sh installs the pinned version there, or TORCRUN_PRISM names the
# executable); a missing Prism or Node fails the test, it never skips. Expects $torcrun, $root
# and $tmp; the caller's EXIT trap should call stop_prism.

# stop_prism: never fails, so that an EXIT trap goes on to stop the server (under set -e a
# failing `wait` would end the trap there, and the server would outlive the test).
prism_pid=""
stop_prism() {
    if [ -n "$prism_pid" ]; then
        kill "$prism_pid" 2>/dev/null || true
        wait "$prism_pid" 2>/dev/null || true
    fi
    prism_pid=""
}

# find_prism: sets $prism, or fails naming what is missing.
find_prism() {
    prism=${TORCRUN_PRISM:-}
    if [ -z "$prism" ]; then
        for dir in "$(dirname "$torcrun")/.." "$root/build"; do
            [ -x "$dir/prism/node_modules/.bin/prism" ] && prism=$dir/prism/node_modules/.bin/prism && break
        done
    fi
    [ -n "$prism" ] && [ -x "$prism" ] || fail "Prism not found: run scripts/test.sh (it installs it) or set TORCRUN_PRISM"
    command -v node >/dev/null || fail "node not found (Prism needs Node.js >= 18.20)"
}

# launch_prism LOG ARGS...: `prism ARGS...` (mock or proxy) on a free port (bind-and-release,
# then retry once on a collision); sets prism_pid and prism_url. Its log is LOG.
launch_prism() {
    local log=$1 attempt; shift
    find_prism
    for attempt in 1 2; do
        prism_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
        "$prism" "$@" -h 127.0.0.1 -p "$prism_port" >"$log" 2>&1 &
        prism_pid=$!
        for _ in $(seq 1 300); do
            grep -q 'Prism is listening' "$log" && break
            kill -0 "$prism_pid" 2>/dev/null || break
            sleep 0.1
        done
        grep -q 'Prism is listening' "$log" && break
        kill "$prism_pid" 2>/dev/null || true
        prism_pid=""
    done
    [ -n "$prism_pid" ] || fail "Prism did not start: $(tail -5 "$log")"
    prism_url=http://127.0.0.1:$prism_port
}

# start_prism CONTRACT UPSTREAM: the validating proxy in front of UPSTREAM; sets prism_pid, and
# base to Prism's address. Its log is $tmp/prism.log.
start_prism() {
    launch_prism "$tmp/prism.log" proxy --errors "$1" "$2"
    base=$prism_url
}

# send METHOD PATH BODY: one call through Prism as user $as (none when empty), with no body when
# BODY is empty; sets code and body, headers in $tmp/head, and counts it in $calls.
calls=0
as=""
send() {
    local args=(-s -D "$tmp/head" -o "$tmp/body" -w '%{http_code}' -H 'Expect:' -X "$1" "$base$2")
    [ -n "$as" ] && args+=(-u "$as:$as-pw")
    [ -n "$3" ] && args+=(-H 'Content-Type: application/json' --data-binary "$3")
    code=$(curl "${args[@]}") || fail "curl $1 $2 failed"
    body=$(cat "$tmp/body")
    calls=$((calls + 1))
}

# check METHOD PATH BODY STATUS: a violation or an unexpected status fails with Prism's answer.
check() {
    send "$1" "$2" "$3"
    if grep -qi '^sl-violations:' "$tmp/head" || grep -q 'stoplight.io/prism/errors' <<<"$body"; then
        fail "$1 $2: contract violation: $(grep -i '^sl-violations:' "$tmp/head") $body"
    fi
    [ "$code" = "$4" ] || fail "$1 $2: HTTP $code, expected $4: $body"
}

# refused METHOD PATH BODY STATUS MESSAGE: an answer of a status the contract does not declare
# for the operation, with MESSAGE; Prism reports exactly that, as a warning, and nothing else.
refusals=0
refused() {
    send "$1" "$2" "$3"
    refusals=$((refusals + 1))
    [ "$code" = "$4" ] || fail "$1 $2: HTTP $code, expected $4: $body"
    [ "$(field "$body" 'd["message"]')" = "$5" ] || fail "$1 $2: message: $body"
    python3 - "$tmp/head" <<'PY' || fail "$1 $2: violations beyond the undeclared status: $(cat "$tmp/head")"
import json, sys
lines = [l for l in open(sys.argv[1]) if l.lower().startswith("sl-violations:")]
assert len(lines) == 1, "no sl-violations header"
found = json.loads(lines[0].split(":", 1)[1])
assert all(v["severity"] == "Warning" and v["location"] == ["response"] and
           v["message"].startswith("Unable to match the returned status code") for v in found), found
PY
}

# prism_log_clean REQUEST_ERRORS: Prism logged that many request errors (the deliberate ones)
# and no violation.
prism_log_clean() {
    if [ "$(grep -ci 'terminated with error' "$tmp/prism.log")" != "$1" ] || grep -qi 'VIOLATIONS' "$tmp/prism.log"; then
        fail "Prism logged errors: $(grep -i 'error' "$tmp/prism.log" | head -5)"
    fi
}
