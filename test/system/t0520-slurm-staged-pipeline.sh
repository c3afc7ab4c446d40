#!/usr/bin/env bash
# Torc's example slurm_staged_pipeline.json5 on the real 2-node cluster, `torcrun submit` alone.
# The spec has slurm_schedulers and jobs naming them but no actions: submit derives one
# on_jobs_ready schedule_nodes action per scheduler over its jobs (as Torc's `slurm generate`),
# carries out the one whose jobs are ready at start (setup_scheduler), and the workers in the
# allocations claim the later stages' (work_scheduler when the ten work jobs become ready,
# postprocess_scheduler when postprocess does). Transformed only as the lab needs: account,
# walltimes, CPUs, memory and runtimes shrunk; each command records where it ran and makes (or
# checks) its files under $tmp instead of /scratch; jobs, files, dependencies, schedulers and the
# resource monitor as published. Checked: submit says what it derived; every job completes;
# one allocation per stage (the setup one sbatch'ed by submit, whose claim names no compute
# node; the later two by workers, whose compute nodes hold the claims, as the scripts' names
# and the workers' logs show); every record ends complete, or canceled when its allocation was
# still queued with nothing left to run; no allocation of the workflow is left in Slurm.
set -euo pipefail
torcrun=$(readlink -f "$1")
source "$(dirname "$0")/slurm_lib.sh"
source "$(dirname "$0")/slurm_worker_lib.sh"
submitted_allocations_setup
sed -i 's/"idle_timeout_seconds": 30/"idle_timeout_seconds": 5/' "$tmp/worker.json"

p="$tmp/pipeline"
record="$tmp/record.sh 1"
python3 - "$tmp/spec.json5" "$p" "$record" <<'PY'
import json, sys
path, p, record = sys.argv[1:]
ids = [f"{i:03d}" for i in range(1, 11)]
jobs = [{"name": "setup",
         "command": f"mkdir -p {p} && for i in {' '.join(ids)}; do touch {p}/input_$i.dat; done"
                    f" && {record}",
         "scheduler": "setup_scheduler", "resource_requirements": "setup_resources",
         "output_files": [f"input_{i}" for i in ids]}]
for i in ids:
    jobs.append({"name": f"work_{i}",
                 "command": f"test -f {p}/input_{i}.dat && touch {p}/output_{i}.dat && {record}",
                 "scheduler": "work_scheduler", "resource_requirements": "work_resources",
                 "depends_on": ["setup"], "input_files": [f"input_{i}"],
                 "output_files": [f"output_{i}"]})
jobs.append({"name": "postprocess",
             "command": f"for i in {' '.join(ids)}; do test -f {p}/output_$i.dat; done"
                        f" && cat {p}/output_*.dat > {p}/final_results.dat && {record}",
             "scheduler": "postprocess_scheduler", "resource_requirements": "postprocess_resources",
             "depends_on": [f"work_{i}" for i in ids],
             "input_files": [f"output_{i}" for i in ids], "output_files": ["final_results"]})
files = [{"name": f"input_{i}", "path": f"{p}/input_{i}.dat"} for i in ids] + \
        [{"name": f"output_{i}", "path": f"{p}/output_{i}.dat"} for i in ids] + \
        [{"name": "final_results", "path": f"{p}/final_results.dat"}]
def rr(name, cpus):
    return {"name": name, "num_cpus": cpus, "num_gpus": 0, "memory": "100m", "runtime": "PT1M",
            "num_nodes": 1}
def sched(name):
    return {"name": name, "account": "test", "walltime": "00:03:00", "nodes": 1}
spec = {"name": "slurm_staged_pipeline", "user": "pipeline_user",
        "description": "Multi-stage Slurm pipeline with automated scheduling and resource monitoring",
        "jobs": jobs, "files": files,
        "resource_requirements": [rr("setup_resources", 2), rr("work_resources", 2),
                                  rr("postprocess_resources", 1)],
        "slurm_schedulers": [sched("setup_scheduler"), sched("work_scheduler"),
                             sched("postprocess_scheduler")],
        "resource_monitor": {"enabled": True, "sample_interval_seconds": 5,
                             "granularity": "time_series", "generate_plots": False,
                             "metrics": ["cpu_percent", "memory_bytes"]}}
json.dump(spec, open(path, "w"), indent=1)
PY

wf=$("$torcrun" submit --url "$base" --config "$tmp/worker.json" \
    --output-dir "$tmp/out" "$tmp/spec.json5" 2>"$tmp/submit.err") ||
    fail "submit: $(cat "$tmp/submit.err")"
[[ "$wf" =~ ^[0-9]+$ ]] || fail "submit stdout is not an id: '$wf'"
for line in \
    'actions[0] derived: on_jobs_ready schedule_nodes, slurm_schedulers "setup_scheduler", over setup' \
    'actions[1] derived: on_jobs_ready schedule_nodes, slurm_schedulers "work_scheduler", over work_001, work_002, work_003, ... (10 jobs)' \
    'actions[2] derived: on_jobs_ready schedule_nodes, slurm_schedulers "postprocess_scheduler", over postprocess'; do
    grep -qxF "torcrun submit: $line" "$tmp/submit.err" || fail "submit did not say '$line': $(cat "$tmp/submit.err")"
done
[ "$(grep -c 'derived' "$tmp/submit.err")" = 3 ] || fail "derived lines: $(cat "$tmp/submit.err")"
submitted=("$tmp"/out/torcrun_wf"$wf"_*.sh)
[ "${#submitted[@]}" = 1 ] && [ -f "$tmp/out/torcrun_wf${wf}_setup_scheduler_a0_1.sh" ] ||
    fail "submit made ${submitted[*]}: $(cat "$tmp/submit.err")"

# The work ends and every allocation of the workflow leaves Slurm (queueing allowed for).
wait_workflow_allocations 480 "completed 12"
[ -f "$p/final_results.dat" ] || fail "postprocess made no final_results.dat"
for j in setup postprocess $(printf 'work_%03d ' $(seq 1 10)); do
    [ "$(wc -l <"$tmp/rec/$j")" = 1 ] || fail "job $j recorded $(cat "$tmp/rec/$j" 2>/dev/null)"
done

# Each action executed once; who claimed it: submit (no compute node) for setup, a worker's
# compute node for the others, whose logs say they scheduled it.
actions=$(curl -sf "$base/workflows/$wf/actions")
python3 - "$actions" >"$tmp/actions.txt" <<'PY' || fail "actions: $actions"
import json, sys
acts = sorted(json.loads(sys.argv[1]), key=lambda a: a["id"])
assert len(acts) == 3, acts
for a, name in zip(acts, ["setup_scheduler", "work_scheduler", "postprocess_scheduler"]):
    assert a["trigger_type"] == "on_jobs_ready" and a["action_type"] == "schedule_nodes", a
    assert a["executed"], a
    by = a.get("executed_by")
    assert (by is None) == (name == "setup_scheduler"), (name, a)
    print(a["id"], name)
PY
logs=("$tmp"/out/slurm_output_wf"$wf"_*.e)
while read -r id name; do
    n=$(cat "${logs[@]}" | grep -c "action $id: scheduling" || true)
    want=1; [ "$name" = setup_scheduler ] && want=0
    [ "$n" = $want ] || fail "action $id ($name) scheduled $n times by workers: $(grep -h "action $id" "${logs[@]}")"
done <"$tmp/actions.txt"
scripts=$(cd "$tmp/out" && ls torcrun_wf"$wf"_*.sh | sed -E 's/_action[0-9]+_/_action_/' | sort | tr '\n' ' ')
[ "$scripts" = "torcrun_wf${wf}_postprocess_scheduler_action_1.sh torcrun_wf${wf}_setup_scheduler_a0_1.sh torcrun_wf${wf}_work_scheduler_action_1.sh " ] ||
    fail "scripts: $scripts"

# One allocation per stage; each record ends complete, or canceled while still queued.
check_allocation_records 3
while read -r job status; do
    name=$(slurm_job_field "$job" JobName)
    [[ "$name" =~ ^torcrun_wf${wf}_(setup_scheduler_a0|work_scheduler_action[0-9]+|postprocess_scheduler_action[0-9]+)_1$ ]] ||
        fail "Slurm job $job is named $name"
done <"$tmp/records.txt"
echo ok
