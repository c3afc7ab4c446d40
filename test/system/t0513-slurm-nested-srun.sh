#!/usr/bin/env bash
# Done-when 4 of issue 5: a job that runs `srun --overlap -n1 hostname` itself works in direct
# mode inside an allocation, under per-node workers (whose step variables the scrub removes, so
# the inner srun is a fresh step of the allocation on the worker's own node) and under one
# worker in the batch shell.
set -euo pipefail
torcrun=$(readlink -f "$1")
source "$(dirname "$0")/slurm_lib.sh"
source "$(dirname "$0")/slurm_worker_lib.sh"
slurm_use_cluster
slurm_worker_setup

inner='srun --overlap -n1 -N1 -w "$SLURMD_NODENAME" bash -c "echo inner \$SLURMD_NODENAME step \$SLURM_STEP_ID"'
python3 - "$tmp/spec.json" "$inner" <<'PY'
import json, sys
json.dump({"name": "nested",
           "resource_requirements": [{"name": "half", "num_cpus": 4, "num_gpus": 0, "num_nodes": 1,
                                      "memory": "100m", "runtime": "PT1M"}],
           "jobs": [{"name": f"n{i}", "command": f"timeout 30 {sys.argv[2]} && sleep 2",
                     "resource_requirements": "half"} for i in range(4)]}, open(sys.argv[1], "w"))
PY
# per-node workers: two jobs on each node
submit_workflow "$tmp/spec.json"
slurm_batch_wait 90 -N2 --exclusive --time=5 -o "$tmp/pernode.log" --wrap \
    "srun --ntasks-per-node=1 --overlap --mpi=none --kill-on-bad-exit=0 --wait=0 \
     $torcrun worker $wf --mode direct --config $tmp/worker.json" ||
    fail "per-node: the allocation failed: $(tail -30 "$tmp/pernode.log")"
[ "$(job_status_counts)" = "completed 4" ] ||
    fail "per-node: statuses $(job_status_counts): $(tail -30 "$tmp/pernode.log")"
got=$(cat "$tmp"/out/jobs/wf"$wf"_j*/r*_a1/stdout | cut -d' ' -f1,2 | sort | tr '\n' ';')
[ "$got" = "inner n1;inner n1;inner n2;inner n2;" ] || fail "per-node: inner steps printed: $got"
echo "per-node workers: $(cat "$tmp"/out/jobs/wf"$wf"_j*/r*_a1/stdout | sort | tr '\n' ';')"

# one worker as the batch shell
submit_workflow "$tmp/spec.json"
slurm_batch_wait 90 -N1 --exclusive --time=5 -o "$tmp/one.log" --wrap \
    "exec $torcrun worker $wf --mode direct --config $tmp/worker.json" ||
    fail "one worker: the allocation failed: $(tail -30 "$tmp/one.log")"
[ "$(job_status_counts)" = "completed 4" ] ||
    fail "one worker: statuses $(job_status_counts): $(tail -30 "$tmp/one.log")"
got=$(cat "$tmp"/out/jobs/wf"$wf"_j*/r*_a1/stdout | cut -d' ' -f1 | sort -u)
[ "$got" = inner ] || fail "one worker: inner steps printed: $got"
no_step_waited "$tmp/out"
echo ok
