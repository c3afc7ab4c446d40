#!/usr/bin/env bash
# A workflow's execution_config, env and stdio, run by `torcrun worker` against a real server with
# real child processes:
# - env at both levels: the job's env wins over the workflow's, literal values; environment.txt
#   lists each value under its source (# environment.set, # workflow env, # job env, # torcrun);
# - stdio: the workflow's combined (one `output` file), a job's none (no stream file) and a job's
#   separate + delete_on_success (its stdout and stderr deleted after the completion);
# - the deadline: termination_signal SIGINT with sigterm_lead_seconds 2 and
#   sigkill_headroom_seconds 3 against an end time a minute away: a job that exits on SIGINT keeps
#   its own code, one that ignores it is SIGKILLed and gets timeout_exit_code 99;
# - `torcrun config worker --workflow ID --sources` names each value's source, the command line
#   winning over the workflow;
# - a workflow created by another client with a key that does not apply to direct mode stops the
#   worker at start with exit 2 and the key named.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
trap worker_test_cleanup EXIT

start_server "$tmp/db"
cat >"$tmp/spec.json5" <<'SPEC'
{
  name: "execconfig",
  env: {WF_ONLY: "wf", SHARED: "from-workflow", LITERAL: "$HOME"},
  execution_config: {
    mode: "direct",
    termination_signal: "SIGINT",
    sigterm_lead_seconds: 2,
    sigkill_headroom_seconds: 3,
    timeout_exit_code: 99,
    stdio: {mode: "combined"},
  },
  resource_requirements: [{name: "small", num_cpus: 1, memory: "10m", runtime: "PT1S"}],
  jobs: [
    {name: "envjob", resource_requirements: "small", env: {SHARED: "from-job", JOB_ONLY: "j"},
     command: "echo WF_ONLY=$WF_ONLY SHARED=$SHARED JOB_ONLY=$JOB_ONLY LITERAL=$LITERAL SITE=$SITE; echo to-err >&2"},
    {name: "quiet", resource_requirements: "small", stdio: {mode: "none"},
     command: "echo quiet-out; echo quiet-err >&2"},
    {name: "deleted", resource_requirements: "small",
     stdio: {mode: "separate", delete_on_success: true}, command: "echo gone; echo gone >&2"},
    {name: "interrupted", resource_requirements: "small",
     command: "trap 'echo got-int; kill %1; exit 7' INT; sleep 100 & wait"},
    {name: "stubborn", resource_requirements: "small", command: "trap '' INT; sleep 100"},
  ],
}
SPEC
submit_spec "$tmp/spec.json5"

# The command line wins over the workflow (--grace), the workflow over the defaults.
"$torcrun" config worker --url "$base" --workflow "$wf" --grace 2 --sources >"$tmp/sources" ||
    fail "config --sources: $(cat "$tmp/sources")"
source_of() { awk -v k="$1" '$1 == k { $1 = ""; $2 = ""; sub(/^ +/, ""); print }' "$tmp/sources"; }
value_of() { awk -v k="$1" '$1 == k { print $2 }' "$tmp/sources"; }
[ "$(source_of termination.signal)" = "workflow $wf execution_config" ] || fail "signal: $(cat "$tmp/sources")"
[ "$(value_of termination.signal)" = '"SIGINT"' ] || fail "signal value: $(cat "$tmp/sources")"
[ "$(source_of termination.grace_seconds)" = "flag --grace" ] || fail "grace: $(cat "$tmp/sources")"
[ "$(value_of termination.drain_buffer_seconds)" = "5" ] || fail "drain buffer: $(cat "$tmp/sources")"
[ "$(source_of termination.timeout_exit_code)" = "workflow $wf execution_config" ] ||
    fail "timeout code: $(cat "$tmp/sources")"
[ "$(source_of poll.interval_seconds)" = "default" ] || fail "poll: $(cat "$tmp/sources")"
grep -q '^stdio of job deleted .*"delete_on_success":true' "$tmp/sources" ||
    fail "job stdio: $(cat "$tmp/sources")"
"$torcrun" config worker --url "$base" --workflow "$wf" |
    python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["termination"]["signal"] == "SIGINT", d; assert d["stdio"]["mode"] == "combined", d' ||
    fail "config JSON does not carry the workflow's values"

# Claims carry the time left in whole minutes, so the end is a minute and a bit away: the drain
# starts 7 s before it (the 5 s drain buffer, raised to the 2 s grace plus 5 s for the reports).
end=$(($(date +%s) + 72))
rc=0
timeout 120 "$torcrun" worker "$wf" $(worker_args) --set termination.end_time="$end" \
    --set environment.set=SITE=site 2>"$tmp/worker.log" || rc=$?
[ "$rc" = 0 ] || fail "worker exit $rc: $(cat "$tmp/worker.log")"
[ "$(job_statuses)" = "deleted=completed envjob=completed interrupted=terminated quiet=completed stubborn=terminated" ] ||
    fail "statuses: $(job_statuses) $(tail -20 "$tmp/worker.log")"

results=$("$torcrun" jobs --url "$base" "$wf" --json)
rc_of() {
    call GET "/results?workflow_id=$wf"
    local id
    id=$(field "$results" "[j['id'] for j in d if j['name'] == '$1'][0]")
    field "$body" "[r['return_code'] for r in d['items'] if r['job_id'] == $id][0]"
}
[ "$(rc_of interrupted)" = 7 ] || fail "interrupted rc $(rc_of interrupted): $(cat "$tmp/worker.log")"
[ "$(rc_of stubborn)" = 99 ] || fail "stubborn rc $(rc_of stubborn): $(cat "$tmp/worker.log")"
grep -q "job .*: still running after the grace; SIGKILL" "$tmp/worker.log" ||
    fail "no SIGKILL after the grace: $(cat "$tmp/worker.log")"

dir=$(attempt_dir envjob 1)
[ ! -e "$dir/stdout" ] && [ ! -e "$dir/stderr" ] || fail "combined mode wrote stdout/stderr: $(ls "$dir")"
grep -qx 'WF_ONLY=wf SHARED=from-job JOB_ONLY=j LITERAL=$HOME SITE=site' "$dir/output" ||
    fail "envjob output: $(cat "$dir/output")"
grep -qx 'to-err' "$dir/output" || fail "stderr not in output: $(cat "$dir/output")"
python3 - "$dir/environment.txt" <<'PY' || fail "environment.txt: $(cat "$dir/environment.txt")"
import sys
groups, current = {}, None
for line in open(sys.argv[1]).read().splitlines():
    if line.startswith("# "):
        current = line[2:]
    elif line.startswith("+ "):
        name = line[2:].split("=", 1)[0]
        groups[name] = current
expect = {"SITE": "environment.set", "WF_ONLY": "workflow env", "LITERAL": "workflow env",
          "SHARED": "job env", "JOB_ONLY": "job env", "TORC_JOB_ID": "torcrun"}
for name, source in expect.items():
    assert groups.get(name) == source, (name, groups.get(name))
PY

dir=$(attempt_dir quiet 1)
[ -z "$(ls "$dir" | grep -v -e command.txt -e environment.txt -e result.json)" ] ||
    fail "stdio none left files: $(ls "$dir")"
dir=$(attempt_dir deleted 1)
for _ in $(seq 50); do [ -e "$dir/stdout" ] || break; sleep 0.1; done
[ ! -e "$dir/stdout" ] && [ ! -e "$dir/stderr" ] || fail "delete_on_success kept: $(ls "$dir")"
[ -f "$dir/result.json" ] || fail "delete_on_success removed result.json: $(ls "$dir")"
dir=$(attempt_dir interrupted 1)
grep -qx got-int "$dir/output" || fail "interrupted output: $(cat "$dir/output")"

# Another client's workflow with a slurm-only key: the worker refuses it in direct mode.
expect POST /workflows '{"name": "foreign", "user": "t", "execution_config": "{\"srun_termination_signal\": \"TERM@60\"}"}' 200
other=$(field "$body" 'd["id"]')
rc=0
timeout 30 "$torcrun" worker "$other" $(worker_args) 2>"$tmp/refused.log" || rc=$?
[ "$rc" = 2 ] || fail "foreign workflow: exit $rc: $(cat "$tmp/refused.log")"
grep -q "workflow $other execution_config.srun_termination_signal: applies to slurm mode only" \
    "$tmp/refused.log" || fail "foreign workflow message: $(cat "$tmp/refused.log")"
echo ok
