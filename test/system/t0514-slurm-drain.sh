#!/usr/bin/env bash
# Done-when 5 of issue 5: the script of `torcrun slurm-script --per-node-workers`, four long jobs
# running (two per node), and the allocation ending two ways: (a) `scancel --signal=USR1 --batch`
# (the script's trap signals each worker alone, by the pid file of its node), (b) its time limit
# (--time 2, USR1 30 s before the end). Either way the workers stop their jobs and report every
# one terminated (a USR1 forwarded to the jobs too would kill them: failed, rc 138), nothing
# stays running on the server and no job process is left.
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

# start_case NAME RUNNING TIME LEAD: a fresh workflow and an allocation of 2 nodes running the
# script of `torcrun slurm-script --per-node-workers --time TIME --signal-lead LEAD`, its jobs
# running (all 4, or at least 1 for RUNNING=some), each worker's pid in its node's pid file;
# sets job and log (the script's own --output and --error files).
start_case() {
    local name=$1 want=$2
    submit_workflow "$tmp/spec.json"
    "$torcrun" slurm-script "$wf" --nodes 2 --exclusive --time "$3" --signal-lead "$4" \
        --per-node-workers --config "$tmp/worker.json" --script "$tmp/$name.sh" >/dev/null
    job=$(slurm_submit "$tmp/$name.sh")
    log=$tmp/out/slurm_output_wf${wf}_sl$job
    local deadline=$((SECONDS + 30))
    local counts
    until counts=$(job_status_counts); [[ "$counts" =~ running\ ${want/some/[1-4]} ]]; do
        # Under load, Slurm's early warning can end the jobs before this poll saw them run: the
        # workers have drained already, which is what the case checks next.
        if [ "$want" = some ] && [[ "$counts" =~ terminated\ [1-4] ]]; then
            case_start=$SECONDS
            return 0
        fi
        [ $SECONDS -lt $deadline ] || fail "$name: jobs not running after 30 s: $counts"
        sleep 0.5
    done
    case_start=$SECONDS
    # A worker whose jobs have not started yet may still be writing its pid file.
    local node args
    for node in n1 n2; do
        until args=$(ps -o args= -p "$(cat "$tmp/out/workers/sl$job.$node.pid" 2>/dev/null)"); do
            [ $SECONDS -lt $deadline ] ||
                fail "$name: no worker at the pid of $node: $(ls -l "$tmp/out/workers")"
            sleep 0.2
        done
        [[ "$args" == "$torcrun worker $wf --mode direct "* ]] ||
            fail "$name: the pid file of $node names '$args', not the worker"
    done
}

# logs NAME: the allocation's stdout and stderr, kept as $tmp/NAME.log.
logs() { cat "$log.o" "$log.e" >"$tmp/$1.log" 2>&1 || true; tail -40 "$tmp/$1.log"; }

# check_case NAME STATUSES: the statuses match the regex STATUSES (nothing running or pending),
# no job process left, both workers stopped cleanly, their pid files removed, the allocation
# COMPLETED with exit code 0.
check_case() {
    [[ "$(job_status_counts)" =~ ^$2$ ]] || fail "$1: statuses $(job_status_counts): $(logs "$1")"
    logs "$1" >/dev/null
    local left
    left=$(pgrep -f "$tmp/long.sh" || true)
    [ -z "$left" ] || fail "$1: job processes left: $(ps -o pid,args -p "${left//$'\n'/,}")"
    [ "$(grep -c 'stopped exit_code=0' "$tmp/$1.log")" = 2 ] ||
        fail "$1: both workers should stop cleanly: $(tail -40 "$tmp/$1.log")"
    [ -z "$(ls "$tmp/out/workers")" ] || fail "$1: pid files left: $(ls "$tmp/out/workers")"
    # The script exits with the workers' status, 0, even when srun ends during the trap.
    [ "$(slurm_job_field "$job" JobState) $(slurm_job_field "$job" ExitCode)" = "COMPLETED 0:0" ] ||
        fail "$1: the allocation ended $(slurm_job_field "$job" JobState)" \
            "$(slurm_job_field "$job" ExitCode): $(tail -40 "$tmp/$1.log")"
    echo "$1: Slurm job $job $(slurm_job_field "$job" JobState)," \
        "$((SECONDS - case_start)) s from the jobs running to the end; statuses $(job_status_counts)"
}

# (a) USR1 to the batch shell, which passes it on to the workers
start_case usr1 4 5 10
scancel --signal=USR1 --batch "$job"
deadline=$((SECONDS + 40))
while squeue -h -j "$job" 2>/dev/null | grep -q .; do
    [ $SECONDS -lt $deadline ] || fail "usr1: the allocation did not end 40 s after USR1"
    sleep 0.5
done
check_case usr1 "terminated 4"

# (b) the time limit: 120 s, USR1 30 s before the end. Slurm's warning may come up to ~15 s
# early; with a 60 s limit it came, on a loaded machine, before any worker had claimed (their
# startup delay, the workflow read and the end-time lookup come first), and all 4 jobs stayed
# ready, which is right but shows no drain. A worker that had not claimed yet still leaves its
# jobs ready.
start_case timelimit some 2 30
deadline=$((SECONDS + 140))
while squeue -h -j "$job" 2>/dev/null | grep -q .; do
    [ $SECONDS -lt $deadline ] || fail "timelimit: the allocation still runs"
    sleep 0.5
done
check_case timelimit "(ready [1-3] )?terminated [1-4]"
grep -q 'USR1\|SIGUSR1\|signal' "$tmp/timelimit.log" || fail "timelimit: no signal in the log"
echo ok
