#!/usr/bin/env bash
# Issue 13 §3: `torcrun rerun` and `torcrun run --resume`, each attempt in log files of its own
# (job_stdio/job_wf<W>_j<J>_r<R>_a<A>.o and .e; a failed attempt's directory besides). (1) A
# finished `torcrun run` with a job that fails until a marker file exists: a second `torcrun run`
# into its directory is refused (exit 2) and changes nothing; `rerun --failed --output-dir D` runs
# it and its dependent again as run 1 (r1_a1) with the run's progress and summary; the first
# attempt's logs stay; `jobs` and `logs --run/--attempt` show both. (2) `logs --follow` on a job no
# worker holds yet says so and waits for it to start; a directory whose run still serves is refused
# by rerun and --resume. (3) `torcrun run` killed -9 mid-job, then `run --resume`: the rest
# completes, each job's completion once; a spec that differs is refused naming the difference. (4)
# Against `torcrun server`: `rerun --failed --url`, refused while a compute node is active, then a
# new worker runs the job as run 1; --job NAME reruns one job and its dependents.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
run_pid=
cleanup() {
    [ -n "$run_pid" ] && kill -9 "$run_pid" 2>/dev/null || true
    stop_background
    kill_servers
    rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp"
unset TORC_API_URL

cat >wf.json5 <<JSON
{name: "again",
 jobs: [
  {name: "ok", command: "echo fine"},
  {name: "needs_marker", command: "if [ -e $tmp/marker ]; then echo ran; else echo no marker >&2; exit 4; fi"},
  {name: "after", command: "echo after", depends_on: ["needs_marker"]},
]}
JSON

# --- (1) rerun --failed of a finished torcrun run ------------------------------------------------
rc=0
"$torcrun" run wf.json5 --output-dir D -q >run1.out 2>run1.err || rc=$?
[ "$rc" = 1 ] || fail "first run: exit $rc: $(cat run1.err)"
first_err=D/job_stdio/job_wf1_j2_r0_a1.e
[ "$(cat "$first_err")" = "no marker" ] || fail "first stderr: $(cat "$first_err")"
first_sum=$(sha256sum D/jobs/wf1_j2/r0_a1/* D/job_stdio/job_wf1_j2_r0_a1.*)
touch marker
# A second run into D without --resume: refused, nothing started, nothing overwritten.
db_before=$(sha256sum D/torcrun.db)
expect_exit 2 "torcrun run: D already holds a workflow (D/torcrun.db); its logs stay as they are: pass --resume to run what did not complete, give another --output-dir, or remove D to start over" \
    run wf.json5 --output-dir D -q
[ "$(sha256sum D/torcrun.db)" = "$db_before" ] || fail "the refused run changed the database"
[ ! -e D/url ] || fail "the refused run started a server: D/url exists"
"$torcrun" rerun 1 --failed --output-dir D --progress-interval 60 >rerun.out 2>rerun.err \
    || fail "rerun: exit $?: $(cat rerun.err)"
grep -qx 'torcrun rerun: workflow 1 run 1: 2 jobs to run (needs_marker, after)' rerun.err \
    || fail "rerun said: $(cat rerun.err)"
grep -qx "torcrun rerun: output in $tmp/D, served at http://127.0.0.1:[0-9]*/torc-service/v1" \
    rerun.err || fail "rerun's serving line: $(cat rerun.err)"
head -n2 rerun.out | tail -n1 | grep -qx '  completed 3' || fail "rerun summary: $(cat rerun.out)"
grep -qx "database:   $tmp/D/torcrun.db" rerun.out || fail "rerun summary: $(cat rerun.out)"
[ "$(cat D/job_stdio/job_wf1_j2_r1_a1.o)" = "ran" ] || fail "rerun stdout: $(find D)"
[ "$(cat D/job_stdio/job_wf1_j3_r1_a1.o)" = "after" ] || fail "dependent not rerun: $(find D)"
[ ! -e D/job_stdio/job_wf1_j1_r1_a1.o ] || fail "the completed job ran again"
[ "$(sha256sum D/jobs/wf1_j2/r0_a1/* D/job_stdio/job_wf1_j2_r0_a1.*)" = "$first_sum" ] || fail "first attempt's files changed"
[ ! -e D/url ] || fail "D/url outlived the rerun"
out=$("$torcrun" jobs 1 --output-dir D --json)
[ "$(field "$out" '[[j["name"], j["status"], j["attempts"], j["log_dir"]] for j in d]')" \
    = "[[\"ok\", \"completed\", 1, \"D/job_stdio/job_wf1_j1_r0_a1.o\"], [\"needs_marker\", \"completed\", 2, \"D/job_stdio/job_wf1_j2_r1_a1.o\"], [\"after\", \"completed\", 1, \"D/job_stdio/job_wf1_j3_r1_a1.o\"]]" ] \
    || fail "jobs: $out"
[ "$("$torcrun" logs 1 needs_marker --output-dir D --run 0 --attempt 1 --stderr)" = "no marker" ] \
    || fail "logs of run 0"
[ "$("$torcrun" logs 1 needs_marker --output-dir D --attempt 1)" = "ran" ] || fail "logs of run 1"
expect_exit 1 'torcrun logs: "needs_marker" (job 2) has no attempt in run 5 (its runs: 0, 1)' \
    logs 1 needs_marker --output-dir D --run 5
# Bad input: exit 2, nothing reset.
expect_exit 2 'torcrun rerun: --job "nope": workflow 1 has no job of that name (its jobs: ok, needs_marker, after)' \
    rerun 1 --job nope --output-dir D -q
expect_exit 2 'torcrun rerun: --failed and --job: give one' rerun 1 --failed --job ok --output-dir D
expect_exit 2 'torcrun rerun: --output-dir nowhere: no torcrun run here (nowhere/torcrun.db does not exist)' \
    rerun 1 --output-dir nowhere
# Nothing failed now: --failed has nothing to run; run 2 completes at once.
"$torcrun" rerun 1 --failed --output-dir D -q >/dev/null 2>rerun2.err || fail "rerun 2: $(cat rerun2.err)"
grep -qx 'torcrun rerun: workflow 1 run 2: 0 jobs to run' rerun2.err || fail "rerun 2: $(cat rerun2.err)"

# --- (2) logs --follow waits for a job that has not started ---------------------------------------
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >gate.json5 <<JSON
{name: "gate", jobs: [
  {name: "gate", command: "while [ ! -e $tmp/open ]; do sleep 0.1; done"},
  {name: "later", command: "echo later ran; sleep 1", depends_on: ["gate"]},
  {name: "linger", command: "sleep 4", depends_on: ["gate"]},
]}
JSON
"$torcrun" run gate.json5 --output-dir G --port "$port" -q >gate.out 2>gate.err &
run_pid=$!
url=http://127.0.0.1:$port/torc-service/v1
for _ in $(seq 1 100); do [ -e G/job_stdio/job_wf1_j1_r0_a1.o ] && break; sleep 0.1; done
[ -e G/job_stdio/job_wf1_j1_r0_a1.o ] || fail "the gate did not start: $(cat gate.err)"
timeout 30 "$torcrun" logs 1 later --url "$url" --worker-output-dir G --follow >follow.out 2>follow.err &
follow_pid=$!
background_pids+=("$follow_pid")
for _ in $(seq 1 50); do [ -s follow.err ] && break; sleep 0.1; done
[ "$(cat follow.err)" = 'torcrun logs: "later" (job 2) has not started (status blocked); waiting for a worker to start it' ] \
    || fail "follow's waiting line: $(cat follow.err)"
kill -0 "$follow_pid" 2>/dev/null || fail "logs --follow ended before the job started"
# A run that still serves its directory owns it: neither rerun nor --resume touches it.
expect_exit 1 "torcrun rerun: --output-dir G: its torcrun run still serves it (G/url); wait for it to end" \
    rerun 1 --output-dir G -q
expect_exit 2 "torcrun run: --resume: a torcrun run is serving G now (G/url); wait for it to end" \
    run gate.json5 --output-dir G -q --resume
touch open
rc=0
wait "$follow_pid" || rc=$?
background_pids=()
[ "$rc" = 0 ] || fail "logs --follow: exit $rc: $(cat follow.err)"
[ "$(cat follow.out)" = "later ran" ] || fail "logs --follow printed: $(cat follow.out)"
wait "$run_pid" || fail "gate run: $(cat gate.err)"
run_pid=

# --- (3) torcrun run killed -9, then --resume ------------------------------------------------------
cat >slow.json5 <<JSON
{name: "resume",
 jobs: [
  {name: "first", command: "echo first"},
  {name: "slow", command: "if [ -e $tmp/quick ]; then echo quick; else echo started; sleep 60; fi", depends_on: ["first"]},
  {name: "last", command: "echo last", depends_on: ["slow"]},
]}
JSON
"$torcrun" run slow.json5 --output-dir R -q >slow1.out 2>slow1.err &
run_pid=$!
for _ in $(seq 1 100); do [ -s R/job_stdio/job_wf1_j2_r0_a1.o ] && break; sleep 0.1; done
[ "$(cat R/job_stdio/job_wf1_j2_r0_a1.o)" = "started" ] || fail "slow did not start: $(cat slow1.err)"
kill -9 "$run_pid"
wait "$run_pid" 2>/dev/null || true
run_pid=
touch quick
sed 's/echo last/echo LAST/' slow.json5 >changed.json5
expect_exit 2 'torcrun run: --resume: job "last": the spec runs "echo LAST", R/torcrun.db ran "echo last"' \
    run changed.json5 --output-dir R -q --resume
expect_exit 2 'torcrun run: --resume: fresh holds no workflow (fresh/torcrun.db does not exist)' \
    run slow.json5 --output-dir fresh -q --resume
"$torcrun" run slow.json5 --output-dir R -q --resume >slow2.out 2>slow2.err \
    || fail "resume: exit $?: $(cat slow2.err)"
grep -qx "torcrun run: resuming workflow 1 as run 1: 2 of its jobs to run (output in $tmp/R) served at http://127.0.0.1:[0-9]*/torc-service/v1" \
    slow2.err || fail "resume said: $(cat slow2.err)"
head -n2 slow2.out | tail -n1 | grep -qx '  completed 3' || fail "resume summary: $(cat slow2.out)"
# The killed run's compute node is deactivated on resume, which puts its running job back on a new
# attempt (as a lease sweep does), so "slow" runs as attempt 2 of run 1.
[ "$(cat R/job_stdio/job_wf1_j2_r1_a2.o)" = "quick" ] || fail "slow after resume: $(find R)"
[ "$(cat R/job_stdio/job_wf1_j2_r0_a1.o)" = "started" ] || fail "the killed attempt's log changed"
[ ! -e R/jobs/wf1_j2/r0_a1/result.json ] || fail "the killed attempt has a result"
# Each job completed once: one result each, first's from run 0, the others' from run 1.
out=$("$torcrun" jobs 1 --output-dir R --json)
[ "$(field "$out" '[[j["name"], j["status"], j["attempts"]] for j in d]')" \
    = '[["first", "completed", 1], ["slow", "completed", 1], ["last", "completed", 1]]' ] \
    || fail "jobs after resume: $out"
results=$(cat R/job_records/*.jsonl | python3 -c '
import json, sys
print(" ".join(sorted("j%d_r%d_a%d" % (r["job_id"], r["run_id"], r["attempt_id"])
                      for r in map(json.loads, sys.stdin) if r["kind"] == "result")))')
[ "$results" = "j1_r0_a1 j2_r1_a2 j3_r1_a1" ] || fail "recorded results: $results"
grep -c 'info runner: job exited job=1 ' R/worker.log | grep -qx 1 || fail "first ran twice: $(cat R/worker.log)"

# --- (4) against torcrun server -------------------------------------------------------------------
rm -f marker
start_server "$tmp/server.db"
wf=$("$torcrun" submit wf.json5 --url "$base" 2>/dev/null) || fail "submit"
rc=0
"$torcrun" worker --url "$base" --workflow "$wf" --output-dir W >w1.out 2>w1.err || rc=$?
[ "$(cat W/job_stdio/job_wf${wf}_j2_r0_a1.e)" = "no marker" ] || fail "server run: $(cat w1.err)"
touch marker
# A compute node still active (a worker of run 0): refused, nothing reset.
call POST /compute_nodes "$(compute_node_body straggler)"
node=$(field "$body" 'd["id"]')
expect_exit 1 "torcrun rerun: workflow $wf has active compute nodes ($node on straggler, pid 1): workers that joined run 0 cannot take part in run 1; stop them, or wait for them to exit, then rerun" \
    rerun "$wf" --failed --url "$base"
expect PUT "/compute_nodes/$node" "$(compute_node_body straggler false)" 200
"$torcrun" rerun "$wf" --failed --url "$base" >srv.out 2>srv.err || fail "rerun on server: $(cat srv.err)"
[ "$(cat srv.err)" = "torcrun rerun: workflow $wf run 1: 2 jobs to run (needs_marker, after)
torcrun rerun: start a worker to run them: torcrun worker --workflow $wf" ] \
    || fail "rerun on server said: $(cat srv.err)"
"$torcrun" worker --url "$base" --workflow "$wf" --output-dir W >w2.out 2>w2.err || fail "worker 2: $(cat w2.err)"
[ "$(cat W/job_stdio/job_wf${wf}_j2_r1_a1.o)" = "ran" ] || fail "server rerun: $(find W)"
[ "$(cat W/job_stdio/job_wf${wf}_j2_r0_a1.e)" = "no marker" ] || fail "run 0's stderr changed"
# --job: the one job and its dependent, as run 2.
"$torcrun" rerun "$wf" --job needs_marker --url "$base" >/dev/null 2>job.err || fail "--job: $(cat job.err)"
head -n1 job.err | grep -qx "torcrun rerun: workflow $wf run 2: 2 jobs to run (needs_marker, after)" \
    || fail "--job said: $(cat job.err)"
"$torcrun" worker --url "$base" --workflow "$wf" --output-dir W >w3.out 2>w3.err || fail "worker 3: $(cat w3.err)"
[ -e "W/job_stdio/job_wf${wf}_j3_r2_a1.o" ] && [ ! -e "W/job_stdio/job_wf${wf}_j1_r2_a1.o" ] \
    || fail "--job ran: $(ls W/job_stdio)"
expect_exit 1 "torcrun rerun: GET /workflows/99: HTTP 404: workflows: no workflow with id 99" \
    rerun 99 --url "$base"
echo "t0326: ok"
