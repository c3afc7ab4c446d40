#!/usr/bin/env bash
# Done-when 2 of issue 5: in a 2-node x 4-GPU allocation, one slurm-mode worker runs a job of 2
# nodes x 4 GPUs (num_nodes 2, num_gpus 4) as one srun step between single-GPU jobs submitted
# before and after it: the single jobs and the big one never run at the same time, so never
# hold the same (node, GPU). Claims go in job id order (jobs_sort_method none), so single jobs
# run both before and after the big one. Issue 22: the step is Torc v0.25.1's `--nodes=2
# --ntasks=1`, so the big job's command runs once (Slurm shrinks the step to its first node,
# with that node's 4 GPUs; the command spreads itself over the nodes, t0512); a job that wants a
# task on each node says tasks_per_node (t0522).
set -euo pipefail
torcrun=$(readlink -f "$1")
source "$(dirname "$0")/slurm_lib.sh"
source "$(dirname "$0")/slurm_worker_lib.sh"
slurm_use_cluster
slurm_worker_setup

python3 - "$tmp/spec.json" "$tmp/record.sh" <<'PY'
import json, sys
path, record = sys.argv[1], sys.argv[2]
single = lambda name: {"name": name, "command": f"{record} 3", "resource_requirements": "gpu1"}
spec = {"name": "multi-node", "jobs_sort_method": "none",
        "resource_requirements": [
            {"name": "gpu1", "num_cpus": 1, "num_gpus": 1, "num_nodes": 1, "memory": "100m",
             "runtime": "PT1M"},
            {"name": "nodes2", "num_cpus": 2, "num_gpus": 4, "num_nodes": 2, "memory": "100m",
             "runtime": "PT1M"}],
        "jobs": [single(f"pre{i}") for i in range(6)]
                + [{"name": "big", "command": f"{record} 3", "resource_requirements": "nodes2"}]
                + [single(f"post{i}") for i in range(6)]}
json.dump(spec, open(path, "w"))
PY
submit_workflow "$tmp/spec.json"
slurm_batch_wait 90 -N2 --exclusive --gpus-per-node=4 --time=5 -o "$tmp/worker.log" --wrap \
    "exec $torcrun worker $wf --mode slurm --config $tmp/worker.json" ||
    fail "the allocation failed: $(cat "$tmp/worker.log")"
[ "$(job_status_counts)" = "completed 13" ] ||
    fail "statuses $(job_status_counts): $(tail -30 "$tmp/worker.log")"

# the command ran once, on the step's first node, with that node's 4 GPUs
big=$(cut -d' ' -f1,3 "$tmp/rec/big" | sort | tr '\n' ';')
[ "$big" = "n1 0,1,2,3;" ] || fail "the 2-node job's command ran as (node, GPUs): $big"
command=$(cat "$tmp"/out/jobs/wf"$wf"_j7/r*_a1/command.txt)
for flag in --nodes=2 --ntasks=1 --gpus-per-node=4 "'--nodelist=n[1-2]'"; do
    [[ " $command " == *" $flag "* ]] || fail "the 2-node job's srun lacks $flag: $command"
done
[[ " $command " != *" --ntasks-per-node="* ]] || fail "the 2-node job's srun: $command"
check_records "2-node job among single-GPU jobs" 13 -1 "n1 n2" 3
no_step_waited "$tmp/worker.log" "$tmp/out"
python3 - "$tmp/rec" <<'PY' || fail "the 2-node job overlapped single jobs: $(cat "$tmp"/rec/*)"
import os, sys
rec = sys.argv[1]
runs = {f: [tuple(map(float, l.split()[3:5])) for l in open(os.path.join(rec, f))] for f in os.listdir(rec)}
b0 = min(s for s, _ in runs["big"]); b1 = max(e for _, e in runs["big"])
before = sum(1 for f, r in runs.items() if f != "big" and r[0][1] <= b0)
after = sum(1 for f, r in runs.items() if f != "big" and r[0][0] >= b1)
print(f"2-node job ran {b1 - b0:.1f} s; single jobs before it: {before}, after it: {after}")
sys.exit(0 if before + after == 12 else 1)
PY
echo ok
