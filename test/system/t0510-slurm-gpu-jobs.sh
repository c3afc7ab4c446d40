#!/usr/bin/env bash
# Done-when 1 of issue 5, in real 2-node x 4-GPU allocations: 16 single-GPU jobs of 3 s, each
# recording its node, GPU ids and times. (a) one direct-mode worker: no crash, at most 4 at a
# time on distinct GPUs of its own node, and the idle-node warning; (b) per-node workers from
# `torcrun slurm-script --per-node-workers`: 8 at a time on both nodes, each (node, GPU) held by
# one job at a time; (c) one slurm-mode worker: 8 at a time on both nodes through srun steps,
# and no step ever waits for resources.
set -euo pipefail
torcrun=$(readlink -f "$1")
source "$(dirname "$0")/slurm_lib.sh"
source "$(dirname "$0")/slurm_worker_lib.sh"
slurm_use_cluster
slurm_worker_setup
[ "$TORCRUN_SLURM_NODES" = 2 ] && [ "$TORCRUN_SLURM_GPUS" = 4 ] ||
    fail "this test needs the default 2 nodes x 4 GPUs"
alloc=(-N2 --exclusive --gpus-per-node=4 --time=5)

# run_case NAME PREFIX MODE: one worker as the batch shell; its log is $tmp/NAME.log.
run_case() {
    gpu_workflow "$tmp/$1.json" 16 3 "$2"
    submit_workflow "$tmp/$1.json"
    slurm_batch_wait 90 "${alloc[@]}" -o "$tmp/$1.log" --wrap \
        "exec $torcrun worker $wf --mode $3 --config $tmp/worker.json" ||
        fail "$1: the allocation failed: $(cat "$tmp/$1.log")"
    [ "$(job_status_counts)" = "completed 16" ] ||
        fail "$1: statuses $(job_status_counts): $(tail -30 "$tmp/$1.log")"
}

# (a) direct mode, one worker: only the batch host's 4 GPUs, and the warning says so
run_case direct a direct
grep -q 'only n1 is used; n2 stays idle: start one worker per node' "$tmp/direct.log" ||
    fail "direct: no idle-node warning: $(head -20 "$tmp/direct.log")"
rec_prefix=a check_records "direct, one worker" 16 4 n1

# (b) per-node workers, the script of torcrun slurm-script
gpu_workflow "$tmp/pernode.json" 16 3 b
submit_workflow "$tmp/pernode.json"
"$torcrun" slurm-script "$wf" --time 5 --nodes 2 --gpus-per-node 4 --per-node-workers \
    --config "$tmp/worker.json" --output-dir "$tmp/out" --script "$tmp/per-node.sh" >/dev/null
grep -qx '#SBATCH --exclusive' "$tmp/per-node.sh" || fail "the script is not --exclusive"
slurm_batch_wait 90 -o "$tmp/pernode.log" -e "$tmp/pernode.log" "$tmp/per-node.sh" ||
    fail "per-node: the allocation failed: $(cat "$tmp/pernode.log")"
[ "$(job_status_counts)" = "completed 16" ] ||
    fail "per-node: statuses $(job_status_counts): $(tail -30 "$tmp/pernode.log")"
rec_prefix=b check_records "direct, per-node workers" 16 8 "n1 n2"

# (c) slurm mode, one worker: srun steps on both nodes, the GPUs Slurm gave each step
run_case slurm c slurm
rec_prefix=c check_records "slurm mode, one worker" 16 8 "n1 n2" 3
no_step_waited "$tmp/slurm.log" "$tmp/out"
grep -q 'waited for resources' "$tmp/slurm.log" && fail "slurm: the worker logged a step that waited"
grep -q -- '--exact' "$tmp"/out/jobs/wf"$wf"_j*/r*_a1/command.txt || fail "slurm: no srun step"
echo ok
