#!/usr/bin/env bash
# An on_jobs_ready schedule_nodes action whose sbatch fails: the worker claims it once, logs
# sbatch's own error at error level, makes no scheduled compute node record, does not try again,
# and runs the workflow to its end (sbatch here is a stand-in that refuses, as Slurm does for a
# bad account; no cluster is needed).
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
trap worker_test_cleanup EXIT

mkdir -p "$tmp/bin"
cat >"$tmp/bin/sbatch" <<EOF
#!/bin/bash
echo "\$@" >>"$tmp/sbatch.calls"
echo "sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified" >&2
exit 1
EOF
chmod +x "$tmp/bin/sbatch"

start_server "$tmp/db"
cat >"$tmp/spec.json" <<SPEC
{"name": "sbatch-failure",
 "jobs": [{"name": "a", "command": "sleep 1"},
          {"name": "b", "command": "sleep 3", "depends_on": ["a"]}],
 "slurm_schedulers": [{"name": "later", "account": "nope", "nodes": 1, "walltime": "00:10:00"}],
 "actions": [{"trigger_type": "on_jobs_ready", "action_type": "schedule_nodes", "jobs": ["b"],
              "scheduler": "later", "scheduler_type": "slurm", "num_allocations": 2}]}
SPEC
submit_spec "$tmp/spec.json"

rc=0
PATH="$tmp/bin:$PATH" timeout 60 "$torcrun" worker "$wf" $(worker_args) 2>"$tmp/worker.log" || rc=$?
[ "$rc" = 0 ] || fail "worker exit $rc: $(cat "$tmp/worker.log")"
[ "$(job_statuses)" = "a=completed b=completed" ] ||
    fail "statuses: $(job_statuses): $(cat "$tmp/worker.log")"
[ "$(cat "$tmp/sbatch.calls" 2>/dev/null | wc -l)" = 1 ] || fail "sbatch calls: $(cat "$tmp/sbatch.calls" 2>/dev/null); $(grep action "$tmp/worker.log")"
grep -q "torcrun_wf${wf}_later_action1_1.sh" "$tmp/sbatch.calls" || fail "sbatch of $(cat "$tmp/sbatch.calls")"
line=$(grep 'allocations failed' "$tmp/worker.log") || fail "no failure line: $(cat "$tmp/worker.log")"
[ "$(grep -c 'allocations failed' "$tmp/worker.log")" = 1 ] || fail "said more than once: $line"
[[ "$line" == *"err"*"action 1: allocations failed: allocation 1 of 2 (0 submitted): sbatch "*": exited with 1: sbatch: error: Batch job submission failed: Invalid account"* ]] ||
    fail "failure line: $line"
[ "$(grep -c 'action 1: scheduling 2 allocations' "$tmp/worker.log")" = 1 ] ||
    fail "claims: $(grep 'action 1' "$tmp/worker.log")"
records=$(curl -sf "$base/scheduled_compute_nodes?workflow_id=$wf")
[ "$(field "$records" 'd["total_count"]')" = 0 ] || fail "records: $records"
[ "$(field "$(curl -sf "$base/workflows/$wf/actions")" '[a["executed"] for a in d]')" = '[true]' ] ||
    fail "the action is not executed"
echo ok
