#!/usr/bin/env bash
# `torcrun logs WF JOB` (issue 13 §1): a job's stdout or stderr by name or id, the attempt asked
# for (--attempt N) or the latest, --follow on a running job until it ends, a finished run read
# through --output-dir D, a server through --url with --worker-output-dir; and the refusals of an
# unknown job (with the closest name), a missing attempt, a job that never ran and a log directory
# that does not hold the files. §2: each failure printed while the run runs, with its stderr's
# last lines, and the summary's groups by return code. Also §6: the run's worker.log lines start with an ISO 8601 UTC time
# and name jobs beside their ids; the recorded result (job_records/) has the server's time form,
# and a busy job's peak CPU is at least its average.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
run_pid=
cleanup() {
    if [ -n "$run_pid" ]; then kill -9 "$run_pid" 2>/dev/null || true; fi
    kill_servers
    rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp"
unset TORC_API_URL

# recorded DIR JOB KIND: the last line of that kind about job JOB (workflow 1) in the attempt
# records of the output directory DIR, as JSON.
recorded() {
    python3 - "$@" <<'PY'
import glob, json, sys
d, job, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3]
last = None
for f in glob.glob(f"{d}/job_records/*.jsonl"):
    for line in open(f):
        r = json.loads(line)
        if r["kind"] == kind and r["workflow_id"] == 1 and r["job_id"] == job:
            last = r
print(json.dumps(last))
PY
}

# --- a finished run: attempts, streams, names and ids ----------------------------------------
cat >done.json5 <<JSON
{name: "done",
 failure_handlers: [{name: "again", rules: [{exit_codes: [10], max_retries: 2}]}],
 jobs: [
  {name: "hello", command: "echo hello out; echo hello err >&2"},
  {name: "flaky", failure_handler: "again",
   command: "if [ -e $tmp/marker ]; then echo second try; else touch $tmp/marker; echo first try; exit 10; fi"},
  {name: "broken", command: "echo broke >&2; exit 3"},
  {name: "never", command: "true", depends_on: ["broken"]},
]}
JSON
rc=0
"$torcrun" run done.json5 --output-dir D --progress-interval 60 >run.out 2>run.err || rc=$?
[ "$rc" = 1 ] || fail "run: exit $rc: $(cat run.err)"
# §2: the failure on stderr with its stderr's last lines; the summary groups by return code.
grep -A1 -x "torcrun run: failed: broken (job 3), return code 3, logs $tmp/D/jobs/wf1_j3/r0_a1" run.err \
    | tail -n1 | grep -qx '    | broke' || fail "no failure line: $(cat run.err)"
grep -A2 -x 'failures by return code:' run.out | tail -n2 >groups.txt
[ "$(cat groups.txt)" = "$(printf '  return code 3: 1 job, broken (job 3)\n    | broke')" ] \
    || fail "summary groups: $(cat run.out)"
[ "$("$torcrun" logs 1 hello --output-dir D)" = "hello out" ] || fail "logs hello"
[ "$("$torcrun" logs 1 1 --output-dir D --stderr)" = "hello err" ] || fail "logs by id --stderr"
[ "$("$torcrun" logs 1 flaky --output-dir D)" = "second try" ] || fail "logs flaky (latest)"
[ "$("$torcrun" logs 1 flaky --output-dir D --attempt 1)" = "first try" ] || fail "--attempt 1"
[ "$("$torcrun" logs 1 flaky --output-dir D --attempt 2)" = "second try" ] || fail "--attempt 2"
[ "$("$torcrun" logs 1 broken --output-dir D --stderr)" = "broke" ] || fail "logs broken --stderr"
expect_exit 1 'torcrun logs: job "flakey": workflow 1 has no job of that name (did you mean "flaky"?)' \
    logs 1 flakey --output-dir D
expect_exit 1 'torcrun logs: job 9: workflow 1 has no such job' logs 1 9 --output-dir D
expect_exit 1 'torcrun logs: "flaky" (job 2) has no attempt 3 (its attempts: 1, 2)' \
    logs 1 flaky --output-dir D --attempt 3
expect_exit 1 'torcrun logs: "never" (job 4) has not run (status canceled): no logs yet' \
    logs 1 never --output-dir D
expect_exit 2 'torcrun logs: --attempt: 0 is not an attempt (1 or more)' \
    logs 1 hello --output-dir D --attempt 0
expect_exit 2 'torcrun logs: a job is required (torcrun logs WF JOB)' logs 1 --output-dir D
expect_exit 2 'torcrun logs: too many arguments: "x" (torcrun logs WF JOB [options] takes two)' \
    logs 1 hello x --output-dir D
expect_exit 1 "torcrun logs: elsewhere/job_stdio/job_wf1_j1_r0_a1.o: no such file (is elsewhere the output directory of the worker that ran it? give --worker-output-dir DIR)" \
    logs 1 hello --output-dir D --worker-output-dir elsewhere

# `jobs` beside the logs: attempts, node, log directory, a --status list.
out=$("$torcrun" jobs 1 --output-dir D --status failed,canceled --json)
[ "$(field "$out" '[(j["name"], j["attempts"], j["log_dir"], j["node"] is not None) for j in d]')" \
    = '[["broken", 1, "D/jobs/wf1_j3/r0_a1", true], ["never", 0, null, false]]' ] \
    || fail "jobs --status failed,canceled: $out"
out=$("$torcrun" jobs 1 --output-dir D --json)
[ "$(field "$out" '[(j["attempts"], j["log_dir"], j["peak_cpu_percent"] >= 0) for j in d if j["name"] == "flaky"]')" \
    = '[[2, "D/job_stdio/job_wf1_j2_r0_a2.o", true]]' ] || fail "jobs flaky: $out"

# §6: time stamps and job names in worker.log; ISO times in the recorded result. A job that
# completed leaves its two stdio files and no attempt directory; the one that failed has one.
[ ! -e D/jobs/wf1_j1 ] && [ -d D/jobs/wf1_j3/r0_a1 ] || fail "attempt directories: $(find D/jobs)"
[ "$(ls D/job_stdio | grep -c '^job_wf1_j1_')" = 2 ] || fail "hello's files: $(ls D/job_stdio)"
[ "$(cat D/jobs/wf1_j3/r0_a1/stderr)" = broke ] && [ -f D/jobs/wf1_j3/r0_a1/command.txt ] \
    && [ -f D/jobs/wf1_j3/r0_a1/result.json ] || fail "broken's directory: $(ls D/jobs/wf1_j3/r0_a1)"
grep -Eq '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z info runner: job exited job=1 name=hello rc=0 ' D/worker.log \
    || fail "worker.log: $(head -5 D/worker.log)"
recorded D 1 result | grep -Eq '"completion_time": "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\.[0-9]{3}Z"' \
    || fail "recorded result: $(recorded D 1 result)"

# --- --follow on a running job, through a server's URL (a later job keeps the run serving) -----
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >slow.json5 <<JSON
{name: "slow", jobs: [
  {name: "ticker", command: "for i in 1 2 3; do echo tick \$i; sleep 1; done; touch $tmp/ticked"},
  {name: "linger", command: "sleep 3", depends_on: ["ticker"]},
  {name: "oops", command: "echo first; echo bad news >&2; exit 7"},
]}
JSON
"$torcrun" run slow.json5 --output-dir S --port "$port" --progress-interval 60 >slow.out 2>slow.err &
run_pid=$!
url=http://127.0.0.1:$port/torc-service/v1
for _ in $(seq 1 100); do [ -s S/job_stdio/job_wf1_j1_r0_a1.o ] && break; sleep 0.1; done
[ -s S/job_stdio/job_wf1_j1_r0_a1.o ] || fail "the ticker did not start: $(cat slow.err)"
# No --worker-output-dir, and run from elsewhere: the worker's compute node record names its
# output directory, and logs finds the files there (the job still running: no result yet).
mkdir -p away
out=$(cd away && timeout 30 "$torcrun" logs 1 ticker --url "$url" --follow) \
    || fail "logs --follow: exit $?"
[ -e ticked ] || fail "--follow returned before the job ended"
[ "$out" = "$(printf 'tick 1\ntick 2\ntick 3')" ] || fail "logs --follow: '$out'"
# The failure of oops was printed while the run still ran (linger sleeps on).
kill -0 "$run_pid" 2>/dev/null || fail "the run ended before linger: $(cat slow.err)"
grep -A1 -E "^torcrun run: failed: oops \(job ([0-9]+)\), return code 7, logs $tmp/S/jobs/wf1_j\1/r0_a1$" slow.err \
    | tail -n1 | grep -qx '    | bad news' || fail "oops not printed while running: $(cat slow.err)"
rc=0
wait "$run_pid" || rc=$?
run_pid=
[ "$rc" = 1 ] || fail "slow run: exit $rc: $(cat slow.err)"
# The run over, its database served by a `torcrun server`: a finished attempt's file through its
# result's compute node, and the log directory `jobs` shows, without being told where.
cp S/torcrun.db S-copy.db
start_server "$tmp/S-copy.db"
[ "$(cd away && "$torcrun" logs 1 oops --url "$base" --stderr)" = "bad news" ] \
    || fail "logs of a finished attempt through the node's output_dir"
[ "$(cd away && "$torcrun" jobs 1 --url "$base" --json | python3 -c '
import json, sys
print([j["log_dir"] for j in json.load(sys.stdin) if j["name"] == "oops"][0])')" \
    = "$tmp/S/jobs/wf1_j2/r0_a1" ] || fail "jobs --url: the log directory through the node"

# --- §6: a job that busies a core for 3 s, sampled every second: its peak CPU is at least its
# average (the peak was 0.0 beside an average of 0.6 when only the last sample set the peak).
cat >busy.json5 <<'JSON'
{name: "busy",
 resource_monitor: {enabled: true, granularity: "summary", sample_interval_seconds: 1},
 jobs: [
  {name: "spin", command: "end=$((SECONDS + 3)); while [ $SECONDS -lt $end ]; do :; done"},
]}
JSON
"$torcrun" run busy.json5 --output-dir B -q >busy.out 2>busy.err || fail "busy run: $(cat busy.err)"
python3 - "$(recorded B 1 result)" "$(recorded B 1 usage)" <<'PY' || fail "busy result: $(recorded B 1 result)"
import json, sys
r = json.loads(sys.argv[1])
assert r["avg_cpu_percent"] > 10, r
usage = json.loads(sys.argv[2])["points"]
assert len(usage["seconds"]) >= 3, usage  # sampled every second, then the exit
assert r["peak_cpu_percent"] >= r["avg_cpu_percent"], r
assert r["peak_memory_bytes"] >= r["avg_memory_bytes"] > 0, r
PY
echo ok
