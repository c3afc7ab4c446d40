#!/usr/bin/env bash
# A job started by a worker whose own environment carries a launcher step's variables
# (PMI_RANK, PMIX_NAMESPACE, SLURM_STEP_ID) sees none of them and keeps SLURM_JOB_ID, so that
# MPI inside the job starts as a singleton and `srun --overlap` still finds the allocation.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
trap 'kill_servers; rm -rf "$tmp"' EXIT

start_server "$tmp/db"
echo '{"name": "env", "jobs": [{"name": "show", "command": "env"}]}' >"$tmp/env.json"
submit_spec "$tmp/env.json"

rc=0
PMI_RANK=3 PMIX_NAMESPACE=slurm.pmix.99.0 SLURM_STEP_ID=0 SLURM_JOB_ID=99 \
    timeout 60 "$torcrun" worker "$wf" $(worker_args) 2>"$tmp/worker.log" || rc=$?
[ "$rc" = 0 ] || fail "worker exit $rc: $(cat "$tmp/worker.log")"
[ "$(job_statuses)" = "show=completed" ] || fail "statuses: $(job_statuses)"
out=$(attempt_dir show 1)/stdout
for name in PMI_RANK PMIX_NAMESPACE SLURM_STEP_ID; do
    if grep -q "^$name=" "$out"; then fail "the job sees $name: $(grep "^$name=" "$out")"; fi
done
grep -qx 'SLURM_JOB_ID=99' "$out" || fail "SLURM_JOB_ID not kept: $(grep SLURM "$out" || true)"
grep -q "^TORC_WORKFLOW_ID=$wf\$" "$out" || fail "no TORC_WORKFLOW_ID"
env_txt=$(attempt_dir show 1)/environment.txt
grep -q 'PMI_RANK' "$env_txt" || fail "environment.txt does not name PMI_RANK: $(cat "$env_txt")"
stop_server
echo ok
