#!/usr/bin/env bash
# `torcrun server`: the listening line with the real port of --port 0, ping, version, creating a
# workflow, JSON messages for bad input (404, 400, 422), an oversized body (413), bad
# configuration (exit 2) and an unusable database (exit 1), and SIGTERM: a parked long-poll
# claim is answered, the process exits 0 at once, no process is left and the database is closed
# (WAL checkpointed) with its data kept for the next start.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
trap 'kill_servers; rm -rf "$tmp"' EXIT

start_server "$tmp/db" --set max_body_bytes=4k
expect GET /ping "" 200
[ "$body" = '{"status":"ok"}' ] || fail "ping: $body"
expect GET /version "" 200
# 0.23's VersionResponse: this torcrun's version, the newest Torc API it answers, and the key
# torcrun's clients recognise a torcrun server by.
[ "$(field "$body" '[d["version"], d["api_version"], d["server"]]')" = \
    "[\"$("$torcrun" --version | cut -d' ' -f2)\", \"0.23.0\", \"torcrun\"]" ] || fail "version: $body"

expect POST /workflows '{"name": "basics", "user": "alice"}' 200
wf=$(field "$body" 'd["id"]')
expect GET "/workflows/$wf" "" 200
[ "$(field "$body" 'd["name"]')" = basics ] || fail "workflow name: $body"
[ "$(field "$body" 'd["jobs_sort_method"]')" = gpus_runtime_memory ] || fail "defaults: $body"

# Bad input: a status and one JSON message that names the problem.
check_error() {  # check_error METHOD PATH BODY STATUS MESSAGE
    expect "$1" "$2" "$3" "$4"
    [ "$(field "$body" 'd["message"]')" = "$5" ] || fail "$1 $2 message: $body"
}
check_error GET /workflows/999 "" 404 'workflows: no workflow with id 999'
check_error GET /nope "" 404 'path: "/nope" is not an endpoint'
check_error GET /workflows/abc "" 400 \
    'path: "abc" is not a valid id (expected a non-negative integer)'
check_error POST /workflows '{"name": "x"' 400 \
    'workflows: request body is not valid JSON: incomplete JSON at byte 12'
check_error POST /workflows '{"name": 3, "user": "u"}' 422 \
    'workflows: field "name": expected a string, found an integer'
check_error POST /resource_requirements \
    "{\"workflow_id\": $wf, \"name\": \"r\", \"memory\": \"1.5g\"}" 422 \
    'resource_requirements: field "memory": memory: "1.5g" is not an integer followed by an optional k, m, g or t'
check_error POST /jobs '{"workflow_id": 77, "name": "j", "command": "c"}' 404 \
    'jobs: field "workflow_id": no workflow with id 77'
expect GET "/jobs?workflow_id=$wf" "" 200
[ "$(field "$body" 'd["total_count"]')" = 0 ] || fail "a rejected request left a job: $body"

# 4k limit: 5000 bytes are refused before the handler sees them.
big=$(printf '{"name": "%s", "user": "u"}' "$(head -c 5000 /dev/zero | tr '\0' x)")
expect POST /workflows "$big" 413
[ -n "$(field "$body" 'd["message"]')" ] || fail "413 without a message: $body"
expect GET /workflows "" 200
[ "$(field "$body" 'd["total_count"]')" = 1 ] || fail "the oversized workflow was stored: $body"

# SIGTERM with a long-poll claim parked: the claim is answered (empty), the server exits 0 fast.
curl -s -o "$tmp/claim" -w '%{http_code}' -X POST \
    "$base/workflows/$wf/claim_next_jobs?limit=1&wait_seconds=30" >"$tmp/claim_code" &
claimer=$!
sleep 0.3
stop_server TERM
[ "$stop_rc" = 0 ] || fail "SIGTERM exit $stop_rc: $(cat "$server_log")"
[ "$stop_seconds" -le 3 ] || fail "stopping took $stop_seconds s"
wait "$claimer" || fail "the parked claim failed"
[ "$(cat "$tmp/claim_code")" = 200 ] || fail "parked claim: HTTP $(cat "$tmp/claim_code")"
[ "$(cat "$tmp/claim")" = '{"jobs":[]}' ] || fail "parked claim answer: $(cat "$tmp/claim")"
grep -qx 'info http: stopped' "$server_log" || fail "no stop line: $(cat "$server_log")"
kill -0 "$server_pid" 2>/dev/null && fail "server process left"
[ ! -s "$tmp/db-wal" ] || fail "WAL not checkpointed at close"

# The data outlives the process.
start_server "$tmp/db"
expect GET "/workflows/$wf" "" 200
[ "$(field "$body" 'd["name"]')" = basics ] || fail "workflow lost across a restart: $body"
stop_server INT
[ "$stop_rc" = 0 ] || fail "SIGINT exit $stop_rc"

# Configuration problems exit 2 with the message; a database that cannot be opened exits 1.
set +e
out=$("$torcrun" server --port 99999 --db "$tmp/x.db" 2>&1); rc=$?
set -e
[ $rc = 2 ] && [ "$out" = '--port: 99999 is out of range (0 to 65535)' ] || fail "bad port: $rc $out"
set +e
out=$("$torcrun" server --set nope=1 --db "$tmp/x.db" 2>&1); rc=$?
set -e
[ $rc = 2 ] && [ "$out" = '--set nope: unknown key "nope"' ] || fail "bad key: $rc $out"
set +e
out=$("$torcrun" server --set auth.htpasswd_file="$tmp/none" --db "$tmp/x.db" 2>&1); rc=$?
set -e
[ $rc = 2 ] && [ "$out" = "torcrun server: htpasswd: cannot read \"$tmp/none\": No such file or directory" ] \
    || fail "missing htpasswd file: $rc $out"
[ ! -e "$tmp/x.db" ] || fail "a configuration error created the database"
set +e
out=$("$torcrun" server --port 0 --db "$tmp/missing/dir/x.db" 2>&1); rc=$?
set -e
[ $rc = 1 ] || fail "unusable database: exit $rc"
[ "$out" = "torcrun server: store: sqlite: unable to open database file (opening \"$tmp/missing/dir/x.db\")" ] \
    || fail "unusable database message: $out"
echo "ok"
