#!/usr/bin/env bash
# The messages of a mistyped or misdirected command line, each as a user first met it (issue 13
# §4 and §7): an unknown command with its nearest name, Torc's options with their torcrun
# equivalents, a second argument, a spec that is a directory or missing (the same words from
# `spec`, `run` and `submit`), a bad URL with the form expected, a server that is not running,
# the example of `server --help` accepted, `jobs` of an unknown workflow (404 as `status`), and
# TORC_API_URL under --url and over the default for the clients and the worker, and an option
# left without its value.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
trap 'kill_servers; rm -rf "$tmp"' EXIT
cd "$tmp"
unset TORC_API_URL

expect() {  # expect STATUS MESSAGE COMMAND-ARGS...: stderr is exactly MESSAGE, the exit STATUS
    local status=$1 message=$2 rc=0 out; shift 2
    out=$("$torcrun" "$@" 2>&1 >/dev/null) || rc=$?
    [ "$rc" = "$status" ] || fail "torcrun $*: exit $rc, expected $status ($out)"
    [ "$out" = "$message" ] || fail "torcrun $*: got
$out
expected
$message"
}
first_line() {  # first_line STATUS MESSAGE COMMAND-ARGS...: the first line of stderr
    local status=$1 message=$2 rc=0 out; shift 2
    out=$("$torcrun" "$@" 2>&1 >/dev/null) || rc=$?
    [ "$rc" = "$status" ] || fail "torcrun $*: exit $rc, expected $status ($out)"
    [ "$(head -n1 <<<"$out")" = "$message" ] || fail "torcrun $*: got '$(head -n1 <<<"$out")'"
}

# --- unknown commands: the nearest name, or none --------------------------------------------
first_line 2 "torcrun: unknown command 'stauts' (did you mean 'status'?)" stauts 1
first_line 2 "torcrun: unknown command 'cancle' (did you mean 'cancel'?)" cancle 1
first_line 2 "torcrun: unknown command 'workflow' (did you mean 'workflows'?)" workflow
first_line 2 "torcrun: unknown command 'frobnicate'" frobnicate
# An option given no value does not take the next option as its value (a database file named
# --help was created that way).
expect 2 "torcrun server: the option '--db' needs a value; '--help' is an option (write --db=--help for a value that starts with --)" \
    server --db --help
[ ! -e ./--help ] || fail "server --db --help created a file named --help"
expect 2 "torcrun worker: the option '--url' needs a value; '--workflow' is an option (write --url=--workflow for a value that starts with --)" \
    worker --url --workflow 1

# --- options: the nearest option, or torcrun's equivalent of Torc's -------------------------
echo '{name: "w", jobs: [{name: "a", command: "true"}]}' >w.json5
expect 2 "torcrun run: unrecognised option '--max-paralel-jobs' (did you mean --max-parallel-jobs?)" \
    run w.json5 --max-paralel-jobs 2
expect 2 "torcrun run: unrecognised option '--num-cpus' (torcrun's equivalent of Torc's --num-cpus: --set resources.cpus=N)" \
    run w.json5 --num-cpus 2
expect 2 "torcrun run: unrecognised option '-o' (torcrun's equivalent of Torc's -o: --output-dir DIR)" \
    run w.json5 -o out
expect 2 "torcrun worker: unrecognised option '--memory-gb' (torcrun's equivalent of Torc's --memory-gb: --set resources.memory=Ng)" \
    worker 1 --memory-gb 4
expect 2 "torcrun status: unrecognised option '-f' (torcrun's equivalent of Torc's -f: --json)" \
    status 1 -f json
[ ! -e out ] || fail "a refused option created the output directory"
# The option a Torc user looks for under this name exists: the run holds one job at a time.
printf '{name: "p", jobs: [%s]}\n' \
    "$(for i in 1 2 3; do printf '{name: "j%s", command: "date +%%s.%%N; sleep 0.3; date +%%s.%%N"},' $i; done)" \
    >parallel.json5
"$torcrun" run parallel.json5 --output-dir par --max-parallel-jobs 1 -q >/dev/null 2>&1 \
    || fail "run --max-parallel-jobs 1"
python3 - par/job_stdio <<'PY' || fail "--max-parallel-jobs 1: jobs overlapped"
import glob, os, sys
spans = sorted(tuple(map(float, open(f).read().split()))
               for f in glob.glob(os.path.join(sys.argv[1], "*_r0_a1.o")))
assert len(spans) == 3, spans
assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:])), spans
PY

# --- one positional argument ------------------------------------------------------------------
expect 2 'torcrun status: too many arguments: "2" (torcrun status WF [options] takes one)' status 1 2
expect 2 'torcrun jobs: too many arguments: "x" (torcrun jobs WF [options] takes one)' jobs 1 x
expect 2 'torcrun run: too many arguments: "b.json5" (torcrun run SPEC [options] takes one)' \
    run w.json5 b.json5
expect 2 'torcrun workflows: unexpected argument "3" (torcrun workflows [options])' workflows 3

# --- a spec that is a directory or missing: the same words from every command ----------------
mkdir specdir
expect 2 "torcrun spec: specdir: cannot read: Is a directory" spec specdir
expect 2 "torcrun run: specdir: cannot read: Is a directory" run specdir
expect 2 "torcrun spec: none.json5: cannot read: No such file or directory" spec none.json5
expect 2 "torcrun run: none.json5: cannot read: No such file or directory" run none.json5
expect 2 "torcrun submit: none.json5: cannot read: No such file or directory" submit none.json5

# --- URLs: the form expected, and a server that is not running --------------------------------
expect 2 'torcrun status: --url: url: "localhost:8080/torc-service/v1" is not an http or https URL; expected http://host:port/torc-service/v1' \
    status 1 --url localhost:8080/torc-service/v1
TORC_API_URL=http//x expect 2 'torcrun jobs: --url: url: "http//x" is not a valid URL; expected http://host:port/torc-service/v1' \
    jobs 1
TORC_API_URL=http//x expect 2 'TORC_API_URL: "http//x" is not a valid URL; expected http://host:port/torc-service/v1' \
    config worker
free_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
dead=http://127.0.0.1:$free_port/torc-service/v1
expect 1 "torcrun status: GET /workflows/1: connect 127.0.0.1:$free_port: Connection refused (is the server running at $dead? start one with \`torcrun server\`, or give --url URL)" \
    status 1 --url "$dead"
TORC_API_URL=$dead expect 1 "torcrun workflows: GET /workflows?offset=0&limit=10000: connect 127.0.0.1:$free_port: Connection refused (is the server running at $dead? start one with \`torcrun server\`, or give --url URL)" \
    workflows

# --- the server's --set example is one of its keys --------------------------------------------
# (the help wraps its lines: joined first)
example=$("$torcrun" server --help | tr -s ' \n' ' ' | grep -o -- '--set [a-z_.]*=[0-9a-z]*' | head -n1)
[ "$example" = "--set worker_lease_seconds=60" ] || fail "server --help example: '$example'"
"$torcrun" config server $example >/dev/null || fail "the server refuses its own example $example"
# The example the issue found refused, a worker key, is said to be one.
expect 2 '--set poll.interval_seconds: unknown key "poll.interval_seconds"
torcrun server: poll.interval_seconds is a worker key (torcrun worker --set, torcrun config worker); the server'"'"'s keys: torcrun config server --reference' \
    server --set poll.interval_seconds=10
example=$("$torcrun" worker --help | tr -s ' \n' ' ' | grep -o -- '--set [a-z_.]*=[0-9a-z]*' | head -n1)
[ "$example" = "--set poll.interval_seconds=10" ] || fail "worker --help example: '$example'"
"$torcrun" config worker $example >/dev/null || fail "the worker refuses its own example $example"

# --- against a server: jobs of an unknown workflow is 404 as status; TORC_API_URL's place -----
start_server "$tmp/db"
expect 1 "torcrun status: GET /workflows/99: HTTP 404: workflows: no workflow with id 99" status 99 --url "$base"
expect 1 "torcrun jobs: GET /workflows/99: HTTP 404: workflows: no workflow with id 99" jobs 99 --url "$base"
wf=$(TORC_API_URL=$base "$torcrun" submit w.json5 2>/dev/null) || fail "submit with TORC_API_URL"
# --url wins over TORC_API_URL, which wins over the default.
TORC_API_URL=$dead "$torcrun" status "$wf" --url "$base" >/dev/null || fail "--url under TORC_API_URL"
out=$(TORC_API_URL=$base "$torcrun" config worker --sources | grep '^server.url ')
[ "$(echo $out)" = "server.url \"$base\" environment TORC_API_URL" ] || fail "sources: $out"
out=$(TORC_API_URL=$dead "$torcrun" config worker --sources --url "$base" | grep '^server.url ')
[ "$(echo $out)" = "server.url \"$base\" flag --url" ] || fail "sources with --url: $out"
# The worker finds the server through TORC_API_URL alone.
TORC_API_URL=$base "$torcrun" worker "$wf" --output-dir wout --mode direct --poll-interval 0.5 \
    --set limits.idle_timeout_seconds=20 2>worker.err \
    || fail "worker with TORC_API_URL: $(cat worker.err)"
out=$("$torcrun" jobs "$wf" --url "$base" --json)
[ "$(field "$out" '[(j["name"], j["status"], j["return_code"]) for j in d]')" = '[["a", "completed", 0]]' ] \
    || fail "the worker of TORC_API_URL did not run the job: $out"
stop_server TERM
echo "t0320: ok"
