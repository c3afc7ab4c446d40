#!/usr/bin/env bash
# GPU slots under a real worker: its environment says CUDA_VISIBLE_DEVICES=0,1,2,3 (no Slurm);
# 40 independent jobs need 1 or 2 GPUs and run 0.2-1.5 s (seeded, so a failure reproduces).
# Each job writes its CUDA_VISIBLE_DEVICES and its start and end times to stdout. The checker
# asserts: every job got exactly as many ids as it asked for, no id was held by two overlapping
# jobs, and no id sat idle while a job that fits it waited.
#
# Tolerance: between one job's end line and the next job's start line lie the child's exit,
# the reactor's reap, a claim round trip to the server, start_job, the spawn and bash running
# `date`. On a loaded 2-core machine that is tens of milliseconds, rarely a few hundred. So a
# waiting job may see enough idle ids for at most 0.5 s (TORCRUN_T0701_SLACK overrides);
# longer means the worker failed to claim, or claimed without GPUs in mind. TORCRUN_KEEP=1 keeps
# the temporary directory (job logs, worker log) for a look afterwards.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
source "$(dirname "$0")/worker_lib.sh"
trap worker_test_cleanup EXIT

start_server "$tmp/db"
python3 - "$tmp/gpus.json" <<'PY'
import json, random, sys
rng = random.Random(701)
jobs = []
for i in range(40):
    g = rng.choice([1, 2])
    d = round(rng.uniform(0.2, 1.5), 2)
    jobs.append({"name": f"j{i:02d}_g{g}", "resource_requirements": f"g{g}",
                 "command": "echo start=$(date +%s.%N); echo cvd=$CUDA_VISIBLE_DEVICES; "
                            f"echo want={g}; sleep {d}; echo end=$(date +%s.%N)"})
rrs = [{"name": f"g{g}", "num_cpus": 1, "num_gpus": g, "num_nodes": 1, "memory": "1m",
        "runtime": "PT1M"} for g in (1, 2)]
json.dump({"name": "gpus", "jobs": jobs, "resource_requirements": rrs}, open(sys.argv[1], "w"))
PY
submit_spec "$tmp/gpus.json"

# CPUs and memory are overridden so that only the GPUs limit how many jobs run at once.
rc=0
env -u SLURM_JOB_ID -u SLURM_JOBID CUDA_VISIBLE_DEVICES=0,1,2,3 timeout 60 \
    "$torcrun" worker "$wf" $(worker_args) --set resources.cpus=16 --set resources.memory=4g \
    2>"$tmp/worker.log" || rc=$?
[ "$rc" = 0 ] || fail "worker exit $rc: $(tail -20 "$tmp/worker.log")"
grep -q '^info worker: pool node=.* gpus=0,1,2,3' "$tmp/worker.log" ||
    fail "pool line: $(grep pool "$tmp/worker.log" || head -5 "$tmp/worker.log")"
left=$(job_statuses | tr ' ' '\n' | grep -v '=completed$' || true)
[ -z "$left" ] || fail "not completed: $left"

python3 - "$tmp/out/job_stdio" "${TORCRUN_T0701_SLACK:-0.5}" <<'PY' || fail "GPU schedule (above)"
import glob, sys
root, slack = sys.argv[1], float(sys.argv[2])
jobs = []
for out in glob.glob(root + "/*_a1.o"):
    f = dict(line.split("=", 1) for line in open(out).read().splitlines() if "=" in line)
    jobs.append({"dir": out, "want": int(f["want"]), "start": float(f["start"]),
                 "end": float(f["end"]), "ids": [i for i in f["cvd"].split(",") if i]})
assert len(jobs) == 40, f"{len(jobs)} stdout files, expected 40"
bad = [j for j in jobs if len(j["ids"]) != j["want"] or len(set(j["ids"])) != j["want"]
       or not set(j["ids"]) <= {"0", "1", "2", "3"}]
assert not bad, f"wrong GPU ids: {bad}"
for a in jobs:
    for b in jobs:
        if a is not b and set(a["ids"]) & set(b["ids"]):
            assert a["end"] <= b["start"] or b["end"] <= a["start"], f"id shared: {a} {b}"

# Idle ids over time, from the recorded intervals (each lies inside the worker's hold on its
# ids, so this over-counts idleness by the claim latency, never under-counts it).
t0 = min(j["start"] for j in jobs)
marks = sorted({j["start"] for j in jobs} | {j["end"] for j in jobs})
def idle_at(t):
    return 4 - sum(j["want"] for j in jobs if j["start"] <= t < j["end"])
worst = 0.0
for j in jobs:
    since = None  # when the current stretch of enough idle ids began, while j waits
    for t in [m for m in marks if m < j["start"]] + [j["start"]]:
        if t < j["start"] and idle_at(t) >= j["want"]:
            since = t if since is None else since
        elif since is not None:
            gap = t - since
            worst = max(worst, gap)
            assert gap <= slack, (f"{j['dir']} (needs {j['want']}) waited {gap:.3f} s from "
                                  f"+{since - t0:.3f} s while enough ids were idle")
            since = None
span = max(j["end"] for j in jobs) - t0
print(f"40 jobs in {span:.1f} s; longest idle-while-waiting stretch {worst:.3f} s")
PY
stop_server
echo ok
