#!/usr/bin/env bash
# Issue 22's small item: an external `scancel` of an allocation whose direct-mode worker runs
# jobs gives one verdict whatever the timing, Torc v0.25.1's (`terminate_jobs`): `terminated`
# with the job's own code, 143 for a job that dies of Slurm's SIGTERM. Slurm's SIGTERM reaches
# the worker and its jobs at once; before, the worker recorded `failed` 143 when a job's exit
# was handled before its own SIGTERM, `terminated` 143 otherwise. Now a non-zero exit the worker
# did not cause asks squeue whether the allocation is ending (Slurm sets CANCELLED/COMPLETING
# before it signals), so both orders give `terminated` 143.
# Three rounds, four jobs each: every job of every round must be `terminated` 143; the output
# says for how many the job's exit came first (the worker's log line then carries Slurm's state).
set -euo pipefail
torcrun=$(readlink -f "$1")
source "$(dirname "$0")/slurm_lib.sh"
source "$(dirname "$0")/slurm_worker_lib.sh"
slurm_use_cluster
slurm_worker_setup
trap 'kill_servers; slurm_cleanup' EXIT

cat >"$tmp/spec.json" <<'EOF'
{"name": "scancel-direct", "resource_requirements": [
   {"name": "one", "num_cpus": 1, "num_gpus": 0, "num_nodes": 1, "memory": "100m",
    "runtime": "PT1M"}],
 "jobs": [{"name": "s1", "command": "sleep 600", "resource_requirements": "one"},
          {"name": "s2", "command": "sleep 600", "resource_requirements": "one"},
          {"name": "s3", "command": "sleep 600", "resource_requirements": "one"},
          {"name": "s4", "command": "sleep 600", "resource_requirements": "one"}]}
EOF
# results: "<status> <return code>" of every result of $wf, counted, e.g. "4 terminated 143".
results() {
    curl -sf "$base/results?workflow_id=$wf" | python3 -c 'import collections, json, sys
c = collections.Counter("%s %s" % (r["status"], r["return_code"]) for r in json.load(sys.stdin)["items"])
print(";".join(f"{n} {k}" for k, n in sorted(c.items())))'
}

exit_first=0
for round in 1 2 3; do
    submit_workflow "$tmp/spec.json"
    log=$tmp/round$round.log
    allocation=$(slurm_submit -N1 --exclusive --time=3 -o "$log" --wrap \
        "exec $torcrun worker $wf --config $tmp/worker.json")
    deadline=$((SECONDS + 60))
    until [ "$(job_status_counts)" = "running 4" ]; do
        [ $SECONDS -lt $deadline ] || slurm_fail "round $round: jobs $(job_status_counts) after 60 s: $(tail -20 "$log")"
        sleep 0.2
    done
    scancel "$allocation"
    deadline=$((SECONDS + 60))
    while squeue -h -j "$allocation" 2>/dev/null | grep -q .; do
        [ $SECONDS -lt $deadline ] || slurm_fail "round $round: allocation $allocation still in Slurm after 60 s"
        sleep 0.2
    done
    got=$(results)
    [ "$got" = "4 terminated 143" ] || fail "round $round: results $got: $(cat "$log")"
    first=$(grep -c "terminated rc=143 (killed by SIGTERM (15); Slurm job $allocation is [A-Z]* (squeue))" "$log" || true)
    exit_first=$((exit_first + first))
    echo "round $round: $got; the job's exit before the worker's SIGTERM for $first of 4"
done
echo "the job's exit came first for $exit_first of 12 jobs, the worker's SIGTERM for the rest"
echo ok
