#!/usr/bin/env bash
# A job started by a worker whose own environment carries a launcher step's variables
# (PMI_RANK, PMI_SIZE, PMIX_RANK, PMIX_NAMESPACE, SLURM_STEP_ID, SLURM_STEPID, SLURM_PROCID) sees
# none of them and keeps SLURM_JOB_ID, so that MPI inside the job starts as a singleton and
# `srun --overlap` still finds the allocation; environment.txt lists each one removed ("- NAME").
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
trap worker_test_cleanup EXIT

start_server "$tmp/db"
echo '{"name": "env", "jobs": [{"name": "show", "command": "env"}]}' >"$tmp/env.json"
submit_spec "$tmp/env.json"

rc=0
PMI_RANK=3 PMI_SIZE=8 PMIX_RANK=3 PMIX_NAMESPACE=slurm.pmix.99.0 SLURM_STEP_ID=0 \
    SLURM_STEPID=0 SLURM_PROCID=3 SLURM_JOB_ID=99 timeout 60 "$torcrun" worker "$wf" $(worker_args) 2>"$tmp/worker.log" || rc=$?
[ "$rc" = 0 ] || fail "worker exit $rc: $(cat "$tmp/worker.log")"
[ "$(job_statuses)" = "show=completed" ] || fail "statuses: $(job_statuses)"
out=$(attempt_dir show 1)/stdout
scrubbed="PMI_RANK PMI_SIZE PMIX_RANK PMIX_NAMESPACE SLURM_STEP_ID SLURM_STEPID SLURM_PROCID"
for name in $scrubbed; do
    if grep -q "^$name=" "$out"; then fail "the job sees $name: $(grep "^$name=" "$out")"; fi
done
grep -qx 'SLURM_JOB_ID=99' "$out" || fail "SLURM_JOB_ID not kept: $(grep SLURM "$out" || true)"
grep -q "^TORC_WORKFLOW_ID=$wf\$" "$out" || fail "no TORC_WORKFLOW_ID"
env_txt=$(attempt_dir show 1)/environment.txt
for name in $scrubbed; do
    grep -qx -- "- $name" "$env_txt" || fail "environment.txt does not list $name: $(cat "$env_txt")"
done
if grep -q SLURM_JOB_ID "$env_txt"; then fail "environment.txt names SLURM_JOB_ID: $(cat "$env_txt")"; fi
stop_server
echo ok
