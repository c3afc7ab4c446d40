#!/usr/bin/env bash
# Torc's example workflow_actions_simple_slurm.json5 on the real 2-node cluster, `torcrun submit`
# alone: submit sbatches the on_workflow_start allocation (setup_scheduler); the workers claim
# and carry out the two on_jobs_ready schedule_nodes actions (process_scheduler x2 with a worker
# per node, finalize_scheduler x1) when `process` and `finalize` become ready. Transformed only as
# the lab needs (account, walltimes, memory; each command records where it ran); jobs,
# dependencies, schedulers and actions as published. Checked: every job completes; each action
# is executed once (one claim in the workers' logs, 1 + 2 + 1 scripts, sbatch'ed allocations and
# records); every record ends complete, or canceled when its allocation was still queued with
# nothing left to run (never started); no allocation of the workflow is left in Slurm. The
# workers' scripts carry Torc's staggered start (default true): 2 allocations x 2 per-node
# workers give --startup-delay-seconds 4, the single finalize worker none.
set -euo pipefail
torcrun=$(readlink -f "$1")
source "$(dirname "$0")/slurm_lib.sh"
source "$(dirname "$0")/slurm_worker_lib.sh"
submitted_allocations_setup
# Quicker idle exits than the library's, so the allocations end soon after the work.
sed -i 's/"idle_timeout_seconds": 30/"idle_timeout_seconds": 5/' "$tmp/worker.json"

record="$tmp/record.sh 1"
cat >"$tmp/spec.json5" <<EOF
// Torc's examples/json/workflow_actions_simple_slurm.json5, shrunk to the lab
{
  name: "Simple Workflow with Actions",
  user: "demo",
  description: "Demonstrates scheduler actions for different workflow stages",
  jobs: [
    {name: "setup", command: "echo 'Setting up...' && $record", resource_requirements: "small"},
    {name: "process", command: "echo 'Processing data...' && $record", depends_on: ["setup"],
     resource_requirements: "medium"},
    {name: "finalize", command: "echo 'Finalizing...' && $record", depends_on: ["process"],
     resource_requirements: "small"},
  ],
  resource_requirements: [
    {name: "small", num_cpus: 2, num_gpus: 0, num_nodes: 1, memory: "100m", runtime: "PT1M"},
    {name: "medium", num_cpus: 8, num_gpus: 0, num_nodes: 1, memory: "200m", runtime: "PT2M"},
  ],
  slurm_schedulers: [
    {name: "setup_scheduler", account: "test", nodes: 1, walltime: "00:03:00"},
    {name: "process_scheduler", account: "test", nodes: 2, walltime: "00:03:00"},
    {name: "finalize_scheduler", account: "test", nodes: 1, walltime: "00:03:00"},
  ],
  actions: [
    {trigger_type: "on_workflow_start", action_type: "schedule_nodes",
     scheduler: "setup_scheduler", scheduler_type: "slurm", num_allocations: 1},
    {trigger_type: "on_jobs_ready", action_type: "schedule_nodes", jobs: ["process"],
     scheduler: "process_scheduler", scheduler_type: "slurm", num_allocations: 2,
     start_one_worker_per_node: true},
    {trigger_type: "on_jobs_ready", action_type: "schedule_nodes", jobs: ["finalize"],
     scheduler: "finalize_scheduler", scheduler_type: "slurm", num_allocations: 1},
  ],
}
EOF

wf=$("$torcrun" submit --skip-checks --url "$base" --config "$tmp/worker.json" \
    --output-dir "$tmp/out" "$tmp/spec.json5" 2>"$tmp/submit.err") ||
    fail "submit: $(cat "$tmp/submit.err")"
[[ "$wf" =~ ^[0-9]+$ ]] || fail "submit stdout is not an id: '$wf'"
submitted=("$tmp"/out/torcrun_wf"$wf"_*.sh)
[ "${#submitted[@]}" = 1 ] && [ -f "$tmp/out/torcrun_wf${wf}_setup_scheduler_a0_1.sh" ] ||
    fail "submit made ${submitted[*]}"

# The work ends and every allocation of the workflow leaves Slurm.
wait_workflow_allocations 240 "completed 3"

# Each action claimed and carried out once: the actions' records, the workers' logs, the
# scripts and the scheduled compute node records agree.
actions=$(curl -sf "$base/workflows/$wf/actions")
python3 - "$actions" <<'PY' || fail "actions: $actions"
import json, sys
acts = json.loads(sys.argv[1])
assert len(acts) == 3, acts
assert all(a["executed"] for a in acts), [(a["id"], a["executed"]) for a in acts]
PY
logs=("$tmp"/out/slurm_output_wf"$wf"_*.e)
for id in $(python3 -c 'import json, sys
print(" ".join(str(a["id"]) for a in json.loads(sys.argv[1]) if a["trigger_type"] == "on_jobs_ready"))' "$actions"); do
    n=$(cat "${logs[@]}" | grep -c "action $id: scheduling" || true)
    [ "$n" = 1 ] || fail "action $id scheduled $n times: $(grep -h "action $id" "${logs[@]}")"
done
scripts=$(cd "$tmp/out" && ls torcrun_wf"$wf"_*.sh | sed -E 's/_action[0-9]+_/_action_/' | sort | tr '\n' ' ')
[ "$scripts" = "torcrun_wf${wf}_finalize_scheduler_action_1.sh torcrun_wf${wf}_process_scheduler_action_1.sh torcrun_wf${wf}_process_scheduler_action_2.sh torcrun_wf${wf}_setup_scheduler_a0_1.sh " ] ||
    fail "scripts: $scripts"
grep -q -- 'srun --ntasks-per-node=1 --overlap' "$tmp"/out/torcrun_wf"$wf"_process_scheduler_action*_1.sh ||
    fail "process allocations without a worker per node"
for script in "$tmp"/out/torcrun_wf"$wf"_process_scheduler_action*.sh; do
    grep -q -- ' --startup-delay-seconds 4 &$' "$script" ||
        fail "staggered_start: $script has no 4 s startup delay: $(cat "$script")"
done
! grep -q -- '--startup-delay-seconds' "$tmp"/out/torcrun_wf"$wf"_finalize_scheduler_action*.sh ||
    fail "one finalize worker got a startup delay"

check_allocation_records 4
echo ok
