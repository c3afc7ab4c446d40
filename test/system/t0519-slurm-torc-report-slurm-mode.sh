#!/usr/bin/env bash
# The Torc report's workflow with execution_config {mode: slurm} and one job of 2 nodes x 4 GPUs
# among the 16 single-GPU jobs: `torcrun submit` alone makes one allocation whose one slurm-mode
# worker runs every job as its own srun step (the 2-node one as Torc's one task, its command run
# once); all 17 complete; no (node, GPU) is held by two steps at once (SLURM_STEP_GPUS); each job
# sees only its own step's variables; the allocation ends when the work is done and its record
# is complete.
set -euo pipefail
torcrun=$(readlink -f "$1")
source "$(dirname "$0")/slurm_lib.sh"
source "$(dirname "$0")/slurm_worker_lib.sh"
submitted_allocations_setup gpus

torc_report_spec "$tmp/spec.yaml" slurm 1
submit_allocations "$tmp/spec.yaml"
[ "$(job_status_counts)" = "completed 17" ] ||
    fail "statuses $(job_status_counts): $(tail -30 "$tmp"/out/slurm_output_wf"$wf"_sl"$job".e)"
# the 2-node job is Torc's one task (--ntasks=1): its command ran once, on its first node
check_records "Torc report, slurm mode" 17 -1 "n1 n2" 3
big=$(cut -d' ' -f1,3 "$tmp/rec/big" | sort | tr '\n' ';')
[ "$big" = "n1 0,1,2,3;" ] || fail "the 2-node job's command ran as (node, GPUs): $big"
# every job ran in a step of its own: one SLURM_STEP_ID per job, shared only by one job's tasks
python3 - "$tmp/rec-env" <<'PY' || fail "jobs shared a step"
import collections, os, sys
steps = collections.defaultdict(set)
for f in os.listdir(sys.argv[1]):
    env = dict(l.rstrip("\n").split("=", 1) for l in open(os.path.join(sys.argv[1], f)) if "=" in l)
    steps[env.get("SLURM_STEP_ID", "-")].add(f.rsplit(".", 1)[0])
bad = {s: j for s, j in steps.items() if s == "-" or len(j) != 1}
print(f"{len(steps)} steps for {sum(len(j) for j in steps.values())} jobs")
sys.exit(1 if bad else 0)
PY
[ "$(allocation_record_status)" = complete ] || fail "allocation record: $(allocation_record_status)"
echo ok
