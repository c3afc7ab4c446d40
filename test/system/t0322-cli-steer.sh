#!/usr/bin/env bash
# Steering a workflow from another shell (issue 13 §4): `torcrun run --port P` serves on that
# port and writes its URL to D/url while it runs; `workflows`, `status`, `jobs` and `cancel` reach
# it through --output-dir D (or the URL); cancel stops the running job (its process is gone) and
# the run ends at once with the job canceled; once the run is over, the same commands read its
# database through --output-dir D. Against a `torcrun server`: cancel scancels the workflow's
# Slurm allocations that are pending or active and marks their records canceled (a scancel on
# PATH records its calls), says which it could not, and is 404 for an unknown workflow.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
run_pid=
cleanup() {
    if [ -n "$run_pid" ]; then kill -9 "$run_pid" 2>/dev/null || true; fi
    if [ -s "$tmp/sleeper.pid" ]; then kill -9 "$(cat "$tmp/sleeper.pid")" 2>/dev/null || true; fi
    kill_servers
    rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp"
unset TORC_API_URL

# --- a run on a chosen port, steered through its output directory ---------------------------
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >long.json5 <<JSON
{name: "long", jobs: [
  {name: "quick", command: "true"},
  {name: "sleeper", command: "echo \$\$ >$tmp/sleeper.pid; exec sleep 300"},
  {name: "after", command: "true", depends_on: ["sleeper"]},
]}
JSON
"$torcrun" run long.json5 --output-dir D --port "$port" --progress-interval 60 \
    >run.out 2>run.err &
run_pid=$!
url=http://127.0.0.1:$port/torc-service/v1
for _ in $(seq 1 100); do [ -s sleeper.pid ] && break; sleep 0.1; done
[ -s sleeper.pid ] || fail "the sleeper did not start: $(cat run.err)"
sleeper=$(cat sleeper.pid)
[ "$(cat D/url)" = "$url" ] || fail "D/url: '$(cat D/url)', expected $url"
grep -qx "torcrun run: workflow 1 (output in $tmp/D) served at $url" run.err \
    || fail "the start line does not end with the URL: $(cat run.err)"
for _ in $(seq 1 50); do
    "$torcrun" jobs 1 --output-dir D --status completed --json | grep -q quick && break
    sleep 0.1
done
out=$("$torcrun" workflows --output-dir D)
[ "$(head -n1 <<<"$out" | tr -s ' ')" = "ID NAME USER STATUS COMPLETED" ] || fail "workflows: $out"
grep -Eq '^1 +long +[^ ]+ +running +1/3$' <<<"$out" || fail "workflows while running: $out"
out=$("$torcrun" workflows --url "$url" --json)
[ "$(field "$out" '[(w["id"], w["status"]) for w in d]')" = '[[1, "running"]]' ] \
    || fail "workflows --json: $out"
out=$("$torcrun" cancel 1 --output-dir D) || fail "cancel: $out"
[ "$out" = "workflow 1 canceled: 1 pending or running job canceled; their workers stop them" ] \
    || fail "cancel output: $out"
# The worker sees the cancel within a poll, stops the job and the run ends.
for _ in $(seq 1 150); do kill -0 "$run_pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$run_pid" 2>/dev/null && fail "the run still runs 15 s after the cancel"
rc=0
wait "$run_pid" || rc=$?
run_pid=
[ "$rc" = 1 ] || fail "run exit $rc after the cancel: $(cat run.err)"
kill -0 "$sleeper" 2>/dev/null && fail "the canceled job's process $sleeper still runs"
# It ran: the server kept the result its worker reported after stopping it (SIGTERM: 143), so
# the summary has its return code and logs; the last progress line counts it as the summary does.
grep -qx "  sleeper (job 2): canceled, return code 143, logs $tmp/D/jobs/wf1_j2/r0_a1" run.out \
    || fail "summary: $(cat run.out)"
grep -qx '  after (job 3): blocked, never ran' run.out || fail "summary of after: $(cat run.out)"
tail -n1 run.err | grep -q '  failed 0  canceled 1  remaining 1  ' || fail "progress: $(cat run.err)"
[ ! -e D/url ] || fail "D/url outlived the run"

# --- the finished run, read from its database ---------------------------------------------------
"$torcrun" status 1 --output-dir D >status.out
user=$(field "$("$torcrun" status 1 --output-dir D --json)" 'd["user"]')
diff -u - status.out <<END || fail "status of the finished run"
workflow 1: long (user $user)
run id: 0
is complete: true
is canceled: true
jobs: 3
  blocked: 1
  completed: 1
  canceled: 1
END
out=$("$torcrun" jobs 1 --output-dir D --json)
[ "$(field "$out" '[(j["name"], j["status"]) for j in d]')" \
    = '[["quick", "completed"], ["sleeper", "canceled"], ["after", "blocked"]]' ] \
    || fail "jobs of the finished run: $out"
out=$("$torcrun" workflows --output-dir D)
grep -Eq '^1 +long +[^ ]+ +canceled +1/3$' <<<"$out" || fail "workflows of the finished run: $out"
expect_exit 1 "torcrun jobs: GET /workflows/7: HTTP 404: workflows: no workflow with id 7" \
    jobs 7 --output-dir D
expect_exit 2 "torcrun status: --output-dir $tmp/none: no torcrun run here ($tmp/none/torcrun.db does not exist)" \
    status 1 --output-dir "$tmp/none"
expect_exit 2 "torcrun cancel: --url and --output-dir: give one (the output directory names its own server)" \
    cancel 1 --output-dir D --url "$url"
# A URL file left by a run that was killed: the database is read instead.
echo "$url" >D/url
"$torcrun" status 1 --output-dir D | grep -qx 'is canceled: true' || fail "stale D/url"
rm D/url
expect_exit 2 'torcrun run: --port: "70000" is not a port (0 to 65535)' run long.json5 --port 70000

# --- cancel against a server: allocations scancel'ed, records marked --------------------------
mkdir bin
cat >bin/scancel <<'SH'
#!/bin/sh
echo "$@" >>"$SCANCEL_LOG"
[ "$1" = 4243 ] && { echo "scancel: error: Kill job error on job id 4243" >&2; exit 1; }
exit 0
SH
chmod +x bin/scancel
export SCANCEL_LOG=$tmp/scancel.log
start_server "$tmp/db"
wf=$("$torcrun" submit --url "$base" long.json5 2>/dev/null)
records=()
for entry in "4242 pending slurm" "4243 active slurm" "4244 complete slurm" \
    "4245 active local" "4246 active slurm"; do
    read -r slurm_id state kind <<<"$entry"
    expect POST /scheduled_compute_nodes "{\"workflow_id\": $wf, \"scheduler_id\": $slurm_id,
        \"scheduler_config_id\": 1, \"scheduler_type\": \"$kind\", \"status\": \"$state\"}" 200
    records+=("$(field "$body" 'd["id"]')")
done
rc=0
PATH=$tmp/bin:$PATH "$torcrun" cancel "$wf" --url "$base" >cancel.out 2>cancel.err || rc=$?
[ "$rc" = 1 ] || fail "cancel with a failing scancel: exit $rc"
diff -u - cancel.out <<END || fail "cancel's allocations"
workflow $wf canceled: 0 pending or running jobs canceled; their workers stop them
Slurm job 4242 scancel'ed (allocation record ${records[0]}: canceled)
Slurm job 4246 scancel'ed (allocation record ${records[4]}: canceled)
END
diff -u - cancel.err <<END || fail "cancel's errors"
torcrun cancel: scancel 4243: exited with 1: scancel: error: Kill job error on job id 4243
torcrun cancel: some allocations could not be scancel'ed (above)
END
[ "$(cat scancel.log)" = "$(printf '4242\n4243\n4246')" ] || fail "scancel calls: $(cat scancel.log)"
call GET "/scheduled_compute_nodes?workflow_id=$wf"
[ "$(field "$body" '[r["status"] for r in d["items"]]')" \
    = '["canceled", "active", "complete", "active", "canceled"]' ] || fail "records: $body"
out=$("$torcrun" status "$wf" --url "$base" --json)
[ "$(field "$out" '[d["is_canceled"], d["is_complete"]]')" = '[true, true]' ] || fail "status: $out"
expect_exit 1 "torcrun cancel: PUT /workflows/99/cancel: HTTP 404: cancel: no workflow with id 99" \
    cancel 99 --url "$base"
stop_server TERM
echo "t0322: ok"
