#!/usr/bin/env bash
# HTTPS, and a password that stays secret. The test makes its own CA and certificates with
# openssl: one for 127.0.0.1 and localhost, one from another CA, one for another name, one
# expired. `torcrun server` refuses unusable TLS files with exit 2 before it listens; over
# HTTPS (with an htpasswd file) a worker runs a workflow to completion, and status and jobs
# work, by IP address and by name; each bad certificate fails with a message naming its problem
# (unknown CA, name mismatch, expired), and a client speaking plain HTTP gets nothing. A
# connection that never finishes its handshake holds a connection slot only for
# tls.handshake_timeout_seconds. Plain HTTP on a non-loopback address logs a warning. Then the
# password is looked for in every log, job file, job environment (env and /proc/self/environ) and
# the argv of the worker and jobs (ps): not found. An event stream over TLS ends cleanly when the
# server stops.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
cleanup() { stop_background; worker_test_cleanup; }
trap cleanup EXIT

# ---- certificates
source "$(dirname "$0")/tls_lib.sh"
make_ca test-ca
make_ca other-ca
make_cert server test-ca 'IP:127.0.0.1,DNS:localhost' 2
make_cert elsewhere test-ca 'DNS:torc.example.org' 2
make_cert expired test-ca 'IP:127.0.0.1,DNS:localhost' -1
ca=$certs/test-ca.pem

# ---- unusable TLS files: exit 2, before anything listens
server_refuses() {  # server_refuses MESSAGE ARGS...
    local message=$1 rc=0 out; shift
    out=$("$torcrun" server --port 0 --db "$tmp/refused.db" "$@" 2>&1) || rc=$?
    [ "$rc" = 2 ] || fail "torcrun server $*: exit $rc, expected 2 ($out)"
    [[ $out == *"$message"* ]] || fail "torcrun server $*: '$out' lacks '$message'"
    [[ $out != *listening* ]] || fail "torcrun server $*: it listened: $out"
}
server_refuses "tls.certificate: \"$certs/none.pem\": cannot read: No such file or directory" \
    --tls-cert "$certs/none.pem" --tls-key "$certs/server.key"
server_refuses "tls.key: \"$certs/other-ca.key\": does not match the certificate \"$certs/server.pem\"" \
    --tls-cert "$certs/server.pem" --tls-key "$certs/other-ca.key"
server_refuses "tls.certificate: \"$certs/server.csr\": is not a PEM certificate chain (OpenSSL: " \
    --tls-cert "$certs/server.csr" --tls-key "$certs/server.key"
server_refuses "tls.certificate: is set but tls.key is not" --tls-cert "$certs/server.pem"
[ ! -e "$tmp/refused.db" ] || fail "a refused start created its database"

# ---- the server: HTTPS with a password
password='Tls-Pw-7fq2Xr'
echo 'alice:$2b$04$vzB1/26nFks3hhUMY6rU9eNbLEVHoczP8x0p1V5DjZc3BVYLlEaAW' >"$tmp/users"
printf '%s\n' "$password" >"$tmp/password"
start_server "$tmp/db" --tls-cert "$certs/server.pem" --tls-key "$certs/server.key" \
    --set auth.htpasswd_file="$tmp/users" --log-level debug
[[ $base == https://127.0.0.1:* ]] || fail "listening line: $base"
grep -q 'http: listening.*tls=on' "$server_log" || fail "no tls=on: $(cat "$server_log")"
code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$ca" -u "alice:$password" "$base/ping")
[ "$code" = 200 ] || fail "curl over https: HTTP $code"
code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$ca" "$base/ping")
[ "$code" = 401 ] || fail "curl over https without credentials: HTTP $code"
if curl -s -o /dev/null "http://127.0.0.1:$port/torc-service/v1/ping"; then
    fail "plain HTTP to the HTTPS port was answered"
fi


# ---- a workflow over HTTPS; the client commands and the worker take the CA and the password
# from Torc's variables, as a user's shell would have them (the worker with the wrong CA below
# reads the password from its file).
export TORC_TLS_CA_CERT=$ca TORC_PASSWORD=$password
cat >"$tmp/wf.json" <<'EOF'
{"name": "https", "jobs": [
  {"name": "dump", "command": "env >\"$TORC_OUTPUT_DIR/job-env.txt\"; tr '\\0' '\\n' </proc/self/environ >\"$TORC_OUTPUT_DIR/job-environ.txt\"; ps -eo pid,args >\"$TORC_OUTPUT_DIR/job-ps.txt\"; echo dumped"},
  {"name": "after", "command": "echo after", "depends_on": ["dump"]}
]}
EOF
wf=$("$torcrun" submit --url "$base" --user alice "$tmp/wf.json" 2>"$tmp/submit.err") ||
    fail "submit over https: $(cat "$tmp/submit.err")"
# Torc's dashboard view, over TLS: an event stream open while the worker runs, ended cleanly
# (close_notify, curl exit 0) when the server stops.
# (curl reads the credentials from a file: its argv is in the jobs' ps listing.)
printf 'user = "alice:%s"\n' "$password" >"$tmp/password.curlrc"
(
    rc=0
    timeout 120 curl -sN -K "$tmp/password.curlrc" --cacert "$ca" -D "$tmp/stream.headers" \
        "$base/workflows/$wf/events/stream" >"$tmp/stream" 2>"$tmp/stream.err" || rc=$?
    echo "$rc" >"$tmp/stream.rc"
) &
stream_reader=$!
for _ in $(seq 1 100); do [ -s "$tmp/stream.headers" ] && break; sleep 0.05; done
grep -qi '^content-type: text/event-stream' "$tmp/stream.headers" ||
    fail "event stream over https: $(cat "$tmp/stream.headers" "$tmp/stream.err")"
rc=0
timeout 60 "$torcrun" worker "$wf" --url "$base" --output-dir "$tmp/out" --mode direct \
    --long-poll 1 --poll-interval 0.5 --set limits.idle_timeout_seconds=20 \
    --set server.username=alice --log-level debug 2>"$tmp/worker.log" || rc=$?
[ "$rc" = 0 ] || fail "worker exit $rc: $(cat "$tmp/worker.log")"
status=$("$torcrun" status --url "$base" --user alice "$wf" 2>&1) || fail "status: $status"
[[ $status == *"completed: 2"* ]] || fail "status over https: $status"
jobs=$("$torcrun" jobs --url "$base" --user alice "$wf" --json) || fail "jobs: $jobs"
done=$(field "$jobs" '" ".join(sorted(j["name"] + "=" + j["status"] for j in d))')
[ "$done" = "after=completed dump=completed" ] || fail "jobs over https: $done"
by_name=${base/127.0.0.1/localhost}
"$torcrun" status --url "$by_name" --user alice "$wf" >/dev/null 2>"$tmp/by-name.err" ||
    fail "status by the name localhost: $(cat "$tmp/by-name.err")"
[ -s "$tmp/out/job-ps.txt" ] || fail "the job wrote no ps listing"
grep -q 'torcrun worker' "$tmp/out/job-ps.txt" || fail "ps did not see the worker: $(cat "$tmp/out/job-ps.txt")"

# ---- bad certificates: each named
client_fails() {  # client_fails MESSAGE ARGS... (torcrun status over https)
    local message=$1 rc=0 out; shift
    out=$("$torcrun" status "$wf" --user alice "$@" 2>&1) || rc=$?
    [ "$rc" != 0 ] || fail "torcrun status $*: succeeded"
    [[ $out == *"$message"* ]] || fail "torcrun status $*: '$out' lacks '$message'"
}
client_fails "TLS handshake with 127.0.0.1:$port: the server's certificate was refused: unknown CA" \
    --url "$base" --tls-ca-cert "$certs/other-ca.pem"
client_fails "(trusting the CAs of \"$certs/other-ca.pem\")" \
    --url "$base" --tls-ca-cert "$certs/other-ca.pem"
TORC_TLS_CA_CERT='' client_fails "unknown CA: unable to get local issuer certificate (trusting the system's CA store)" \
    --url "$base"
client_fails "--tls-ca-cert: \"$certs/server.key\": holds no certificate OpenSSL can use" \
    --url "$base" --tls-ca-cert "$certs/server.key"
rc=0
timeout 30 "$torcrun" worker "$wf" --url "$base" --output-dir "$tmp/out-wrong" --mode direct \
    --tls-ca-cert "$certs/other-ca.pem" --set server.username=alice \
    --set server.password_file="$tmp/password" 2>"$tmp/worker-wrong.log" || rc=$?
[ "$rc" = 1 ] || fail "worker with the wrong CA: exit $rc: $(cat "$tmp/worker-wrong.log")"
grep -q 'unknown CA' "$tmp/worker-wrong.log" || fail "worker with the wrong CA: $(cat "$tmp/worker-wrong.log")"

main_log=$server_log main_pid=$server_pid main_base=$base
start_server "$tmp/db2" --tls-cert "$certs/elsewhere.pem" --tls-key "$certs/elsewhere.key"
client_fails "name mismatch: it is not a certificate for 127.0.0.1" --url "$base"
stop_server
start_server "$tmp/db3" --tls-cert "$certs/expired.pem" --tls-key "$certs/expired.key"
client_fails "the server's certificate was refused: expired: certificate has expired" --url "$base"
stop_server
server_log=$main_log server_pid=$main_pid base=$main_base

# ---- a plain server on a non-loopback address says so; an https client is told what it met
: >"$tmp/wide.log"
"$torcrun" server --host 0.0.0.0 --port 0 --db "$tmp/db4" 2>"$tmp/wide.log" &
wide=$!
for _ in $(seq 1 100); do grep -q 'listening on' "$tmp/wide.log" && break; sleep 0.05; done
kill "$wide"
wait "$wide" || true
grep -q 'warning http: plain HTTP on a non-loopback address' "$tmp/wide.log" ||
    fail "no plain-HTTP warning: $(cat "$tmp/wide.log")"
start_server "$tmp/db4"
if grep -q 'plain HTTP' "$server_log"; then fail "a loopback server warned: $(cat "$server_log")"; fi
client_fails "(does the server speak https?)" --url "https://127.0.0.1:$port/torc-service/v1"
stop_server

# ---- a connection slot is held only for the handshake timeout
start_server "$tmp/db5" --tls-cert "$certs/server.pem" --tls-key "$certs/server.key" \
    --set tls.handshake_timeout_seconds=3 --set max_connections=2
# Two connections that never start their handshake fill both slots: a third client is refused
# (503), and once the handshake timeout (3 s) drops them a client is served again.
python3 - "$port" "$tmp/held" <<'EOF' &
import socket, sys, time
held = [socket.create_connection(("127.0.0.1", int(sys.argv[1]))) for _ in range(2)]
open(sys.argv[2], "w").write("held\n")
time.sleep(10)
EOF
background_pids+=($!)
for _ in $(seq 1 100); do [ -s "$tmp/held" ] && break; sleep 0.05; done
[ -s "$tmp/held" ] || fail "the silent connections did not connect"
code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$ca" "$base/ping")
[ "$code" = 503 ] || fail "with both slots held by silent connections: HTTP $code"
sleep 3.5
code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$ca" "$base/ping")
[ "$code" = 200 ] || fail "after the handshake timeout: HTTP $code"
stop_background
stop_server
server_log=$main_log server_pid=$main_pid base=$main_base

# ---- the password is nowhere
stop_server
[ "$stop_rc" = 0 ] || fail "server exit status $stop_rc: $(cat "$server_log")"
wait "$stream_reader"
[ "$(cat "$tmp/stream.rc")" = 0 ] || fail "the event stream did not end cleanly: curl exit $(cat "$tmp/stream.rc") $(cat "$tmp/stream.err")"
[ "$(grep -c '^event: job_completed' "$tmp/stream")" = 2 ] || fail "event stream: $(cat "$tmp/stream")"
grep -q '^TORC_WORKFLOW_ID=' "$tmp/out/job-env.txt" || fail "job env not dumped"
if grep -q '^TORC_PASSWORD=' "$tmp/out/job-env.txt" "$tmp/out/job-environ.txt"; then
    fail "a job inherited TORC_PASSWORD"
fi
# The environment change each attempt recorded (job_records/) names TORC_PASSWORD as removed.
cat "$tmp"/out/job_records/*.jsonl | python3 -c '
import json, sys
envs = [r["environment"] for r in map(json.loads, sys.stdin) if r["kind"] == "attempt"]
assert envs and all("- TORC_PASSWORD" in e.splitlines() for e in envs), envs' ||
    fail "the recorded environment does not list TORC_PASSWORD: $(cat "$tmp"/out/job_records/*.jsonl)"
searched=$(find "$tmp" -type f ! -name 'password*' ! -name users | wc -l)
leaks=$(grep -rlF --exclude='password*' --exclude=users -- "$password" "$tmp" || true)
[ -z "$leaks" ] || fail "the password is in: $leaks"
[ "$searched" -gt 20 ] || fail "only $searched files searched"
echo "https ok; the password is in none of $searched files"
