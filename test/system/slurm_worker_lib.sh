# Shared by the Slurm tests that run torcrun workers inside real allocations (sourced after
# slurm_lib.sh, with $torcrun set): a real `torcrun server` on loopback, a worker configuration
# with quick polls, workflows of recording jobs, and the checks on what the jobs recorded.
# Every recording job appends one line to $tmp/rec/<job name>:
#   <SLURMD_NODENAME> <CUDA_VISIBLE_DEVICES|-> <SLURM_STEP_GPUS|-> <start epoch> <end epoch>
# and writes its whole environment to $tmp/rec-env/<job name>.<node>.

source "$(dirname "${BASH_SOURCE[0]}")/server_lib.sh"

# slurm_worker_setup: the server (its EXIT clean-up joins slurm_lib's), $tmp/worker.json and
# the recording job $tmp/record.sh SECONDS. The worker keeps every attempt's directory
# (attempt_directory: always): these tests read the srun command line of each from command.txt.
slurm_worker_setup() {
    trap 'kill_servers; slurm_cleanup' EXIT
    start_server "$tmp/db"
    mkdir -p "$tmp/rec" "$tmp/out"
    cat >"$tmp/worker.json" <<EOF
{"server": {"url": "$base"}, "output_dir": "$tmp/out",
 "poll": {"interval_seconds": 0.5, "long_poll_seconds": 1},
 "termination": {"grace_seconds": 5, "drain_buffer_seconds": 5},
 "limits": {"idle_timeout_seconds": 30}, "attempt_directory": "always"}
EOF
    mkdir -p "$tmp/rec-env"
    cat >"$tmp/record.sh" <<'EOF'
#!/bin/bash
start=$EPOCHREALTIME
env >"$(dirname "$0")/rec-env/$TORC_JOB_NAME.${SLURMD_NODENAME:-none}"
sleep "$1"
echo "${SLURMD_NODENAME:-none} ${CUDA_VISIBLE_DEVICES:--} ${SLURM_STEP_GPUS:--} $start $EPOCHREALTIME" \
    >>"$(dirname "$0")/rec/$TORC_JOB_NAME"
EOF
    chmod +x "$tmp/record.sh"
}

# gpu_workflow FILE COUNT SECONDS [NAME_PREFIX]: COUNT jobs of one CPU and one GPU, each
# recording for SECONDS.
gpu_workflow() {
    python3 - "$@" "$tmp/record.sh" <<'EOF'
import json, sys
path, count, seconds, prefix, record = sys.argv[1], int(sys.argv[2]), sys.argv[3], \
    (sys.argv[4] if len(sys.argv) > 5 else "g"), sys.argv[-1]
spec = {"name": "gpus",
        "resource_requirements": [{"name": "gpu1", "num_cpus": 1, "num_gpus": 1, "num_nodes": 1,
                                   "memory": "100m", "runtime": "PT1M"}],
        "jobs": [{"name": f"{prefix}{i:02d}", "command": f"{record} {seconds}",
                  "resource_requirements": "gpu1"} for i in range(count)]}
json.dump(spec, open(path, "w"))
EOF
}

# submit_workflow FILE: sets wf.
submit_workflow() {
    wf=$("$torcrun" submit --url "$base" "$1" 2>"$tmp/submit.err") || fail "submit: $(cat "$tmp/submit.err")"
    [[ "$wf" =~ ^[0-9]+$ ]] || fail "submit stdout is not an id: '$wf'"
}

# job_statuses: "status count ..." of every job of $wf, e.g. "completed 16".
job_status_counts() {
    "$torcrun" jobs --url "$base" "$wf" --json |
        python3 -c 'import collections, json, sys
c = collections.Counter(j["status"] for j in json.load(sys.stdin))
print(" ".join(f"{k} {v}" for k, v in sorted(c.items())))'
}

# check_records NAME RECORDS PEAK NODES [GPUS_FIELD]: RECORDS recorded lines (of the jobs whose
# names start with $rec_prefix, default all), exactly PEAK of them at one time at most (-1: not
# checked), every node of NODES (space separated) used, one GPU per record (four for jobs named
# big*), and no (node, GPU) held by two records at once. GPUS_FIELD is 2 (CUDA_VISIBLE_DEVICES,
# default) or 3 (SLURM_STEP_GPUS). Prints the figures.
check_records() {
    python3 - "$tmp/rec" "$@" <<'EOF' || fail "$2: records do not hold: $(cat "$tmp"/rec/* 2>/dev/null)"
import os, sys
rec, name, jobs, peak, nodes = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), \
    sys.argv[5].split()
field = int(sys.argv[6]) if len(sys.argv) > 6 else 2
prefix = os.environ.get("rec_prefix", "")
runs = []
for f in sorted(os.listdir(rec)):
    if not f.startswith(prefix): continue
    for line in open(os.path.join(rec, f)):
        w = line.split()
        runs.append((f, w[0], w[field - 1].split(","), float(w[3]), float(w[4])))
bad = []
if len(runs) != jobs: bad.append(f"{len(runs)} records, expected {jobs}")
events = sorted([(r[3], 1) for r in runs] + [(r[4], -1) for r in runs], key=lambda e: (e[0], e[1]))
now = top = 0
for _, d in events:
    now += d; top = max(top, now)
if peak >= 0 and top != peak: bad.append(f"at most {top} at a time, expected {peak}")
used = sorted({r[1] for r in runs})
if used != sorted(nodes): bad.append(f"nodes used {used}, expected {sorted(nodes)}")
for i, a in enumerate(runs):
    want = 4 if a[0].startswith("big") else 1
    if a[2] == ["-"] or len(a[2]) != want: bad.append(f"{a[0]}: GPUs {a[2]}, expected {want}")
    for b in runs[i + 1:]:
        if a[1] == b[1] and set(a[2]) & set(b[2]) and a[3] < b[4] and b[3] < a[4]:
            bad.append(f"{a[0]} and {b[0]} share GPU {a[2]} on {a[1]} at the same time")
pairs = sorted({(r[1], g) for r in runs for g in r[2]})
print(f"{name}: {len(runs)} jobs, at most {top} at a time, (node, GPU) pairs used: "
      + " ".join(f"{n}:{g}" for n, g in pairs))
if bad:
    print("\n".join(bad), file=sys.stderr)
    sys.exit(1)
EOF
}

# no_step_waited DIR...: "step creation temporarily disabled" appears in no file under DIR.
no_step_waited() {
    if grep -rl -e 'step creation temporarily disabled' -e 'step creation still disabled' "$@"; then
        fail "a step waited for resources (files above)"
    fi
    return 0
}

# torc_report_spec FILE MODE [BIG]: the allocation of the Torc report as a Torc user writes it
# today, in YAML: execution_config {mode: MODE}, a slurm_scheduler of 2 nodes with 4 GPUs each,
# an on_workflow_start schedule_nodes action (one direct-mode worker per node when MODE is direct)
# and 16 single-GPU recording jobs, plus with BIG=1 one job of 2 nodes x 4 GPUs named "big".
torc_report_spec() {
    python3 - "$1" "$2" "${3:-0}" "$tmp/record.sh" <<'PY'
import sys
path, mode, big, record = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4]
per_node = "true" if mode == "direct" else "false"
jobs = "".join(f"""  - name: g{i:02d}
    command: {record} 3
    resource_requirements: gpu1
""" for i in range(16))
if big:
    jobs += f"""  - name: big
    command: {record} 3
    resource_requirements: nodes2
"""
open(path, "w").write(f"""# 16 single-GPU jobs in one allocation of 2 nodes x 4 GPUs
name: torc-report-{mode}
execution_config:
  mode: {mode}
resource_requirements:
  - {{name: gpu1, num_cpus: 1, num_gpus: 1, num_nodes: 1, memory: 100m, runtime: PT1M}}
  - {{name: nodes2, num_cpus: 2, num_gpus: 4, num_nodes: 2, memory: 100m, runtime: PT1M}}
slurm_schedulers:
  - {{name: two_gpu_nodes, account: test, nodes: 2, walltime: "00:05:00", gres: "gpu:4"}}
actions:
  - trigger_type: on_workflow_start
    action_type: schedule_nodes
    scheduler: two_gpu_nodes
    scheduler_type: slurm
    num_allocations: 1
    start_one_worker_per_node: {per_node}
jobs:
{jobs}""")
PY
}

# submit_allocations SPEC: `torcrun submit` alone (sets wf, and job to the one allocation's Slurm
# job id), then waits up to 150 s for the allocation to end by itself.
submit_allocations() {
    wf=$("$torcrun" submit --skip-checks --url "$base" --config "$tmp/worker.json" \
        --output-dir "$tmp/out" "$1" 2>"$tmp/submit.err") || fail "submit: $(cat "$tmp/submit.err")"
    [[ "$wf" =~ ^[0-9]+$ ]] || fail "submit stdout is not an id: '$wf'"
    job=$(curl -sf "$base/scheduled_compute_nodes?workflow_id=$wf" | python3 -c 'import json, sys
items = json.load(sys.stdin)["items"]
assert len(items) == 1, items
print(items[0]["scheduler_id"])') || fail "not one allocation record: $(cat "$tmp/submit.err")"
    local deadline=$((SECONDS + 150))
    while squeue -h -j "$job" 2>/dev/null | grep -q .; do
        [ $SECONDS -lt $deadline ] || slurm_fail "allocation $job still running after 150 s"
        sleep 0.5
    done
}

# allocation_record_status: the status of $wf's one scheduled compute node record.
allocation_record_status() {
    curl -sf "$base/scheduled_compute_nodes?workflow_id=$wf" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["items"][0]["status"])'
}

# no_worker_step_variables: no job saw a PMI_*, PMIX_* or SLURM_STEP_* variable (direct mode:
# the per-node workers' own srun step must not leak into jobs).
no_worker_step_variables() {
    if grep -E -l '^(PMI_|PMIX_|SLURM_STEP_)' "$tmp"/rec-env/*; then
        fail "step variables reached jobs: $(grep -E -h '^(PMI_|PMIX_|SLURM_STEP_)' "$tmp"/rec-env/* | sort -u | head)"
    fi
    return 0
}

# submitted_allocations_setup [gpus]: for tests whose allocations torcrun submits: the cluster,
# the server and worker setup, the default 2 nodes (x 4 GPUs with `gpus`) required, and the
# clean-up that also cancels what is left of this test's allocations (cancel_workflow_allocations).
submitted_allocations_setup() {
    slurm_use_cluster
    slurm_worker_setup
    [ "$TORCRUN_SLURM_NODES" = 2 ] || fail "this test needs the default 2 nodes"
    [ "${1:-}" != gpus ] || [ "$TORCRUN_SLURM_GPUS" = 4 ] ||
        fail "this test needs the default 4 GPUs per node"
    trap 'cancel_workflow_allocations; kill_servers; slurm_cleanup' EXIT
}

# workflow_allocations: "<Slurm job> <name>" of each allocation in Slurm whose script lies in
# $tmp/out. Known by the script, not by the name: every test's server numbers its workflows from
# 1, so tests running at once on the shared cluster make jobs of the same names.
workflow_allocations() {
    squeue -h -o "%i %j %o" | awk -v d="$tmp/out/" 'index($3, d) == 1 {print $1, $2}' || true
}

# cancel_workflow_allocations: scancel what workflow_allocations lists (for the EXIT traps).
cancel_workflow_allocations() {
    local job name
    workflow_allocations | while read -r job name; do scancel "$job"; done
}

# wait_workflow_allocations SECONDS STATUSES: until the jobs of $wf are STATUSES (as
# job_status_counts prints them, e.g. "completed 3") and no allocation of $wf is left in Slurm.
wait_workflow_allocations() {
    local deadline=$((SECONDS + $1)) left statuses
    while :; do
        left=$(workflow_allocations)
        statuses=$(job_status_counts)
        [ -z "$left" ] && [ "$statuses" = "$2" ] && return 0
        [ $SECONDS -lt $deadline ] ||
            slurm_fail "after $1 s: jobs $statuses; in Slurm: $left; $(tail -n 30 "$tmp"/out/slurm_output_wf"$wf"_*.e)"
        sleep 1
    done
}

# check_allocation_records COUNT: $wf has COUNT scheduled compute node records of distinct Slurm
# jobs, listed as "<Slurm job> <status>" in $tmp/records.txt; each ends complete (Slurm:
# COMPLETED), or canceled while its allocation was still queued with nothing left to run (Slurm:
# CANCELLED before it ran, and a worker said so). The first, the one submit made, is complete and
# its worker marked it active.
check_allocation_records() {
    local records job status logs=("$tmp"/out/slurm_output_wf"$wf"_*.e) first
    records=$(curl -sf "$base/scheduled_compute_nodes?workflow_id=$wf")
    python3 - "$records" "$1" <<'PY' >"$tmp/records.txt" || fail "records: $records"
import json, sys
items = json.loads(sys.argv[1])["items"]
assert len(items) == int(sys.argv[2]), items
ids = [r["scheduler_id"] for r in items]
assert len(set(ids)) == len(ids) and all(i > 0 for i in ids), ids
for r in items:
    assert r["scheduler_type"] == "slurm", r
    assert r["status"] in ("complete", "canceled"), r
    print(r["scheduler_id"], r["status"])
PY
    while read -r job status; do
        state=$(slurm_job_field "$job" JobState)
        if [ "$status" = canceled ]; then
            [ "$state" = CANCELLED ] && [ "$(slurm_job_field "$job" RunTime)" = 00:00:00 ] ||
                fail "record of $job canceled, but Slurm says $state after $(slurm_job_field "$job" RunTime)"
            grep -q "allocation: Slurm job $job was still queued" "${logs[@]}" ||
                fail "no worker said it cancelled $job"
        else
            [ "$state" = COMPLETED ] || fail "record of $job complete, but Slurm says $state"
        fi
    done <"$tmp/records.txt"
    first=$(awk 'NR == 1 {print $1}' "$tmp/records.txt")
    [ "$(awk 'NR == 1 {print $2}' "$tmp/records.txt")" = complete ] ||
        fail "the first allocation's record: $(cat "$tmp/records.txt")"
    grep -q "allocation: Slurm job $first is active" "$tmp/out/slurm_output_wf${wf}_sl${first}.e" ||
        fail "the first allocation's worker did not mark it active"
    echo "records: $(tr '\n' ' ' <"$tmp/records.txt")"
}
