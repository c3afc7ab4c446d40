# Shared by the server system tests (sourced): start `torcrun server` on a free port, call the
# REST API with curl, read JSON fields with python3, stop the server with SIGTERM and check how
# it ended. Expects $torcrun and $tmp; the caller's EXIT trap should call kill_servers.

server_pids=()
server_watchers=()
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_exit() {  # expect_exit STATUS MESSAGE ARGS...: stderr is exactly MESSAGE
    local status=$1 message=$2 rc=0 out; shift 2
    out=$("$torcrun" "$@" 2>&1 >/dev/null) || rc=$?
    [ "$rc" = "$status" ] || fail "torcrun $*: exit $rc, expected $status ($out)"
    [ "$out" = "$message" ] || fail "torcrun $*: '$out'"
}

# start_server DB [ARGS...]: sets server_pid, port, base (http or https), server_log; fails
# after 10 s without the listening line. It listens on any free port, or on $fixed_port where the caller sets it
# (a restart on the same address). A watcher subshell records the exit status in $server_log.rc, so that a
# SIGKILL is not reported by this shell's job control.
start_server() {
    local db=$1; shift
    server_log=$tmp/server.$RANDOM.log
    : >"$server_log"
    rm -f "$server_log.pid" "$server_log.rc"
    (
        "$torcrun" server --port "${fixed_port:-0}" --db "$db" "$@" 2>"$server_log" &
        echo $! >"$server_log.pid"
        rc=0
        wait $! || rc=$?
        # Written whole, then renamed: a reader polling for the file never sees it empty.
        echo $rc >"$server_log.rc.part" && mv "$server_log.rc.part" "$server_log.rc"
    ) 2>/dev/null &
    server_watchers+=($!)
    for _ in $(seq 1 100); do [ -s "$server_log.pid" ] && break; sleep 0.01; done
    server_pid=$(cat "$server_log.pid")
    server_pids+=("$server_pid")
    local line=""
    for _ in $(seq 1 200); do
        line=$(grep -m1 '^torcrun server: listening on .*/torc-service/v1$' "$server_log" || true)
        [ -n "$line" ] && break
        [ -e "$server_log.rc" ] && fail "server exited at start: $(cat "$server_log")"
        sleep 0.05
    done
    [ -n "$line" ] || fail "no listening line after 10 s: $(cat "$server_log")"
    base=${line#torcrun server: listening on }
    local scheme=${base%%://*}
    port=${base#"$scheme"://127.0.0.1:}
    port=${port%%/*}
    [[ $scheme == http || $scheme == https ]] || fail "listening line: $line"
    [ "$base" = "$scheme://127.0.0.1:$port/torc-service/v1" ] || fail "listening line: $line"
}

# stop_server [SIGNAL]: signals the server, waits at most 5 s; sets stop_rc and stop_seconds.
stop_server() {
    local signal=${1:-TERM} start=$SECONDS
    kill -"$signal" "$server_pid"
    for _ in $(seq 1 100); do
        [ -e "$server_log.rc" ] && break
        sleep 0.05
    done
    [ -e "$server_log.rc" ] || fail "server still running 5 s after SIG$signal"
    stop_rc=$(cat "$server_log.rc")
    stop_seconds=$((SECONDS - start))
}

# kill_servers: SIGKILL to every server, then waits for the watchers, whose .rc files would
# otherwise appear while the caller removes $tmp (rm: Directory not empty).
kill_servers() {
    local pid
    for pid in "${server_pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
    for pid in "${server_watchers[@]}"; do wait "$pid" 2>/dev/null || true; done
}

# call METHOD PATH [BODY]: the answer's body in $body, its status in $code.
call() {
    local method=$1 path=$2 data=${3-}
    local args=(-s -o "$tmp/body" -w '%{http_code}' -H 'Expect:' -X "$method" "$base$path")
    [ -n "$data" ] && args+=(-H 'Content-Type: application/json' --data-binary "$data")
    code=$(curl "${args[@]}") || fail "curl $method $path failed"
    body=$(cat "$tmp/body")
}

# compute_node_body HOSTNAME [IS_ACTIVE]: a compute node of workflow $wf (4 CPUs, 8 GB, local),
# for POST /compute_nodes or PUT /compute_nodes/{id}.
compute_node_body() {
    echo "{\"workflow_id\": $wf, \"hostname\": \"$1\", \"pid\": 1, \"is_active\": ${2:-true},
        \"start_time\": \"2026-01-01T00:00:00Z\", \"num_cpus\": 4, \"memory_gb\": 8,
        \"num_gpus\": 0, \"num_nodes\": 1, \"compute_node_type\": \"local\"}"
}

# expect METHOD PATH BODY STATUS: call and require the status.
expect() {
    call "$1" "$2" "$3"
    [ "$code" = "$4" ] || fail "$1 $2: HTTP $code, expected $4: $body"
}

# field JSON PYTHON-EXPRESSION-ON-d: prints the value (strings bare, the rest as JSON).
field() {
    python3 -c 'import json,sys
d = json.loads(sys.argv[1]); v = eval(sys.argv[2])
print(v if isinstance(v, str) else json.dumps(v))' "$1" "$2"
}

# Processes the caller started in the background (curl loops, open streams): add each pid to
# background_pids; stop_background kills and reaps them (call it from the EXIT trap too).
background_pids=()
stop_background() {
    local pid
    for pid in "${background_pids[@]}"; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    background_pids=()
}
