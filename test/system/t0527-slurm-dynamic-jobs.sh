#!/usr/bin/env bash
# Dynamic jobs through `torcrun submit` on the lab Slurm cluster: Torc's dynamic-jobs example
# (its scripts in test/data/torc-newest/examples/scripts, unchanged) in the shape of Torc's
# dynamic_orchestrator_slurm.yaml, sized for the lab (1-CPU jobs, one 1-node allocation that an
# on_workflow_start schedule_nodes action submits) and with the workflow's env giving the jobs
# torcrun's `torc` Python module and binary. The worker in the allocation runs the two seed
# orchestrators and every job they spawn: 26 jobs completed, 24 of them with origin "spawn", and
# both lineages converge at generation 4 (pras_i04 metric 0.007812, no pras_i05).
set -euo pipefail
torcrun=$(readlink -f "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "$0")/slurm_lib.sh"
source "$(dirname "$0")/slurm_worker_lib.sh"
submitted_allocations_setup
scripts=$root/test/data/torc-newest/examples/scripts

cat >"$tmp/spec.yaml" <<EOF2
name: dynamic_orchestrator_lab
description: Torc's dynamic spawn_jobs orchestrator on the lab cluster
dynamic_jobs:
  max_iterations: 10
env:
  PYTHONPATH: $root/python
  PATH: $(dirname "$torcrun"):/usr/local/bin:/usr/bin:/bin
  TORC_DEMO_WORK_SECS: "0"
slurm_schedulers:
  - name: lab
    account: test
    walltime: "00:05:00"
    nodes: 1
actions:
  - trigger_type: on_workflow_start
    action_type: schedule_nodes
    scheduler: lab
    scheduler_type: slurm
    num_allocations: 1
resource_requirements:
  - {name: orch_rr, num_cpus: 1, memory: 128m, runtime: PT5M}
  - {name: reeds_rr, num_cpus: 1, memory: 256m, runtime: PT5M}
  - {name: pras_rr, num_cpus: 1, memory: 256m, runtime: PT5M}
jobs:
  - name: orch_caseA_g00
    command: python3 $scripts/dynamic_orchestrator.py caseA
    resource_requirements: orch_rr
    priority: 5
  - name: orch_caseB_g00
    command: python3 $scripts/dynamic_orchestrator.py caseB
    resource_requirements: orch_rr
    priority: 5
EOF2

wf=$("$torcrun" submit --url "$base" --config "$tmp/worker.json" --output-dir "$tmp/out" \
    "$tmp/spec.yaml" 2>"$tmp/submit.err") || fail "submit: $(cat "$tmp/submit.err")"
[[ "$wf" =~ ^[0-9]+$ ]] || fail "submit stdout is not an id: '$wf'"
wait_workflow_allocations 180 "completed 26"

"$torcrun" jobs --url "$base" "$wf" --json >"$tmp/jobs.json"
python3 - "$tmp/jobs.json" <<'PY'
import json, sys
jobs = json.load(open(sys.argv[1]))
spawned = [j for j in jobs if j.get("origin") == "spawn"]
assert len(jobs) == 26 and len(spawned) == 24, [(j["name"], j.get("origin")) for j in jobs]
assert {j["name"] for j in jobs if "origin" not in j} == {"orch_caseA_g00", "orch_caseB_g00"}
PY
for case in caseA caseB; do
    metric=$(jq -r .metric "$tmp/out/dynamic_demo/$case/pras_i04.json")
    [ "$metric" = "0.007812" ] || fail "$case pras_i04 metric $metric"
    [ ! -e "$tmp/out/dynamic_demo/$case/pras_i05.json" ] || fail "$case ran past convergence"
done
echo ok
