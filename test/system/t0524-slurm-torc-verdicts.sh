#!/usr/bin/env bash
# Issue 22 on the real cluster, the Torc v0.25.1 way. (a) A slurm-mode worker in a 2-minute
# allocation: its steps get `--time=1`; at the step's time limit a job that traps SIGTERM and
# exits 0 is `completed` rc 0, one that dies of it `terminated` rc 152; a job of num_nodes 2 runs
# its command once (`--ntasks=1`). (b) `torcrun submit --max-parallel-jobs 1`: the allocation's
# worker holds one of two jobs at a time; an external `scancel` of the allocation ends the
# running one `terminated` with its own rc 143 (Slurm's "CANCELLED AT" line in its stderr), and
# the worker's guardian says nothing after the worker's exit (nor after (a)'s normal exit).
# (c) A worker killed (kill -9; its allocation then ends) cannot report: `torcrun workflows
# sync-status` finds the allocation gone in squeue and fails its running job with Torc's return
# code -128; `torcrun cancel -f json` names --json, and `cancel --json` prints Torc's object.
# (d) Torc's claim window (time to the end + 120 s), below. (a) and (d) wait for Slurm's step
# time limits, a minute and more each: they run side by side, each allocation taking a few CPUs
# of the nodes; (b) and (c), whose allocations take whole nodes, follow.
set -euo pipefail
torcrun=$(readlink -f "$1")
source "$(dirname "$0")/slurm_lib.sh"
source "$(dirname "$0")/slurm_worker_lib.sh"
submitted_allocations_setup

# results: "<job name> <status> <return code>" of every result of $wf, sorted.
results() {
    local names
    names=$(curl -sf "$base/jobs?workflow_id=$wf")
    curl -sf "$base/results?workflow_id=$wf" | python3 -c 'import json, sys
names = {j["id"]: j["name"] for j in json.loads(sys.argv[1])["items"]}
for r in sorted(json.load(sys.stdin)["items"], key=lambda r: names[r["job_id"]]):
    print(names[r["job_id"]], r["status"], r["return_code"])' "$names"
}
# wait_running N: until N jobs of $wf are running.
wait_running() {
    local deadline=$((SECONDS + 120))
    until [ "$(job_status_counts)" = "$1" ]; do
        [ $SECONDS -lt $deadline ] ||
            slurm_fail "jobs $(job_status_counts) after 120 s: $(tail -n 20 "$tmp"/out/slurm_output_wf"$wf"_*.e)"
        sleep 0.5
    done
}

# (d) Torc's claim window: the time to the allocation's end plus 120 s. In a 2-minute
# allocation a job of runtime PT3M is claimed (it was not while claims stopped at the drain), and
# its step's `--time=1` ends it before the allocation's end: terminated 152. A job of PT10M is
# never claimed, and the worker names it when it would go idle (idle timeout 5 s here): exit 3.
# Run in the background (its own workflow, results and log), beside (a).
claim_window() {
    python3 - "$tmp/d.json" <<'PY'
import json, sys
json.dump({"name": "window", "jobs_sort_method": "none",
           "resource_requirements": [
               {"name": "three", "num_cpus": 1, "num_gpus": 0, "num_nodes": 1, "memory": "100m",
                "runtime": "PT3M"},
               {"name": "ten", "num_cpus": 1, "num_gpus": 0, "num_nodes": 1, "memory": "100m",
                "runtime": "PT10M"}],
           "jobs": [{"name": "long", "command": "sleep 600", "resource_requirements": "three"},
                    {"name": "too_long", "command": "sleep 600", "resource_requirements": "ten"}]},
          open(sys.argv[1], "w"))
PY
    local wf rc=0 got named
    wf=$("$torcrun" submit --url "$base" "$tmp/d.json" 2>"$tmp/d-submit.err") ||
        fail "(d) submit: $(cat "$tmp/d-submit.err")"
    slurm_batch_wait 240 -N1 -c 2 --time=2 -o "$tmp/d.log" --wrap \
        "exec $torcrun worker $wf --mode slurm --config $tmp/worker.json \
         --set limits.idle_timeout_seconds=5" || rc=$?
    [ "$rc" = 3 ] || fail "(d): the worker's exit $rc, not 3 (never fits): $(tail -30 "$tmp/d.log")"
    got=$(results | tr '\n' ';')
    [ "$got" = "long terminated 152;" ] || fail "(d): results $got: $(tail -30 "$tmp/d.log")"
    grep -q -- "--time=1 " "$tmp"/out/jobs/wf"$wf"_j*/r*_a1/command.txt ||
        fail "(d): $(cat "$tmp"/out/jobs/wf"$wf"_j*/r*_a1/command.txt)"
    named=$(grep -o 'never fits: job [0-9]* "too_long" needs a runtime of PT10M; this allocation has [0-9]* s left (and a 120 s grace)' "$tmp/d.log") ||
        fail "(d): too_long not named: $(tail -30 "$tmp/d.log")"
    [ "$(job_status_counts)" = "ready 1 terminated 1" ] || fail "(d): jobs $(job_status_counts)"
    echo "(d) claim window: $got $named"
}
# wait_allocation_gone ALLOCATION: until Slurm no longer lists it.
wait_allocation_gone() {
    local deadline=$((SECONDS + 60))
    while squeue -h -j "$1" 2>/dev/null | grep -q .; do
        [ $SECONDS -lt $deadline ] || slurm_fail "allocation $1 still in Slurm after 60 s"
        sleep 0.2
    done
}

# (a) time-limit verdicts and the 2-node job
cat >"$tmp/graceful.sh" <<'EOF'
#!/bin/bash
trap 'echo "caught TERM"; exit 0' TERM
while :; do sleep 1 & wait $!; done
EOF
cat >"$tmp/once.sh" <<'EOF'
#!/bin/bash
echo "$SLURMD_NODENAME $SLURM_STEP_ID" >>"$(dirname "$0")/once.log"
EOF
chmod +x "$tmp/graceful.sh" "$tmp/once.sh"
python3 - "$tmp/a.json" "$tmp" <<'PY'
import json, sys
t = sys.argv[2]
json.dump({"name": "verdicts", "jobs_sort_method": "none",
           "resource_requirements": [
               {"name": "one", "num_cpus": 1, "num_gpus": 0, "num_nodes": 1, "memory": "100m",
                "runtime": "PT1M"},
               {"name": "two", "num_cpus": 1, "num_gpus": 0, "num_nodes": 2, "memory": "100m",
                "runtime": "PT1M"}],
           "jobs": [{"name": "once", "command": f"{t}/once.sh", "resource_requirements": "two"},
                    {"name": "graceful", "command": f"{t}/graceful.sh",
                     "resource_requirements": "one"},
                    {"name": "stubborn", "command": "sleep 600", "resource_requirements": "one"}]},
          open(sys.argv[1], "w"))
PY
submit_workflow "$tmp/a.json"
claim_window >"$tmp/d.out" 2>&1 &  # (d) beside (a), once (a) has its jobs 1 to 3
window_pid=$!
slurm_batch_wait 200 -N2 -c 2 --time=2 -o "$tmp/a.log" --wrap \
    "exec $torcrun worker $wf --mode slurm --config $tmp/worker.json" ||
    fail "(a): the allocation failed: $(tail -30 "$tmp/a.log")"
got=$(results | tr '\n' ';')
[ "$got" = "graceful completed 0;once completed 0;stubborn terminated 152;" ] ||
    fail "(a): results $got: $(tail -30 "$tmp/a.log")"
# (the server's first workflow: its jobs are 1 once, 2 graceful, 3 stubborn)
grep -q "DUE TO TIME LIMIT" "$tmp"/out/jobs/wf"$wf"_j2/r*_a1/stderr ||
    fail "(a): the graceful job was not ended by its time limit: $(cat "$tmp"/out/jobs/wf"$wf"_j2/r*_a1/*)"
grep -q "caught TERM" "$tmp"/out/jobs/wf"$wf"_j2/r*_a1/stdout || fail "(a): no TERM caught"
[ "$(wc -l <"$tmp/once.log")" = 1 ] || fail "(a): the 2-node job's command ran: $(cat "$tmp/once.log")"
grep -q -- "--nodes=2 --ntasks=1 " "$tmp"/out/jobs/wf"$wf"_j1/r*_a1/command.txt ||
    fail "(a): $(cat "$tmp"/out/jobs/wf"$wf"_j1/r*_a1/command.txt)"
! grep guardian "$tmp/a.log" || fail "(a): the guardian spoke after the worker's normal exit"
echo "(a) $got 2-node command ran once: $(cat "$tmp/once.log")"
wait "$window_pid" || fail "$(cat "$tmp/d.out")"
cat "$tmp/d.out"

# (b) submit --max-parallel-jobs 1, then an external scancel
cat >"$tmp/b.json5" <<EOF
{
  name: 'scancel-me', jobs_sort_method: 'none',
  resource_requirements: [
    {name: 'one', num_cpus: 1, num_gpus: 0, num_nodes: 1, memory: '100m', runtime: 'PT2M'},
  ],
  execution_config: {mode: 'slurm'},
  slurm_schedulers: [{name: 'one_node', account: 'test', nodes: 1, walltime: '00:05:00'}],
  actions: [
    {trigger_type: 'on_workflow_start', action_type: 'schedule_nodes', scheduler: 'one_node',
     scheduler_type: 'slurm', num_allocations: 1},
  ],
  jobs: [
    {name: 'long1', command: 'sleep 240', resource_requirements: 'one'},
    {name: 'long2', command: 'sleep 240', resource_requirements: 'one'},
  ],
}
EOF
wf=$("$torcrun" submit --skip-checks --max-parallel-jobs 1 --url "$base" \
    --config "$tmp/worker.json" --output-dir "$tmp/out" "$tmp/b.json5" 2>"$tmp/submit.err") ||
    fail "(b) submit: $(cat "$tmp/submit.err")"
grep -q -- "--max-parallel-jobs 1" "$tmp"/out/*wf"$wf"*.sh ||
    fail "(b): the script lacks --max-parallel-jobs 1: $(cat "$tmp"/out/*wf"$wf"*.sh)"
wait_running "ready 1 running 1"
sleep 3
[ "$(job_status_counts)" = "ready 1 running 1" ] || fail "(b): jobs $(job_status_counts)"
allocation=$(workflow_allocations | awk '{print $1}')
[ -n "$allocation" ] || fail "(b): no allocation in Slurm"
scancel "$allocation"
wait_allocation_gone "$allocation"
got=$(results | tr '\n' ';')
[ "$got" = "long1 terminated 143;" ] || fail "(b): results $got: $(cat "$tmp"/out/slurm_output_wf"$wf"_*.e)"
! grep -h guardian "$tmp"/out/slurm_output_wf"$wf"_* "$tmp"/out/*.log 2>/dev/null ||
    fail "(b): the guardian spoke after the worker's exit"
echo "(b) max parallel 1, external scancel: $got"

# (c) a worker killed with its allocation; sync-status fails its job
python3 - "$tmp/b.json5" "$tmp/c.json5" <<'PY'
import sys
open(sys.argv[2], "w").write(open(sys.argv[1]).read().replace("scancel-me", "orphaned")
                             .replace("    {name: 'long2', command: 'sleep 240', resource_requirements: 'one'},\n", ""))
PY
wf=$("$torcrun" submit --skip-checks --url "$base" --config "$tmp/worker.json" \
    --output-dir "$tmp/out" "$tmp/c.json5" 2>"$tmp/submit.err") || fail "(c) submit: $(cat "$tmp/submit.err")"
wait_running "running 1"
allocation=$(workflow_allocations | awk '{print $1}')
worker=$(pgrep -f -- "worker $wf --mode slurm --config $tmp/worker.json" | head -1)
[ -n "$worker" ] || fail "(c): no worker process of workflow $wf"
kill -9 "$worker"
wait_allocation_gone "$allocation"
[ "$(job_status_counts)" = "running 1" ] || fail "(c): jobs $(job_status_counts) after the kill"
"$torcrun" workflows sync-status "$wf" --url "$base" --json >"$tmp/sync.json" 2>"$tmp/sync.err" ||
    fail "(c) sync-status: $(cat "$tmp/sync.json" "$tmp/sync.err")"
python3 - "$tmp/sync.json" "$allocation" <<'PY' || fail "(c) sync-status printed: $(cat "$tmp/sync.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["slurm_jobs_failed"] == 1 and d["pending_allocations_cleaned"] == 0, d
assert d["failed_job_details"][0]["job_name"] == "long1", d
assert d["failed_job_details"][0]["slurm_job_id"] == sys.argv[2], d
PY
got=$(results | tr '\n' ';')
[ "$got" = "long1 failed -128;" ] || fail "(c): results $got"
[ "$(allocation_record_status)" = complete ] || fail "(c): record $(allocation_record_status)"
hint=$("$torcrun" cancel "$wf" --url "$base" -f json 2>&1 >/dev/null) && fail "(c): cancel -f json ran"
[[ "$hint" == *"(torcrun's equivalent of Torc's -f: --json)"* ]] || fail "(c): cancel -f json: $hint"
"$torcrun" cancel "$wf" --url "$base" --json >"$tmp/cancel.json" || fail "(c) cancel: $(cat "$tmp/cancel.json")"
python3 - "$tmp/cancel.json" "$wf" <<'PY' || fail "(c) cancel printed: $(cat "$tmp/cancel.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d == {"status": "success", "workflow_id": int(sys.argv[2]), "canceled_slurm_jobs": [],
             "errors": None}, d
PY
echo "(c) sync-status: $got"

echo ok
