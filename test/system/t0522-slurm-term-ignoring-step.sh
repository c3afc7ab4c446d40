#!/usr/bin/env bash
# Issue 11 §4, slurm mode: a slurm-mode worker runs a 2-node step whose tasks (one per node:
# tasks_per_node 1, torcrun's extension; without it the step is Torc's one task) survive SIGTERM (they trap it, note it and go on). (a) SIGTERM to the worker drains it. The step
# gets `scancel --signal=TERM`: the tasks on both nodes get it and are still running 8 s later
# (the 10 s grace is theirs); after the grace `scancel --signal=KILL` and `scancel`: within
# grace + 10 s of the SIGTERM the step is gone from `squeue -s` and no task process is left on
# any node, while the allocation itself goes on (its script sleeps after the worker), so nothing
# but the worker's own cancel can have ended the step. The job is reported terminated.
# (b) kill -9 of the worker: its job guardian `scancel`s the step, gone within 20 s (2.5 s here).
# Without the guardian the step ends too on this cluster (3.8 s): srun dies of its parent-death
# signal and Slurm ends a step whose srun is gone; the guardian's line shows its cancel.
set -euo pipefail
torcrun=$(readlink -f "$1")
source "$(dirname "$0")/slurm_lib.sh"
source "$(dirname "$0")/slurm_worker_lib.sh"
slurm_use_cluster
slurm_worker_setup

nap=1.$RANDOM  # a duration no other process on this machine sleeps
# The tasks' grace: long enough that the worker's squeue and scancel reach both nodes well within
# it on a loaded machine (the suite runs other tests beside the Slurm ones).
grace=10
cat >"$tmp/ignore.sh" <<'SCRIPT'
#!/bin/bash
trap 'echo TERM >>"$(dirname "$0")/got.$SLURMD_NODENAME"' TERM
echo "$SLURMD_NODENAME $SLURM_STEP_ID $$" >>"$(dirname "$0")/tasks"
while :; do sleep "$1" & wait $!; done
SCRIPT
chmod +x "$tmp/ignore.sh"
python3 - "$tmp/spec.json" "$tmp/ignore.sh" "$nap" <<'PY'
import json, sys
json.dump({"name": "ignoring-step",
           "resource_requirements": [{"name": "two", "num_cpus": 1, "num_gpus": 0, "num_nodes": 2,
                                      "tasks_per_node": 1, "memory": "100m", "runtime": "PT1M"}],
           "jobs": [{"name": "ignorer", "command": f"{sys.argv[2]} {sys.argv[3]}",
                     "resource_requirements": "two"}]},
          open(sys.argv[1], "w"))
PY
# tasks: the task shells still alive (their pids are in $tmp/tasks) and their sleeps.
tasks() {
    local pid
    for pid in $(cut -d' ' -f3 "$tmp/tasks" 2>/dev/null); do
        if kill -0 "$pid" 2>/dev/null; then echo "$pid"; fi
    done
    pgrep -fx "sleep $nap" || true
}

# start_case NAME: a fresh workflow and allocation (whose script sleeps on after the worker),
# its step's two tasks running on n1 and n2; sets job, step, nodes, worker and log.
start_case() {
    rm -f "$tmp/tasks" "$tmp"/got.*
    log=$tmp/$1.log
    submit_workflow "$tmp/spec.json"
    job=$(slurm_submit -N2 --exclusive --time=5 -o "$log" --wrap \
        "$torcrun worker $wf --mode slurm --config $tmp/worker.json --grace $grace; sleep 120")
    local deadline=$((SECONDS + 60))
    until [ "$(cat "$tmp/tasks" 2>/dev/null | wc -l)" = 2 ] && [ "$(tasks | wc -l)" -ge 2 ]; do
        [ $SECONDS -lt $deadline ] ||
            fail "$1: the step's 2 tasks are not running after 60 s: $(tail -20 "$log")"
        sleep 0.2
    done
    step=$job.$(cut -d' ' -f2 "$tmp/tasks" | head -1)
    squeue -h -s -j "$job" -o "%i" | grep -qx "$step" || fail "$1: squeue -s does not list $step"
    nodes=$(cut -d' ' -f1 "$tmp/tasks" | sort | tr '\n' ' ')
    [ "$nodes" = "n1 n2 " ] || fail "$1: the step's tasks ran on: $nodes"
    # The oldest: the worker forks its job guardian (torcrun-guard), of the same command line.
    worker=$(pgrep -o -f "^$torcrun worker $wf --mode slurm") || fail "$1: no worker process"
}

# (a) SIGTERM: the drain
start_case term
kill -TERM "$worker"
term_at=$EPOCHREALTIME
limit=$((SECONDS + grace + 10))
for node in n1 n2; do slurm_wait_file "$tmp/got.$node" $((grace - 2)); done
sleep "$(python3 -c "import sys; print(max(0, float(sys.argv[3]) - 2 - (float(sys.argv[2]) - float(sys.argv[1]))))" \
    "$term_at" "$EPOCHREALTIME" "$grace")"
# 2 s before the grace ends: the step and both task shells still there
squeue -h -s -j "$job" -o "%i" | grep -qx "$step" ||
    fail "the step ended within $((grace - 2)) s of the SIGTERM, before the $grace s grace"
alive=$(for pid in $(cut -d' ' -f3 "$tmp/tasks"); do
    if kill -0 "$pid" 2>/dev/null; then echo "$pid"; fi
done)
[ "$(echo "$alive" | grep -c .)" = 2 ] ||
    fail "task shells alive $((grace - 2)) s after the SIGTERM: ${alive:-none} of $(cut -d' ' -f3 "$tmp/tasks")"
while squeue -h -s -j "$job" -o "%i" | grep -qx "$step" || [ -n "$(tasks)" ]; do
    [ $SECONDS -lt $limit ] || fail "$((grace + 10)) s after SIGTERM to the worker: steps" \
        "$(squeue -h -s -j "$job" -o "%i %j" | tr '\n' ';') processes $(tasks | tr '\n' ' ');" \
        "worker log: $(tail -20 "$log")"
    sleep 0.2
done
gone=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" \
    "$term_at" "$EPOCHREALTIME")
squeue -h -j "$job" | grep -q . ||
    fail "the allocation ended: the worker's cancel is not what ended the step"

deadline=$((SECONDS + 30))
until grep -q "stopped exit_code=" "$log"; do
    [ $SECONDS -lt $deadline ] || fail "the worker did not stop: $(tail -20 "$log")"
    sleep 0.2
done
grep -q "stopped exit_code=0" "$log" || fail "worker: $(tail -20 "$log")"
grep -q "step signalled.*step=$step signal=SIGTERM" "$log" ||
    fail "no SIGTERM to the step in the log: $(grep runner "$log" | tail)"
grep -q "step cancelled.*step=$step signal=SIGKILL" "$log" ||
    fail "no cancel of the step in the log: $(tail -30 "$log")"
[ "$(job_status_counts)" = "terminated 1" ] || fail "statuses $(job_status_counts)"
scancel "$job"
echo "term: the TERM-ignoring 2-node step $step (tasks on $nodes) was gone ${gone} s after" \
    "SIGTERM to the worker (grace $grace s); job terminated"

# (b) kill -9 of the worker: its job guardian cancels the step
start_case kill9
kill -9 "$worker"
killed_at=$EPOCHREALTIME
limit=$((SECONDS + 20))  # 2.5 s on a quiet machine; Slurm's own kill takes longer on a loaded one
while squeue -h -s -j "$job" -o "%i" | grep -qx "$step" || [ -n "$(tasks)" ]; do
    [ $SECONDS -lt $limit ] || fail "kill9: 20 s after kill -9 of the worker: steps" \
        "$(squeue -h -s -j "$job" -o "%i %j" | tr '\n' ';') processes $(tasks | tr '\n' ' ');" \
        "log: $(tail -20 "$log")"
    sleep 0.2
done
gone=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" \
    "$killed_at" "$EPOCHREALTIME")
squeue -h -j "$job" | grep -q . || fail "kill9: the allocation ended with the worker"
grep -q "guardian: the worker is gone; its jobs are stopped groups=1 .* steps_cancelled=1" \
    "$log" || fail "kill9: no guardian line: $(tail -20 "$log")"
scancel "$job"
echo "kill9: the step $step was gone ${gone} s after kill -9 of the worker"
echo ok
