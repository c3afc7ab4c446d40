#!/usr/bin/env bash
# Where `scancel --signal=USR1` lands in a batch job that runs a step: without --batch only the
# step's processes get it; with --batch only the batch script does, and its trap runs (the
# warning a torcrun worker started by sbatch waits for). The script then ends the job cleanly.
set -euo pipefail
source "$(dirname "$0")/slurm_lib.sh"
slurm_use_cluster

cat >"$tmp/batch.sh" <<'BATCH'
#!/bin/bash
out=$1
trap 'echo batch >>"$out/batch-got"; kill "$step"; wait; exit 0' USR1
srun --overlap -n1 bash -c 'trap "echo step >>$0/step-got" USR1
    echo ready >"$0/step-ready"
    for _ in $(seq 600); do sleep 0.1 & wait $!; done' "$out" &
step=$!
echo ready >"$out/batch-ready"
for _ in $(seq 600); do sleep 0.1 & wait $!; done
exit 3
BATCH

job=$(slurm_submit -N1 -o "$tmp/job.out" "$tmp/batch.sh" "$tmp")
slurm_wait_file "$tmp/batch-ready" 30
slurm_wait_file "$tmp/step-ready" 30

scancel --signal=USR1 "$job"
slurm_wait_file "$tmp/step-got" 10
sleep 1
[ -e "$tmp/batch-got" ] && slurm_fail "scancel --signal=USR1 (no --batch) reached the batch script"

scancel --signal=USR1 --batch "$job"
slurm_wait_file "$tmp/batch-got" 10
slurm_wait_job_state "$job" COMPLETED 30
exit_code=$(slurm_job_field "$job" ExitCode)
[ "$exit_code" = 0:0 ] || slurm_fail "job $job: ExitCode=$exit_code, expected 0:0: $(cat "$tmp/job.out")"
[ "$(cat "$tmp/step-got")" = step ] || slurm_fail "step got: $(cat "$tmp/step-got")"
[ "$(cat "$tmp/batch-got")" = batch ] || slurm_fail "batch script got: $(cat "$tmp/batch-got")"
echo "ok: USR1 reached the step alone, then (--batch) the batch script alone; job $job COMPLETED 0:0"
