#!/usr/bin/env bash
# Issue 25: allocations that follow the work. A three-stage spec with no slurm_schedulers and no
# schedule_nodes actions (40 one-CPU jobs -> 16 one-GPU jobs -> one 2-node job, each stage
# depending on the whole one before) completes from `torcrun submit --auto-schedule` alone on
# the 2-node x 8-CPU x 4-GPU lab: the allocator submits an allocation when a stage's jobs are
# ready and none can take them (the first at once, for the 40 CPU jobs only; the GPU one, with
# the partition's GPUs, only once the GPU jobs are ready), never one for a blocked stage; every
# job completes; no allocation of the workflow is left queued or in Slurm, and every record is
# closed; `torcrun allocations` shows each with its jobs, nodes, times and end, `torcrun status`
# counts them. First, a job no partition holds (16 CPUs) is named with the limit and gets
# nothing; then an sbatch Slurm refuses is tried again after 10 s, then 20 s, each refusal
# recorded with Slurm's message; `torcrun cancel` scancels a running allocation; last, a spec's
# own schedule_nodes allocation is counted (nothing added) and left alone.
set -euo pipefail
torcrun=$(readlink -f "$1")
source "$(dirname "$0")/slurm_lib.sh"
source "$(dirname "$0")/slurm_worker_lib.sh"
submitted_allocations_setup gpus
sed -i 's/"idle_timeout_seconds": 30/"idle_timeout_seconds": 4/' "$tmp/worker.json"

# -- a job larger than every partition: named, no allocation, exit 1
cat >"$tmp/wide.json" <<'EOF'
{"name": "wide", "resource_requirements": [{"name": "wide", "num_cpus": 16, "memory": "100m", "runtime": "PT1M"}],
 "jobs": [{"name": "too_wide", "command": "true", "resource_requirements": "wide"}]}
EOF
rc=0
timeout 60 "$torcrun" submit --url "$base" --config "$tmp/worker.json" --output-dir "$tmp/out" \
    --auto-schedule -p 1 "$tmp/wide.json" >"$tmp/wide.out" 2>"$tmp/wide.err" || rc=$?
[ $rc = 1 ] || fail "submit of a job no partition holds exited $rc: $(cat "$tmp/wide.err")"
grep -qF 'job 1 "too_wide" fits no partition: it needs 16 CPUs per node; partition "debug" has 8; no allocation is made for it' "$tmp/wide.err" ||
    fail "the wide job is not named: $(cat "$tmp/wide.err")"
grep -q 'no job can run' "$tmp/wide.err" || fail "no final word: $(cat "$tmp/wide.err")"
[ -z "$(ls "$tmp/out")" ] || fail "a script was written for it: $(ls "$tmp/out")"
[ "$(curl -sf "$base/scheduled_compute_nodes?workflow_id=1" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["items"]))')" = 0 ] ||
    fail "an allocation was recorded for the wide job"

# -- the three stages
python3 - "$tmp/spec.json" "$tmp/record.sh" <<'PY'
import json, sys
path, record = sys.argv[1:]
cpu = [f"c{i:02d}" for i in range(40)]
gpu = [f"g{i:02d}" for i in range(16)]
jobs = [{"name": n, "command": f"{record} 1", "resource_requirements": "cpu1"} for n in cpu]
jobs += [{"name": n, "command": f"{record} 1", "resource_requirements": "gpu1", "depends_on": cpu}
         for n in gpu]
jobs += [{"name": "wide2", "command": f"{record} 1", "resource_requirements": "nodes2",
          "depends_on": gpu}]
rr = lambda name, cpus, gpus, nodes, runtime: {"name": name, "num_cpus": cpus, "num_gpus": gpus,
                                      "num_nodes": nodes, "memory": "100m", "runtime": runtime}
json.dump({"name": "three-stages", "jobs": jobs,
           "resource_requirements": [rr("cpu1", 1, 0, 1, "PT1M"), rr("gpu1", 1, 1, 1, "PT10M"),
                                     rr("nodes2", 1, 0, 2, "PT30M")]},
          open(path, "w"))
PY
rc=0
timeout 170 "$torcrun" submit --url "$base" --config "$tmp/worker.json" --output-dir "$tmp/out" \
    --auto-schedule -p 1 "$tmp/spec.json" >"$tmp/submit.out" 2>"$tmp/submit.err" || rc=$?
[ $rc = 0 ] || fail "submit --auto-schedule exited $rc: $(tail -30 "$tmp/submit.err")"
wf=$(cat "$tmp/submit.out")
[ "$wf" = 2 ] || fail "submit printed '$wf'"
grep -qF "workflow $wf is complete: every job completed" "$tmp/submit.err" || fail "$(cat "$tmp/submit.err")"
[ "$(job_status_counts)" = "completed 57" ] || fail "statuses $(job_status_counts)"

# What was submitted, and for whom: one allocation per stage, each made for the jobs of its stage
# alone, once they were ready. An allocation gets whole nodes (GPUs included), so a live one runs
# the next stage's jobs when its walltime has room for them: the stages' runtimes (1, 10 and 30
# minutes, the jobs themselves take a second) leave none, so each stage needs its own.
grep 'submitted:' "$tmp/submit.err" >"$tmp/submitted.txt" || fail "nothing submitted: $(cat "$tmp/submit.err")"
python3 - "$tmp/submitted.txt" <<'PY' || fail "allocations: $(cat "$tmp/submitted.txt")"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 3, lines
assert re.search(r'40 jobs \(job 2 "c00", \.\.\.\) of shape 1 CPU, 100m per node, 1 node, runtime 60 s, which no live allocation can run: 2 nodes in partition "debug" for 00:04:18, made for 40 jobs', lines[0]), lines[0]
assert re.search(r'16 jobs \(job 42 "g00", \.\.\.\) of shape 1 CPU, 100m, 1 GPU per node, 1 node, runtime 600 s, which no live allocation can run: 2 nodes in partition "debug" for 00:23:00, made for 16 jobs', lines[1]), lines[1]
assert re.search(r'1 job \(job 58 "wide2"\) of shape 1 CPU, 100m per node, 2 nodes, runtime 1800 s, which no live allocation can run: 2 nodes in partition "debug" for 00:34:00, made for 1 job', lines[2]), lines[2]
PY
jobs=$(awk '{print $4}' "$tmp/submitted.txt")
first=$(echo "$jobs" | sed -n 1p); second=$(echo "$jobs" | sed -n 2p); third=$(echo "$jobs" | sed -n 3p)
for j in $jobs; do
    [ "$(slurm_job_field "$j" NumNodes)" = 2 ] || fail "allocation $j: $(scontrol show job "$j")"
done
if scontrol show job "$first" | grep -q 'gpu:'; then
    fail "the CPU allocation asked for GPUs: $(scontrol show job "$first")"
fi
scontrol show job "$second" | grep -q 'gpu:4' || fail "the GPU allocation asked for no GPUs: $(scontrol show job "$second")"
# Each later allocation was submitted once the stage before had ended (never for a blocked stage).
after() {  # after ALLOCATION RECORDS...
    local submit_time last
    submit_time=$(date -d "$(slurm_job_field "$1" SubmitTime)" +%s); shift
    last=$(cat "$@" | awk '{print int($5)}' | sort -n | tail -1)
    [ "$submit_time" -ge "$last" ] || fail "allocation submitted at $submit_time, before the stage it waits for ended ($last)"
}
after "$second" "$tmp"/rec/c*
after "$third" "$tmp"/rec/g*
# Nothing left in Slurm, every record closed.
wait_workflow_allocations 30 "completed 57"
curl -sf "$base/scheduled_compute_nodes?workflow_id=$wf" | python3 -c '
import json, sys
items = json.load(sys.stdin)["items"]
assert 2 <= len(items) <= 3, items
assert all(r["status"] in ("complete", "canceled") for r in items), items' || fail "records left open"

# -- the history: torcrun allocations (JSON and table) and the counts of torcrun status
"$torcrun" allocations --url "$base" "$wf" --json >"$tmp/allocations.json" || fail "allocations failed"
python3 - "$tmp/allocations.json" "$first" "$second" "$third" <<'PY' || fail "allocations: $(cat "$tmp/allocations.json")"
import json, sys
rows = json.load(open(sys.argv[1]))
ids = [int(i) for i in sys.argv[2:]]
assert [r["slurm_id"] for r in rows] == ids, rows
want = [("2-41", "2 nodes, 00:04:18, debug"), ("42-57", "2 nodes x gpu:4, 00:23:00, debug"),
        ("58", "2 nodes, 00:34:00, debug")]
for r, (jobs, shape) in zip(rows, want):
    # the first two end when their workers find the next stage's jobs need another allocation
    assert r["state"] == "done", r
    assert r["why"] in ("slurm: COMPLETED", "worker left: the ready jobs need another allocation (exit 3)"), r
    assert r["made_for"] == jobs and r["shape"] == shape and r["nodes"] == "n[1-2]", r
    assert r["submit_time"] and r["start_time"] and r["end_time"], r
PY
"$torcrun" allocations --url "$base" "$wf" | head -1 | grep -q '^SLURM_ID  STATE' || fail "no table"
"$torcrun" status --url "$base" "$wf" >"$tmp/status.txt"
grep -qx 'allocations: 3' "$tmp/status.txt" && grep -qx '  done: 3' "$tmp/status.txt" ||
    fail "status: $(cat "$tmp/status.txt")"

# -- an sbatch refusal (a constraint no node has): tried again after 10 s, then 20 s, recorded
cat >"$tmp/refused.json" <<'EOF'
{"name": "refused", "slurm_defaults": {"constraint": "nosuchfeature"},
 "resource_requirements": [{"name": "one", "num_cpus": 1, "memory": "100m", "runtime": "PT1M"}],
 "jobs": [{"name": "lonely", "command": "true", "resource_requirements": "one"}]}
EOF
# (created by a plain submit, watched by `torcrun watch --auto-schedule`)
wf=$("$torcrun" submit --url "$base" "$tmp/refused.json" 2>"$tmp/refused.submit.err") ||
    fail "submit: $(cat "$tmp/refused.submit.err")"
rc=0
timeout 25 "$torcrun" watch --url "$base" "$wf" --config "$tmp/worker.json" \
    --worker-output-dir "$tmp/out" --auto-schedule -p 1 2>"$tmp/refused.err" || rc=$?
[ $rc = 124 ] || fail "watch of a refused allocation exited $rc: $(cat "$tmp/refused.err")"
grep -q 'Invalid feature specification (try 1; again in 10 s)' "$tmp/refused.err" &&
    grep -q 'Invalid feature specification (try 2; again in 20 s)' "$tmp/refused.err" ||
    fail "no growing waits: $(cat "$tmp/refused.err")"
"$torcrun" allocations --url "$base" "$wf" --json | python3 -c '
import json, sys
rows = json.load(sys.stdin)
assert len(rows) == 2, rows
for r in rows:
    assert r["slurm_id"] == 0 and r["state"] == "failed" and r["made_for"] == "59", r
    assert r["why"].startswith("sbatch refused: ") and "Invalid feature specification" in r["why"], r' ||
    fail "refusals not recorded: $("$torcrun" allocations --url "$base" "$wf")"

# -- torcrun cancel scancels the allocator's running allocation; the watch then ends
cat >"$tmp/cancel.json" <<'EOF'
{"name": "cancelled", "resource_requirements": [{"name": "one", "num_cpus": 1, "memory": "100m", "runtime": "PT5M"}],
 "jobs": [{"name": "long", "command": "sleep 120", "resource_requirements": "one"}]}
EOF
timeout 90 "$torcrun" submit --url "$base" --config "$tmp/worker.json" --output-dir "$tmp/out" \
    --auto-schedule -p 1 "$tmp/cancel.json" >"$tmp/cancel.out" 2>"$tmp/cancel.err" &
watcher=$!
for _ in $(seq 1 60); do
    grep -q 'submitted:' "$tmp/cancel.err" && break
    sleep 0.5
done
job=$(sed -n 's/.*allocation \([0-9]*\) submitted:.*/\1/p' "$tmp/cancel.err")
[ -n "$job" ] || fail "nothing submitted: $(cat "$tmp/cancel.err")"
slurm_wait_job_state "$job" RUNNING 30
wf=$(cat "$tmp/cancel.out")
"$torcrun" cancel --url "$base" "$wf" >"$tmp/cancel-cmd.out" || fail "cancel: $(cat "$tmp/cancel-cmd.out")"
grep -q "Slurm job $job scancel'ed" "$tmp/cancel-cmd.out" || fail "cancel said: $(cat "$tmp/cancel-cmd.out")"
rc=0; wait "$watcher" || rc=$?
[ $rc = 1 ] || fail "the watch of a cancelled workflow exited $rc: $(cat "$tmp/cancel.err")"
"$torcrun" allocations --url "$base" "$wf" --json | python3 -c '
import json, sys
rows = json.load(sys.stdin)
assert len(rows) == 1 and rows[0]["state"] == "cancelled", rows' ||
    fail "allocation not cancelled: $("$torcrun" allocations --url "$base" "$wf")"

# -- a spec's own schedule_nodes action keeps working, and the allocator counts its allocation:
# the action's allocation holds the four jobs, so none is added, and it is never cancelled
cat >"$tmp/handmade.json" <<'EOF'
{"name": "handmade", "resource_requirements": [{"name": "one", "num_cpus": 1, "memory": "100m", "runtime": "PT1M"}],
 "slurm_schedulers": [{"name": "mine", "account": "test", "nodes": 1, "walltime": "00:05:00"}],
 "actions": [{"trigger_type": "on_workflow_start", "action_type": "schedule_nodes", "scheduler": "mine",
              "scheduler_type": "slurm", "num_allocations": 1}],
 "jobs": [{"name": "h1", "command": "sleep 1", "resource_requirements": "one", "scheduler": "mine"},
          {"name": "h2", "command": "sleep 1", "resource_requirements": "one", "scheduler": "mine"},
          {"name": "h3", "command": "sleep 1", "resource_requirements": "one", "scheduler": "mine"},
          {"name": "h4", "command": "sleep 1", "resource_requirements": "one", "scheduler": "mine"}]}
EOF
rc=0
timeout 90 "$torcrun" submit --url "$base" --config "$tmp/worker.json" --output-dir "$tmp/out" \
    --auto-schedule -p 1 "$tmp/handmade.json" >"$tmp/handmade.out" 2>"$tmp/handmade.err" || rc=$?
[ $rc = 0 ] || fail "submit of a spec with its own action exited $rc: $(cat "$tmp/handmade.err")"
wf=$(cat "$tmp/handmade.out")
grep -q 'submitted:' "$tmp/handmade.err" && fail "the allocator added one: $(cat "$tmp/handmade.err")"
grep -q 'scancel' "$tmp/handmade.err" && fail "the allocator cancelled one: $(cat "$tmp/handmade.err")"
[ "$(job_status_counts)" = "completed 4" ] || fail "statuses $(job_status_counts)"
"$torcrun" allocations --url "$base" "$wf" --json | python3 -c '
import json, sys
rows = json.load(sys.stdin)
assert len(rows) == 1 and rows[0]["state"] == "done", rows
assert rows[0]["shape"] == "1 node, 00:05:00 (scheduler mine)", rows' ||
    fail "allocations: $("$torcrun" allocations --url "$base" "$wf")"
echo ok
