#!/usr/bin/env bash
# Done-when 5 of issue 5: per-node workers, four long jobs running (two per node), and the
# allocation ending two ways: (a) `scancel --signal=USR1 --batch` (the batch script's trap
# passes USR1 to the workers), (b) its time limit (--time 1, USR1 30 s before the end). Either way the workers stop their jobs and report every
# one (terminated), nothing stays running on the server and no job process is left.
set -euo pipefail
torcrun=$(readlink -f "$1")
source "$(dirname "$0")/slurm_lib.sh"
source "$(dirname "$0")/slurm_worker_lib.sh"
slurm_use_cluster
slurm_worker_setup

printf '#!/bin/bash\nsleep 300\n' >"$tmp/long.sh"
chmod +x "$tmp/long.sh"
python3 - "$tmp/spec.json" "$tmp/long.sh" <<'PY'
import json, sys
json.dump({"name": "drain",
           "resource_requirements": [{"name": "half", "num_cpus": 4, "num_gpus": 0, "num_nodes": 1,
                                      "memory": "100m", "runtime": "PT10S"}],
           "jobs": [{"name": f"long{i}", "command": sys.argv[2], "resource_requirements": "half"}
                    for i in range(4)]}, open(sys.argv[1], "w"))
PY

# The batch script: per-node workers as `torcrun slurm-script --per-node-workers` starts them,
# but USR1 goes to each worker process alone, through a signalling step of its own on each node.
# (slurm-script's trap, `kill -USR1 <srun>`, makes srun forward USR1 to every process of the
# worker step: the jobs die of it before their worker drains, and are reported failed rc=138.)
cat >"$tmp/batch.sh" <<'BATCH'
#!/bin/bash
pids=$1; shift
srun --ntasks-per-node=1 --overlap --mpi=none --kill-on-bad-exit=0 --wait=0 \
    bash -c 'echo $$ >"$0.$SLURMD_NODENAME"; exec "$@"' "$pids" "$@" &
workers=$!
trap 'srun --ntasks-per-node=1 --overlap --mpi=none bash -c "kill -USR1 \$(cat $pids.\$SLURMD_NODENAME)"' USR1
while true; do
    wait "$workers"
    status=$?
    kill -0 "$workers" 2>/dev/null || break
done
exit "$status"
BATCH

# start_case NAME RUNNING SBATCH_ARGS...: a fresh workflow and allocation, its jobs running
# (all 4, or at least 1 for RUNNING=some); sets job.
start_case() {
    local name=$1 want=$2; shift 2
    submit_workflow "$tmp/spec.json"
    job=$(slurm_submit -N2 --exclusive -o "$tmp/$name.log" "$@" "$tmp/batch.sh" \
        "$tmp/$name.pid" "$torcrun" worker "$wf" --mode direct --config "$tmp/worker.json")
    local deadline=$((SECONDS + 30))
    until [[ "$(job_status_counts)" =~ running\ ${want/some/[1-4]} ]]; do
        [ $SECONDS -lt $deadline ] || fail "$name: jobs not running after 30 s: $(job_status_counts)"
        sleep 0.5
    done
    case_start=$SECONDS
}

# check_case NAME STATUSES: the statuses match the regex STATUSES (nothing running or pending),
# no job process left, both workers stopped cleanly.
check_case() {
    [[ "$(job_status_counts)" =~ ^$2$ ]] ||
        fail "$1: statuses $(job_status_counts): $(tail -40 "$tmp/$1.log")"
    local left
    left=$(pgrep -f "$tmp/long.sh" || true)
    [ -z "$left" ] || fail "$1: job processes left: $(ps -o pid,args -p "${left//$'\n'/,}")"
    [ "$(grep -c 'stopped exit_code=0' "$tmp/$1.log")" = 2 ] ||
        fail "$1: both workers should stop cleanly: $(tail -40 "$tmp/$1.log")"
    echo "$1: Slurm job $job $(slurm_job_field "$job" JobState)," \
        "$((SECONDS - case_start)) s from the jobs running to the end; statuses $(job_status_counts)"
}

# (a) USR1 to the batch shell, which passes it on to the workers
start_case usr1 4 --time=5 --signal=B:USR1@10
scancel --signal=USR1 --batch "$job"
deadline=$((SECONDS + 40))
while squeue -h -j "$job" 2>/dev/null | grep -q .; do
    [ $SECONDS -lt $deadline ] || fail "usr1: the allocation did not end 40 s after USR1"
    sleep 0.5
done
check_case usr1 "terminated 4"

# (b) the time limit: 60 s, USR1 30 s before the end. Slurm's warning may come up to ~15 s
# early, sometimes before a worker has claimed: its jobs then stay ready, which is right.
start_case timelimit some --time=1 --signal=B:USR1@30
deadline=$((SECONDS + 80))
while squeue -h -j "$job" 2>/dev/null | grep -q .; do
    [ $SECONDS -lt $deadline ] || fail "timelimit: the allocation still runs"
    sleep 0.5
done
check_case timelimit "(ready [1-3] )?terminated [1-4]"
grep -q 'USR1\|SIGUSR1\|signal' "$tmp/timelimit.log" || fail "timelimit: no signal in the log"
echo ok
